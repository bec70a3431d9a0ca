package parquet

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A column whose calls give it the values the column before it had
// (Writer.twin) is written byte for byte as it is without the copy:
// twins from the start and to the end, twins until a call differs (at
// one value, in one length, or with a null), two calls of one column
// in a row, a caller that reuses one slice for both columns, calls
// whole pages and not, and row groups that start them over.
func TestTwinColumns(t *testing.T) {
	cols := []Column{
		{Name: "a", Type: Int64}, {Name: "b", Type: Int64}, {Name: "c", Type: Int64},
		{Name: "d", Type: Int32}, {Name: "e", Type: Int64}, {Name: "f", Type: Int64, Optional: true}, {Name: "g", Type: Int64},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	n := 2*PageRows + 901
	base := make([]int64, n)
	for i := range base {
		base[i] = int64(i)*13 + rng.Int64N(9)
	}
	five := make([]int64, n) // one value: a call's halves alike
	for i := range five {
		five[i] = 5
	}
	other := append([]int64(nil), base...)
	other[PageRows+17]++ // differs from base at one value, in the second page, after 32,785 alike
	i32 := make([]int32, n)
	bits := make([]byte, (n+7)/8)
	for i := range bits {
		bits[i] = 0xff
	}
	bits[3] = 0xfe // one null
	type call struct {
		col   int
		vals  []int64
		null  bool // one row null
		reuse bool // vals copied into the one slice the caller reuses
	}
	all := func(a, b, c, e, g []int64) []call {
		return []call{{0, a, false, false}, {1, b, false, false}, {2, c, false, false}, {4, e, false, false}, {5, e, false, false}, {6, g, false, false}}
	}
	cases := []struct {
		name    string
		step    int
		calls   func(group int) []call
		twinned int // calls copied
	}{
		// b a twin of a, c of b (d is INT32, f optional); in the first
		// two of the three groups, the third's calls split in two.
		// Twins throughout: 14 calls of at most 5,000 rows a column.
		{"twins throughout", 5000, func(int) []call { return all(base, base, base, base, base) }, 2 * 2 * 14},
		{"whole pages", PageRows, func(int) []call { return all(base, base, base, base, base) }, 2 * 2 * 3},
		{"one value apart", 3*PageRows + 5, func(int) []call { return all(base, other, other, base, base) }, 2 * 1},
		{"apart in the second group", 7000, func(g int) []call {
			if g == 1 {
				return all(base, other, base, other, base)
			}
			return all(base, base, base, base, base)
		}, 2*10 + 2*4}, // the first group's, the second's before the call holding other's value
		{"a null", 9000, func(int) []call {
			cs := all(base, base, base, base, base)
			cs[4].null = true
			return cs
		}, 2 * 2 * 8},
		// In the third group b's first call (half a call of a) holds
		// what a's last did, but a has had two calls: no twin.
		{"one value", 4000, func(int) []call { return all(five, five, five, five, five) }, 2 * 2 * 17},
		{"a slice reused", 4000, func(int) []call {
			return []call{{0, base, false, true}, {1, other, false, true}, {2, other, false, false}, {4, base, false, true}, {6, base, false, true}, {5, base, false, false}}
		}, 2 * (8 + 17)}, // c a twin of b; b of a until the call holding other's value, though its slice held a's values

	}
	twinned := 0
	write := func(step int, calls func(int) []call) []byte {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols)
		if err != nil {
			t.Fatal(err)
		}
		reuse := make([]int64, n)
		for g := range 3 {
			for lo := 0; lo < n; lo += step {
				hi := min(n, lo+step)
				cs := calls(g)
				if g == 2 { // a column given two calls in a row, then the next column two
					mid := (lo + hi) / 2
					w.Int64s(0, cs[0].vals[lo:mid], Bitmap{})
					w.Int64s(0, cs[0].vals[mid:hi], Bitmap{})
					w.Int64s(1, cs[1].vals[lo:mid], Bitmap{})
					w.Int64s(1, cs[1].vals[mid:hi], Bitmap{})
					cs = cs[2:]
				}
				for _, c := range cs {
					vs := c.vals
					if c.reuse {
						copy(reuse, vs)
						vs = reuse
					}
					v := Bitmap{}
					if c.null {
						v = Bitmap{Bits: bits, Off: lo}
					}
					w.Int64s(c.col, vs[lo:hi], v)
				}
				w.Int32s(3, i32[lo:hi], Bitmap{})
			}
			if err := w.EndRowGroup(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		twinned = w.twinned
		return buf.Bytes()
	}
	for _, c := range cases {
		twinColumns = false
		want := write(c.step, c.calls)
		twinColumns = true
		if got := write(c.step, c.calls); !bytes.Equal(got, want) {
			t.Errorf("%s: the file with twins differs from the file without (%d bytes, %d)", c.name, len(got), len(want))
		}
		if twinned != c.twinned {
			t.Errorf("%s: %d calls copied, want %d", c.name, twinned, c.twinned)
		}
	}
}
