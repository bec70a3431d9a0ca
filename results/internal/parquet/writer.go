package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// A Type is a column's physical type, with the logical type the tables
// give it.
type Type uint8

const (
	Int32  Type = iota + 1 // INT32, signed 32-bit integer
	Int64                  // INT64, signed 64-bit integer
	Double                 // DOUBLE
	String                 // BYTE_ARRAY, UTF-8 string
)

func (t Type) String() string {
	switch t {
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Double:
		return "double"
	case String:
		return "string"
	}
	return "invalid"
}

// A Column is one column of a flat table: required, or optional (its
// rows may be null).
type Column struct {
	Name     string
	Type     Type
	Optional bool
}

// Bitmap says which rows of a slice of values hold a value: bit Off+i of
// Bits (least significant bit first, as Arrow lays out validity) for row
// i. A nil Bits holds every row.
type Bitmap struct {
	Bits []byte
	Off  int
}

func (b Bitmap) valid(i int) bool {
	if b.Bits == nil {
		return true
	}
	j := b.Off + i
	return b.Bits[j>>3]>>(j&7)&1 != 0
}

// CreatedBy names the writer in every file's footer.
const CreatedBy = "gpureplay"

// PageRows is the most rows a data page holds: 256 KiB of int64 values
// before encoding. Every column of every open table keeps a page of values
// in hand.
const PageRows = 1 << 15

// encoderOnce is the pages' zstd encoder, shared (EncodeAll is safe for
// concurrent use): the fastest level, whose files are within a few per
// cent of the default level's; no frame checksum, which Parquet readers
// do not need; and literals left as they are, not Huffman-coded. A
// page's literals are mostly packed bits and doubles' low bytes, which
// the coding shrank little for its cost: without it a replay's tables
// are 0.5% larger (synth, 500K CTAs) to 2.7% (BFS scale 16 under CDP),
// and --out parquet adds 48 and 155 instructions a CTA fewer
// (scripts/instructions.sh --quick synth-parquet bfs-parquet).
var encoderOnce = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithNoEntropyCompression(true))
	if err != nil {
		panic(err) // only for invalid options
	}
	return enc
})

// A Writer writes a Parquet file of flat columns, row group by row group.
// The caller appends each column's rows of the group (the columns in any
// order, each in row order), then ends the group; Close writes the
// footer. Every column of a group must get the same number of rows.
//
// The file's layout is fixed, so the same rows give the same bytes: data
// pages (v1) of up to PageRows rows, zstd-compressed; integers
// DELTA_BINARY_PACKED; doubles dictionary-encoded while their values
// repeat enough (appendDoubleIndices), PLAIN after; strings
// dictionary-encoded, a dictionary per row group; definition levels
// RLE; the chunk's statistics (least and greatest value, null count).
type Writer struct {
	w      io.Writer
	off    int64
	cols   []Column
	chunks []chunk
	meta   fileMeta
	err    error
	page   []byte // a page's uncompressed bytes, reused
	zbuf   []byte // its compressed bytes, reused
	hdr    encoder
	// The last call of Int64s whose next column is a twin (Int64s): its
	// column (-1: none) and its values.
	last     int
	lastVals []int64
	twinned  int // calls copied (twin), for the tests
}

// NewWriter starts a file of the given columns on w and writes its
// leading magic number.
func NewWriter(w io.Writer, cols []Column) (*Writer, error) {
	pw := &Writer{w: w, cols: cols, chunks: make([]chunk, len(cols)), last: -1}
	pw.meta.createdBy = CreatedBy
	pw.meta.schema = append(pw.meta.schema, schemaElement{typ: -1, repetition: repRequired, name: "schema", numChildren: int32(len(cols)), converted: -1})
	seen := map[string]bool{}
	for i, c := range cols {
		el := schemaElement{repetition: repRequired, name: c.Name, converted: -1}
		if c.Optional {
			el.repetition = repOptional
		}
		switch c.Type {
		case Int32:
			el.typ, el.converted, el.logical = typeInt32, convInt32, logicalType{kind: logicalInteger, bitWidth: 32, signed: true}
		case Int64:
			el.typ, el.converted, el.logical = typeInt64, convInt64, logicalType{kind: logicalInteger, bitWidth: 64, signed: true}
		case Double:
			el.typ = typeDouble
		case String:
			el.typ, el.converted, el.logical = typeByteArray, convUTF8, logicalType{kind: logicalString}
		default:
			return nil, fmt.Errorf("parquet: column %s: no type", c.Name)
		}
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("parquet: column %d: empty or repeated name %q", i+1, c.Name)
		}
		seen[c.Name] = true
		pw.meta.schema = append(pw.meta.schema, el)
		pw.chunks[i].col = c
		pw.chunks[i].defs.reset(1)
		pw.chunks[i].twin = pw.twins(i)
	}
	pw.write([]byte(magic))
	return pw, pw.err
}

