package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// ownLabel is the geometric-mean row of the paper's own benchmarks.
const ownLabel = "**geometric mean**"

// meanRows prints the table's geometric-mean rows: one over the paper's
// own benchmarks (group ""), which is what the paper's means are compared
// with, then one per other group in order of first appearance (another
// paper's benchmarks, averaged apart so they cannot move the comparison),
// then the paper's means. blank closes each row's detail columns.
func (x *experiment) meanRows(w io.Writer, outs []outcome, blank string) {
	for _, g := range groups(outs) {
		label := g
		if g == "" {
			label = ownLabel + x.coverage
		}
		fmt.Fprintf(w, "| %s | |", label)
		in := inGroup(outs, g)
		for _, p := range x.policies[1:] {
			fmt.Fprintf(w, " **%.2f×**%s |", geoSpeedup(in, p, x.policies[0]), leftOut(in, p, x.policies[0]))
		}
		fmt.Fprintln(w, blank)
	}
	fmt.Fprintf(w, "| paper (mean) | |")
	for _, p := range x.policies[1:] {
		fmt.Fprintf(w, " %s |", x.paperMean[p])
	}
	fmt.Fprintln(w, blank)
}

// leftOut names the benchmarks of outs a mean of num's speedup over den
// leaves out (benchmark.notUnder), for its cell: "" when none.
func leftOut(outs []outcome, num, den string) string {
	var names []string
	for _, o := range outs {
		if o.policy == den && !o.bench.in(num, den) {
			names = append(names, o.bench.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (without " + strings.Join(names, ", ") + ")"
}

// groups are the benchmark groups of outs in order of first appearance,
// the paper's own ("") first.
func groups(outs []outcome) []string {
	gs := []string{""}
	seen := map[string]bool{"": true}
	for _, o := range outs {
		if !seen[o.bench.group] {
			seen[o.bench.group] = true
			gs = append(gs, o.bench.group)
		}
	}
	return gs
}

// inGroup is the outcomes of group g's benchmarks.
func inGroup(outs []outcome, g string) []outcome {
	return outcomesOf(outs, func(b benchmark) bool { return b.group == g })
}

// outcomesOf is the outcomes of the benchmarks keep keeps, in order.
func outcomesOf(outs []outcome, keep func(benchmark) bool) []outcome {
	var in []outcome
	for _, o := range outs {
		if keep(o.bench) {
			in = append(in, o)
		}
	}
	return in
}

// ownOutcomes is the outcomes of the paper's own benchmarks, the ones its
// means and headlines are over.
func ownOutcomes(outs []outcome) []outcome { return inGroup(outs, "") }

// geoSpeedup is the geometric mean over outs' benchmarks of num's speedup
// over den (den's makespan over num's); NaN with no benchmark.
// A benchmark the paper did not run under num or den is left out
// (benchmark.notUnder).
func geoSpeedup(outs []outcome, num, den string) float64 {
	outs = outcomesOf(outs, func(b benchmark) bool { return b.in(num, den) })
	return geoRatio(column(outs, num), column(outs, den))
}

// geoRatio is the geometric-mean speedup of the runs num over the runs
// den, benchmark by benchmark: NaN when the columns do not pair up.
func geoRatio(num, den []*stats) float64 {
	if len(num) == 0 || len(num) != len(den) {
		return math.NaN()
	}
	logSum := 0.0
	for i := range num {
		logSum += math.Log(float64(den[i].MakespanCycles) / float64(num[i].MakespanCycles))
	}
	return math.Exp(logSum / float64(len(num)))
}
