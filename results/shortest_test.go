package results

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// shortestDecimal finds strconv's shortest digits and exponent for every
// value it answers for, and answers for the values it says it does: over
// the edges of its range and of ulps, ratios of integers (a slowdown),
// short decimals and their neighbours, and random values of every
// exponent (50 million in all; a million with -short).
func TestShortestDecimalIsStrconvs(t *testing.T) {
	n := 50_000_000
	if testing.Short() {
		n = 1_000_000
	}
	vs := []float64{0.1, 0.2, 0.3, 1.1, 2.0 / 3, 1e-4, 9.99999e-5, 123456.5, 999999.9999999999,
		math.Ldexp(1, -37), math.Ldexp(1, 52), math.Ldexp(1.5, -38), math.Ldexp(1.5, 51), 3, 5e15, 1e-11}
	for _, v := range vs {
		checkShortest(t, v)
		checkShortest(t, math.Nextafter(v, 0))
		checkShortest(t, math.Nextafter(v, math.Inf(1)))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		var v float64
		switch i % 4 {
		case 0: // a ratio of cycle counts
			v = float64(r.Int64N(1<<40)+1) / float64(r.Int64N(1<<30)+1)
		case 1: // a short decimal, or a neighbour of one
			v = float64(r.Int64N(1e7)) / math.Pow10(r.IntN(10))
			v = math.Float64frombits(math.Float64bits(v) + uint64(r.IntN(5)) - 2)
		case 2: // any value of the exponents around the range
			v = math.Float64frombits(uint64(1075-100+r.IntN(110))<<52 | r.Uint64()&(1<<52-1))
		default: // any value
			v = math.Float64frombits(r.Uint64())
		}
		checkShortest(t, v)
	}
}

// checkShortest fails t unless shortestDecimal's answer for v, where it
// has one, is strconv's shortest 'e' text's digits and exponent, and it
// has one for every positive normal v of 2^-37 to 2^52 whose mantissa is
// not a power of two and that is not a whole number.
func checkShortest(t *testing.T, v float64) {
	t.Helper()
	d, p, ok := shortestDecimal(v)
	b := math.Float64bits(v)
	in := b>>52 >= 1075-89 && b>>52 < 1075 && b&(1<<52-1) != 0 && v != math.Trunc(v)
	if ok != in {
		t.Fatalf("shortestDecimal(%v) ok = %v, want %v", v, ok, in)
	}
	if !ok {
		return
	}
	want := strconv.FormatFloat(v, 'e', -1, 64)
	digits := strconv.FormatUint(d, 10)
	got := digits[:1]
	if len(digits) > 1 {
		got += "." + digits[1:]
	}
	exp := len(digits) - 1 - p
	got += "e" + map[bool]string{true: "-", false: "+"}[exp < 0]
	if exp < 0 {
		exp = -exp
	}
	if exp < 10 {
		got += "0"
	}
	got += strconv.Itoa(exp)
	if got != want {
		t.Fatalf("shortestDecimal(%v) = %d, %d: %s, want %s", v, d, p, got, want)
	}
}

// floatTexts gives appendFloatText's text, whether it finds the value
// (most values repeat here, many in the same slot) or not, after a
// prefix and into a slice with and without room.
func TestFloatTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pool := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), 1e300, -2.5, 64, 5e-324, 0.00012345678901234567}
	for len(pool) < 20000 {
		pool = append(pool, float64(r.Int64N(1<<40)+1)/float64(r.Int64N(1<<30)+1), math.Float64frombits(r.Uint64()))
	}
	var ft floatTexts
	for i := range 300000 {
		v := pool[r.IntN(len(pool))]
		dst := []byte("x,")
		if i%3 == 0 {
			dst = make([]byte, 2, 64)
		}
		want := appendFloatText(append([]byte(nil), dst...), v)
		if got := ft.append(dst, v); string(got) != string(want) {
			t.Fatalf("floatTexts.append(%q, %v) = %q, want %q", dst, v, got, want)
		}
	}
}

// FuzzFloatText: any float's CSV text is strconv's shortest 'g', with
// ".0" after a whole number.
func FuzzFloatText(f *testing.F) {
	for _, v := range []float64{0, 1.5, 5.64816650148662, 63.424, 1e-4, 123456.5, math.Inf(-1)} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, b uint64) {
		v := math.Float64frombits(b)
		checkFloatText(t, v)
		if v == v && v != 0 && !math.IsInf(v, 0) {
			checkShortest(t, math.Abs(v))
		}
	})
}
