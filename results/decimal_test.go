package results

import (
	"encoding/binary"
	"fmt"
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

// digits8's divisions by multiplication hold over the ranges it uses
// them on, and it writes every value below 10^8 as its eight digits.
func TestDigits8(t *testing.T) {
	for y := uint64(0); y < 10000; y++ {
		if y*10486>>20 != y/100 {
			t.Fatalf("%d·10486>>20 = %d, want %d", y, y*10486>>20, y/100)
		}
		if y < 100 && y*103>>10 != y/10 {
			t.Fatalf("%d·103>>10 = %d, want %d", y, y*103>>10, y/10)
		}
	}
	var b [8]byte
	for v := uint32(0); v < 1e8; v += 7 {
		binary.LittleEndian.PutUint64(b[:], digits8(v))
		if want := fmt.Sprintf("%08d", v); string(b[:]) != want {
			t.Fatalf("digits8(%d) = %q, want %q", v, b[:], want)
		}
	}
}

// smallText holds each small integer's text and comma, its length with
// the comma in the top byte, which no text reaches.
func TestSmallText(t *testing.T) {
	var b [8]byte
	for v, d := range smallText() {
		n := int(d >> 56)
		binary.LittleEndian.PutUint64(b[:], d)
		if want := strconv.Itoa(v) + ","; n != len(want) || string(b[:n]) != want || n > 7 {
			t.Fatalf("smallText[%d] = %q (length %d), want %q", v, b[:], n, want)
		}
	}
}

// appendInt leaves what dst holds before it as it was.
func TestAppendIntKeepsPrefix(t *testing.T) {
	buf := make([]byte, 0, 40)
	for _, v := range []int64{7, 12345, 123456789012, math.MaxInt64} {
		buf = appendInt(append(buf, ','), v)
	}
	if want := ",7,12345,123456789012,9223372036854775807"; string(buf) != want {
		t.Fatalf("got %q, want %q", buf, want)
	}
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = appendInt(buf[:0], int64(100000+i%900000))
	}
}
