package parquet

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A whole page's values handed over in one call are read where they lie
// (the chunk is lent them until the page ends): the file is byte for
// byte that of the same rows handed over in small calls, which are
// copied, for required and optional columns, pages aligned and not,
// and the caller's values are left as they were.
func TestWholePagesInPlace(t *testing.T) {
	cols := []Column{{Name: "i", Type: Int64}, {Name: "d", Type: Double}, {Name: "oi", Type: Int64, Optional: true}, {Name: "od", Type: Double, Optional: true}}
	rng := rand.New(rand.NewPCG(19, 20))
	n := 3*PageRows + 777
	ints, dbls := make([]int64, n), make([]float64, n)
	for i := range ints {
		ints[i] = int64(i)*7 + rng.Int64N(5)
		dbls[i] = float64(rng.IntN(300)) / 8
	}
	bits := make([]byte, (n+7)/8)
	for i := range n {
		if i < PageRows || rng.IntN(10) != 0 { // the first page all valid
			bits[i/8] |= 1 << (i % 8)
		}
	}
	write := func(step int, skew int) []byte {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols)
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < n; {
			hi := min(n, lo+step)
			if lo == 0 && skew > 0 {
				hi = skew
			}
			v := Bitmap{Bits: bits, Off: lo}
			w.Int64s(0, ints[lo:hi], Bitmap{})
			w.Doubles(1, dbls[lo:hi], Bitmap{})
			w.Int64s(2, ints[lo:hi], v)
			w.Doubles(3, dbls[lo:hi], v)
			lo = hi
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	keep := append([]int64(nil), ints...)
	want := write(1000, 0)
	for _, c := range []struct{ step, skew int }{{n, 0}, {2 * PageRows, 0}, {PageRows, 0}, {PageRows, 5}, {3 * PageRows, PageRows - 1}} {
		if got := write(c.step, c.skew); !bytes.Equal(got, want) {
			t.Errorf("calls of %d rows (the first %d): the file differs from calls of 1,000", c.step, c.skew)
		}
	}
	for i := range ints {
		if ints[i] != keep[i] {
			t.Fatalf("value %d changed: %d, was %d", i, ints[i], keep[i])
		}
	}
}
