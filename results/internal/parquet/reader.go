package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// maxPageBytes bounds a page's uncompressed size: a hostile header
// cannot make the reader allocate more. The pages this package writes
// are a few hundred KiB; other writers' dictionaries may be larger.
const maxPageBytes = 128 << 20

// maxGroupRows bounds a row group's rows, and so what reading one
// column of it allocates. The tables' groups are of 2^18 rows.
const maxGroupRows = 1 << 22

// MaxString bounds a string value. The tables' strings are a trace's
// kernel names and file name, a policy's and a preset's names and a
// sweep's keys, and the trace format holds a string field to 1 MiB
// (trace/binary.go, maxStringLen): no table holds a longer one.
const MaxString = 1 << 20

// What the file can hold bounds what reading it does. A page's
// uncompressed size is checked against its values before it is
// inflated (pageLimit); what no one page bounds, a file's pages and
// strings all together, has budgets (maxFileBytes, maxGroupStrings).
const (
	// pageSlack is what a page may take beyond its values' share
	// (pageLimit): headers, a DELTA_BINARY_PACKED miniblock's padding
	// (at most 2 KiB for DuckDB's 256 values of 8 bytes).
	pageSlack = 8 << 10
	// perValue is the most bytes a fixed-width value takes in a page
	// in any encoding: 8 (PLAIN, BYTE_STREAM_SPLIT and
	// DELTA_BINARY_PACKED at 64 bits) or a dictionary index (at most 5
	// bytes as a run of its own), and its definition level (at most 2
	// bytes as a run of its own), with room to spare.
	perValue = 16
)

// maxFileBytes and perFileByte bound the bytes a file's pages inflate
// to, its values (8 bytes each) and its strings' bytes, every row's
// counted (what a reader copying each row, as an Arrow batch does,
// copies): the time reading takes,
// bounded by the file's size. A table of a few hundred MB uncompressed
// is legitimate whatever its size on disk: 4 GiB takes some 5 s. A
// large table is large on disk: the project's kernels table takes some
// 8 bytes a row, pyarrow's of 3M rows of 170-byte names 4 to 15 and
// inflates 74 to 12 times; 128 bytes a byte of the file leaves room.
// (This and maxGroupStrings are variables for the tests.)
var maxFileBytes int64 = 4 << 30

const perFileByte = 128

// maxGroupStrings bounds the bytes of the strings a row group's columns
// hold at once (a dictionary's value, shared by its rows, counted
// once): what reading a group keeps in memory. A group of 2^20 rows of
// 400-byte names, PLAIN as pyarrow writes a column whose dictionary
// passes 1 MiB, holds 400 MiB.
var maxGroupStrings int64 = 512 << 20

var decoderOnce = sync.OnceValue(func() *zstd.Decoder {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxPageBytes), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		panic(err) // only for invalid options
	}
	return dec
})

// ErrFormat is a file this package cannot read: not Parquet, cut short,
// damaged, or laid out in a way the tables never are.
var ErrFormat = errors.New("parquet")

func formatError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// An UnsupportedColumnError is a column that is not a flat column of
// one of the four types.
type UnsupportedColumnError struct {
	Index int // from 0
	Name  string
	What  string // what it is instead
}

func (e *UnsupportedColumnError) Error() string {
	return fmt.Sprintf("column %d (%s) is %s", e.Index+1, e.Name, e.What)
}

// A File is a Parquet file open for reading: its footer read and its
// columns checked.
//
// A File is not for concurrent use: it keeps count of what its reads
// have decoded (maxFileBytes, maxGroupStrings).
type File struct {
	r    io.ReaderAt
	size int64
	meta fileMeta
	cols []Column
	// decoded counts the bytes pages inflated to and strings' bytes,
	// every row's, over the file's reads so far; held, the string bytes
	// of row group heldGroup's columns read so far.
	decoded   int64
	held      int64
	heldGroup int
}

// spend counts n more bytes inflated or copied against the file's
// budget.
func (f *File) spend(n int64) error {
	if lim := maxFileBytes + perFileByte*f.size; f.decoded+n > lim {
		return formatError("the file's pages, values and strings pass %d MiB decoded, more than a table in a file of %d bytes", lim>>20, f.size)
	}
	f.decoded += n
	return nil
}

