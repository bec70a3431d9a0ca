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
