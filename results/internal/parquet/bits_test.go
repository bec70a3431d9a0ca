package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// packRef is packBits written bit by bit, as Parquet lays the bits out.
func packRef(vs []uint64, w uint) []byte {
	out := make([]byte, packedBytes(len(vs), w))
	for i, v := range vs {
		for b := range w {
			if v>>b&1 != 0 {
				at := uint(i)*w + b
				out[at/8] |= 1 << (at % 8)
			}
		}
	}
	return out
}

// packBits lays out every width and length (its kernels of 32 values,
// pack32, and the rest a word at a time) as the bit-by-bit rule does,
// after what dst held and whatever it takes off, and unpackBits reads
// the values back.
func TestPackBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for w := uint(0); w <= 64; w++ {
		for n := 0; n <= 100; n++ {
			vs, in := make([]uint64, n), make([]uint64, n)
			less := rng.Uint64()
			for i := range vs {
				vs[i] = rng.Uint64()
				if w < 64 {
					vs[i] &= 1<<w - 1
				}
				in[i] = vs[i] + less
			}
			prefix := []byte{0xa5, 0x5a}
			got := packBits(slices.Clone(prefix), in, w, less)
			want := append(slices.Clone(prefix), packRef(vs, w)...)
			if !bytes.Equal(got, want) {
				t.Fatalf("w %d, %d values: packed %x, want %x", w, n, got, want)
			}
			back := make([]uint64, n)
			unpackBits(got[len(prefix):], back, w)
			if w > 0 && !slices.Equal(back, vs) {
				t.Fatalf("w %d, %d values: unpacked %v, want %v", w, n, back, vs)
			}
		}
	}
}

// appendDelta's encoding decodes to its values, INT64 and INT32 alike,
// for steps small and large, climbing and not, and partial blocks.
func TestDeltaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for run := range 400 {
		narrow := run%2 == 1
		vs := make([]int64, rng.IntN(600))
		x := rng.Int64()
		for i := range vs {
			switch run % 4 {
			case 0, 1:
				x += rng.Int64N(50)
			case 2:
				x = rng.Int64()
			default:
				x -= rng.Int64N(1 << 20)
			}
			vs[i] = x
			if narrow {
				vs[i] = int64(int32(x))
			}
		}
		enc, lo, hi := appendDelta([]byte{7}, vs, narrow)
		if len(vs) > 0 && (lo != slices.Min(vs) || hi != slices.Max(vs)) {
			t.Fatalf("run %d (narrow %v): bounds %d %d, want %d %d", run, narrow, lo, hi, slices.Min(vs), slices.Max(vs))
		}
		got := make([]int64, len(vs))
		n, err := decodeDelta(enc[1:], got, narrow)
		if err != nil || n != len(enc)-1 || !slices.Equal(got, vs) {
			t.Fatalf("run %d (narrow %v, %d values): read %d of %d bytes, %v; values equal: %v", run, narrow, len(vs), n, len(enc)-1, err, slices.Equal(got, vs))
		}
	}
}

// appendDelta's deltas wrap, and a fall of more than 2^31 (INT32) or
// 2^63 is a delta of at least 0: such values do not climb, a fall
// alone or between rises back to above the first value, in a partial
// block or repeated over whole ones, and their bounds are found.
func TestDeltaWrapsBounds(t *testing.T) {
	for _, c := range []struct {
		vs     []int64
		narrow bool
	}{
		{[]int64{math.MaxInt64, math.MinInt64 + 5}, false},
		{[]int64{0, math.MaxInt64, math.MinInt64, -1, math.MaxInt64 - 1}, false},
		{[]int64{math.MaxInt32, math.MinInt32 + 5}, true},
		{[]int64{0, math.MaxInt32, math.MinInt32, -1, math.MaxInt32 - 1}, true},
	} {
		for _, vs := range [][]int64{c.vs, slices.Repeat(c.vs[1:], 300)} {
			if _, lo, hi := appendDelta(nil, vs, c.narrow); lo != slices.Min(vs) || hi != slices.Max(vs) {
				t.Errorf("%v (narrow %v, %d values): bounds %d %d", vs[:len(c.vs)], c.narrow, len(vs), lo, hi)
			}
		}
	}
	// Rises of up to the widest a climbing miniblock's deltas may be
	// (appendDelta), or 8 times as wide, past the greatest value to the
	// least at times.
	rng := rand.New(rand.NewPCG(19, 20))
	for run := range 400 {
		narrow := run%2 == 1
		width := int64(1) << 58
		if narrow {
			width = 1 << 27
		}
		if run%4 >= 2 {
			width <<= 3
		}
		vs := make([]int64, 129+rng.IntN(400))
		x := rng.Int64()
		for i := range vs {
			x += rng.Int64N(width + int64(run%3) - 1)
			vs[i] = x
			if narrow {
				vs[i] = int64(int32(x))
			}
		}
		if _, lo, hi := appendDelta(nil, vs, narrow); lo != slices.Min(vs) || hi != slices.Max(vs) {
			t.Fatalf("run %d (narrow %v): bounds %d %d, want %d %d", run, narrow, lo, hi, slices.Min(vs), slices.Max(vs))
		}
	}
}