// hold counts n more bytes of strings held by the row group being read.
func (f *File) hold(n int64) error {
	if f.held+n > maxGroupStrings {
		return formatError("the row group's strings pass %d MiB, more than a table's", maxGroupStrings>>20)
	}
	f.held += n
	return nil
}

// Open reads the footer of the Parquet file r of size bytes. Every
// column must be a flat column of one of the four types (an
// *UnsupportedColumnError otherwise); an integer column of no logical
// type, as older writers leave them, is taken as signed.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 12 {
		return nil, formatError("%d bytes: too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(tail[4:]) != magic {
		return nil, formatError("no PAR1 at the end: not a whole Parquet file")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, formatError("a footer of %d bytes in a file of %d", n, size)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if string(head[:]) != magic {
		return nil, formatError("no PAR1 at the start: not a Parquet file")
	}
	foot := make([]byte, n)
	if _, err := r.ReadAt(foot, size-8-n); err != nil {
		return nil, err
	}
	f := &File{r: r, size: size}
	d := &decoder{buf: foot}
	f.meta.decode(d)
	if d.err != nil {
		return nil, formatError("footer: %v", d.err)
	}
	if err := f.columns(); err != nil {
		return nil, err
	}
	var rows int64
	for g, rg := range f.meta.rowGroups {
		if len(rg.columns) != len(f.cols) {
			return nil, formatError("row group %d has %d columns, the schema %d", g, len(rg.columns), len(f.cols))
		}
		if rg.numRows < 0 || rg.numRows > maxGroupRows {
			return nil, formatError("row group %d has %d rows", g, rg.numRows)
		}
		rows += rg.numRows
	}
	if rows != f.meta.numRows {
		return nil, formatError("row groups of %d rows in a file of %d", rows, f.meta.numRows)
	}
	return f, nil
}

// columns reads the schema into f.cols.
func (f *File) columns() error {
	s := f.meta.schema
	if len(s) == 0 || s[0].numChildren != int32(len(s)-1) {
		return formatError("the schema is not a root and its columns")
	}
	for i, el := range s[1:] {
		c := Column{Name: el.name, Optional: el.repetition == repOptional}
		bad := func(what string) error { return &UnsupportedColumnError{i, el.name, what} }
		switch {
		case el.numChildren > 0:
			return bad("a group, not a flat column")
		case el.repetition == repRepeated:
			return bad("repeated, not a flat column")
		case el.repetition != repRequired && el.repetition != repOptional:
			return bad(fmt.Sprintf("of repetition %d", el.repetition))
		}
		l := el.logical
		switch el.typ {
		case typeInt32:
			if (l.kind == 0 && (el.converted < 0 || el.converted == convInt32)) || (l.kind == logicalInteger && l.bitWidth == 32 && l.signed) {
				c.Type = Int32
			}
		case typeInt64:
			if (l.kind == 0 && (el.converted < 0 || el.converted == convInt64)) || (l.kind == logicalInteger && l.bitWidth == 64 && l.signed) {
				c.Type = Int64
			}
		case typeDouble:
			if l.kind == 0 && el.converted < 0 {
				c.Type = Double
			}
		case typeByteArray:
			if l.kind == logicalString || (l.kind == 0 && el.converted == convUTF8) {
				c.Type = String
			}
		}
		if c.Type == 0 {
			return bad(fmt.Sprintf("of Parquet type %d (converted type %d, logical type %d)", el.typ, el.converted, l.kind))
		}
		f.cols = append(f.cols, c)
	}
	return nil
}

// Columns are the file's columns, in order.
func (f *File) Columns() []Column { return f.cols }

// NumRows is the file's row count.
func (f *File) NumRows() int64 { return f.meta.numRows }

// RowGroups is the number of row groups.
func (f *File) RowGroups() int { return len(f.meta.rowGroups) }

// RowGroupRows is the row count of row group g.
func (f *File) RowGroupRows(g int) int64 { return f.meta.rowGroups[g].numRows }

