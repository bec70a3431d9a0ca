package main

import (
	"fmt"
	"math"
)

// headline is one of a paper's summary claims, recomputed from an
// experiment's outcomes (its own benchmarks only) and set beside the
// paper's number with a tolerance band, so a table says by itself whether
// the reproduction holds. A claim with one side only ("within 4%", "at
// least 58%") has lo = -Inf or hi = +Inf.
type headline struct {
	claim  string  // what is measured, e.g. "DTBL over flat"
	source string  // where the paper states it
	lo, hi float64 // the paper's value, or its range when hi > lo
	unit   string  // "×" (a ratio) or "%"
	band   float64 // the relative tolerance: 0.30 for ±30%
	value  func(own []outcome) float64
	// bench, when set, is the one benchmark the claim is about: value
	// gets that benchmark's outcomes alone.
	bench string
	// implied, when set, computes lo from the outcomes: the value the
	// paper's figure needs of this run (3MM's share of the baseline that
	// 1.67× implies, given the run's prelude and postlude).
	implied func(own []outcome) float64
	// restsOn says what the number rests on: which inputs are stated by a
	// paper (or measured) and which are invented (hand-set constants), so
	// a verdict is read with what it can prove.
	restsOn string
	// bound, when set, is a bound on the claim over every run of the
	// experiment's traces, computed at one point of its grid of inputs no
	// paper states (unstated.go): whether it puts the claim outside its
	// band there. The scorecard's bound column says whether it does at
	// every point.
	bound func(h headline, p point) reach
}

// verdict is a headline evaluated: ours, its ratio to the paper's value
// (to the nearer end of a range, 1 inside it), and whether the ratio is
// inside the band.
type verdict struct {
	headline
	ours, ratio float64
	inside      bool
}

// judge sets ours beside h's paper value. A missing value (NaN) is
// outside every band.
func (h headline) judge(ours float64) verdict {
	v := verdict{headline: h, ours: ours, ratio: 1}
	hi := max(h.hi, h.lo)
	switch {
	case ours < h.lo:
		v.ratio = ours / h.lo
	case ours > hi:
		v.ratio = ours / hi
	case math.IsNaN(ours):
		v.ratio = math.NaN()
	}
	v.inside = v.ratio >= 1-h.band && v.ratio <= 1+h.band
	return v
}

// evalHeadlines computes each headline over own, the outcomes of the
// paper's own benchmarks (of its one benchmark, for a per-benchmark
// claim).
func evalHeadlines(hs []headline, own []outcome) []verdict {
	vs := make([]verdict, len(hs))
	for i, h := range hs {
		outs := own
		if h.bench != "" {
			outs = ofBench(own, h.bench)
		}
		if h.implied != nil {
			h.lo = h.implied(outs)
		}
		vs[i] = h.judge(h.value(outs))
	}
	return vs
}

// ofBench is the outcomes of the benchmark named name.
func ofBench(outs []outcome, name string) []outcome {
	return outcomesOf(outs, func(b benchmark) bool { return b.name == name })
}

// boundCell is the scorecard's verdict of h's bound across points: out
// of reach when it puts the claim outside its band at every point, open
// (with the first point where it does not) otherwise, and "—" with no
// bound or no grid.
func (h headline) boundCell(points []point) string {
	if h.bound == nil || len(points) == 0 {
		return "—"
	}
	_, open := across(points, func(p point) reach { return h.bound(h, p) })
	if open != "" {
		return "open: reached with " + open
	}
	return fmt.Sprintf("cannot be reached (all %d settings)", len(points))
}

// format writes x in the headline's unit.
func (h headline) format(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	if h.unit == "%" {
		return fmt.Sprintf("%.1f%%", x)
	}
	return fmt.Sprintf("%.2f×", x)
}

// paperValue is the paper's number, its range, or its one side.
func (h headline) paperValue() string {
	switch {
	case math.IsInf(h.lo, -1):
		return "≤ " + h.format(h.hi)
	case math.IsInf(h.hi, 1):
		return "≥ " + h.format(h.lo)
	case h.hi > h.lo:
		return fmt.Sprintf("%g–%g%s", h.lo, h.hi, h.unit)
	}
	return h.format(h.lo)
}

// speedupOf is the geometric-mean speedup of column num over column den.
func speedupOf(num, den string) func([]outcome) float64 {
	return func(own []outcome) float64 { return geoSpeedup(own, num, den) }
}

// gapTo is how much slower column a runs than column best, in percent of
// best's makespan, as a geometric mean over the benchmarks.
func gapTo(a, best string) func([]outcome) float64 {
	return func(own []outcome) float64 { return 100 * (1/geoSpeedup(own, a, best) - 1) }
}

// fewerKernels is how many fewer child kernels column a launches than
// column b, in percent of b's, averaged over the benchmarks on which b
// launches any (each benchmark weighing the same, as SPAWN's "by 73% on
// average" over Figure 18's per-benchmark bars does; pooled, the
// benchmark with the most launch sites would decide it).
func fewerKernels(a, b string) func([]outcome) float64 {
	return func(own []outcome) float64 {
		ka, kb := column(own, a), column(own, b)
		sum, n := 0.0, 0
		for i := range kb {
			if i >= len(ka) || kb[i].DeviceKernels == 0 {
				continue
			}
			sum += 100 * (1 - float64(ka[i].DeviceKernels)/float64(kb[i].DeviceKernels))
			n++
		}
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
}

// fewerPooled is how many fewer child kernels column a launches than
// column b over all the benchmarks together, in percent of b's.
func fewerPooled(a, b string) func([]outcome) float64 {
	return func(own []outcome) float64 {
		na, nb := sumKernels(column(own, a)), sumKernels(column(own, b))
		if nb == 0 {
			return math.NaN()
		}
		return 100 * (1 - float64(na)/float64(nb))
	}
}

// sumKernels is the child kernels the runs launched, all together.
func sumKernels(runs []*stats) int64 {
	var n int64
	for _, st := range runs {
		n += st.DeviceKernels
	}
	return n
}
