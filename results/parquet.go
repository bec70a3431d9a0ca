package results

import (
	"errors"
	"fmt"
	"io"
	"os"

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
// A string column is written as indices into the group's dictionary, a
// stretch of rows that hold one value (a block's run columns, and its
// other string columns, strcols.go) as that value's index, repeated
// (writeStretches): they hold a handful of values in long stretches (BFS
// scale 20: two kernel names over 165,471 rows). Read from the string
// arrays, each row's bytes were compared with the row before's
// (strcols.go has what that cost).
type parquetEncoder struct {
	w         *parquet.Writer
	fields    []arrow.Field
	rgRows    int64 // rows in the group being filled
	groupRows int64 // rows a group holds: rowGroupRows, less in tests
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
		e.writeStretches(i, runStretches(b.runs, i), off, n)
	}
	lo, hi, k := int(off), int(off+n), 0
	for i := runColumns; i < len(e.fields); i++ {
		if s := b.stretches(i - runColumns); s != nil {
			e.writeStretches(i, s, off, n)
			continue
		}
		col, f := b.rest.Column(k), e.fields[i]
		k++
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
		default:
			return fmt.Errorf("column %s: an arrow %s array", f.Name, col.DataType())
		}
	}
	return e.w.Err()
}

// writeStretches writes rows [off, off+n) of string column col, whose
// values the stretches runs hold (a run column's, or another string
// column's, strcols.go): a stretch is its value's index, repeated.
func (e *parquetEncoder) writeStretches(col int, runs []stretch, off, n int64) {
	at := int64(0)
	for i := range runs {
		lo, hi := max(at, off), min(at+int64(runs[i].rows), off+n)
		at += int64(runs[i].rows)
		if lo < hi {
			e.w.Repeat(col, e.w.Index(col, runs[i].v), int(hi-lo))
		}
	}
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

// scanBatchBytes is the most bytes of strings a column of a batch holds
// (one row's, at most parquet.MaxString, excepted): well inside the 2 GiB
// an Arrow string array's 32-bit offsets reach, whatever the rows'
// strings.
const scanBatchBytes = 64 << 20

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
		for row, n := 0, int(pf.RowGroupRows(g)); row < n; {
			hi := batchEnd(vals, row, min(n, row+scanBatchRows))
			for i, v := range vals {
				appendValues(b.Field(i), v, row, hi)
			}
			rec := b.NewRecord()
			err := fn(rec)
			rec.Release()
			if err != nil {
				return err
			}
			row = hi
		}
	}
	return nil
}

// batchEnd is where a batch of rows from lo ends, at most at hi: before
// the row that would take a string column's bytes past scanBatchBytes,
// and after one row at least.
func batchEnd(vals []*parquet.Values, lo, hi int) int {
	for _, v := range vals {
		if v.Strings == nil {
			continue
		}
		size := 0
		for i, s := range v.Strings[lo:hi] {
			if size += len(s); size > scanBatchBytes && i > 0 {
				hi = lo + i
				break
			}
		}
	}
	return hi
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