// Values are one column's rows of a row group. Valid is nil for a
// required column; for an optional one it says which rows hold a value,
// and a null row holds the zero value. One of Ints (Int32 and Int64
// columns), Doubles and Strings holds a value per row.
type Values struct {
	Valid   []bool
	Ints    []int64
	Doubles []float64
	Strings []string
}

// ReadColumn reads column col of row group g.
func (f *File) ReadColumn(g, col int) (*Values, error) {
	if g < 0 || g >= len(f.meta.rowGroups) || col < 0 || col >= len(f.cols) {
		return nil, fmt.Errorf("parquet: no column %d in row group %d", col, g)
	}
	rows := f.meta.rowGroups[g].numRows
	m := &f.meta.rowGroups[g].columns[col]
	c := f.cols[col]
	where := func(err error) error {
		return fmt.Errorf("row group %d, column %s: %w", g, c.Name, err)
	}
	if m.numValues != rows {
		return nil, where(formatError("%d values in a group of %d rows", m.numValues, rows))
	}
	if g != f.heldGroup {
		f.held, f.heldGroup = 0, g
	}
	if rows == 0 {
		// pyarrow writes an empty table's chunks without a dictionary as
		// no pages at offset 0: nothing to read.
		return (&chunkReader{col: c}).empty(), nil
	}
	start := m.chunkStart()
	if start < 4 || m.compressedSize < 0 || start > f.size-8 || m.compressedSize > f.size-8-start {
		return nil, where(formatError("a chunk of %d bytes at %d in a file of %d", m.compressedSize, start, f.size))
	}
	buf := make([]byte, m.compressedSize)
	if _, err := f.r.ReadAt(buf, start); err != nil {
		return nil, where(err)
	}
	cr := chunkReader{col: c, codec: m.codec, buf: buf, rows: int(rows), file: f}
	v, err := cr.read()
	if err != nil {
		return nil, where(err)
	}
	return v, nil
}

// chunkReader reads a column chunk's pages.
type chunkReader struct {
	col   Column
	codec int32
	buf   []byte
	pos   int
	rows  int
	// the chunk's dictionary, by the column's type
	dict        []string
	dictInts    []int64
	dictDoubles []float64
	hasDict     bool
	page        []byte // a page's uncompressed bytes
	file        *File  // its budgets
}

// empty is the column's Values of no rows, room for r.rows made.
func (r *chunkReader) empty() *Values {
	v := &Values{}
	if r.col.Optional {
		v.Valid = make([]bool, 0, r.rows)
	}
	switch r.col.Type {
	case Int32, Int64:
		v.Ints = make([]int64, 0, r.rows)
	case Double:
		v.Doubles = make([]float64, 0, r.rows)
	case String:
		v.Strings = make([]string, 0, r.rows)
	}
	return v
}

func (r *chunkReader) read() (*Values, error) {
	v := r.empty()
	got, data := 0, false
	for got < r.rows {
		d := &decoder{buf: r.buf, pos: r.pos}
		var h pageHeader
		h.decode(d)
		if d.err != nil {
			return nil, formatError("page header at chunk byte %d: %v", r.pos, d.err)
		}
		r.pos = d.pos
		if h.compressedSize < 0 || int(h.compressedSize) > len(r.buf)-r.pos {
			return nil, formatError("a page of %d bytes past its chunk's end", h.compressedSize)
		}
		body := r.buf[r.pos : r.pos+int(h.compressedSize)]
		r.pos += int(h.compressedSize)
		if h.typ == pageDictionary || h.typ == pageData || h.typ == pageDataV2 {
			if lim := r.pageLimit(h.numValues); int64(h.uncompressedSize) > lim {
				return nil, formatError("a page of %d values declares %d bytes uncompressed, more than the %d that %s values can take", h.numValues, h.uncompressedSize, lim, r.col.Type)
			}
			// Each value is decoded and copied, 8 bytes of it at least,
			// however few bytes a run of it takes in the page: a file of
			// a few KB can declare groups of maxGroupRows rows, many of
			// them.
			if err := r.file.spend(8 * max(0, int64(h.numValues))); err != nil {
				return nil, err
			}
		}
		switch h.typ {
		case pageDictionary:
			if r.hasDict || data {
				return nil, formatError("a dictionary page after the chunk's first page")
			}
			if err := r.readDictionary(h, body); err != nil {
				return nil, err
			}
		case pageData:
			if h.numValues <= 0 || int(h.numValues) > r.rows-got {
				return nil, formatError("a page of %d values with %d rows left", h.numValues, r.rows-got)
			}
			if err := r.readData(h, body, v); err != nil {
				return nil, fmt.Errorf("page at rows from %d: %w", got, err)
			}
			got += int(h.numValues)
			data = true
		case pageDataV2:
			if h.numValues <= 0 || int(h.numValues) > r.rows-got {
				return nil, formatError("a page of %d values with %d rows left", h.numValues, r.rows-got)
			}
			if err := r.readDataV2(h, body, v); err != nil {
				return nil, fmt.Errorf("page at rows from %d: %w", got, err)
			}
			got += int(h.numValues)
			data = true
		default: // index pages and others: nothing the rows need
		}
	}
	return v, nil
}

