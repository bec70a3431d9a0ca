package results

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// rowGroupRows caps a Parquet row group. Blocks are buffered into row
// groups of up to this many rows: large enough for good compression and for
// DuckDB to split a scan, small enough that the encoded group held in memory
// stays a few tens of megabytes.
const rowGroupRows = 1 << 18

// parquetProps sets every writer property that shapes the file, so the
// output does not drift with the library's defaults: format 2.6 with v1 data
// pages (the most widely read), statistics, zstd, and the encodings below.
//
// Zstd level 1: the files are within 2% of level 3's size, and encoding is
// the largest cost of a run with --out. (arrow-go v18 pools its zstd
// encoders; the frozen v15 line built one with a 4 MiB history per data
// page.)
//
// Integer columns are DELTA_BINARY_PACKED: ids and cycles mostly climb by
// small steps, so their deltas pack into a few bits a value where plain
// encoding hands zstd eight bytes; zstd's work, the tables and a replay's
// instructions shrink. DuckDB, pyarrow (pandas) and polars read the
// encoding and get the same columns and values (interop).
//
// Data pages of 256 KiB, not the library's 1 MiB: every column of every
// open table keeps a page's values in hand, so with seven tables the
// default page size held ~170 MB; the files stay within 2% of the size,
// and encoding is faster. docs/performance.md has the current figures
// and the commands that measure them.
//
// Dictionary encoding is on for the string columns, whose rows the encoder
// hands over as indices into a dictionary of its own (dictColumn).
// Elsewhere it is off: handed plain values, the library's dictionary
// encoder hashes every one, which costs more than it saves.
func parquetProps(mem memory.Allocator) *parquet.WriterProperties {
	props := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithCreatedBy(parquet.DefaultCreatedBy),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDataPageSize(256 << 10),
		parquet.WithDictionaryDefault(false),
		parquet.WithStats(true),
	}
	return parquet.NewWriterProperties(append(props, columnProps()...)...)
}

// columnProps sets DELTA_BINARY_PACKED for every integer column of every
// table, and a dictionary for every string column (a property names a
// column by its path, which is its name).
func columnProps() []parquet.WriterProperty {
	var ps []parquet.WriterProperty
	for _, s := range schemas {
		for _, f := range s.Fields() {
			switch f.Type.ID() {
			case arrow.INT64, arrow.INT32:
				ps = append(ps, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
			case arrow.STRING:
				ps = append(ps, parquet.WithDictionaryFor(f.Name, true))
			}
		}
	}
	return ps
}

// parquetEncoder collects blocks into row groups of rowGroupRows rows
// (the last one fewer), each held encoded and compressed in memory until
// it is full.
//
// It writes column by column through the library's column writers, not
// its record writer, for the string columns' sake: each is written as
// dictionary indices, an index a row, where a string costs its bytes,
// their statistics and zstd's pass over them (on a synth 5M replay with
// --out the run columns were a sixth of the process's CPU). A run column
// is one value over a stretch of rows (writeRun); the others hold a
// handful of values in long stretches (dictColumn, dictcols.go).
type parquetEncoder struct {
	w         *file.Writer
	fields    []arrow.Field
	mem       memory.Allocator
	rg        file.BufferedRowGroupWriter // the group being filled; nil before the first row
	rgRows    int64                       // rows in rg
	groupRows int64                       // rows a group holds: rowGroupRows, less in tests
	defs      []int16                     // a nullable column's definition levels, reused
	dictCols  []dictColumn                // by field: the string columns' (dictcols.go)
}

func newParquetEncoder(w io.Writer, s *arrow.Schema, mem memory.Allocator) (*parquetEncoder, error) {
	props := parquetProps(mem)
	root, err := parquetSchema(s, props)
	if err != nil {
		return nil, err
	}
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props))
	if err != nil {
		return nil, err
	}
	return &parquetEncoder{
		w:         fw,
		fields:    s.Fields(),
		mem:       mem,
		groupRows: rowGroupRows,
		dictCols:  make([]dictColumn, len(s.Fields())),
	}, nil
}

// write appends b's rows to the row group being filled, starting the next
// one whenever it is full.
func (e *parquetEncoder) write(b block) error {
	for off, n := int64(0), b.rows(); off < n; {
		if e.rg == nil || e.rgRows == e.groupRows {
			rg, err := e.w.AppendBufferedRowGroupChecked() // closes the full one
			if err != nil {
				return err
			}
			e.rg, e.rgRows = rg, 0
			for i := range e.dictCols {
				e.dictCols[i].reset()
			}
		}
		k := min(n-off, e.groupRows-e.rgRows)
		if err := e.writeRows(b, off, k); err != nil {
			return err
		}
		e.rgRows += k
		off += k
	}
	return nil
}