// Bitmap.end finds where a run of valid or null rows ends as reading
// bit by bit does, at any offset, near the bitmap's end too.
func TestBitmapEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for run := range 2000 {
		bm := Bitmap{Bits: make([]byte, 1+rng.IntN(20)), Off: rng.IntN(16)}
		density := rng.IntN(5) // 0: all null .. 4: all valid
		for i := range len(bm.Bits) * 8 {
			if rng.IntN(4) < density {
				bm.Bits[i/8] |= 1 << (i % 8)
			}
		}
		rows := len(bm.Bits)*8 - bm.Off
		if rows <= 0 {
			continue
		}
		i := rng.IntN(rows)
		k := i + rng.IntN(rows-i+1)
		for _, v := range []bool{true, false} {
			want := i
			for want < k && bm.valid(want) == v {
				want++
			}
			if got := bm.end(i, k, v); got != want {
				t.Fatalf("run %d: end(%d, %d, %v) of %x from bit %d: %d, want %d", run, i, k, v, bm.Bits, bm.Off, got, want)
			}
		}
	}
}

// deltaRef is DELTA_BINARY_PACKED as parquet-format's Encodings.md
// lays it out, a value at a time: blocks of 128 deltas in 4 miniblocks
// of 32, each block's least delta, each miniblock's width that of its
// greatest delta less the least (0 past the values), its deltas less
// the least packed bit by bit, a last block's missing deltas the least.
func deltaRef(vs []int64, narrow bool) []byte {
	out := binary.AppendUvarint(nil, 128)
	out = binary.AppendUvarint(out, 4)
	out = binary.AppendUvarint(out, uint64(len(vs)))
	if len(vs) == 0 {
		return binary.AppendVarint(out, 0)
	}
	out = binary.AppendVarint(out, vs[0])
	for at := 1; at < len(vs); at += 128 {
		n := min(128, len(vs)-at)
		ds := make([]int64, 128)
		for i := range n {
			ds[i] = vs[at+i] - vs[at+i-1]
			if narrow {
				ds[i] = int64(int32(ds[i]))
			}
		}
		least := slices.Min(ds[:n])
		for i := n; i < 128; i++ {
			ds[i] = least
		}
		out = binary.AppendVarint(out, least)
		var packed []byte
		for m := range 4 {
			w := uint(0)
			if m*32 < n {
				w = uint(bits.Len64(uint64(slices.Max(ds[m*32:min(n, m*32+32)]) - least)))
			}
			out = append(out, byte(w))
			adj := make([]uint64, 32)
			for i := range adj {
				adj[i] = uint64(ds[m*32+i] - least)
				if w < 64 {
					adj[i] &= 1<<w - 1
				}
			}
			packed = append(packed, packRef(adj, w)...)
		}
		out = append(out, packed...)
	}
	return out
}

