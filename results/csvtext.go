package results

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
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
// can never need quotes, are appended as strconv's Append functions
// write them (appendInt, appendFloatText), from each column's values
// taken once a block, and only strings go through the quoting rule. encoding/csv took a string a field and asked
// each whether it needs quotes: 63% of a replay's CPU with --format=csv.
//
// It takes a block's run columns as they come, a stretch of rows a run
// (runcols.go): the run's three fields, quoted and each with its comma,
// start each of the stretch's rows in one append. Laid out as strings,
// a row each, and written field by field, they cost synth with
// --format=csv some 600 instructions a CTA more
// (scripts/instructions.sh --quick synth-csv).
type csvEncoder struct {
	w      io.Writer
	mem    memory.Allocator // lays out a block's string stretches (block.columns)
	buf    []byte
	types  []arrow.Type // each column's after the run columns, from the schema
	cols   []csvColumn  // the current block's columns after the run columns, typed
	run    tables.Run   // the last stretch's run, and its fields as a row starts
	prefix []byte
	floats floatTexts
	small  *[smallInts]uint64 // smallText's table
}

// csvColumn is one column of a record, its values typed once.
type csvColumn struct {
	kind arrow.Type
	op   csvOp // how the row loop writes the current block's fields
	// valued is how a nullable column's valued fields are written
	valued csvOp
	valid  []byte // the validity bitmap, nil where the column holds no null,
	off    int    // and the bit of the record's first row
	i64    []int64
	i32    []int32
	f64    []float64
	str    *array.String
	last   string // a string column's last value written, and its field
	field  []byte
	// an integer column's last value below 10^8 written, its digits
	// (digits8) with its comma, and how many bytes (none yet: 0); and
	// its last value's digits above the lowest eight, for one of 10^8 to
	// 10^15 (hiN of them)
	lastInt  int64
	digits   uint64
	digitsN  int
	lastHi   uint64
	hiDigits uint64
	hiN      int
}

// A csvOp is how the row loop writes a column's fields in a block: the
// type's own way for a column with no null (most, and the row loop then
// reads no bitmap), none for a column of nulls only (a CTA's group in a
// replay with no groups), or as its bitmap says (opNullable). Each field
// asked whether its column had a bitmap cost synth with --format=csv
// some 60 instructions a CTA more (scripts/instructions.sh --quick
// synth-csv: 1,412 added, 1,349 with the ops).
type csvOp uint8

const (
	opInt64 csvOp = iota
	opInt32
	opFloat64
	opString
	opNull
	opNullable
	opTwin // an int64 column whose block holds the column before it's values
)

// csvFlushAt is the buffered bytes past which a row's end flushes.
const csvFlushAt = 64 << 10

// csvFieldRoom is the room a row keeps for each of its fields: a 64-bit
// integer's text is at most 20 bytes and a float's 24 (strconv's
// shortest 'g'), and the words that store them write up to 8 bytes
// past that.
const csvFieldRoom = 40

// newCSVEncoder writes the header line and checks each column's type
// once, so a schema with a type CSV cannot hold fails here, not per row.
// The schema starts with the run columns, as every table's does.
func newCSVEncoder(w io.Writer, s *arrow.Schema, mem memory.Allocator) (*csvEncoder, error) {
	e := &csvEncoder{w: w, mem: mem, buf: make([]byte, 0, csvFlushAt+4096), small: smallText()}
	for i, f := range s.Fields() {
		switch f.Type.ID() {
		case arrow.STRING, arrow.INT64, arrow.INT32, arrow.FLOAT64:
		default:
			return nil, fmt.Errorf("results: no CSV form for column %s of type %s", f.Name, f.Type)
		}
		if i >= runColumns {
			e.types = append(e.types, f.Type.ID())
		}
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendCSVString(e.buf, f.Name)
	}
	e.buf = append(e.buf, '\n')
	return e, e.flush()
}

func (e *csvEncoder) write(b block) error {
	cols := b.columns(len(e.types), e.mem)
	defer release(cols)
	e.columns(cols)
	row := 0
	for _, r := range b.runs {
		if e.prefix == nil || r.run != e.run {
			e.run = r.run
			e.prefix = e.prefix[:0]
			for _, field := range runFields {
				e.prefix = append(appendCSVString(e.prefix, field(&r.run)), ',')
			}
		}
		if err := e.rows(row, row+r.rows); err != nil {
			return err
		}
		row += r.rows
	}
	return nil
}

