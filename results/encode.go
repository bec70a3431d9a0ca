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
)

// An encoder turns blocks of rows into one table file of a Format.
type encoder interface {
	// write appends a block of rows.
	write(b block) error
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
		return records{fw, s, mem}, nil
	case CSV:
		return newCSVEncoder(w, s, mem)
	default:
		return newParquetEncoder(w, s, mem)
	}
}

// records is the encoder of a format that takes whole records (Arrow
// IPC): it lays each block out with its run columns as strings.
type records struct {
	w interface {
		Write(arrow.Record) error
		Close() error
	}
	schema *arrow.Schema
	mem    memory.Allocator
}

func (e records) write(b block) error {
	rec := b.record(e.schema, e.mem)
	defer rec.Release()
	return e.w.Write(rec)
}

func (e records) close() error { return e.w.Close() }

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
	in   chan block
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newAsyncEncoder(enc encoder) *asyncEncoder {
	in := make(chan block, encodeAhead)
	a := &asyncEncoder{in: in, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		var rows int64
		for b := range in {
			if a.failed() == nil {
				if err := enc.write(b); err != nil {
					a.fail(fmt.Errorf("rows %d-%d: %w", rows+1, rows+b.rows(), err))
				}
			}
			rows += b.rows()
			b.release()
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

func (a *asyncEncoder) write(b block) error {
	if err := a.failed(); err != nil {
		return err
	}
	b.retain()
	a.in <- b
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