const magic = "PAR1"

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(p)
	w.off += int64(n)
	w.err = err
}

// Err is the first error the writer met: a write of the underlying
// writer's or a misuse.
func (w *Writer) Err() error { return w.err }

func (w *Writer) chunk(col int, t Type) *chunk {
	if col < 0 || col >= len(w.chunks) || w.chunks[col].col.Type != t {
		if w.err == nil {
			w.err = fmt.Errorf("parquet: column %d is not a %s column", col, t)
		}
		return nil
	}
	return &w.chunks[col]
}

// Int64s appends rows of an Int64 column: vs[i], or null where valid
// says so (an optional column's).
func (w *Writer) Int64s(col int, vs []int64, valid Bitmap) {
	if c := w.chunk(col, Int64); c != nil {
		if w.twin(col, c, vs, valid) {
			return
		}
		appendRows(w, c, vs, valid, func(v []int64) {
			if len(c.ints) == 0 && len(v) == PageRows { // a whole page: read where it is
				c.ownInts, c.ints, c.lent = c.ints, v, true
				return
			}
			c.ints = append(c.ints, v...)
		})
		w.keep(col, vs, valid)
	}
}

// A column whose rows are, call by call, those of the column before it
// (a CTA's start cycles, its dispatch cycles where no CTA was held) has
// the same pages: Int64s then copies them, the pending values and the
// bounds from that column's chunk, rather than encoding and compressing
// them again. A chunk is such a twin from the start of its row group
// while each call gave it what the call before gave the column before
// it: the same values, required columns both, none null. A copy of the
// values of that call is kept (keep) only where the next column is a
// twin still, so that a caller may reuse its slice. synth --out parquet,
// its start cycles its dispatch cycles': 17 instructions a CTA fewer
// (scripts/instructions.sh --quick synth-parquet).
//
// twin reports whether c, column col, takes this call as a copy of the
// column before it, and made it so; else c is a twin no more.
func (w *Writer) twin(col int, c *chunk, vs []int64, valid Bitmap) bool {
	if !c.twin {
		return false
	}
	p := &w.chunks[col-1] // c.twin: col > 0
	if w.err != nil || w.last != col-1 || valid.Bits != nil || c.calls+1 != p.calls || !sameInts(vs, w.lastVals) {
		c.twin = false
		return false
	}
	c.pages = append(c.pages, p.pages[len(c.pages):]...) // c's pages are p's before its call
	c.uncompressed, c.rows, c.nulls, c.pageRows = p.uncompressed, p.rows, p.nulls, p.pageRows
	c.ints = append(c.ints[:0], p.ints...)
	c.hasBounds, c.lo, c.hi, c.store = p.hasBounds, p.lo, p.hi, p.store
	w.twinned++
	w.keep(col, vs, valid)
	return true
}

// sameInts reports whether a and b hold the same values: their bytes
// compared as bytes.Equal does, some 0.1 instructions a byte, where
// slices.Equal's loop took 6 a value (synth --out parquet 6 instructions
// a CTA more, scripts/instructions.sh --quick synth-parquet).
func sameInts(a, b []int64) bool {
	return len(a) == len(b) && bytes.Equal(intBytes(a), intBytes(b))
}

// intBytes is vs' memory as bytes.
func intBytes(vs []int64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vs))), 8*len(vs))
}

// keep notes that column col took vs (a call of Int64s), and keeps a
// copy of them where the next column is still a twin (twin).
func (w *Writer) keep(col int, vs []int64, valid Bitmap) {
	w.chunks[col].calls++
	w.last = -1
	if col+1 < len(w.chunks) && w.chunks[col+1].twin && valid.Bits == nil {
		w.last, w.lastVals = col, append(w.lastVals[:0], vs...)
	}
}

// Int32s appends rows of an Int32 column.
func (w *Writer) Int32s(col int, vs []int32, valid Bitmap) {
	if c := w.chunk(col, Int32); c != nil {
		appendRows(w, c, vs, valid, func(v []int32) {
			// Grown once: appended a value at a time through c, 10
			// instructions a CTA more on synth and 25 on BFS
			// (scripts/instructions.sh --quick synth-parquet bfs-parquet).
			n := len(c.ints)
			c.ints = slices.Grow(c.ints, len(v))[:n+len(v)]
			widen(c.ints[n:][:len(v)], v)
		})
	}
}

// widen sets out[i] to vs[i] (len(out) == len(vs)), eight a round with
// no index checked: some 4.4 instructions a value, where a value at a
// time took 6 (the sm columns of --quick synth-parquet, callgrind).
func widen(out []int64, vs []int32) {
	for len(vs) >= 8 && len(out) >= 8 {
		o, g := (*[8]int64)(out), (*[8]int32)(vs)
		o[0], o[1], o[2], o[3] = int64(g[0]), int64(g[1]), int64(g[2]), int64(g[3])
		o[4], o[5], o[6], o[7] = int64(g[4]), int64(g[5]), int64(g[6]), int64(g[7])
		out, vs = out[8:], vs[8:]
	}
	for i, x := range vs {
		out[i] = int64(x)
	}
}

