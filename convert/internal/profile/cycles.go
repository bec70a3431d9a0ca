package profile

import "math"

// MaxCycles bounds every time in cycles the conversion computes, so that
// sums and differences of a few of them never overflow int64, whatever
// times a profile holds (2^60 cycles is centuries at any clock).
const MaxCycles = 1 << 60

// Cycles converts ns nanoseconds to cycles at mhz, rounding to the
// nearest and saturating at ±MaxCycles: profiles record times, traces
// cycles of the header's clock.
func Cycles(ns int64, mhz float64) int64 {
	c := math.Round(float64(ns) * mhz / 1e3)
	switch {
	case c >= MaxCycles:
		return MaxCycles
	case c <= -MaxCycles:
		return -MaxCycles
	case c != c: // NaN: a clock no option or report should give
		return 0
	}
	return int64(c)
}

// CyclesBetween is the time from one profile time (ns) to another in
// cycles at mhz; the difference saturates rather than wrapping, so times
// at the ends of the int64 range stay in order.
func CyclesBetween(from, to int64, mhz float64) int64 {
	return Cycles(satSub(to, from), mhz)
}

// AddCycles is the profile time (ns) cycles at mhz after ns, saturating
// at the int64 limits: how an importer says which profile time a trace
// time stands for.
func AddCycles(ns, cycles int64, mhz float64) int64 {
	d := math.Round(float64(cycles) * 1e3 / mhz)
	if d != d { // NaN: a clock no option or report should give
		return ns
	}
	return satAdd(ns, int64(min(max(d, -9e18), 9e18)))
}

// satSub is a − b, saturating at the int64 limits.
func satSub(a, b int64) int64 {
	d := a - b
	switch {
	case b > 0 && d > a:
		return math.MinInt64
	case b < 0 && d < a:
		return math.MaxInt64
	}
	return d
}

// satAdd is a + b, saturating at the int64 limits.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}