// columns takes a block's columns after its run columns, typed.
func (e *csvEncoder) columns(cols []arrow.Array) {
	if len(e.cols) != len(e.types) {
		e.cols = make([]csvColumn, len(e.types))
		for j := range e.cols {
			e.cols[j].kind = e.types[j]
		}
	}
	for j, col := range cols {
		c := &e.cols[j]
		switch c.kind {
		case arrow.INT64:
			c.i64, c.op = col.(*array.Int64).Int64Values(), opInt64
		case arrow.INT32:
			c.i32, c.op = col.(*array.Int32).Int32Values(), opInt32
		case arrow.FLOAT64:
			c.f64, c.op = col.(*array.Float64).Float64Values(), opFloat64
			e.floats.table()
		case arrow.STRING:
			c.str, c.op = col.(*array.String), opString
		}
		// The bitmap read in the row loop, not through IsNull: a call
		// made a nullable column's field some 20 instructions dearer.
		c.valid, c.off, c.valued = nil, col.Data().Offset(), c.op
		switch n := col.NullN(); {
		case n == col.Len() && n > 0:
			c.op = opNull
		case n > 0:
			c.valid, c.op = col.NullBitmapBytes(), opNullable
		}
		// A column of the values of the one before it (a CTA's start
		// cycles, its dispatch cycles where no CTA was held) copies that
		// field's text: made again, the digits cost synth with
		// --format=csv 81 instructions a CTA more
		// (scripts/instructions.sh --quick synth-csv).
		if j > 0 && c.op == opInt64 && e.cols[j-1].op == opInt64 && sameInts(c.i64, e.cols[j-1].i64) {
			c.op = opTwin
		}
	}
}

// sameInts reports whether a and b hold the same values, their bytes
// compared as bytes.Equal does.
func sameInts(a, b []int64) bool {
	return len(a) == len(b) && bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), 8*len(b)))
}

