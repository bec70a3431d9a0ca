package results

import (
	"math"
	"math/bits"
)

// shortestDecimal is v's shortest decimal, d/10^p: the one of fewest
// digits that reads back (rounding to nearest, ties to even) as exactly
// v, and of those the nearest to v, which are the digits and exponent of
// strconv's shortest formatting (its tests check that over many millions
// of values). It answers, ok, for a positive v of 2^-37 to 2^52, whose
// mantissa is not a power of two, and p > 0 (v is no whole number): a
// slowdown, an occupancy's average. For any other v it is not ok.
//
// strconv finds the same digits (Dragonbox), then writes them two at a
// time into a buffer of its own and copies them from there: some 700
// instructions a float, a fifth of what --format=csv added to synth's
// replay (a slowdown a CTA row). Here v's digits are found in exact
// 128-bit arithmetic, which v's range allows: v = m·2^e with m < 2^53
// and -89 ≤ e < 0, so v·10^k, for k up to 27 (5^k < 2^64), is m·5^k
// (under 2^117) shifted right.
//
// The numbers that read back as v are those within half an ulp of it,
// the ends included when m is even (ties go to the even mantissa); that
// interval, scaled by 10^k, is 10^k·2^e wide. At the least k where it is
// at least 1 wide (k1), it holds an integer; one k less it is narrower
// than 1 and holds at most one. If that one is there, it is the shortest
// with its trailing zeros cut (fewer digits would be a multiple of it,
// inside the interval too); if not, no shorter decimal is, and the
// shortest have k1 places: the interval's integers at k1, of which the
// nearest to v·10^k1 is the one (none ends in a zero, or there would
// have been one at k1-1).
func shortestDecimal(v float64) (d uint64, p int, ok bool) {
	b := math.Float64bits(v)
	m := b&(1<<52-1) | 1<<52
	e := int(b>>52) - 1075 // v = m·2^e, when v is positive and normal
	if b>>52 < 1075-89 || b>>52 >= 1075 || m == 1<<52 {
		return 0, 0, false // negative, outside 2^-37 to 2^52, or 2^e
	}
	k1 := (-e*78913)>>18 + 1 // ⌊-e·log10(2)⌋+1: the least k with 10^k·2^e ≥ 1
	even := m%2 == 0
	k, s := uint(k1-1), uint(2-e-k1) // v·10^k = 2m·5^k / 2^s
	lo, loExact := mulShift(2*m-1, pow5[k], s)
	hi, hiExact := mulShift(2*m+1, pow5[k], s)
	if !loExact || !even { // the least integer in the interval
		lo++
	}
	if hiExact && !even { // the greatest
		hi--
	}
	if lo <= hi {
		d, p = lo, int(k)
		for d%1e8 == 0 {
			d, p = d/1e8, p-8
		}
		for d%10 == 0 {
			d, p = d/10, p-1
		}
		return d, p, p > 0
	}
	// v·10^k1 rounded to the nearest integer, a tie to the even one:
	// from twice it, truncated.
	d2, exact := mulShift(2*m, pow5[k1], s-2)
	d = (d2 + 1) / 2
	if exact && d2%2 == 1 && d%2 == 1 { // halfway, d the odd neighbour
		d--
	}
	return d, k1, true
}

// mulShift is a·b >> s, for s < 128, and whether no set bit was shifted
// out. The quotient must fit in 64 bits.
func mulShift(a, b uint64, s uint) (q uint64, exact bool) {
	h, l := bits.Mul64(a, b)
	if s >= 64 {
		return h >> (s - 64), l == 0 && h&(1<<(s-64)-1) == 0
	}
	return h<<(64-s) | l>>s, l&(1<<s-1) == 0
}

// pow5 are 5^0 to 5^27, the powers of five that fit in 64 bits.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = 5 * p[i-1]
	}
	return p
}()
