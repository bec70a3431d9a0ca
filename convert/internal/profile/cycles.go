package profile

import (
	"fmt"
	"math"

	"github.com/gpureplay/gpureplay/trace"
)

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

// CheckT refuses a t that a trace cannot hold: the capture spans more than
// trace.MaxCycles (2^40 cycles, about 13 minutes at 1.4 GHz) from its first
// operation, or an op's time saturated.
func CheckT(t int64, mhz float64) error {
	if t >= 0 && t <= trace.MaxCycles {
		return nil
	}
	return fmt.Errorf("starts %d cycles after the capture's first operation; a trace spans at most 2^40 cycles (%.0f s at %g MHz): convert a shorter window of the capture", t, float64(trace.MaxCycles)/(mhz*1e6), mhz)
}