// rows writes the current block's rows from to to, each started with
// the run's fields.
//
// The buffer's room is made once a row, for the most its numbers can
// take (csvFieldRoom a column), so that an integer's digits and its comma
// are stored with no test of the room; a string field, which may be
// longer, makes room again after it. An integer's digits are one or two
// words of eight digits (digits8), stored whole (past the field's end,
// into the room), and a column keeps those of its last value, as many a
// column repeats (a kernel's id, no stall) and cycles their digits above
// the lowest eight. Cycles past 10^8, which a long replay's are, went
// through appendInt, two calls a field: synth with --format=csv at full
// size (5M CTAs, scripts/instructions.sh synth-csv) added 1,631
// instructions a CTA, 1,387 with the words (docs/performance.md).
func (e *csvEncoder) rows(from, to int) error {
	// The row loop keeps the buffer in a local, which the compiler holds
	// in registers: appending to e.buf loaded and stored its header at
	// every field. Each field ends in a comma, the row's last turned into
	// its newline.
	buf, cols, prefix := e.buf, e.cols, e.prefix
	floats := e.floats.slots // made by columns where a column holds floats
	small := e.small
	room := len(prefix) + len(cols)*csvFieldRoom
	for row := from; row < to; row++ {
		if cap(buf)-len(buf) < room {
			buf = slices.Grow(buf, room)
		}
		buf = append(buf, prefix...)
		// The row's numbers are stored at p+at, in the room made for them
		// (each field's at most csvFieldRoom bytes), and buf takes the
		// row's length at its end: checked slices of buf, a field's room
		// taken and its length set, cost synth with --format=csv some 60
		// instructions a CTA more (scripts/instructions.sh --quick
		// synth-csv). What appends to buf (a string, a rare number) sets
		// it to at first and takes at and p from it after.
		at, p := len(buf), unsafe.Pointer(unsafe.SliceData(buf))
		for j := range cols {
			c := &cols[j]
			op := c.op
			if op == opNullable {
				op = opNull
				if i := c.off + row; c.valid[i>>3]>>(i&7)&1 != 0 {
					op = c.valued
				}
			}
			switch op {
			case opNull:
				*(*byte)(unsafe.Add(p, at)) = ','
				at++
			case opTwin:
				// The field before holds this value's text, of the
				// length its column's digits say, unless it went through
				// appendInt (at least 10^15, or negative): copied whole,
				// 16 bytes from its start, past it in the row's room.
				if v := c.i64[row]; uint64(v) < 1e15 {
					b := &cols[j-1] // j > 0: opTwin
					n := b.digitsN
					if uint64(v) >= 1e8 {
						n = b.hiN + 9
					}
					*(*[16]byte)(unsafe.Add(p, at)) = *(*[16]byte)(unsafe.Add(p, at-n))
					at += n
					break
				}
				fallthrough
			case opInt64, opInt32:
				v := int64(0)
				if op == opInt32 {
					v = int64(c.i32[row])
				} else {
					v = c.i64[row]
				}
				w := unsafe.Add(p, at)
				if uint64(v) < 1e8 {
					if v != c.lastInt || c.digitsN == 0 {
						if uint64(v) < smallInts { // looked up: see smallText
							d := small[v]
							c.lastInt, c.digitsN, c.digits = v, int(d>>56), d
						} else {
							n := decimalLen(uint64(v))
							c.lastInt, c.digitsN = v, n+1
							c.digits = commaDigits(digits8(uint32(v)), n)
						}
					}
					// The comma is in the word's bytes, or (eight
					// digits) the byte after them.
					binary.LittleEndian.PutUint64((*[9]byte)(w)[:8], c.digits)
					(*[9]byte)(w)[8] = ','
					at += c.digitsN
					break
				}
				if uint64(v) >= 1e15 { // and negative
					buf = append(appendInt(buf[:at], v), ',')
					at, p = len(buf), unsafe.Pointer(unsafe.SliceData(buf))
					break
				}
				hi := uint64(v) / 1e8
				if hi != c.lastHi || c.hiN == 0 {
					c.lastHi, c.hiN = hi, decimalLen(hi)
					c.hiDigits = digits8(uint32(hi)) >> (8 * (8 - c.hiN) & 63)
				}
				n := c.hiN & 7 // at most 7 digits
				f := (*[16]byte)(w)
				binary.LittleEndian.PutUint64(f[:8], c.hiDigits)
				binary.LittleEndian.PutUint64(f[n:n+8], digits8(uint32(uint64(v)-hi*1e8)))
				f[n+8] = ','
				at += c.hiN + 9
			case opFloat64:
				// A text written lately is a copy of its slot's bytes, here
				// in the loop: through floatTexts.append, a call a field,
				// synth with --format=csv added some 60 instructions a CTA
				// more (scripts/instructions.sh --quick synth-csv).
				v := c.f64[row]
				b := math.Float64bits(v)
				s := &floats[floatSlot(b)]
				if s.bits == b && s.n > 0 {
					f := (*[32]byte)(unsafe.Add(p, at))
					*(*[len(s.text)]byte)(f[:len(s.text)]) = s.text
					f[s.n&31] = ','
					at += int(s.n) + 1
					break
				}
				buf = append(e.floats.remember(buf[:at], v, s), ',')
				at, p = len(buf), unsafe.Pointer(unsafe.SliceData(buf))
			default:
				// A string column holds a value over long stretches (the
				// kernel names): its field is quoted once.
				if v := c.str.Value(row); v != c.last || c.field == nil {
					c.last = strings.Clone(v)
					c.field = append(appendCSVString(c.field[:0], v), ',')
				}
				buf = append(buf[:at], c.field...)
				if cap(buf)-len(buf) < room {
					buf = slices.Grow(buf, room)
				}
				at, p = len(buf), unsafe.Pointer(unsafe.SliceData(buf))
			}
		}
		buf = buf[:at]
		buf[at-1] = '\n'
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

func (e *csvEncoder) close() error { return e.flush() }

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

// floatTexts remembers the text of floats written lately, in a table of
// 1<<floatTextBits entries, each holding one of the values that hash to
// it: the ctas table's slowdowns take a few thousand values (synth:
// 12,079 over 500K rows), and a value found here is a copy of 23 bytes,
// where appendFloatText costs some 400 instructions. With 16,384 slots
// (512 KiB) 93% of synth's slowdowns are found, and --format=csv adds
// some 340 instructions a CTA fewer (scripts/instructions.sh --quick
// synth-csv); 4,096 found 81% and saved 290.
type floatTexts struct {
	slots *[1 << floatTextBits]floatText // made at the first use
}

// floatText is a float's bits and its text, of n bytes.
type floatText struct {
	bits uint64
	n    uint8
	text [23]byte
}

// floatTextBits is the log2 of the slots a floatTexts holds.
const floatTextBits = 14

// table returns the slots, made at the first call.
func (t *floatTexts) table() *[1 << floatTextBits]floatText {
	if t.slots == nil {
		t.slots = new([1 << floatTextBits]floatText)
	}
	return t.slots
}

// floatSlot is the slot of a float of these bits.
func floatSlot(b uint64) uint64 { return b * 0x9e3779b97f4a7c15 >> (64 - floatTextBits) }

// append appends appendFloatText's text of v.
func (t *floatTexts) append(dst []byte, v float64) []byte {
	b := math.Float64bits(v)
	s := &t.table()[floatSlot(b)]
	at := len(dst)
	if s.bits == b && s.n > 0 {
		if cap(dst)-at < len(s.text) {
			dst = slices.Grow(dst, len(s.text))
		}
		*(*[len(s.text)]byte)(dst[at : at+len(s.text)]) = s.text // whole: no call
		return dst[:at+int(s.n)]
	}
	return t.remember(dst, v, s)
}

// remember appends appendFloatText's text of v, and keeps it in s, v's
// slot, where it fits.
func (t *floatTexts) remember(dst []byte, v float64, s *floatText) []byte {
	at := len(dst)
	dst = appendFloatText(dst, v)
	if n := len(dst) - at; n <= len(s.text) {
		s.bits, s.n = math.Float64bits(v), uint8(copy(s.text[:], dst[at:]))
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
