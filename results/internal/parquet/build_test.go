package parquet

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// A file laid out field by field, for the tests of hostile files and
// the structure-aware fuzz target (FuzzFields): each column chunk's
// pages given as their header's fields and their uncompressed bodies,
// which the builder compresses and lays out, so that any one field can
// be set to what a hostile writer would put there and the rest stays
// consistent.
type tfile struct {
	cols   []Column
	groups []tgroup
	// zeroEmpty lays a chunk of no pages out as pyarrow does: 0 bytes
	// at offset 0.
	zeroEmpty bool
}

type tgroup struct {
	rows   int64
	chunks []tchunk // one per column
}

type tchunk struct {
	codec int32
	pages []tpage
}

type tpage struct {
	typ  int32 // pageData, pageDictionary or pageDataV2
	n    int32 // values (a data page's rows)
	enc  int32
	body []byte // uncompressed: levels and values (v1), values (v2)
	defs []byte // v2: the definition levels, before the values
	// usize, when not 0, is the uncompressed size declared in place of
	// the body's; zbody, when not nil, the compressed values in place of
	// body's.
	usize int32
	zbody []byte
}

// bytes lays f out: PAR1, each chunk's pages, the footer.
func (f tfile) bytes(tb testing.TB) []byte {
	w, err := NewWriter(io.Discard, f.cols)
	if err != nil {
		tb.Fatal(err)
	}
	out := []byte(magic)
	meta := fileMeta{schema: w.meta.schema, createdBy: "build_test"}
	for _, g := range f.groups {
		rg := rowGroup{numRows: g.rows}
		meta.numRows += g.rows
		for i, c := range g.chunks {
			m := columnMeta{typ: physical(f.cols[i].Type), path: f.cols[i].Name, codec: c.codec, numValues: g.rows}
			start := int64(len(out))
			m.dataPageOffset = start
			for k, p := range c.pages {
				if k == 0 && p.typ == pageDictionary {
					m.dictPageOffset = start
				}
				if k == 1 && m.dictPageOffset != 0 {
					m.dataPageOffset = int64(len(out))
				}
				head, body := p.encode(c.codec)
				out = append(append(out, head...), body...)
				m.uncompressedSize += int64(len(head)) + int64(len(p.defs)+len(p.body))
				m.encodings = append(m.encodings, p.enc)
			}
			m.compressedSize = int64(len(out)) - start
			if f.zeroEmpty && len(c.pages) == 0 {
				m.dataPageOffset, m.compressedSize = 0, 0
			}
			rg.columns = append(rg.columns, m)
		}
		meta.rowGroups = append(meta.rowGroups, rg)
	}
	foot := meta.encode()
	out = append(out, foot...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(foot)))
	return append(out, magic...)
}

func physical(t Type) int32 {
	switch t {
	case Int32:
		return typeInt32
	case Int64:
		return typeInt64
	case Double:
		return typeDouble
	}
	return typeByteArray
}

// encode is the page's header and its body compressed.
func (p tpage) encode(codec int32) (head, body []byte) {
	body = p.zbody
	if body == nil {
		body = compressed(codec, p.body)
	}
	usize := int32(len(p.defs) + len(p.body))
	if p.usize != 0 {
		usize = p.usize
	}
	e := &encoder{}
	e.begin(0)
	e.i32(1, p.typ)
	e.i32(2, usize)
	e.i32(3, int32(len(p.defs)+len(body)))
	switch p.typ {
	case pageDictionary:
		e.begin(7)
		e.i32(1, p.n)
		e.i32(2, p.enc)
		e.end()
	case pageDataV2:
		e.begin(8)
		e.i32(1, p.n)
		e.i32(2, 0)
		e.i32(3, p.n)
		e.i32(4, p.enc)
		e.i32(5, int32(len(p.defs)))
		e.i32(6, 0)
		e.boolean(7, codec != codecNone)
		e.end()
	default:
		e.begin(5)
		e.i32(1, p.n)
		e.i32(2, p.enc)
		e.i32(3, encRLE)
		e.i32(4, encRLE)
		e.end()
	}
	e.end()
	return e.buf, append(bytes.Clone(p.defs), body...)
}

var testZstd, _ = zstd.NewWriter(nil)

func compressed(codec int32, b []byte) []byte {
	switch codec {
	case codecZstd:
		return testZstd.EncodeAll(b, nil)
	case codecSnappy:
		return snappy.Encode(nil, b)
	case codecGzip:
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	return bytes.Clone(b)
}

// Bodies of the encodings.

func plainInts(vs []int64, t Type) []byte {
	var b []byte
	for _, v := range vs {
		if t == Int32 {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		} else {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

func plainStrs(vs ...string) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// runIndices is n dictionary indices, all i, as one RLE run of bit
// width 8.
func runIndices(i byte, n int) []byte {
	return append([]byte{8}, append(binary.AppendUvarint(nil, uint64(n)<<1), i)...)
}

// allValid is a v1 data page's definition levels of n rows that all
// hold a value: their length, then one RLE run of 1s.
func allValid(n int) []byte {
	run := append(binary.AppendUvarint(nil, uint64(n)<<1), 1)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(run))), run...)
}

func delta(vs []int64) []byte {
	b, _, _ := appendDelta(nil, vs, false)
	return b
}

// fill is a chunk of rows values of column c, one PLAIN page, every
// value the same.
func fill(c Column, rows int) tchunk {
	if rows == 0 {
		return tchunk{}
	}
	var body []byte
	if c.Optional {
		body = allValid(rows)
	}
	for range rows {
		switch c.Type {
		case String:
			body = append(body, plainStrs("x")...)
		case Int32:
			body = append(body, plainInts([]int64{1}, Int32)...)
		default:
			body = append(body, plainInts([]int64{1}, Int64)...)
		}
	}
	return tchunk{codec: codecZstd, pages: []tpage{{typ: pageData, n: int32(rows), enc: encPlain, body: body}}}
}

// oneGroup is a file of cols of one row group of rows rows, each column
// filled (fill) but column hostile, which is chunk.
func oneGroup(cols []Column, rows int, hostile int, chunk tchunk) tfile {
	g := tgroup{rows: int64(rows)}
	for i, c := range cols {
		if i == hostile {
			g.chunks = append(g.chunks, chunk)
		} else {
			g.chunks = append(g.chunks, fill(c, rows))
		}
	}
	return tfile{cols: cols, groups: []tgroup{g}}
}
