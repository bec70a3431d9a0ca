package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpureplay/gpureplay/model"
)

// A bound on a headline is a bound on the model: it holds for the inputs
// the run was given, and some inputs no paper states flip it (SPAWN's
// launch servers, Pagoda's host threads and copy calls, JOIN's key
// spread). So an experiment names those inputs with the values each can
// plausibly take (unstated), reruns what changes at every combination of
// them (runUnstated), and its findings recompute each bound at every
// combination: a headline is printed as out of reach only when the bound
// holds at all of them, and otherwise as open, with the setting that
// reaches it (acrossLine).

// unstated is one input no paper states, with the values a run of the
// experiment could plausibly give it. The first choice is the
// experiment's own setting, with no sets or params of its own: the main
// run stands for it.
type unstated struct {
	name    string // what the input is, e.g. "cdp.launch_servers"
	choices []choice
	cost    bool // an invented cost constant (inventedCosts), listed apart
}

// choice is one value of an unstated input: model settings applied after
// the experiment's, and generator parameters by generator (withParams).
type choice struct {
	label  string
	sets   []string
	params map[string][]string
}

// point is one combination of the unstated inputs' choices and the
// experiment's outcomes there.
type point struct {
	labels []string // one "name: label" per unstated input
	sets   []string // the experiment's sets, then the choices'
	params map[string][]string
	cfg    model.Config
	outs   []outcome
}

// label is the point's choices, e.g. "cdp.launch_servers 0, join sigma 0.02".
func (p point) label() string { return strings.Join(p.labels, ", ") }

// grid is every combination of us's choices, the first one each
// input's first choice (the experiment's own setting), the last input
// varying fastest.
func grid(us []unstated) []point {
	points := []point{{params: map[string][]string{}}}
	for _, u := range us {
		var next []point
		for _, p := range points {
			for _, c := range u.choices {
				q := point{labels: append(slices.Clone(p.labels), u.name+" "+c.label),
					sets: append(slices.Clone(p.sets), c.sets...), params: map[string][]string{}}
				for gen, ps := range p.params {
					q.params[gen] = slices.Clone(ps)
				}
				for gen, ps := range c.params {
					q.params[gen] = append(q.params[gen], ps...)
				}
				next = append(next, q)
			}
		}
		points = next
	}
	return points
}