// pageLimit is the most bytes a page of n values (a data page's rows,
// a dictionary's values) of the column can take uncompressed: perValue
// a value of a fixed-width type, 4 + MaxString a string, and pageSlack.
// A page that declares more is refused before it is inflated.
func (r *chunkReader) pageLimit(n int32) int64 {
	per := int64(perValue)
	if r.col.Type == String {
		per += MaxString
	}
	return max(0, int64(n))*per + pageSlack
}

// uncompress returns a page's body uncompressed, valid until the next
// page.
func (r *chunkReader) uncompress(h pageHeader, body []byte) ([]byte, error) {
	n := int(h.uncompressedSize)
	if n < 0 || n > maxPageBytes {
		return nil, formatError("a page of %d bytes uncompressed", n)
	}
	if r.codec != codecNone {
		if err := r.file.spend(int64(n)); err != nil {
			return nil, err
		}
	}
	var out []byte
	var err error
	switch r.codec {
	case codecNone:
		out = body
	case codecZstd:
		// Inflated to no more than the header says: the decoder stops at
		// the buffer's capacity.
		if cap(r.page) < n {
			r.page = make([]byte, 0, n)
		}
		out, err = decoderOnce().DecodeAll(body, r.page[:0:n])
	case codecSnappy:
		var m int
		if m, err = snappy.DecodedLen(body); err == nil && m != n {
			return nil, formatError("a snappy page of %d bytes, %d in its header", m, n)
		}
		if err == nil {
			out, err = snappy.Decode(r.page[:cap(r.page)], body)
		}
	case codecGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
			out, err = io.ReadAll(io.LimitReader(zr, int64(n)+1))
		}
	default:
		return nil, formatError("compression codec %d, which the tables never use", r.codec)
	}
	if err != nil {
		return nil, formatError("decompressing a page: %v", err)
	}
	if len(out) != n {
		return nil, formatError("a page of %d bytes uncompressed, %d in its header", len(out), n)
	}
	if r.codec != codecNone {
		r.page = out
	}
	return out, nil
}

func (r *chunkReader) readDictionary(h pageHeader, body []byte) error {
	if h.encoding != encPlain && h.encoding != encPlainDict {
		return formatError("a dictionary page of encoding %d", h.encoding)
	}
	b, err := r.uncompress(h, body)
	if err != nil {
		return err
	}
	n := int(h.numValues)
	if n < 0 {
		return formatError("a dictionary of %d values", n)
	}
	r.hasDict = true
	switch r.col.Type {
	case String:
		if n > len(b)/4 {
			return formatError("a dictionary of %d strings in %d bytes", n, len(b))
		}
		vals, err := r.plainStrings(b, n, true)
		if err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		r.dict = vals
	case Int32, Int64:
		vals, err := r.plainInts(b, n)
		if err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		r.dictInts = vals
	case Double:
		vals, err := plainDoubles(b, n)
		if err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		r.dictDoubles = vals
	}
	return nil
}

// plainInts reads n PLAIN values of the column's integer type.
func (r *chunkReader) plainInts(b []byte, n int) ([]int64, error) {
	return r.fixedInts(b, n, false)
}

