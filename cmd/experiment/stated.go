package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// Where a paper states a quantity that has also been measured on the
// paper's public code, the measurement is the result of record and the
// paper's value is scored beside it: an experiment runs with the measured
// value and names the stated one (stated). Its scorecard then prints,
// under each headline, the same headline with the stated value in place
// of the measurement, judged across the same grid, so a reader sees what
// the verdict owes to the choice. Only the benchmarks the stated value
// changes are replayed again (runCache).

// statedValue is a paper's stated value of a quantity the experiment
// takes as measured: the generator parameters (by generator, replacing
// the benchmark's own, as withParams does) and model settings that put it
// in place of the measurement.
type statedValue struct {
	// label names the quantity, the paper's value and the measured one,
	// for the line under the scorecard and its rests-on cells; short
	// names the stated value in the claim cell.
	label, short string
	sets         []string
	params       map[string][]string
}

// runCache holds outcomes by the settings and benchmark that gave them,
// so a grid point or a stated value that leaves a benchmark's trace and
// settings as an earlier run had them does not replay it again.
type runCache map[string][]outcome

func (c runCache) key(sets []string, b benchmark) string {
	return strings.Join(sets, ",") + "|" + b.name + "|" + strings.Join(b.params, ",")
}

// add files outs, run under sets, by their benchmarks, replacing what c
// held for them (so adding the same outcomes twice keeps one copy).
func (c runCache) add(sets []string, outs []outcome) {
	got := map[string][]outcome{}
	for _, o := range outs {
		k := c.key(sets, o.bench)
		got[k] = append(got[k], o)
	}
	for k, os := range got {
		c[k] = os
	}
}

// outcomesAt is x's outcomes for benchmarks under x.sets, in benchmark
// order: those c holds, and the rest replayed into dir (and added to c).
func (x *experiment) outcomesAt(dir, label string, benchmarks []benchmark, c runCache, log io.Writer) ([]outcome, error) {
	var missing []benchmark
	for _, b := range benchmarks {
		if _, ok := c[c.key(x.sets, b)]; !ok {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(log, "%s\n", label)
		y := *x
		y.benchmarks = missing
		got, err := y.run(dir, log)
		if err != nil {
			return nil, err
		}
		c.add(x.sets, got)
	}
	var outs []outcome
	for _, b := range benchmarks {
		outs = append(outs, c[c.key(x.sets, b)]...)
	}
	return outs, nil
}

// withStated is x with its stated value in place of the measurement of
// record: the experiment whose scorecard rows are printed beside x's.
func (x *experiment) withStated() *experiment {
	y := *x
	y.sets = append(slices.Clone(x.sets), x.stated.sets...)
	y.benchmarks = withParams(x.benchmarks, x.stated.params)
	y.stated, y.beside, y.points, y.sensitive = nil, nil, nil, nil
	return &y
}

// runStated runs x with its stated value, reusing what c holds, and
// judges it across the same grid (into dir/stated); x.beside keeps it.
func (x *experiment) runStated(dir string, log io.Writer, c runCache) error {
	y := x.withStated()
	dir = filepath.Join(dir, "stated")
	outs, err := y.outcomesAt(dir, "stated: "+x.stated.label, y.benchmarks, c, log)
	if err != nil {
		return fmt.Errorf("stated %s: %w", x.stated.label, err)
	}
	if err := y.runUnstated(dir, log, outs, c); err != nil {
		return fmt.Errorf("stated %s: %w", x.stated.label, err)
	}
	x.beside = &besideRun{x: y, own: ownOutcomes(outs)}
	return nil
}

// touches says whether the stated value changes benchmark b's trace.
func (s *statedValue) touches(b benchmark) bool {
	return s.params["*"] != nil || s.params[b.gen] != nil
}

// besideRun is the stated value's run: its experiment (with its grid) and
// the outcomes of the paper's own benchmarks.
type besideRun struct {
	x   *experiment
	own []outcome
}

// statedChanges says whether x's stated value can move headline h: any
// mean, and a claim about one benchmark the value changes.
func (x *experiment) statedChanges(h headline) bool {
	if h.bench == "" {
		return true
	}
	for _, b := range x.benchmarks {
		if b.name == h.bench {
			return x.stated.touches(b)
		}
	}
	return true
}
