package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/results/internal/parquet"
)

// rowGroupRows caps a Parquet row group. Blocks are buffered into row
// groups of up to this many rows: large enough for good compression and for
// DuckDB to split a scan, small enough that the encoded group held in memory
// stays a few tens of megabytes.
const rowGroupRows = 1 << 18

// parquetColumns are the Parquet columns of an Arrow schema of the
// tables' four types.
func parquetColumns(s *arrow.Schema) ([]parquet.Column, error) {
	cols := make([]parquet.Column, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = parquet.Column{Name: f.Name, Optional: f.Nullable}
		switch f.Type.ID() {
		case arrow.INT64:
			cols[i].Type = parquet.Int64
		case arrow.INT32:
			cols[i].Type = parquet.Int32
		case arrow.FLOAT64:
			cols[i].Type = parquet.Double
		case arrow.STRING:
			cols[i].Type = parquet.String
		default:
			return nil, fmt.Errorf("results: column %s: no Parquet mapping for %s", f.Name, f.Type)
		}
	}
	return cols, nil
}

// arrowTypeOf is the Arrow type of a Parquet column's type.
var arrowTypeOf = map[parquet.Type]arrow.DataType{parquet.Int64: i64, parquet.Int32: i32, parquet.Double: f64, parquet.String: str}

// parquetEncoder collects blocks into row groups of rowGroupRows rows
// (the last one fewer), each held encoded and compressed in memory until
// it is full (package parquet has the file's layout).
//
// A string column is written as indices into the group's dictionary: a
// run column a stretch of one index (writeRuns), the others an index a
// row, found by a lookup only where the value changes (writeStrings):
// they hold a handful of values in long stretches (BFS scale 20: two
// kernel names over 165,471 rows).
type parquetEncoder struct {
	w         *parquet.Writer
	fields    []arrow.Field
	rgRows    int64 // rows in the group being filled
	groupRows int64 // rows a group holds: rowGroupRows, less in tests
	idx       []uint32
}

func newParquetEncoder(w io.Writer, s *arrow.Schema, _ memory.Allocator) (*parquetEncoder, error) {
	cols, err := parquetColumns(s)
	if err != nil {
		return nil, err
	}
	pw, err := parquet.NewWriter(w, cols)
	if err != nil {
		return nil, err
	}
	return &parquetEncoder{w: pw, fields: s.Fields(), groupRows: rowGroupRows}, nil
}

// write appends b's rows to the row group being filled, ending it
// whenever it is full.
func (e *parquetEncoder) write(b block) error {
	for off, n := int64(0), b.rows(); off < n; {
		k := min(n-off, e.groupRows-e.rgRows)
		if err := e.writeRows(b, off, k); err != nil {
			return err
		}
		e.rgRows += k
		off += k
		if e.rgRows == e.groupRows {
			if err := e.w.EndRowGroup(); err != nil {
				return err
			}
			e.rgRows = 0
		}
	}
	return nil
}

// writeRows appends rows [off, off+n) of b to the row group, column by
// column.
func (e *parquetEncoder) writeRows(b block, off, n int64) error {
	for i := range runColumns {
		e.writeRuns(i, b.runs, off, n)
	}
	lo, hi := int(off), int(off+n)
	for j, col := range b.rest.Columns() {
		i := runColumns + j
		f := e.fields[i]
		var valid parquet.Bitmap
		if col.NullN() > 0 {
			if !f.Nullable {
				return fmt.Errorf("column %s: a null in a column that holds none", f.Name)
			}
			valid = parquet.Bitmap{Bits: col.NullBitmapBytes(), Off: col.Data().Offset() + lo}
		}
		switch a := col.(type) {
		case *array.Int64:
			e.w.Int64s(i, a.Int64Values()[lo:hi], valid)
		case *array.Int32:
			e.w.Int32s(i, a.Int32Values()[lo:hi], valid)
		case *array.Float64:
			e.w.Doubles(i, a.Float64Values()[lo:hi], valid)
		case *array.String:
			e.writeStrings(i, a, lo, hi, valid)
		default:
			return fmt.Errorf("column %s: an arrow %s array", f.Name, col.DataType())
		}
	}
	return e.w.Err()
}

// writeRuns writes rows [off, off+n) of run column col, whose values the
// stretches runs hold: a stretch is its value's index, repeated.
func (e *parquetEncoder) writeRuns(col int, runs []runRows, off, n int64) {
	field, at := runFields[col], int64(0)
	for i := range runs {
		lo, hi := max(at, off), min(at+int64(runs[i].rows), off+n)
		at += int64(runs[i].rows)
		if lo < hi {
			e.w.Repeat(col, e.w.Index(col, field(&runs[i].run)), int(hi-lo))
		}
	}
}