// fixedInts reads n values of the column's integer type, 4 or 8 bytes
// each (words).
func (r *chunkReader) fixedInts(b []byte, n int, split bool) ([]int64, error) {
	size := 8
	if r.col.Type == Int32 {
		size = 4
	}
	ws, err := words(b, n, size, split)
	if err != nil {
		return nil, err
	}
	vals := make([]int64, n)
	for i, u := range ws {
		if size == 4 {
			vals[i] = int64(int32(uint32(u)))
		} else {
			vals[i] = int64(u)
		}
	}
	return vals, nil
}

// plainDoubles reads n PLAIN doubles.
func plainDoubles(b []byte, n int) ([]float64, error) { return fixedDoubles(b, n, false) }

// fixedDoubles reads n doubles (words).
func fixedDoubles(b []byte, n int, split bool) ([]float64, error) {
	ws, err := words(b, n, 8, split)
	if err != nil {
		return nil, err
	}
	vals := make([]float64, n)
	for i, u := range ws {
		vals[i] = math.Float64frombits(u)
	}
	return vals, nil
}

// words reads n little-endian values of size bytes: PLAIN, one after
// another, or BYTE_STREAM_SPLIT (split), byte k of every value in the
// k-th of size streams.
func words(b []byte, n, size int, split bool) ([]uint64, error) {
	if len(b)/size < n {
		return nil, formatError("%d values of %d bytes in %d bytes", n, size, len(b))
	}
	out := make([]uint64, n)
	for i := range out {
		var u uint64
		for k := range size {
			at := i*size + k
			if split {
				at = k*n + i
			}
			u |= uint64(b[at]) << (8 * k)
		}
		out[i] = u
	}
	return out, nil
}

// indices reads n dictionary indices (RLE_DICTIONARY data) into a
// dictionary of size values.
func (r *chunkReader) indices(b []byte, n, size int) ([]uint32, error) {
	if !r.hasDict {
		return nil, formatError("dictionary indices before a dictionary page")
	}
	idx := make([]uint32, n)
	if n == 0 {
		return idx, nil
	}
	if len(b) < 1 {
		return nil, formatError("dictionary indices without a bit width")
	}
	if _, err := decodeRLE(b[1:], uint(b[0]), idx); err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	for _, j := range idx {
		if int(j) >= size {
			return nil, formatError("index %d past a dictionary of %d", j, size)
		}
	}
	return idx, nil
}

// fromDict looks each index up in dict.
func fromDict[T any](idx []uint32, dict []T) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = dict[j]
	}
	return out
}

// plainStrings reads n PLAIN strings, each its length (4 bytes) and
// its bytes, their bytes counted against the budgets: held by the row
// group, and spent, unless dict (a dictionary's are spent as its
// indices are read).
func (r *chunkReader) plainStrings(b []byte, n int, dict bool) ([]string, error) {
	// The lengths first, checked and summed: nothing is copied that the
	// budgets refuse.
	var total int64
	for i, pos := 0, 0; i < n; i++ {
		if len(b)-pos < 4 {
			return nil, formatError("value %d: a string past the page's end", i)
		}
		k := binary.LittleEndian.Uint32(b[pos:])
		if err := stringLength(i, int64(k)); err != nil {
			return nil, err
		}
		if uint64(k) > uint64(len(b)-pos-4) {
			return nil, formatError("value %d: a string of %d bytes past the page's end", i, k)
		}
		pos += 4 + int(k)
		total += int64(k)
	}
	if err := r.count(total, !dict); err != nil {
		return nil, err
	}
	vals := make([]string, n)
	pos := 0
	for i := range vals {
		k := int(binary.LittleEndian.Uint32(b[pos:]))
		vals[i] = string(b[pos+4 : pos+4+k])
		pos += 4 + k
	}
	return vals, nil
}

// stringLength checks value i's length against MaxString.
func stringLength(i int, k int64) error {
	if k < 0 || k > MaxString {
		return formatError("value %d: a string of %d bytes, more than the %d a table's string holds", i, k, MaxString)
	}
	return nil
}