// Doubles appends rows of a Double column.
func (w *Writer) Doubles(col int, vs []float64, valid Bitmap) {
	if c := w.chunk(col, Double); c != nil {
		appendRows(w, c, vs, valid, func(v []float64) {
			if len(c.dbls) == 0 && len(v) == PageRows { // a whole page: read where it is
				c.ownDbls, c.dbls, c.lent = c.dbls, v, true
				return
			}
			c.dbls = append(c.dbls, v...)
		})
	}
}

// appendRows appends rows to c's page, ending pages at PageRows rows;
// put appends a stretch of valid values. A stretch of a whole page's
// values, put into an empty page, ends the page at once, so put may keep
// the caller's slice as the page's values (Int64s, Doubles: the chunk is
// lent them until endPage), not a copy: copied, a batch's whole pages
// cost --out parquet 5 instructions a CTA more (--quick synth-parquet,
// where most of the ctas table's pages lie whole in a batch).
func appendRows[T any](w *Writer, c *chunk, vs []T, valid Bitmap, put func([]T)) {
	if valid.Bits != nil && !c.col.Optional {
		w.err = firstErr(w.err, fmt.Errorf("parquet: column %s is required: no row may be null", c.col.Name))
		return
	}
	for len(vs) > 0 {
		k := min(len(vs), PageRows-c.pageRows)
		if valid.Bits == nil {
			put(vs[:k])
			if c.col.Optional {
				c.defs.repeat(1, k)
			}
		} else {
			for i := 0; i < k; {
				j := valid.end(i, k, true)
				put(vs[i:j])
				c.defs.repeat(1, j-i)
				i = j
				j = valid.end(i, k, false)
				c.defs.repeat(0, j-i)
				c.nulls += int64(j - i)
				i = j
			}
			valid.Off += k
		}
		vs = vs[k:]
		c.pageRows += k
		if c.pageRows == PageRows {
			w.endPage(c)
		}
	}
}

// firstErr keeps the first error the writer met.
func firstErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

// Index is the row group's dictionary index of s in String column col,
// which adds s to the dictionary if it is new; Indices and Repeat append
// rows by index.
func (w *Writer) Index(col int, s string) uint32 {
	c := w.chunk(col, String)
	if c == nil {
		return 0
	}
	if i, ok := c.dict[s]; ok {
		return i
	}
	if c.dict == nil {
		c.dict = map[string]uint32{}
	}
	i := uint32(len(c.dictVals))
	s = strings.Clone(s) // s may live in a buffer the caller reuses
	c.dict[s] = i
	c.dictVals = append(c.dictVals, s)
	return i
}

// Indices appends rows of String column col by dictionary index (Index),
// or null where valid says so (a null row's index is not read).
func (w *Writer) Indices(col int, idx []uint32, valid Bitmap) {
	c := w.chunk(col, String)
	if c == nil {
		return
	}
	for j, i := range idx {
		if int(i) >= len(c.dictVals) && valid.valid(j) {
			w.err = firstErr(w.err, fmt.Errorf("parquet: column %s: index %d past its dictionary of %d", c.col.Name, i, len(c.dictVals)))
			return
		}
	}
	appendRows(w, c, idx, valid, func(v []uint32) {
		for len(v) > 0 { // a run of one index at a time, as repeatIndex keeps them
			n := 1
			for n < len(v) && v[n] == v[0] {
				n++
			}
			c.idx.repeatIndex(v[0], n)
			v = v[n:]
		}
	})
}

// Repeat appends n rows of the string of dictionary index i to String
// column col. A stretch costs next to nothing, whatever its length.
func (w *Writer) Repeat(col int, i uint32, n int) {
	c := w.chunk(col, String)
	if c == nil {
		return
	}
	if int(i) >= len(c.dictVals) {
		w.err = firstErr(w.err, fmt.Errorf("parquet: column %s: index %d past its dictionary of %d", c.col.Name, i, len(c.dictVals)))
		return
	}
	for n > 0 {
		k := min(n, PageRows-c.pageRows)
		c.idx.repeatIndex(i, k)
		if c.col.Optional {
			c.defs.repeat(1, k)
		}
		n -= k
		c.pageRows += k
		if c.pageRows == PageRows {
			w.endPage(c)
		}
	}
}

// Rows is the number of rows the group being filled holds in column
// col.
func (w *Writer) Rows(col int) int64 {
	return w.chunks[col].rows + int64(w.chunks[col].pageRows)
}