// writeRows appends rows [off, off+n) of b to the row group, column by
// column.
func (e *parquetEncoder) writeRows(b block, off, n int64) error {
	for i := range runColumns {
		cw, err := e.rg.Column(i)
		if err != nil {
			return err
		}
		if err := e.writeRun(cw, i, b.runs, off, n); err != nil {
			return fmt.Errorf("column %s: %w", e.fields[i].Name, err)
		}
	}
	for j, col := range b.rest.Columns() {
		i := runColumns + j
		cw, err := e.rg.Column(i)
		if err != nil {
			return err
		}
		arr := col
		if off != 0 || n != int64(col.Len()) {
			arr = array.NewSlice(col, off, off+n)
			defer arr.Release()
		}
		if strs, ok := arr.(*array.String); ok && !e.fields[i].Nullable {
			if err := e.writeDict(cw, &e.dictCols[i], strs); err != nil {
				return fmt.Errorf("column %s: %w", e.fields[i].Name, err)
			}
			continue
		}
		var defs []int16
		if e.fields[i].Nullable {
			defs = e.defLevels(arr)
		}
		if err := e.put(cw, arr, defs); err != nil {
			return fmt.Errorf("column %s: %w", e.fields[i].Name, err)
		}
	}
	return nil
}

// defLevels are a nullable column's Parquet definition levels: 1 where
// arr holds a value, 0 where it is null, read from its validity bitmap
// (a column is often all set or all null: a launch's SPAWN fields under
// any other policy).
func (e *parquetEncoder) defLevels(arr arrow.Array) []int16 {
	n := arr.Len()
	if cap(e.defs) < n {
		e.defs = make([]int16, n)
	}
	defs := e.defs[:n]
	switch arr.NullN() {
	case 0:
		for i := range defs {
			defs[i] = 1
		}
	case n:
		clear(defs)
	default:
		bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
		for i := range defs {
			j := off + i
			defs[i] = int16(bits[j>>3] >> (j & 7) & 1)
		}
	}
	return defs
}

// runChunkRows is how many rows of a run column's stretch are handed
// over at a time, as indices into the group's dictionary.
const runChunkRows = 4096

// runChunkIndices is runChunkRows zero indices: a run column's group has
// one value in its dictionary, the first it met.
var runChunkIndices = make([]int32, runChunkRows)

// writeRun writes rows [off, off+n) of run column col, whose values the
// stretches runs hold. The group's dictionary is the value of its first
// row, written as writeDict writes a first row; a stretch of that value
// is its index, runChunkRows rows at a time, and a stretch of a second
// run's value is strings, which the library adds to the dictionary.
func (e *parquetEncoder) writeRun(cw file.ColumnChunkWriter, col int, runs []runRows, off, n int64) error {
	c, field := &e.dictCols[col], runFields[col]
	at := int64(0)
	for i := range runs {
		r := &runs[i].run
		lo, hi := max(at, off), min(at+int64(runs[i].rows), off+n)
		at += int64(runs[i].rows)
		if lo >= hi {
			continue
		}
		if c.values == nil {
			first := repeatStrings(e.mem, []runRows{{*r, 1}}, field)
			err := e.writeDict(cw, c, first.(*array.String))
			first.Release()
			if err != nil {
				return err
			}
			lo++
		}
		if _, ok := c.index[field(r)]; !ok || !dictEncoded(cw) {
			if lo == hi {
				continue
			}
			strs := repeatStrings(e.mem, []runRows{{*r, int(hi - lo)}}, field)
			err := e.put(cw, strs, nil)
			strs.Release()
			if err != nil {
				return err
			}
			continue
		}
		for m := hi - lo; m > 0; {
			k := min(m, runChunkRows)
			if err := e.putIndices(cw, c, runChunkIndices[:k]); err != nil {
				return err
			}
			m -= k
		}
	}
	return nil
}

// put writes arr to column cw, arr's definition levels defs if the column
// is nullable.
//
// The library leaves empty strings out of a column's statistics when the
// array holds no string bytes at all, and from a dictionary's always, so
// a row group with rows of "" and of another value would be bounded by
// the other alone, and a reader that looks for "" (the params of a run
// with the defaults, say) would skip the group. put counts "" in itself,
// into the page the rows start in and the one they end in.
func (e *parquetEncoder) put(cw file.ColumnChunkWriter, arr arrow.Array, defs []int16) error {
	empty := leftEmpty(arr)
	if empty {
		boundEmpty(cw)
	}
	if err := writeColumn(e.mem, cw, arr, defs); err != nil {
		return err
	}
	if empty {
		boundEmpty(cw)
	}
	return nil
}

// leftEmpty reports whether the library would leave "" out of the
// statistics of arr's values: a dictionary array whose dictionary holds
// "", or strings with values, all "".
func leftEmpty(arr arrow.Array) bool {
	if d, ok := arr.(*array.Dictionary); ok {
		s, ok := d.Dictionary().(*array.String)
		return d.Len() > d.NullN() && ok && holdsEmpty(s)
	}
	s, ok := arr.(*array.String)
	return ok && s.Len() > s.NullN() && len(s.ValueBytes()) == 0
}

// holdsEmpty reports whether s holds "".
func holdsEmpty(s *array.String) bool {
	for i := range s.Len() {
		if s.IsValid(i) && s.ValueLen(i) == 0 {
			return true
		}
	}
	return false
}

// boundEmpty counts "" into the statistics of cw's current page.
func boundEmpty(cw file.ColumnChunkWriter) {
	if st, ok := cw.PageStatistics().(*metadata.ByteArrayStatistics); ok {
		st.SetMinMax(parquet.ByteArray{}, parquet.ByteArray{})
	}
}

// close ends the row group being filled and writes the footer.
func (e *parquetEncoder) close() error {
	for i := range e.dictCols {
		e.dictCols[i].reset()
	}
	return e.w.Close()
}