// count counts total bytes of strings copied out of a page: held by
// the row group and, with spent, against the file's budget.
func (r *chunkReader) count(total int64, spent bool) error {
	if err := r.file.hold(total); err != nil {
		return err
	}
	if spent {
		return r.file.spend(total)
	}
	return nil
}

func (r *chunkReader) readData(h pageHeader, body []byte, v *Values) error {
	b, err := r.uncompress(h, body)
	if err != nil {
		return err
	}
	rows := int(h.numValues)
	valid := rows
	if r.col.Optional {
		if h.defEncoding != encRLE {
			return formatError("definition levels of encoding %d", h.defEncoding)
		}
		if len(b) < 4 {
			return formatError("definition levels past the page's end")
		}
		n := binary.LittleEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return formatError("definition levels of %d bytes past the page's end", n)
		}
		if valid, err = r.levels(b[4:4+n], rows, v); err != nil {
			return err
		}
		b = b[4+n:]
	}
	return r.values(h.encoding, b, rows, valid, v)
}

// readDataV2 reads a data page v2: its definition levels (and the
// repetition levels a flat column has none of) stand uncompressed before
// its values, which alone may be compressed.
func (r *chunkReader) readDataV2(h pageHeader, body []byte, v *Values) error {
	lv := int(h.defBytes) + int(h.repBytes)
	if h.defBytes < 0 || h.repBytes != 0 || lv > len(body) || lv > int(h.uncompressedSize) {
		return formatError("levels of %d and %d bytes in a page of %d", h.defBytes, h.repBytes, len(body))
	}
	levels, rest := body[:lv], body[lv:]
	if h.compressed {
		vh := h
		vh.uncompressedSize -= int32(lv)
		var err error
		if rest, err = r.uncompress(vh, rest); err != nil {
			return err
		}
	} else if len(rest) != int(h.uncompressedSize)-lv {
		return formatError("a page of %d bytes, %d in its header", len(rest)+lv, h.uncompressedSize)
	}
	rows, valid := int(h.numValues), int(h.numValues)
	if r.col.Optional {
		var err error
		if valid, err = r.levels(levels, rows, v); err != nil {
			return err
		}
	}
	return r.values(h.encoding, rest, rows, valid, v)
}

// levels reads rows definition levels (RLE, bit width 1) into v.Valid
// and returns how many rows hold a value.
func (r *chunkReader) levels(b []byte, rows int, v *Values) (int, error) {
	levels := make([]uint32, rows)
	if _, err := decodeRLE(b, 1, levels); err != nil {
		return 0, fmt.Errorf("definition levels: %w", err)
	}
	valid := 0
	for _, l := range levels {
		v.Valid = append(v.Valid, l == 1)
		valid += int(l)
	}
	return valid, nil
}

// values reads a page's valid values in encoding enc and spreads them
// over its rows.
func (r *chunkReader) values(enc int32, b []byte, rows, valid int, v *Values) error {
	switch r.col.Type {
	case Int32, Int64:
		vals, err := r.ints(enc, b, valid)
		if err != nil {
			return err
		}
		v.Ints = spread(v.Ints, vals, v.Valid, rows)
	case Double:
		vals, err := r.doubles(enc, b, valid)
		if err != nil {
			return err
		}
		v.Doubles = spread(v.Doubles, vals, v.Valid, rows)
	case String:
		vals, err := r.strings(enc, b, valid)
		if err != nil {
			return err
		}
		v.Strings = spread(v.Strings, vals, v.Valid, rows)
	}
	return nil
}

func (r *chunkReader) doubles(enc int32, b []byte, n int) ([]float64, error) {
	switch enc {
	case encPlain:
		return plainDoubles(b, n)
	case encRLEDict, encPlainDict:
		idx, err := r.indices(b, n, len(r.dictDoubles))
		if err != nil {
			return nil, err
		}
		return fromDict(idx, r.dictDoubles), nil
	case encByteStreamSplit:
		return fixedDoubles(b, n, true)
	}
	return nil, formatError("doubles of encoding %d", enc)
}