// EndRowGroup writes the row group being filled, if it has rows: every
// column must hold the same number.
func (w *Writer) EndRowGroup() error {
	if w.err != nil {
		return w.err
	}
	rows := w.Rows(0)
	for i := range w.chunks {
		if r := w.Rows(i); r != rows {
			w.err = fmt.Errorf("parquet: row group of %d rows in column %s, %d in %s", rows, w.cols[0].Name, r, w.cols[i].Name)
			return w.err
		}
	}
	if rows == 0 {
		return nil
	}
	g := rowGroup{numRows: rows, columns: make([]columnMeta, len(w.chunks))}
	for i := range w.chunks {
		c := &w.chunks[i]
		if c.pageRows > 0 {
			w.endPage(c)
		}
		m := &g.columns[i]
		*m = columnMeta{path: c.col.Name, codec: c.codec(), numValues: c.rows, stats: c.statistics()}
		switch c.col.Type {
		case Int32:
			m.typ, m.encodings = typeInt32, []int32{encDeltaBinary, encRLE}
		case Int64:
			m.typ, m.encodings = typeInt64, []int32{encDeltaBinary, encRLE}
		case Double:
			m.typ, m.encodings = typeDouble, []int32{encPlain, encRLE}
			if len(c.ddict.vals) > 0 {
				m.encodings = append(m.encodings, encRLEDict)
				m.dictPageOffset = w.off
				w.page = w.page[:0]
				for _, v := range c.ddict.vals {
					w.page = binary.LittleEndian.AppendUint64(w.page, math.Float64bits(v))
				}
				u, z := w.writePage(c, pageHeader{typ: pageDictionary, numValues: int32(len(c.ddict.vals)), encoding: encPlain}, w.page)
				m.uncompressedSize += u
				m.compressedSize += z
			}
		case String:
			m.typ, m.encodings = typeByteArray, []int32{encPlain, encRLE, encRLEDict}
			m.dictPageOffset = w.off
			w.page = w.page[:0]
			for _, s := range c.dictVals {
				w.page = binary.LittleEndian.AppendUint32(w.page, uint32(len(s)))
				w.page = append(w.page, s...)
			}
			u, z := w.writePage(c, pageHeader{typ: pageDictionary, numValues: int32(len(c.dictVals)), encoding: encPlain}, w.page)
			m.uncompressedSize += u
			m.compressedSize += z
		}
		m.dataPageOffset = w.off
		w.write(c.pages)
		m.uncompressedSize += c.uncompressed
		m.compressedSize += int64(len(c.pages))
		g.totalSize += m.uncompressedSize
		c.reset()
		c.twin, c.calls = w.twins(i), 0
	}
	w.last = -1
	w.meta.rowGroups = append(w.meta.rowGroups, g)
	w.meta.numRows += rows
	return w.err
}

// writePage compresses and writes a page of chunk c, returning its sizes
// with its header: uncompressed and as written.
func (w *Writer) writePage(c *chunk, h pageHeader, body []byte) (int64, int64) {
	head, data := w.compress(c, h, body)
	w.write(head)
	w.write(data)
	return int64(len(head) + len(body)), int64(len(head) + len(data))
}

// compress compresses a page's body as chunk c stores its pages (see
// store) and encodes its header with both sizes; the two are valid until
// the next page.
func (w *Writer) compress(c *chunk, h pageHeader, body []byte) (head, data []byte) {
	data = body
	switch c.store {
	case storeRaw:
	case storeFrames:
		w.zbuf = appendRawFrame(w.zbuf[:0], body)
		data = w.zbuf
	default:
		w.zbuf = encoderOnce().EncodeAll(body, w.zbuf[:0])
		switch worth := worthZstd(len(body), len(w.zbuf)); {
		case c.store == storeUndecided && !worth:
			c.store = storeRaw
		case !worth: // a later page: this one as zstd made it, the rest as frames
			c.store, data = storeFrames, w.zbuf
		default:
			c.store, data = storeZstd, w.zbuf
		}
	}
	h.uncompressedSize, h.compressedSize = int32(len(body)), int32(len(data))
	w.hdr.buf, w.hdr.last = w.hdr.buf[:0], w.hdr.last[:0]
	h.encode(&w.hdr)
	return w.hdr.buf, data
}

// endPage encodes, compresses and keeps the page c has filled.
func (w *Writer) endPage(c *chunk) {
	if c.pageRows > 0 {
		b := w.page[:0]
		if c.col.Optional {
			levels := c.defs.finish()
			b = binary.LittleEndian.AppendUint32(b, uint32(len(levels)))
			b = append(b, levels...)
		}
		enc := int32(encPlain)
		switch c.col.Type {
		case Int32, Int64:
			b = c.appendInts(b)
			enc = encDeltaBinary
		case Double:
			var ok bool
			if b, ok = c.appendDoubleIndices(b); ok { // and the bounds
				enc = encRLEDict
				break
			}
			c.boundDoubles()
			for _, v := range c.dbls {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			}
		case String:
			b = c.idx.appendTo(b, &c.rle)
			enc = encRLEDict
		}
		w.page = b
		head, data := w.compress(c, pageHeader{typ: pageData, numValues: int32(c.pageRows), encoding: enc, defEncoding: encRLE}, b)
		c.pages = append(append(c.pages, head...), data...)
		c.uncompressed += int64(len(head) + len(b))
	}
	c.rows += int64(c.pageRows)
	c.pageRows = 0
	if c.lent { // the page's values were the caller's: the chunk's own again
		c.ints, c.dbls, c.ownInts, c.ownDbls, c.lent = c.ownInts, c.ownDbls, nil, nil, false
	}
	c.ints, c.dbls = c.ints[:0], c.dbls[:0]
	c.idx.runs = c.idx.runs[:0]
	c.defs.reset(1)
}