// runUnstated fills x.points: the main run's outcomes (outs) at the first
// point, and at every other one the experiment rerun with the point's
// settings and parameters, into dir/unstated/N. A benchmark whose trace
// and settings an earlier run left in c (the main run's, an earlier
// point's) is not rerun. The points' reruns run side by side, on as many
// goroutines as GOMAXPROCS (each point's log is written whole, in the
// points' order, so the output is the same as one after another).
func (x *experiment) runUnstated(dir string, log io.Writer, outs []outcome, c runCache) error {
	c.add(x.sets, outs)
	sens, err := x.sensitivity()
	if err != nil {
		return err
	}
	if x.sensitive = sens; len(x.unstated) == 0 && len(sens) == 0 {
		return nil
	}
	x.points = append(grid(x.unstated), oneAtATime(sens)...)
	// What each point must replay: what c lacks and no earlier point
	// replays.
	type rerun struct {
		y       experiment
		benches []benchmark
		missing []benchmark
		log     bytes.Buffer
		got     []outcome
		err     error
	}
	runs := make([]*rerun, len(x.points))
	// A point that changes no generator parameter of a benchmark replays
	// the main run's traces of it, not its own of the same records.
	made := &madeTraces{dir: dir, benches: map[string]benchmark{}}
	for _, b := range x.benchmarks {
		made.benches[b.name] = b
	}
	claimed := map[string]bool{}
	ds := digests{}
	perGen := map[string]int{}
	for _, b := range x.benchmarks {
		perGen[b.gen]++
	}
	for i := range x.points {
		p := &x.points[i]
		r := &rerun{y: *x}
		r.y.made, r.y.summaries = made, true
		paramsOnly := len(p.sets) == 0
		r.y.sets = append(slices.Clone(x.sets), p.sets...)
		r.y.unstated, r.y.points = nil, nil
		p.sets = r.y.sets
		cfg, err := r.y.config()
		if err != nil {
			return fmt.Errorf("%s: %w", p.label(), err)
		}
		p.cfg = cfg
		r.benches = withParams(x.benchmarks, p.params)
		for j, b := range r.benches {
			k := c.key(r.y.sets, b)
			if _, ok := c[k]; ok || claimed[k] {
				continue
			}
			if paramsOnly && perGen[b.gen] >= digestFrom {
				same, err := reuseSameTraces(c, x.sets, x.benchmarks[j], b, ds)
				if err != nil {
					return fmt.Errorf("%s: %w", p.label(), err)
				}
				if same {
					continue
				}
			}
			claimed[k] = true
			r.missing = append(r.missing, b)
		}
		runs[i] = r
	}
	var wg sync.WaitGroup
	next := make(chan int)
	todo := 0
	for _, r := range runs {
		if len(r.missing) > 0 {
			todo++
		}
	}
	var ran atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := runs[i]
				fmt.Fprintf(&r.log, "unstated inputs: %s\n", x.points[i].label())
				y := r.y
				y.benchmarks = r.missing
				r.got, r.err = y.run(filepath.Join(dir, "unstated", strconv.Itoa(i)), &r.log)
				progress.pointRun(log, int(ran.Add(1)), todo, x.points[i].label())
			}
		}()
	}
	for i, r := range runs {
		if len(r.missing) > 0 {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	for i, r := range runs {
		log.Write(r.log.Bytes())
		if r.err != nil {
			return fmt.Errorf("%s: %w", x.points[i].label(), r.err)
		}
		c.add(r.y.sets, r.got)
	}
	for i, r := range runs {
		for _, b := range r.benches {
			x.points[i].outs = append(x.points[i].outs, c[c.key(r.y.sets, b)]...)
		}
	}
	return nil
}

// digestFrom is how many benchmarks of one generator an experiment must
// have before a point that sets that generator's parameters digests their
// traces (reuseSameTraces): a digest costs about a generation, which pays
// where one generator stands for many benchmarks and a constant reaches
// few of them (the tasks generator's kinds), and not where a generator
// has a benchmark or two, which its constants almost always reach.
const digestFrom = 3

// reuseSameTraces files under b, in c, the outcomes c holds for base
// (b's benchmark at the experiment's own parameters) under sets, when
// b's parameters differ from base's but its traces hold the same records
// (traceDigest): replaying them again would give the same outcomes. It
// reports whether it did.
func reuseSameTraces(c runCache, sets []string, base, b benchmark, ds digests) (bool, error) {
	own, ok := c[c.key(sets, base)]
	if !ok || slices.Equal(base.params, b.params) {
		return false, nil
	}
	d0, err := ds.of(base)
	if err != nil {
		return false, err
	}
	d1, err := ds.of(b)
	if err != nil || d0 != d1 {
		return false, err
	}
	outs := slices.Clone(own)
	for i := range outs {
		outs[i].bench = b
	}
	c[c.key(sets, b)] = outs
	return true, nil
}

// reach is a bound evaluated at one point: what it is, printed, and
// whether it puts the headline outside its band there.
type reach struct {
	value string
	out   bool
}

// acrossLine prints a bound recomputed at every point of x's grid (eval
// at each) and the verdict: the headline cannot be reached only if the
// bound puts it outside its band at every point; otherwise it is open,
// and the line names the first point where the bound reaches the band.
// With no grid it prints nothing.
func acrossLine(w io.Writer, x *experiment, what string, eval func(p point) reach) {
	if len(x.points) == 0 {
		return
	}
	values, open := across(x.points, eval)
	fmt.Fprintf(w, "%s, across the inputs no paper states (%s): %s. ", what, inputNames(x.unstated), strings.Join(values, "; "))
	if open != "" {
		fmt.Fprintf(w, "Open: the bound reaches the band with %s.\n", open)
		return
	}
	fmt.Fprintln(w, "Outside the band at every one: the headline cannot be reached.")
}

// inputNames lists inputs with their values: "name ∈ {a; b}, ...".
func inputNames(us []unstated) string {
	var names []string
	for _, u := range us {
		var labels []string
		for _, c := range u.choices {
			labels = append(labels, c.label)
		}
		names = append(names, fmt.Sprintf("%s ∈ {%s}", u.name, strings.Join(labels, "; ")))
	}
	return strings.Join(names, ", ")
}

// across evaluates a bound at every point: each value with its point's
// label, and the label of the first point where the bound does not put
// the headline outside its band ("" when it does at all of them).
func across(points []point, eval func(p point) reach) (values []string, open string) {
	for _, p := range points {
		r := eval(p)
		values = append(values, fmt.Sprintf("%s (%s)", r.value, p.label()))
		if !r.out && open == "" {
			open = p.label()
		}
	}
	return values, open
}

// launchServers is the CDP launch path's servers per SM, which no paper
// states as a count: DTBL §5.1 has the calls "interleaved for all the
// warps" (k20c: 0, unlimited), SPAWN §II-C says a burst "cannot be
// serviced simultaneously" (k20c-spawn: 1). own is the preset's.
func launchServers(own string) unstated {
	other := "1"
	if own == "1" {
		other = "0"
	}
	return unstated{name: "cdp.launch_servers", choices: []choice{
		{label: own + " (the preset's)"},
		{label: other, sets: []string{"cdp.launch_servers=" + other}},
	}}
}

// joinSpread is the gaussian JOIN keys' standard deviation, which neither
// DTBL nor SPAWN states (samples/joinmerge.go): the generator's 0.01 of
// the key range, and twice and half that.
var joinSpread = unstated{name: "join sigma", choices: []choice{
	{label: "0.01 (the generator's)"},
	{label: "0.005", params: map[string][]string{"join": {"sigma=0.005"}}},
	{label: "0.02", params: map[string][]string{"join": {"sigma=0.02"}}},
}}
