package results

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// csvEncoder writes CSV with a header line, nulls as empty fields, and
// every float with a decimal point or an exponent. The last matters:
// DuckDB's read_csv infers a column's type from a sample of its first
// rows, and a float column whose sampled values are all whole (an
// occupancy of 0 while the GPU idles) written as "0" is read as BIGINT,
// rounding every later value without a word.
//
// It writes the bytes encoding/csv's Writer would (comma, "\n", its
// quoting rule for strings) straight into one buffer: numbers, which
// can never need quotes, are appended with strconv's Append functions,
// from each column's values taken once a record, and only strings go
// through the quoting rule. encoding/csv took a string a field and asked
// each whether it needs quotes: 63% of a replay's CPU with --format=csv.
type csvEncoder struct {
	w     io.Writer
	buf   []byte
	types []arrow.Type // each column's, from the schema
	cols  []csvColumn  // the current record's columns, typed
}

// csvColumn is one column of a record, its values typed once.
type csvColumn struct {
	kind  arrow.Type
	arr   arrow.Array // nil where the column holds no null
	i64   []int64
	i32   []int32
	f64   []float64
	str   *array.String
	last  string // a string column's last value written, and its field
	field []byte
}

// csvFlushAt is the buffered bytes past which a row's end flushes.
const csvFlushAt = 64 << 10

// newCSVEncoder writes the header line and checks each column's type
// once, so a schema with a type CSV cannot hold fails here, not per row.
func newCSVEncoder(w io.Writer, s *arrow.Schema) (*csvEncoder, error) {
	e := &csvEncoder{w: w, buf: make([]byte, 0, csvFlushAt+4096)}
	for i, f := range s.Fields() {
		switch f.Type.ID() {
		case arrow.STRING, arrow.INT64, arrow.INT32, arrow.FLOAT64:
		default:
			return nil, fmt.Errorf("results: no CSV form for column %s of type %s", f.Name, f.Type)
		}
		e.types = append(e.types, f.Type.ID())
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendCSVString(e.buf, f.Name)
	}
	e.buf = append(e.buf, '\n')
	return e, e.flush()
}

func (e *csvEncoder) Write(rec arrow.Record) error {
	if len(e.cols) != len(e.types) {
		e.cols = make([]csvColumn, len(e.types))
		for j := range e.cols {
			e.cols[j].kind = e.types[j]
		}
	}
	for j, col := range rec.Columns() {
		c := &e.cols[j]
		c.arr = nil
		if col.NullN() > 0 {
			c.arr = col
		}
		switch c.kind {
		case arrow.INT64:
			c.i64 = col.(*array.Int64).Int64Values()
		case arrow.INT32:
			c.i32 = col.(*array.Int32).Int32Values()
		case arrow.FLOAT64:
			c.f64 = col.(*array.Float64).Float64Values()
		case arrow.STRING:
			c.str = col.(*array.String)
		}
	}
	// The row loop keeps the buffer in a local, which the compiler holds
	// in registers: appending to e.buf loaded and stored its header at
	// every field. Each field ends in a comma, the row's last turned into
	// its newline.
	buf, cols := e.buf, e.cols
	for row, rows := 0, int(rec.NumRows()); row < rows; row++ {
		for j := range cols {
			c := &cols[j]
			if c.arr != nil && c.arr.IsNull(row) {
				buf = append(buf, ',')
				continue
			}
			switch c.kind {
			case arrow.INT64:
				buf = appendInt(buf, c.i64[row])
			case arrow.INT32:
				buf = appendInt(buf, int64(c.i32[row]))
			case arrow.FLOAT64:
				buf = appendFloatText(buf, c.f64[row])
			default:
				// A string column holds a value over long stretches (the
				// run columns, kernel names): its field is quoted once.
				if v := c.str.Value(row); v != c.last || c.field == nil {
					c.last = strings.Clone(v)
					c.field = appendCSVString(c.field[:0], v)
					if c.field == nil {
						c.field = []byte{}
					}
				}
				buf = append(buf, c.field...)
			}
			buf = append(buf, ',')
		}
		if len(cols) > 0 {
			buf[len(buf)-1] = '\n'
		} else {
			buf = append(buf, '\n')
		}
		if len(buf) >= csvFlushAt {
			e.buf = buf
			if err := e.flush(); err != nil {
				return err
			}
			buf = e.buf
		}
	}
	e.buf = buf
	return nil
}

func (e *csvEncoder) Close() error { return e.flush() }

func (e *csvEncoder) flush() error {
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// appendFloatText appends the shortest text that reads back as exactly v,
// strconv's shortest 'g', with ".0" added to a whole number so that no
// reader takes the column for integers.
//
// A whole number of at most six digits (an occupancy's warps, a slowdown
// of 1) is its integer's digits and ".0", which is what the shortest 'g'
// gives it: that form turns to an exponent only from 1e6 on. Most other
// values (a slowdown, an occupancy's average) have their digits from
// shortestDecimal and are written in the 'f' form that 'g' takes between
// 1e-4 and 1e6; that saved synth with --format=csv some 470 instructions
// a CTA (scripts/instructions.sh --quick synth-csv). The rest, rare, go
// through strconv.
func appendFloatText(dst []byte, v float64) []byte {
	if v > -1e6 && v < 1e6 && v == float64(int64(v)) && (v != 0 || !math.Signbit(v)) {
		return append(appendInt(dst, int64(v)), ".0"...)
	}
	if d, p, ok := shortestDecimal(v); ok {
		if exp := decimalLen(d) - p - 1; exp >= -4 && exp < 6 {
			return appendFixed(dst, d, p)
		}
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
	if !bytes.ContainsAny(dst[n:], ".eIN") { // -0, or whole from 1e6 on
		return append(dst, ".0"...)
	}
	return dst
}

// appendCSVString appends s as encoding/csv's Writer writes a field (with
// a comma and no CRLF): quoted, with each quote doubled, when it holds a
// comma, a quote, a CR or an LF, starts with a space, or is `\.`.
func appendCSVString(dst []byte, s string) []byte {
	if !csvNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes for a comma.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\r' || c == '\n' {
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}