// maxDoubleDict is the most values a Double column chunk's dictionary
// holds: 512 KiB of them, and a hash table of at most 2 MiB.
const maxDoubleDict = 1 << 16

// appendDoubleIndices appends the page's doubles as RLE_DICTIONARY data,
// indices into the chunk's dictionary, and says so; or appends nothing
// and says not (the page is to be PLAIN) where the dictionary would grow
// past maxDoubleDict values or a quarter of the chunk's rows so far: then
// it stays as it was, and the chunk's later pages are PLAIN too, as a
// chunk may hold dictionary pages and then plain ones.
//
// A slowdown, the ctas table's one double a row, takes a few thousand
// values over the group's 262,144 rows (synth: 12,079 over 500K rows),
// and its PLAIN pages, the matches in them short, cost zstd some 440
// instructions a row; as indices they are a few bits each that zstd
// passes over, and the file is smaller (synth: --out parquet adds some
// 280 instructions a CTA fewer, scripts/instructions.sh --quick
// synth-parquet, and its ctas table is 6% smaller).
func (c *chunk) appendDoubleIndices(b []byte) ([]byte, bool) {
	if c.plainDoubles || len(c.dbls) == 0 {
		return b, false
	}
	if c.ddict.slots == nil {
		c.ddict.rehash(1024)
	}
	mark, most := len(c.ddict.vals), min(maxDoubleDict, (int(c.rows)+c.pageRows)/4)
	// The page's values and indices are local slices, the indices sized
	// once, a run's found as they are set: appended one at a time
	// through c after a loop of its own found the run, they cost 33
	// instructions a CTA more on synth, 16 on BFS
	// (scripts/instructions.sh --quick synth-parquet bfs-parquet).
	dbls, n := c.dbls, (len(c.dbls)+7)&^7
	didx := slices.Grow(c.didx[:0], n)[:n]
	idx := didx[:len(dbls)]
	// A value is looked up only where it is not the last one's (a run
	// takes the last index), in found's loop over the values' bits, which
	// stops at a value not at its first probe: a loop that looked up each
	// value as a float and then found its run in a loop of its own cost
	// synth --out parquet some 20 instructions a CTA more
	// (scripts/instructions.sh --quick synth-parquet).
	vs := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dbls))), len(dbls))
	last, k := vs[0]^1, uint64(0) // last: not the first value's
	for i := 0; ; i++ {
		n := 0
		n, last, k = c.ddict.found(idx[i:], vs[i:], last, k)
		if i += n; i == len(vs) {
			break
		}
		k = uint64(c.ddict.index(dbls[i]))
		if len(c.ddict.vals) > most { // given up as soon as it is too large
			c.ddict.truncate(mark)
			c.plainDoubles = true
			return b, false
		}
		// The bounds take a value when the dictionary does: a value found
		// at the first probe is in the chunk's dictionary, so it was taken
		// then, and once taken a value changes them no more (a page given
		// up on is taken whole, boundDoubles). Taken once a run, in the
		// loop, they cost 9 instructions a CTA more on synth; all of the
		// values, in a pass of their own, 24 (scripts/instructions.sh
		// --quick synth-parquet).
		c.boundDouble(dbls[i])
		last, idx[i] = vs[i], k
	}
	// The indices as one bit-packed run of the hybrid encoding, the last
	// group padded with zeros: the RLE encoder, asking of each group of 8
	// whether it is a run, cost some 50 instructions a CTA more on synth
	// (scripts/instructions.sh --quick synth-parquet), and zstd finds a
	// run of one value in the packed bits.
	clear(didx[len(dbls):])
	c.didx = didx
	w := uint(max(1, bits.Len(uint(len(c.ddict.vals)-1))))
	b = binary.AppendUvarint(append(b, byte(w)), uint64(len(c.didx)/8)<<1|1)
	return packBits(b, c.didx, w, 0), true
}

// doubleDict is a Double column chunk's dictionary: its values in index
// order, found by their bits (so -0 and +0, and each NaN, are values of
// their own) in a hash table of open addressing, which costs a lookup a
// fraction of a Go map's.
type doubleDict struct {
	vals  []float64
	slots []uint32 // 1 + the index of the value hashed there, 0 for none
	shift uint     // 64 - log2(len(slots))
}