// spread appends a page's rows to dst: vals in its valid rows, the
// zero value in its null rows (the last rows of valid), or vals alone
// for a required column.
func spread[T any](dst, vals []T, valid []bool, rows int) []T {
	if valid == nil {
		return append(dst, vals...)
	}
	var zero T
	j := 0
	for _, ok := range valid[len(valid)-rows:] {
		if ok {
			dst = append(dst, vals[j])
			j++
		} else {
			dst = append(dst, zero)
		}
	}
	return dst
}

func (r *chunkReader) ints(enc int32, b []byte, n int) ([]int64, error) {
	switch enc {
	case encDeltaBinary:
		vals := make([]int64, n)
		if _, err := decodeDelta(b, vals, r.col.Type == Int32); err != nil {
			return nil, err
		}
		return vals, nil
	case encPlain:
		return r.plainInts(b, n)
	case encRLEDict, encPlainDict:
		idx, err := r.indices(b, n, len(r.dictInts))
		if err != nil {
			return nil, err
		}
		return fromDict(idx, r.dictInts), nil
	case encByteStreamSplit:
		return r.fixedInts(b, n, true)
	}
	return nil, formatError("integers of encoding %d", enc)
}

func (r *chunkReader) strings(enc int32, b []byte, n int) ([]string, error) {
	switch enc {
	case encPlain:
		return r.plainStrings(b, n, false)
	case encRLEDict, encPlainDict:
		idx, err := r.indices(b, n, len(r.dict))
		if err != nil {
			return nil, err
		}
		// A dictionary's value is held once, but each row's copy is
		// spent.
		var total int64
		for _, j := range idx {
			total += int64(len(r.dict[j]))
		}
		if err := r.file.spend(total); err != nil {
			return nil, err
		}
		return fromDict(idx, r.dict), nil
	case encDeltaLength:
		lens, rest, err := deltaLengths(b, n)
		if err != nil {
			return nil, err
		}
		var total int64
		for i, l := range lens {
			if err := stringLength(i, l); err != nil {
				return nil, err
			}
			if l > int64(len(rest))-total {
				return nil, formatError("value %d: a string of %d bytes past the page's end", i, l)
			}
			total += l
		}
		if err := r.count(total, true); err != nil {
			return nil, err
		}
		vals := make([]string, n)
		for i, l := range lens {
			vals[i], rest = string(rest[:l]), rest[l:]
		}
		return vals, nil
	case encDeltaByteArray:
		// The prefixes each value shares with the one before, then the
		// rest of each value as DELTA_LENGTH_BYTE_ARRAY.
		prefix := make([]int64, n)
		k, err := decodeDelta(b, prefix, false)
		if err != nil {
			return nil, fmt.Errorf("prefix lengths: %w", err)
		}
		suffix, rest, err := deltaLengths(b[k:], n)
		if err != nil {
			return nil, err
		}
		// Each value's length, checked, before any is built: a few bytes
		// of prefix lengths can make values as long as the one before
		// each, over and over.
		var total, prev, tail int64
		for i, p := range prefix {
			if p < 0 || p > prev {
				return nil, formatError("value %d shares %d bytes with a value of %d", i, p, prev)
			}
			if s := suffix[i]; s < 0 || s > int64(len(rest))-tail {
				return nil, formatError("value %d: a suffix of %d bytes past the page's end", i, s)
			}
			tail += suffix[i]
			prev = p + suffix[i]
			if err := stringLength(i, prev); err != nil {
				return nil, err
			}
			total += prev
		}
		if err := r.count(total, true); err != nil {
			return nil, err
		}
		vals := make([]string, n)
		last := ""
		for i, p := range prefix {
			vals[i], rest = last[:p]+string(rest[:suffix[i]]), rest[suffix[i]:]
			last = vals[i]
		}
		return vals, nil
	}
	return nil, formatError("strings of encoding %d", enc)
}

// deltaLengths reads n lengths of DELTA_LENGTH_BYTE_ARRAY, DELTA_BINARY_PACKED,
// and returns them and the bytes after them, the strings' bytes one after
// another.
func deltaLengths(b []byte, n int) ([]int64, []byte, error) {
	lens := make([]int64, n)
	k, err := decodeDelta(b, lens, true)
	if err != nil {
		return nil, nil, fmt.Errorf("string lengths: %w", err)
	}
	return lens, b[k:], nil
}
