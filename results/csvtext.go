package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// csvEncoder writes CSV with a header line, nulls as empty fields, and
// every float with a decimal point or an exponent. The last matters:
// DuckDB's read_csv infers a column's type from a sample of its first
// rows, and a float column whose sampled values are all whole (an
// occupancy of 0 while the GPU idles) written as "0" is read as BIGINT,
// rounding every later value without a word.
type csvEncoder struct {
	w   *csv.Writer
	rec []string
}

func newCSVEncoder(w io.Writer, s *arrow.Schema) (encoder, error) {
	e := &csvEncoder{w: csv.NewWriter(w), rec: make([]string, s.NumFields())}
	for i, f := range s.Fields() {
		e.rec[i] = f.Name
	}
	return e, e.w.Write(e.rec)
}

func (e *csvEncoder) write(rec arrow.Record) error {
	for row := 0; row < int(rec.NumRows()); row++ {
		for j, col := range rec.Columns() {
			text, err := csvField(col, row)
			if err != nil {
				return err
			}
			e.rec[j] = text
		}
		if err := e.w.Write(e.rec); err != nil {
			return err
		}
	}
	return nil
}

func (e *csvEncoder) close() error {
	e.w.Flush()
	return e.w.Error()
}

// csvField is one value's text. The column types are those of schema.go.
func csvField(col arrow.Array, row int) (string, error) {
	if col.IsNull(row) {
		return "", nil
	}
	switch a := col.(type) {
	case *array.String:
		return a.Value(row), nil
	case *array.Int64:
		return strconv.FormatInt(a.Value(row), 10), nil
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(row)), 10), nil
	case *array.Float64:
		return floatText(a.Value(row)), nil
	}
	return "", fmt.Errorf("results: no CSV form for a %s column", col.DataType())
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