// index is v's index, v added if it is new.
func (d *doubleDict) index(v float64) uint32 {
	if s := d.lookup(math.Float64bits(v)); s != 0 {
		return s - 1
	}
	d.vals = append(d.vals, v)
	if 2*len(d.vals) > len(d.slots) {
		d.rehash(max(1024, 4*len(d.vals)))
	} else {
		d.place(len(d.vals) - 1)
	}
	return uint32(len(d.vals) - 1)
}

// lookup is 1 + the index of the value of bits b, 0 if it is not in the
// table.
//
//go:noinline
func (d *doubleDict) lookup(b uint64) uint32 {
	mask := uint64(len(d.slots) - 1)
	for h := d.slot(b); len(d.slots) > 0; h = (h + 1) & mask {
		if s := d.slots[h]; s == 0 || math.Float64bits(d.vals[s-1]) == b {
			return s
		}
	}
	return 0
}

// slot is where the value of bits b hashes to.
func (d *doubleDict) slot(b uint64) uint64 { return b * 0x9e3779b97f4a7c15 >> d.shift }

// found sets idx[i] to the index of vs[i] (a double's bits) from the
// first on, while each value is last (whose index is k) or in the table
// (past its first probe, lookup's call: returned to appendDoubleIndices
// to be found by index, synth's some 27K such values a run cost --quick
// synth-parquet 3 instructions a CTA more), and returns how many it set,
// the last value and its index. The table and values are read through their first elements'
// addresses, no index checked (the table's make-up bounds them), so
// that their lengths take no registers: checked, synth --out parquet
// took 4 instructions a CTA more. Inlined, its loop spilled i, last and k
// to the stack: 10 more (scripts/instructions.sh --quick synth-parquet).
//
//go:noinline
func (d *doubleDict) found(idx, vs []uint64, last, k uint64) (int, uint64, uint64) {
	slots, shift := unsafe.Pointer(unsafe.SliceData(d.slots)), d.shift&63
	vals := unsafe.Pointer(unsafe.SliceData(d.vals))
	idx = idx[:len(vs)]
	for i, v := range vs {
		if v != last {
			s := *(*uint32)(unsafe.Add(slots, 4*(v*0x9e3779b97f4a7c15>>shift)))
			if s == 0 || *(*uint64)(unsafe.Add(vals, 8*uintptr(s-1))) != v {
				if s == 0 { // not in the table
					return i, last, k
				}
				if s = d.lookup(v); s == 0 { // nor past its first probe
					return i, last, k
				}
			}
			last, k = v, uint64(s-1)
		}
		idx[i] = k
	}
	return len(vs), last, k
}

// place puts value i in the table, which does not hold it.
func (d *doubleDict) place(i int) {
	mask := uint64(len(d.slots) - 1)
	h := d.slot(math.Float64bits(d.vals[i]))
	for d.slots[h] != 0 {
		h = (h + 1) & mask
	}
	d.slots[h] = uint32(i + 1)
}

// rehash remakes the table with n slots (a power of two).
func (d *doubleDict) rehash(n int) {
	n = 1 << bits.Len(uint(n-1))
	if n != len(d.slots) {
		d.slots = make([]uint32, n)
		d.shift = uint(64 - bits.Len(uint(n-1)))
	} else {
		clear(d.slots)
	}
	for i := range d.vals {
		d.place(i)
	}
}

// truncate keeps the first n values.
func (d *doubleDict) truncate(n int) {
	d.vals = d.vals[:n]
	if len(d.slots) > 0 {
		d.rehash(len(d.slots))
	}
}

// Close ends the row group being filled and writes the footer. It does
// not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.EndRowGroup(); err != nil {
		return err
	}
	foot := w.meta.encode()
	w.write(foot)
	w.write(binary.LittleEndian.AppendUint32(nil, uint32(len(foot))))
	w.write([]byte(magic))
	return w.err
}

// A chunk is one column's part of the row group being filled: the pages
// written so far, compressed, and the page being filled.
type chunk struct {
	col Column

	// the page being filled
	pageRows int
	ints     []int64   // Int32 and Int64 columns' valid values
	dbls     []float64 // a Double column's
	didx     []uint64  // and their dictionary indices
	lent     bool      // ints or dbls are a caller's whole page (appendRows), until endPage
	ownInts  []int64   // and the chunk's own buffers meanwhile
	ownDbls  []float64
	idx      indexRuns // a String column's dictionary indices
	defs     rleEncoder
	rle      rleEncoder // the indices' encoder, reused

	// the group so far
	pages        []byte // page headers and compressed pages
	uncompressed int64  // their size uncompressed, headers included
	rows         int64  // rows in pages
	nulls        int64
	dict         map[string]uint32
	dictVals     []string
	ddict        doubleDict // a Double column's dictionary, while it is kept
	plainDoubles bool       // and whether its pages are PLAIN from now on
	hasBounds    bool
	lo, hi       int64 // integer bounds
	// twin: the column's calls so far this group were those of the
	// column before it (Writer.twin); calls counts them (Int64s).
	twin     bool
	calls    int
	dlo, dhi float64 // double bounds
	store    store   // how the group's pages are stored: decided at its first page, and at a later one's miss
}

