package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// csvEncoder writes CSV with a header line, nulls as empty fields, and
// every float with a decimal point or an exponent. The last matters:
// DuckDB's read_csv infers a column's type from a sample of its first
// rows, and a float column whose sampled values are all whole (an
// occupancy of 0 while the GPU idles) written as "0" is read as BIGINT,
// rounding every later value without a word.
type csvEncoder struct {
	w      *csv.Writer
	fields []fieldText // one per column, chosen from the schema
	rec    []string
}

// fieldText is a column's text for one row; null is handled before it.
type fieldText func(col arrow.Array, row int) string

// newCSVEncoder writes the header line and picks each column's text form
// once, so a schema with a type CSV cannot hold fails here, not per row.
func newCSVEncoder(w io.Writer, s *arrow.Schema) (*csvEncoder, error) {
	e := &csvEncoder{w: csv.NewWriter(w), rec: make([]string, s.NumFields())}
	for i, f := range s.Fields() {
		text, ok := textOf[f.Type.ID()]
		if !ok {
			return nil, fmt.Errorf("results: no CSV form for column %s of type %s", f.Name, f.Type)
		}
		e.fields = append(e.fields, text)
		e.rec[i] = f.Name
	}
	return e, e.w.Write(e.rec)
}

func (e *csvEncoder) Write(rec arrow.Record) error {
	for row := 0; row < int(rec.NumRows()); row++ {
		for j, col := range rec.Columns() {
			e.rec[j] = ""
			if !col.IsNull(row) {
				e.rec[j] = e.fields[j](col, row)
			}
		}
		if err := e.w.Write(e.rec); err != nil {
			return err
		}
	}
	return nil
}

func (e *csvEncoder) Close() error {
	e.w.Flush()
	return e.w.Error()
}

// textOf holds the text form of each column type schema.go uses.
var textOf = map[arrow.Type]fieldText{
	arrow.STRING: func(c arrow.Array, i int) string { return c.(*array.String).Value(i) },
	arrow.INT64:  func(c arrow.Array, i int) string { return strconv.FormatInt(c.(*array.Int64).Value(i), 10) },
	arrow.INT32:  func(c arrow.Array, i int) string { return strconv.FormatInt(int64(c.(*array.Int32).Value(i)), 10) },
	arrow.FLOAT64: func(c arrow.Array, i int) string {
		return floatText(c.(*array.Float64).Value(i))
	},
}

// floatText is the shortest text that reads back as exactly v, with ".0"
// added to a whole number so that no reader takes the column for integers.
func floatText(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if strings.ContainsAny(s, ".eIN") {
		return s
	}
	return s + ".0"
}