// appendDelta writes the bytes deltaRef does, whole blocks and a last
// one's part, INT64 and INT32, steps small, large and falling, and a
// value held over stretches (blocks of one value, and blocks of one
// value but at their first, last or some other place).
func TestDeltaAsRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for run := range 720 {
		narrow := run%2 == 1
		vs := make([]int64, rng.IntN(1100))
		x := rng.Int64()
		for i := range vs {
			switch run % 6 {
			case 5:
				if rng.IntN(200) == 0 || i%128 == run%129 {
					x += rng.Int64N(1<<40) - 1<<39
				}
			case 0, 1:
				x += rng.Int64N(50)
			case 2:
				x = rng.Int64()
			case 3: // small steps, a rare one wide, which sets its miniblock's width
				x += rng.Int64N(8) - 2
				if rng.IntN(60) == 0 {
					x += rng.Int64N(1 << 20)
				}
			case 4:
				x -= rng.Int64N(1 << 20)
			}
			vs[i] = x
			if narrow {
				vs[i] = int64(int32(x))
			}
		}
		want := deltaRef(vs, narrow)
		got, _, _ := appendDelta([]byte{7}, vs, narrow)
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("run %d (narrow %v, %d values): %x, want %x", run, narrow, len(vs), got[1:], want)
		}
	}
}

// bounds finds the least and greatest of any number of values, wherever
// they lie among its rounds of eight and the rest.
func TestBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for run := range 2000 {
		vs := make([]int64, 1+rng.IntN(40))
		for i := range vs {
			vs[i] = rng.Int64N(1000) - 500
		}
		if run%3 == 0 { // one extreme, anywhere
			vs[rng.IntN(len(vs))] = math.MinInt64 + int64(run)
		}
		lo, hi := bounds(vs)
		if lo != slices.Min(vs) || hi != slices.Max(vs) {
			t.Fatalf("run %d, %v: bounds %d %d, want %d %d", run, vs, lo, hi, slices.Min(vs), slices.Max(vs))
		}
	}
}

// deltaBlockAVX2, where the processor has it, gives what deltaBlockGo
// gives: the deltas, each miniblock's greatest and width, the least and
// the bounds, INT64 and INT32, for steps small, large, falling and wrapping,
// and the extremes of int64.
func TestDeltaBlockVector(t *testing.T) {
	if !deltaVector {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for run := range 3000 {
		narrow := run%2 == 1
		var w [deltaBlock + 1]int64
		x := rng.Int64()
		for i := range w {
			switch run % 5 {
			case 0:
				x += rng.Int64N(50)
			case 1:
				x = rng.Int64()
			case 2:
				x -= rng.Int64N(1 << 20)
			case 3:
				x = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[rng.IntN(5)]
			default:
				x += rng.Int64N(8) - 4
			}
			w[i] = x
			if narrow {
				w[i] = int64(int32(x))
			}
		}
		if err := sameDeltaBlock(&w, narrow, rng.Int64(), rng.Int64()); err != nil {
			t.Fatalf("run %d (narrow %v): %v", run, narrow, err)
		}
	}
}

// withDeltaGo runs f with appendDelta on deltaBlockGo, as where the
// processor has no AVX2 (deltaVector).
func withDeltaGo(t *testing.T, f func(t *testing.T)) {
	old := deltaVector
	defer func() { deltaVector = old }()
	deltaVector = false
	f(t)
}

func TestDeltaGoPath(t *testing.T) {
	withDeltaGo(t, TestDeltaRoundTrip)
	withDeltaGo(t, TestDeltaWrapsBounds)
	withDeltaGo(t, TestDeltaAsRef)
}

// sameDeltaBlock says how deltaBlockAVX2 and deltaBlockGo differ on
// block w, with the bounds so far lo and hi (w[0] taken into them, as
// appendDelta has it), or nil where they agree.
func sameDeltaBlock(w *[deltaBlock + 1]int64, narrow bool, lo, hi int64) error {
	lo, hi = min(lo, hi, w[0]), max(lo, hi, w[0])
	var d1, d2 [deltaBlock]uint64
	var t1, t2 [deltaMinis]int64
	var w1, w2 [deltaMinis]byte
	l1, lo1, hi1, s1 := deltaBlockGo(&d1, w, &t1, &w1, narrow, lo, hi)
	l2, lo2, hi2, s2 := deltaBlockAVX2(&d2, w, &t2, &w2, narrow, lo, hi)
	if d1 != d2 || t1 != t2 || w1 != w2 || l1 != l2 || lo1 != lo2 || hi1 != hi2 || s1 != s2 {
		return fmt.Errorf("AVX2 least %d bounds %d %d tops %v widths %v (%d bytes), Go %d %d %d %v %v (%d) (deltas equal %v)", l2, lo2, hi2, t2, w2, s2, l1, lo1, hi1, t1, w1, s1, d1 == d2)
	}
	return nil
}