// twins reports whether column i may be a twin of the column before it
// (Int64s): both required Int64 columns.
func (w *Writer) twins(i int) bool {
	req := func(c Column) bool { return c.Type == Int64 && !c.Optional }
	return twinColumns && i > 0 && req(w.cols[i]) && req(w.cols[i-1])
}

// twinColumns is whether Int64s copies a twin's pages: false in a test,
// for the file written without.
var twinColumns = true

func (c *chunk) reset() {
	c.pages, c.uncompressed, c.rows, c.nulls = c.pages[:0], 0, 0, 0
	clear(c.dict)
	c.dictVals, c.hasBounds = c.dictVals[:0], false
	c.ddict.truncate(0)
	c.plainDoubles = false
	c.defs.reset(1)
	c.store = storeUndecided
}

// bound takes a page's integers' least and greatest (appendDelta) into
// the chunk's bounds.
func (c *chunk) bound(lo, hi int64) {
	if !c.hasBounds {
		c.lo, c.hi, c.hasBounds = lo, hi, true
		return
	}
	c.lo, c.hi = min(c.lo, lo), max(c.hi, hi)
}

// bounds is the least and the greatest of vs (at least one value),
// eight values a round with no index checked: some 6.4 instructions a
// value, where a value at a time took 8 (--quick synth-parquet,
// callgrind). appendDelta takes a last block's part's bounds here, and a
// whole block's miniblock by miniblock (boundsMini). Taken in the delta
// loop itself, for a column whose last page did not climb, they cost
// 5.7 instructions a value more there: the loop, short of registers,
// moves values between them.
func bounds(vs []int64) (lo, hi int64) {
	lo, hi = vs[0], vs[0]
	for ; len(vs) >= 8; vs = vs[8:] {
		g := (*[8]int64)(vs)
		lo = min(lo, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7])
		hi = max(hi, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7])
	}
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// boundDoubles takes a page's doubles into the chunk's bounds, leaving
// NaN out as the format asks.
func (c *chunk) boundDoubles() {
	for _, v := range c.dbls {
		c.boundDouble(v)
	}
}

// boundDouble takes a double into the chunk's bounds. Again, or again
// after the values it followed, it changes nothing: appendDoubleIndices
// takes a run's value once, and a page it gives up on (PLAIN, then)
// is taken whole after the values it took.
func (c *chunk) boundDouble(v float64) {
	switch {
	case v != v: // NaN
	case !c.hasBounds:
		c.dlo, c.dhi, c.hasBounds = v, v, true
	case v < c.dlo:
		c.dlo = v
	case v > c.dhi:
		c.dhi = v
	}
}

// statistics are the chunk's, in the format's encoding: plain values,
// a zero least double written -0 and a zero greatest +0 (the format's
// rule, so that a reader comparing bits finds both zeros inside).
func (c *chunk) statistics() statistics {
	s := statistics{nullCount: c.nulls}
	switch c.col.Type {
	case Int32:
		if c.hasBounds {
			s.min = binary.LittleEndian.AppendUint32(nil, uint32(int32(c.lo)))
			s.max = binary.LittleEndian.AppendUint32(nil, uint32(int32(c.hi)))
		}
	case Int64:
		if c.hasBounds {
			s.min = binary.LittleEndian.AppendUint64(nil, uint64(c.lo))
			s.max = binary.LittleEndian.AppendUint64(nil, uint64(c.hi))
		}
	case Double:
		if c.hasBounds {
			lo, hi := c.dlo, c.dhi
			if lo == 0 {
				lo = math.Copysign(0, -1)
			}
			if hi == 0 {
				hi = 0
			}
			s.min = binary.LittleEndian.AppendUint64(nil, math.Float64bits(lo))
			s.max = binary.LittleEndian.AppendUint64(nil, math.Float64bits(hi))
		}
	case String:
		if len(c.dictVals) > 0 {
			lo, hi := c.dictVals[0], c.dictVals[0]
			for _, v := range c.dictVals[1:] {
				lo, hi = min(lo, v), max(hi, v)
			}
			s.min, s.max = []byte(lo), []byte(hi)
		}
	}
	return s
}

// indexRuns are a page's dictionary indices as stretches of one index:
// the run columns and most string columns hold a value over long
// stretches.
type indexRuns struct {
	runs []indexRun
}

type indexRun struct {
	i uint32
	n int
}

func (r *indexRuns) repeatIndex(i uint32, n int) {
	if k := len(r.runs); k > 0 && r.runs[k-1].i == i {
		r.runs[k-1].n += n
		return
	}
	r.runs = append(r.runs, indexRun{i, n})
}

