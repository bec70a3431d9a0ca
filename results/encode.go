package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// rowGroupRows caps a Parquet row group. Batches are buffered into row
// groups of up to this many rows: large enough for good compression and for
// DuckDB to split a scan, small enough that the encoded group held in memory
// stays a few tens of megabytes.
const rowGroupRows = 1 << 18

// An encoder turns record batches into one table file of a Format.
type encoder interface {
	// write appends a batch of rows.
	write(rec arrow.Record) error
	// close writes what ends the file (footer, buffered row group) to the
	// underlying writer, without closing it.
	close() error
}

// newEncoder starts a file of format f with the given schema on w. Every
// format writes its header at once, so a table that never gets a row is
// still a complete file with the full schema.
func newEncoder(f Format, w *posWriter, s *arrow.Schema, mem memory.Allocator) (encoder, error) {
	switch f {
	case Arrow:
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(s), ipc.WithAllocator(mem))
		if err != nil {
			return nil, err
		}
		return ipcEncoder{fw}, nil
	case CSV:
		return newCSVEncoder(w, s)
	default:
		fw, err := pqarrow.NewFileWriter(s, w, parquetProps(mem), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
		if err != nil {
			return nil, err
		}
		return parquetEncoder{fw}, nil
	}
}

// parquetProps sets every writer property that shapes the file, so the
// output does not drift with the library's defaults: format 2.6 with v1 data
// pages (the most widely read), statistics, zstd, and the encodings below.
//
// Zstd level 1: the files are within 2% of level 3's size, and encoding is
// the largest cost of a run with --out. (arrow-go v18 pools its zstd
// encoders; the frozen v15 line built one with a 4 MiB history per data
// page, which is why we moved: BenchmarkWriteCTAs/parquet went from 1.28M
// to 2.19M rows/s and from 1.36 GB to 0.50 GB allocated per million rows.)
//
// Integer columns are DELTA_BINARY_PACKED: ids and cycles mostly climb by
// small steps, so their deltas pack into a few bits a value where plain
// encoding hands zstd eight bytes. Zstd's work is what shrinks: a BFS
// scale-20 replay with --out costs 13% fewer instructions (callgrind,
// 7,668M to 6,705M for the whole process) and its tables are 11% smaller
// (4.66 to 4.14 MB). DuckDB, pyarrow (pandas) and polars read the
// encoding and get the same columns and values (interop).
//
// Data pages of 256 KiB, not the library's 1 MiB: every column of every
// open table keeps a page's values in hand, so with seven tables the
// default page size held ~170 MB (a 32-replay study with --out: 460 MB
// resident, now 290 MB); the files stay within 2% of the size, and
// encoding is faster (BenchmarkWriteCTAs/parquet +29% rows/s, -33% bytes
// allocated, benchstat n=6).
//
// Dictionary encoding is off: with zstd the repeated strings (trace,
// policy, names) cost next to nothing anyway, and the library's dictionary
// encoder allocates for every value. Handing the run columns over as
// Arrow dictionary arrays (one value, its indices all zero) saves little:
// the library takes a column's statistics from the dictionary alone only
// when it is the very array object of the batch before, and pqarrow
// slices every column it writes, which makes a new one each time, so it
// hashes every index to find the values used; with writing the indices
// that cost about what the plain encoding and statistics it replaced did
// (BFS scale 20 --out: 6,533M to 6,459M instructions, 1%).
func parquetProps(mem memory.Allocator) *parquet.WriterProperties {
	props := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithCreatedBy(parquet.DefaultCreatedBy),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		parquet.WithDataPageSize(256 << 10),
		parquet.WithDictionaryDefault(false),
		parquet.WithStats(true),
	}
	return parquet.NewWriterProperties(append(props, deltaProps()...)...)
}

// deltaProps sets DELTA_BINARY_PACKED for every integer column of every
// table (a property names a column by its path, which is its name).
func deltaProps() []parquet.WriterProperty {
	var ps []parquet.WriterProperty
	for _, s := range schemas {
		for _, f := range s.Fields() {
			if id := f.Type.ID(); id == arrow.INT64 || id == arrow.INT32 {
				ps = append(ps, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
			}
		}
	}
	return ps
}

// parquetEncoder collects batches into row groups of up to rowGroupRows
// rows, held encoded and compressed in memory until the group is full.
type parquetEncoder struct{ fw *pqarrow.FileWriter }

func (e parquetEncoder) write(rec arrow.Record) error { return e.fw.WriteBuffered(rec) }
func (e parquetEncoder) close() error                 { return e.fw.Close() }

type ipcEncoder struct{ fw *ipc.FileWriter }

func (e ipcEncoder) write(rec arrow.Record) error { return e.fw.Write(rec) }
func (e ipcEncoder) close() error                 { return e.fw.Close() }

// posWriter buffers writes to a file and counts them. The Arrow IPC writer
// asks for its position with Seek(0, io.SeekCurrent) and nothing else, so a
// buffered stream can stand in for the file.
type posWriter struct {
	buf *bufio.Writer
	pos int64
}

var errSeek = errors.New("results: output stream cannot seek")

func (w *posWriter) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	w.pos += int64(n)
	return n, err
}

func (w *posWriter) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return w.pos, errSeek
	}
	return w.pos, nil
}

// encodeAhead is how many batches a table's encoder goroutine may have
// waiting: the memory a Writer holds beyond its builders is at most this
// many batches a table.
const encodeAhead = 2

// asyncEncoder runs an encoder on its own goroutine, so the replay (or
// the merge of several) builds the next batch while this one is
// compressed and written, and the tables are encoded side by side.
//
// With --out the process has more work than one core: the engine, a
// Recorder's builder goroutine (spool.go) and these encoders, the ctas
// table's the largest, keep two cores busy for the whole run, so the
// wall time follows the instructions of building and encoding rows, not
// one goroutine's path; splitting one table's encoding over more
// goroutines would not shorten it on two cores. A
// failure is returned by the next write, or by close.
type asyncEncoder struct {
	in   chan arrow.Record
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newAsyncEncoder(enc encoder) *asyncEncoder {
	in := make(chan arrow.Record, encodeAhead)
	a := &asyncEncoder{in: in, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		var rows int64
		for rec := range in {
			if a.failed() == nil {
				if err := enc.write(rec); err != nil {
					a.fail(fmt.Errorf("rows %d-%d: %w", rows+1, rows+rec.NumRows(), err))
				}
			}
			rows += rec.NumRows()
			rec.Release()
		}
		if a.failed() == nil {
			if err := enc.close(); err != nil {
				a.fail(err)
			}
		}
	}()
	return a
}

func (a *asyncEncoder) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *asyncEncoder) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.err = err
}

func (a *asyncEncoder) write(rec arrow.Record) error {
	if err := a.failed(); err != nil {
		return err
	}
	rec.Retain()
	a.in <- rec
	return nil
}

// abandon stops the goroutine without ending the file: what it holds is
// dropped.
func (a *asyncEncoder) abandon() {
	if a.failed() == nil {
		a.fail(errAbandoned)
	}
	a.close()
}

var errAbandoned = errors.New("results: table abandoned")

// close waits for the goroutine to encode what it holds and end the file.
func (a *asyncEncoder) close() error {
	if a.in != nil {
		close(a.in)
		a.in = nil
	}
	<-a.done
	return a.failed()
}
