package parquet

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"
)

// readAll reads every column of every row group of data, and returns
// the first error.
func readAll(data []byte) error {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for g := range f.RowGroups() {
		for i := range f.Columns() {
			if _, err := f.ReadColumn(g, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// wantRefused reads data and wants an error holding want, on one line.
func wantRefused(t *testing.T, data []byte, want string) {
	t.Helper()
	err := readAll(data)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("read %d bytes: %v, want an error of one line with %q", len(data), err, want)
	}
}

var nameCol = []Column{{Name: "id", Type: Int64}, {Name: "name", Type: String}}

// Issue 75, 1: DELTA_BYTE_ARRAY values that each share all of the one
// before and add a byte: a few bytes of prefix lengths make a value as
// long as the first, over and over (the 1.9 KB file made 4 GiB).
// Their lengths are summed before any is built.
func TestDeltaByteArrayGrowth(t *testing.T) {
	const rows, first = 9000, 64 << 10
	prefix, suffix := make([]int64, rows), make([]int64, rows)
	tail := []byte(strings.Repeat("k", first))
	suffix[0] = first
	for i := 1; i < rows; i++ {
		prefix[i], suffix[i] = int64(first+i-1), 1
		tail = append(tail, 'x')
	}
	body := append(append(delta(prefix), delta(suffix)...), tail...)
	chunk := tchunk{codec: codecZstd, pages: []tpage{{typ: pageData, n: rows, enc: encDeltaByteArray, body: body}}}
	data := oneGroup(nameCol, rows, 1, chunk).bytes(t)
	if len(data) > 4<<10 {
		t.Fatalf("a file of %d bytes", len(data))
	}
	wantRefused(t, data, "the row group's strings pass 512 MiB")

	// A value longer than a table's string.
	prefix, suffix = []int64{0, 0}, []int64{MaxString + 1, 0}
	body = append(append(delta(prefix), delta(suffix)...), strings.Repeat("k", MaxString+1)...)
	chunk = tchunk{codec: codecZstd, pages: []tpage{{typ: pageData, n: 2, enc: encDeltaByteArray, body: body}}}
	wantRefused(t, oneGroup(nameCol, 2, 1, chunk).bytes(t), "value 0: a string of 1048577 bytes")
}

// Issue 75, 2: one dictionary string longer than a table's string,
// which 40 rows use: 2.5 GB of rows from a few KB (the 64 MB
// string overflowed an Arrow batch's offsets).
func TestLongDictionaryString(t *testing.T) {
	long := strings.Repeat("n", MaxString+1)
	chunk := tchunk{codec: codecZstd, pages: []tpage{
		{typ: pageDictionary, n: 1, enc: encPlain, body: plainStrs(long)},
		{typ: pageData, n: 40, enc: encRLEDict, body: runIndices(0, 40)},
	}}
	wantRefused(t, oneGroup(nameCol, 40, 1, chunk).bytes(t), "value 0: a string of 1048577 bytes, more than the 1048576")

	// A string of MaxString, which a table may hold, used by every row
	// of a group: copied once a row, past the file's budget.
	chunk.pages[0].body = plainStrs(long[1:])
	rows := int(maxFileBytes/MaxString) + 2 // a MiB more: the file is of less than 8 KiB
	chunk.pages[1] = tpage{typ: pageData, n: int32(rows), enc: encRLEDict, body: runIndices(0, rows)}
	wantRefused(t, oneGroup(nameCol[1:], rows, 0, chunk).bytes(t), "pass 4096 MiB decoded, more than a table in a file of")
}

// Issue 75, 3: zstd pages of 4 KB declaring 128 MiB uncompressed: a page
// of one integer is refused before it is inflated, and pages of strings
// that may be that long are inflated to the file's budget at most (4 GiB
// and 128 bytes a byte of the file; 1 GiB and 128 here).
func TestInflatedPages(t *testing.T) {
	big := compressed(codecZstd, make([]byte, 128<<20))
	if len(big) > 16<<10 {
		t.Fatalf("a page of %d bytes", len(big))
	}
	page := tpage{typ: pageData, n: 1, enc: encPlain, zbody: big, usize: 128 << 20}
	pages := make([]tpage, 2400)
	for i := range pages {
		pages[i] = page
	}
	chunk := tchunk{codec: codecZstd, pages: pages}
	wantRefused(t, oneGroup(nameCol, len(pages), 0, chunk).bytes(t), "a page of 1 values declares 134217728 bytes uncompressed, more than the 8208 that int64 values can take")

	// Strings of up to MaxString: 128 values may take 128 MiB; the
	// pages are inflated until the file's budget is spent.
	defer func(old int64) { maxFileBytes = old }(maxFileBytes)
	maxFileBytes = 1 << 30
	pages = pages[:200]
	for i := range pages {
		pages[i].n = 128
	}
	chunk.pages = pages
	data := oneGroup(nameCol, 128*len(pages), 1, chunk).bytes(t)
	if lim := (1<<30 + perFileByte*int64(len(data))) >> 20; lim > 2<<10 {
		t.Fatalf("a budget of %d MiB", lim)
	}
	wantRefused(t, data, "MiB decoded, more than a table in a file of")
}

// Issue 75, 16: an empty table that pyarrow writes without
// dictionaries: a row group of 0 rows whose chunks are 0 bytes at 0.
func TestEmptyChunks(t *testing.T) {
	data := oneGroup(nameCol, 0, -1, tchunk{}).bytes(t)
	wantRead := readAll(data)
	if wantRead != nil {
		t.Fatal(wantRead)
	}
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Columns() {
		m := &f.meta.rowGroups[0].columns[i]
		m.dataPageOffset, m.compressedSize = 0, 0 // as pyarrow writes them
		v, err := f.ReadColumn(0, i)
		if err != nil {
			t.Fatalf("column %d: %v", i, err)
		}
		if len(v.Ints)+len(v.Strings) != 0 {
			t.Fatalf("column %d: %+v", i, v)
		}
	}
}

// Groups of many rows of one value, a run of dictionary indices: each
// row costs a value's decoding and copy, however few bytes the file
// spends on it, and the file's budget counts them.
func TestManyRows(t *testing.T) {
	defer func(old int64) { maxFileBytes = old }(maxFileBytes)
	maxFileBytes = 64 << 20
	const rows = 1 << 20
	chunk := tchunk{codec: codecNone, pages: []tpage{
		{typ: pageDictionary, n: 1, enc: encPlain, body: plainInts([]int64{7}, Int64)},
		{typ: pageData, n: rows, enc: encRLEDict, body: runIndices(0, rows)},
	}}
	f := oneGroup(nameCol[:1], rows, 0, chunk)
	for range 99 {
		f.groups = append(f.groups, f.groups[0])
	}
	data := f.bytes(t)
	if len(data) > 16<<10 {
		t.Fatalf("a file of %d bytes", len(data))
	}
	wantRefused(t, data, "row group 8, column id: parquet: the file's pages, values and strings pass 65 MiB decoded")
}

// A footer's lists declare as many elements as it has bytes left: a
// list of empty structs (one byte each) is refused at its first
// element, not allocated to its count (some 40 bytes an element in
// memory) first.
func TestFooterLists(t *testing.T) {
	const n = 1 << 20
	list := func(id int16, e *encoder) {
		e.listHeader(id, tStruct, n)
		e.buf = append(e.buf, make([]byte, n)...) // n empty structs
	}
	for _, c := range []struct {
		name, want string
		footer     func(e *encoder)
	}{
		{"schema", "a schema element without a name", func(e *encoder) { list(2, e) }},
		{"row groups", "a row group of 0 columns, the schema 2", func(e *encoder) {
			w, _ := NewWriter(io.Discard, nameCol)
			e.listHeader(2, tStruct, len(w.meta.schema))
			for i := range w.meta.schema {
				w.meta.schema[i].encode(e)
			}
			list(4, e)
		}},
	} {
		e := &encoder{}
		e.begin(0)
		c.footer(e)
		e.end()
		data := append([]byte(magic), e.buf...)
		data = binary.LittleEndian.AppendUint32(data, uint32(len(e.buf)))
		data = append(data, magic...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Open(bytes.NewReader(data), int64(len(data)))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 4*n {
			t.Errorf("%s: %d MiB allocated for a footer of %d MiB", c.name, a>>20, len(e.buf)>>20)
		}
	}
}
