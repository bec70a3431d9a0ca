package parquet

import (
	"bytes"
	"slices"
	"testing"
)

// A chunk's first page decides how its pages are stored (store): as
// they are where zstd saves less than an eighth of it, compressed
// otherwise, with its dictionary alike; each row group decides anew, and
// the values read back either way.
func TestChunkStore(t *testing.T) {
	const rows = 2*PageRows + 5
	x := uint64(88172645463325252)
	noise := func() int64 { // xorshift: deltas zstd cannot shrink
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int64(x >> 24)
	}
	group := func(noisy bool) (a, b []int64, s []string) {
		for i := range rows {
			if noisy {
				a = append(a, noise())
			} else {
				a = append(a, int64(i/3)*1000003)
			}
			b = append(b, int64(i%7)<<40) // packed bits that repeat
			s = append(s, []string{"x", "y"}[int(noise())&1])
		}
		return a, b, s
	}
	cols := []Column{{Name: "a", Type: Int64}, {Name: "b", Type: Int64}, {Name: "s", Type: String}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols)
	if err != nil {
		t.Fatal(err)
	}
	var want [2][3]any
	for g, noisy := range []bool{true, false} {
		a, b, s := group(noisy)
		w.Int64s(0, a, Bitmap{})
		w.Int64s(1, b, Bitmap{})
		idx := make([]uint32, len(s))
		for i, v := range s {
			idx[i] = w.Index(2, v)
		}
		w.Indices(2, idx, Bitmap{})
		if err := w.EndRowGroup(); err != nil {
			t.Fatal(err)
		}
		want[g] = [3]any{a, b, s}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	codecs := [2][3]int32{
		{codecNone, codecZstd, codecNone}, // noise; repeats; a bit a row of noise, its dictionary 2 strings
		{codecZstd, codecZstd, codecNone},
	}
	for g := range 2 {
		for c := range cols {
			m := f.meta.rowGroups[g].columns[c]
			if m.codec != codecs[g][c] {
				t.Errorf("row group %d, column %s: codec %d, want %d", g, cols[c].Name, m.codec, codecs[g][c])
			}
			if m.codec == codecNone && m.compressedSize != m.uncompressedSize {
				t.Errorf("row group %d, column %s: stored as it is, %d bytes of %d", g, cols[c].Name, m.compressedSize, m.uncompressedSize)
			}
			v, err := f.ReadColumn(g, c)
			if err != nil {
				t.Fatal(err)
			}
			switch w := want[g][c].(type) {
			case []int64:
				if !slices.Equal(v.Ints, w) {
					t.Errorf("row group %d, column %s: values differ", g, cols[c].Name)
				}
			case []string:
				if !slices.Equal(v.Strings, w) {
					t.Errorf("row group %d, column %s: values differ", g, cols[c].Name)
				}
			}
		}
	}
}

func TestWorthZstd(t *testing.T) {
	for _, c := range []struct {
		n, z int
		want bool
	}{{800, 700, true}, {800, 701, false}, {8, 7, true}, {7, 7, false}, {0, 0, true}, {100, 120, false}} {
		if got := worthZstd(c.n, c.z); got != c.want {
			t.Errorf("worthZstd(%d, %d) = %v, want %v", c.n, c.z, got, c.want)
		}
	}
}

// appendRawFrame's frames are zstd frames the decoder reads back to
// their bytes: empty, short, a block's greatest and past it.
func TestRawFrame(t *testing.T) {
	for _, n := range []int{0, 1, 300, 128 << 10, 128<<10 + 1, 300 << 10} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7 / 3)
		}
		frame := appendRawFrame([]byte{9}, b)
		if frame[0] != 9 {
			t.Fatalf("%d bytes: the frame wrote over what was there", n)
		}
		got, err := decoderOnce().DecodeAll(frame[1:], make([]byte, 0, n)) // as the reader does: to its page size
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
		if len(frame)-1 != n+9+3*max(1, (n+128<<10-1)/(128<<10)) {
			t.Errorf("%d bytes: a frame of %d", n, len(frame)-1)
		}
	}
}

// In a compressed chunk, the pages after one that zstd shrinks by less
// than an eighth are raw frames: the chunk's codec stays zstd, it is
// smaller than it would be stored as it is, and its values read back.
func TestChunkStoreFrames(t *testing.T) {
	x := uint64(88172645463325252)
	var vs []int64
	for i := range 4 * PageRows {
		if i < PageRows { // a first page that shrinks
			vs = append(vs, int64(i%7)<<40)
			continue
		}
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		vs = append(vs, int64(x>>24))
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []Column{{Name: "a", Type: Int64}})
	if err != nil {
		t.Fatal(err)
	}
	w.Int64s(0, vs, Bitmap{})
	if w.chunks[0].store != storeFrames {
		t.Errorf("store %d after a page zstd cannot shrink, want %d", w.chunks[0].store, storeFrames)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	m := f.meta.rowGroups[0].columns[0]
	if m.codec != codecZstd || m.compressedSize >= m.uncompressedSize {
		t.Errorf("codec %d, %d bytes of %d", m.codec, m.compressedSize, m.uncompressedSize)
	}
	v, err := f.ReadColumn(0, 0)
	if err != nil || !slices.Equal(v.Ints, vs) {
		t.Fatalf("values read back equal: %v, %v", err == nil && slices.Equal(v.Ints, vs), err)
	}
}