// appendTo appends the page's RLE_DICTIONARY data: the indices' bit
// width in a byte (at least 1, which every reader takes), then the
// indices in the hybrid encoding.
func (r *indexRuns) appendTo(dst []byte, enc *rleEncoder) []byte {
	var most uint32
	for _, run := range r.runs {
		most = max(most, run.i)
	}
	w := uint(max(1, bits.Len32(most)))
	enc.reset(w)
	for _, run := range r.runs {
		enc.repeat(uint64(run.i), run.n)
	}
	dst = append(dst, byte(w))
	return append(dst, enc.finish()...)
}

// appendInts appends the page's integers DELTA_BINARY_PACKED and takes
// them into the chunk's bounds. A stretch that climbs (ids, end cycles)
// takes them from its ends (appendDelta), not a pass of some 8
// instructions a value: for a page that climbs, --out parquet added 20
// instructions a CTA fewer on synth and 58 on BFS
// (scripts/instructions.sh --quick synth-parquet bfs-parquet). Taking
// every column's bounds in the delta loop instead saved 8 and 45: a
// value's min and max cost as much there, the loop short of registers.
func (c *chunk) appendInts(b []byte) []byte {
	b, lo, hi := appendDelta(b, c.ints, c.col.Type == Int32)
	if len(c.ints) > 0 {
		c.bound(lo, hi)
	}
	return b
}

// end is the first row from i, before k, whose validity is not v, or k:
// where a run of valid or null rows ends. It reads the bits a word at a
// time: a bit at a time, an optional column's rows cost 53 instructions
// a CTA more on BFS, where some are null in every row, and 13 on synth
// (scripts/instructions.sh --quick bfs-parquet synth-parquet).
func (b Bitmap) end(i, k int, v bool) int {
	var flip uint64 // the bits as they are, or flipped so that a 1 differs from v
	if v {
		flip = ^flip
	}
	for i < k {
		j := b.Off + i
		var word uint64
		n := 8 // the bits read
		if at := j >> 3; at+8 <= len(b.Bits) {
			word, n = binary.LittleEndian.Uint64(b.Bits[at:]), 64
		} else {
			word = uint64(b.Bits[at])
		}
		if d := (word ^ flip) & (^uint64(0) >> (64 - n)) >> (j & 7); d != 0 {
			return min(k, i+bits.TrailingZeros64(d))
		}
		i += n - j&7
	}
	return k
}

// A store is how a column chunk's pages are stored: zstd-compressed, or
// as they are (codec UNCOMPRESSED), which the chunk's first page decides
// for the rest and for its dictionary (a chunk has one codec). Most of
// the replay's integer columns are DELTA_BINARY_PACKED bits that zstd
// cannot shrink: BFS scale 16 under CDP, the ctas table's kernel ids,
// CTAs and SMs to 96–100% of their bytes, the kernels table's cycles to
// 100%, where the compression was a quarter of what --out parquet adds.
//
// In a compressed chunk, a later page that zstd shrinks by less than an
// eighth ends the compression too: the chunk's pages after it (and its
// dictionary) are zstd frames of raw blocks (storeFrames,
// appendRawFrame), their bytes as they are, which any zstd reader reads.
// BFS scale 20 under CDP, the ctas table's dispatch and end cycles and
// kernel ids shrink by a fifth to a third in their first pages and by
// next to nothing in later ones: zstd was given 0.66 MB fewer (of 2.7
// MB past the chunks' first pages), the files 0.5% larger, and --out
// parquet adds 10 instructions a CTA fewer (scripts/instructions.sh
// bfs-parquet: 649 → 639; --quick, with one row group a table, as
// before). Pages zstd cannot shrink cost it less than others: some 8
// instructions a byte.
type store uint8

const (
	storeUndecided store = iota
	storeZstd
	storeRaw
	storeFrames // zstd, its pages from now on in raw blocks
)

// codec is the chunk's codec in its metadata.
func (c *chunk) codec() int32 {
	if c.store == storeRaw {
		return codecNone
	}
	return codecZstd
}

// appendRawFrame appends a zstd frame (RFC 8878) holding b as it is:
// the magic number; a frame header of one segment, no window
// descriptor, no checksum and b's length in 4 bytes; then b in raw
// blocks of at most 128 KiB (the format's greatest), the last marked so
// (an empty b is one empty last block).
func appendRawFrame(dst, b []byte) []byte {
	const maxBlock = 128 << 10
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	dst = append(dst, 2<<6|1<<5) // content size in 4 bytes; single segment
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	for {
		n := min(len(b), maxBlock)
		last := uint32(0)
		if n == len(b) {
			last = 1
		}
		h := uint32(n)<<3 | last // block type 0: raw
		dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
		dst = append(dst, b[:n]...)
		if b = b[n:]; last == 1 {
			return dst
		}
	}
}

// worthZstd reports whether a page of n bytes that zstd compressed to z
// is worth storing compressed: where it saves at least an eighth.
func worthZstd(n, z int) bool { return 8*z <= 7*n }
