package results

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// appendInt writes what strconv.AppendInt does: at every power of ten and
// either side of it, at the extremes, and at random values of every
// length, after a prefix and into a slice with and without room.
func TestAppendIntIsStrconvs(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 11, 99, 100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -1, -9, -10}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p, -p+1, 10*p-1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, r.Int64()>>r.IntN(63), -(r.Int64() >> r.IntN(63)))
	}
	for _, v := range vals {
		for _, dst := range [][]byte{nil, []byte("x,"), make([]byte, 2, 64)} {
			want := strconv.AppendInt(append([]byte(nil), dst...), v, 10)
			if got := appendInt(dst, v); string(got) != string(want) {
				t.Fatalf("appendInt(%q, %d) = %q, want %q", dst, v, got, want)
			}
		}
	}
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = appendInt(buf[:0], int64(100000+i%900000))
	}
}