// writeStrings writes rows [lo, hi) of string column col, each as its
// index in the group's dictionary; a stretch of equal values costs a
// comparison a row, a change of value a lookup. It reads the array's
// offsets and bytes itself, and asks for nulls only where it has some:
// through Value and IsNull each row cost more (BFS scale 20, whose
// kernel and launch rows carry two strings each: --out parquet adds
// 1,756 instructions a CTA where it added 1,814, scripts/instructions.sh
// bfs-parquet).
func (e *parquetEncoder) writeStrings(col int, a *array.String, lo, hi int, valid parquet.Bitmap) {
	idx := slices.Grow(e.idx[:0], hi-lo)[:hi-lo]
	// Row i's bytes are data[offs[i]:offs[i+1]], as Value reads them:
	// the offsets are into the whole buffer, a slice of an array too.
	offs, nulls := a.ValueOffsets(), a.NullN() > 0
	var data []byte
	if buf := a.Data().Buffers()[2]; buf != nil {
		data = buf.Bytes()
	}
	var prev []byte
	k := uint32(0)
	for i := lo; i < hi; i++ {
		if nulls && a.IsNull(i) {
			idx[i-lo] = 0
			continue
		}
		if v := data[offs[i]:offs[i+1]]; prev == nil || string(v) != string(prev) {
			k, prev = e.w.Index(col, a.Value(i)), v
		}
		idx[i-lo] = k
	}
	e.idx = idx
	e.w.Indices(col, idx, valid)
}

// close ends the row group being filled and writes the footer.
func (e *parquetEncoder) close() error { return e.w.Close() }

// arrowSchema is a Parquet file's columns as the tables' arrow types.
func arrowSchema(cols []parquet.Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: arrowTypeOf[c.Type], Nullable: c.Optional}
	}
	return arrow.NewSchema(fields, nil)
}

// openParquet opens a table's Parquet file and checks its columns are
// want's. The caller closes the file.
func openParquet(path string, want *arrow.Schema) (*os.File, *parquet.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err == nil {
		var pf *parquet.File
		if pf, err = parquet.Open(fh, st.Size()); err == nil {
			if err = sameColumns(path, arrowSchema(pf.Columns()), want); err == nil {
				return fh, pf, nil
			}
		}
	}
	fh.Close()
	var unsupported *parquet.UnsupportedColumnError
	if errors.As(err, &unsupported) {
		return nil, nil, &OldTableError{path, unsupported.Error()}
	}
	if errors.Is(err, parquet.ErrFormat) {
		return nil, nil, fmt.Errorf("%s: not a whole Parquet file: %w", path, err)
	}
	return nil, nil, err
}

// scanBatchRows is the most rows a record batch read from a Parquet file
// holds; a batch never spans row groups.
const scanBatchRows = 1 << 14

// scanParquet reads a Parquet table batch by batch, as Scan describes:
// a row group's columns at a time.
func scanParquet(path string, want *arrow.Schema, fn func(arrow.Record) error) error {
	tempfile.AddInput(path)
	fh, pf, err := openParquet(path, want)
	if err != nil {
		return err
	}
	defer fh.Close()
	b := array.NewRecordBuilder(memory.DefaultAllocator, want)
	defer b.Release()
	vals := make([]*parquet.Values, want.NumFields())
	for g := range pf.RowGroups() {
		for i := range vals {
			if vals[i], err = pf.ReadColumn(g, i); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		for row, n := 0, int(pf.RowGroupRows(g)); row < n; row += scanBatchRows {
			hi := min(n, row+scanBatchRows)
			for i, v := range vals {
				appendValues(b.Field(i), v, row, hi)
			}
			rec := b.NewRecord()
			err := fn(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// appendValues appends rows [lo, hi) of v to fb, a builder of the arrow
// type arrowSchema gives v's column.
func appendValues(fb array.Builder, v *parquet.Values, lo, hi int) {
	var valid []bool
	if v.Valid != nil {
		valid = v.Valid[lo:hi]
	}
	switch b := fb.(type) {
	case *array.Int64Builder:
		b.AppendValues(v.Ints[lo:hi], valid)
	case *array.Int32Builder:
		for i, x := range v.Ints[lo:hi] {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			b.Append(int32(x))
		}
	case *array.Float64Builder:
		b.AppendValues(v.Doubles[lo:hi], valid)
	case *array.StringBuilder:
		b.AppendValues(v.Strings[lo:hi], valid)
	}
}
