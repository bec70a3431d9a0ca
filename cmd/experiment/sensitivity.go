package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/samples"
)

// A verdict holds only across the values a paper leaves open. Beside the
// inputs an experiment's bounds are recomputed across (unstated.go), every
// scorecard is judged at the model's own unstated inputs, each varied on
// its own from the experiment's setting (one at a time, so the grid grows
// by a few runs rather than multiplying): the issue width the contention
// model shares (the knee's validation brackets GPGPU-Sim between 2 and 4),
// the contention model itself, the host's launch costs, the generators'
// seeds, and where the device runtime's costs are counted on another
// clock, those cycles read as stated rather than converted, the
// generators' invented parent-loop costs at ×0.5 and ×2, and each other
// invented constant of their cost models at ×0.5 and ×2 (inventedCosts).
// A verdict then
// says whether it holds at every point (scorecardVerdict), and the
// scorecard prints the spread of ours over them.

// sensitivity is x's inputs varied one at a time for its scorecard: none
// for an experiment without headlines.
func (x *experiment) sensitivity() ([]unstated, error) {
	if len(x.headlines) == 0 {
		return nil, nil
	}
	cfg, err := x.config()
	if err != nil {
		return nil, err
	}
	preset, err := model.Load(x.gpu)
	if err != nil {
		return nil, err
	}
	// whose says where a setting comes from: the preset, or the
	// experiment's (or the user's) --set.
	whose := func(same bool) string {
		if same {
			return "the preset's"
		}
		return "this run's"
	}
	var us []unstated
	width := unstated{name: "gpu.issue_width", choices: []choice{{label: fmtNum(cfg.GPU.IssueWidth) + " (" + whose(cfg.GPU.IssueWidth == preset.GPU.IssueWidth) + ")"}}}
	for _, w := range []float64{2, 3, 4} {
		if w != cfg.GPU.IssueWidth {
			width.choices = append(width.choices, choice{label: fmtNum(w), sets: []string{"gpu.issue_width=" + fmtNum(w)}})
		}
	}
	us = append(us, width)
	other := "off"
	if cfg.Model.Contention == model.Off {
		other = "on"
	}
	us = append(us, unstated{name: "model.contention", choices: []choice{
		{label: string(cfg.Model.Contention) + " (" + whose(cfg.Model.Contention == preset.Model.Contention) + ")"},
		{label: other, sets: []string{"model.contention=" + other}},
	}})
	if cfg.Lat.HostIssue != 0 || cfg.Lat.HostLaunch != 0 {
		us = append(us, unstated{name: "host launch costs", choices: []choice{
			{label: fmt.Sprintf("%d + %d cycles (%s)", cfg.Lat.HostIssue, cfg.Lat.HostLaunch, whose(cfg.Lat == preset.Lat))},
			{label: "0", sets: []string{"lat.host_issue=0", "lat.host_launch=0"}},
		}})
	}
	if cfg.CDP.ClockMHz != 0 && cfg.CDP.ClockMHz != cfg.GPU.ClockMHz {
		us = append(us, unstated{name: "cdp.clock_mhz", choices: []choice{
			{label: fmt.Sprintf("%s (%s: cycles converted to %s MHz)", fmtNum(cfg.CDP.ClockMHz), whose(cfg.CDP.ClockMHz == preset.CDP.ClockMHz && cfg.GPU.ClockMHz == preset.GPU.ClockMHz), fmtNum(cfg.GPU.ClockMHz))},
			{label: "0 (cycles as stated)", sets: []string{"cdp.clock_mhz=0"}},
		}})
	}
	if seeds := seedParams(x.benchmarks, "2"); len(seeds) > 0 {
		us = append(us, unstated{name: "seed", choices: []choice{
			{label: "the generators'"},
			{label: "2", params: seeds},
		}})
	}
	us = append(us, inventedLoops(x.benchmarks)...)
	if x.costsIn != "" && !costGrid {
		return us, nil
	}
	return append(us, inventedCosts(x.benchmarks)...), nil
}

// costGrid is --cost-grid: vary the invented cost constants in the grid
// of an experiment that leaves them to its quick run (costsIn).
var costGrid bool

// measuredLoops are the generators whose loop_cycles default is
// measured: sssp's 422, Dragon_li's own loop iteration on GPGPU-Sim
// (docs/calibration.md). The other generators' defaults are invented.
var measuredLoops = map[string]bool{"sssp": true}

// measuredCode is whether benchmark b runs a code whose costs are all
// measured, so that its generator's invented constants act on none of
// its kernels: bfs code=dragonli, Dragon_li's expand-contract BFS at the
// costs fitted on testBfs (samples/bfsdlcost.go; of bfs's invented
// constants only expand_gather_cycles and idle_warp_cycles reach its
// child warps, and only warps short of 32 lanes or with none, which its
// children, whole CTAs of 1<<child_bits neighbours, never have at
// child_bits ≥ 5, as every experiment runs it).
func measuredCode(b benchmark) bool {
	return b.gen == "bfs" && slices.Contains(b.params, "code=dragonli")
}

// measuredLoop is whether benchmark b's parent loop is measured: its
// generator's (measuredLoops), or bfs's under code=dragonli, whose
// loop_cycles default is Dragon_li's own expand loop on GPGPU-Sim, 133
// (samples/bfsdlcost.go); code=dtbl's stays invented.
func measuredLoop(b benchmark) bool {
	return measuredLoops[b.gen] || b.gen == "bfs" && slices.Contains(b.params, "code=dragonli")
}

// inventedLoops is an input for each generator of bs whose parent loop
// costs an invented number of cycles here, its loop_cycles default (no
// benchmark of it sets one, as the spawn experiments set the premise's,
// and nothing measured it), at ×0.5 and ×2: the invented cost that
// decides launch against inline. At the default a launch site's inline
// cycles are its child's by the lane-loop rule (samples/laneloop.go); a
// loop_cycles given prices the sites' loops at it too. Only that
// generator's benchmarks are replayed again.
func inventedLoops(bs []benchmark) []unstated {
	var us []unstated
	seen := map[string]bool{}
	for _, b := range bs {
		if seen[b.gen] || measuredLoop(b) {
			continue
		}
		seen[b.gen] = true
		g, ok := samples.Lookup(b.gen)
		if !ok {
			continue
		}
		def, ok := g.ModelLoopCycles()
		sets := func(c benchmark) bool {
			return c.gen == b.gen && slices.ContainsFunc(c.params, func(p string) bool { return paramKey(p) == "loop_cycles" })
		}
		if !ok || slices.ContainsFunc(bs, sets) {
			continue
		}
		u := unstated{name: b.gen + " loop_cycles", choices: []choice{{label: fmt.Sprintf("%d (the generator's, invented; sites by the lane-loop rule)", def)}}}
		for _, f := range []float64{0.5, 2} {
			v := max(1, int(math.Round(float64(def)*f)))
			u.choices = append(u.choices, choice{label: fmt.Sprintf("%d (×%s)", v, fmtNum(f)),
				params: map[string][]string{b.gen: {fmt.Sprintf("loop_cycles=%d", v)}}})
		}
		us = append(us, u)
	}
	return us
}

// inventedCosts is an input for each invented cost constant
// (samples/costparams.go) of each generator of the benchmarks of bs the
// headlines cover (no group: another paper's benchmarks are averaged
// apart), at ×0.5 and ×2 of its default: the constants nothing measured
// and no paper states, each on its own. A constant that a benchmark of
// the generator sets itself is the experiment's, not the grid's. Only
// that generator's benchmarks are replayed again. A benchmark whose code
// charges none of its generator's invented constants (measuredCode)
// brings none, and a constant that only another code's kernels read
// (samples' Generator.CostReaches: sssp's idle_warp_cycles, code=dtbl's
// alone) is left out where no benchmark of its generator runs that code:
// varying it would replay the same records.
func inventedCosts(bs []benchmark) []unstated {
	var us []unstated
	seen := map[string]bool{}
	for _, b := range bs {
		if b.group != "" || seen[b.gen] || measuredCode(b) {
			continue
		}
		seen[b.gen] = true
		g, ok := samples.Lookup(b.gen)
		if !ok {
			continue
		}
		for _, p := range g.Params {
			sets := func(c benchmark) bool {
				return c.gen == b.gen && slices.ContainsFunc(c.params, func(q string) bool { return paramKey(q) == p.Name })
			}
			reached := func(c benchmark) bool { return c.gen == b.gen && g.CostReaches(p.Name, c.params) }
			cost, whole := g.CostParam(p.Name)
			if !cost || slices.ContainsFunc(bs, sets) || !slices.ContainsFunc(bs, reached) {
				continue
			}
			def, err := strconv.ParseFloat(p.Default, 64)
			if err != nil {
				continue
			}
			u := unstated{name: b.gen + " " + p.Name, cost: true, choices: []choice{{label: p.Default + " (invented)"}}}
			for _, f := range []float64{0.5, 2} {
				v := def * f
				if whole {
					v = math.Round(v)
				}
				u.choices = append(u.choices, choice{label: fmt.Sprintf("%s (×%s)", fmtNum(v), fmtNum(f)),
					params: map[string][]string{b.gen: {p.Name + "=" + fmtNum(v)}}})
			}
			us = append(us, u)
		}
	}
	return us
}

// seedParams sets seed to v for every generator of bs that has one.
func seedParams(bs []benchmark, v string) map[string][]string {
	ps := map[string][]string{}
	for _, b := range bs {
		g, ok := samples.Lookup(b.gen)
		if !ok || ps[b.gen] != nil || !slices.ContainsFunc(g.Params, func(p samples.Param) bool { return p.Name == "seed" }) {
			continue
		}
		ps[b.gen] = []string{"seed=" + v}
	}
	return ps
}

// oneAtATime is a point for every choice but the first of each input,
// with that choice alone.
func oneAtATime(us []unstated) []point {
	var points []point
	for _, u := range us {
		for _, c := range u.choices[1:] {
			p := point{labels: []string{u.name + " " + c.label}, sets: slices.Clone(c.sets), params: map[string][]string{}}
			for gen, ps := range c.params {
				p.params[gen] = slices.Clone(ps)
			}
			points = append(points, p)
		}
	}
	return points
}

// fmtNum writes a model value without trailing zeros.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// scorecardVerdict is v, judged here, across the verdicts of the same
// headline at every point of the grid (at, the first of which is here):
// which of four it is, and the spread of ours over the points.
func scorecardVerdict(v verdict, at []verdict, points []point) (kind, spread string) {
	if len(at) == 0 {
		if v.inside {
			return "inside", "—"
		}
		return "outside", "—"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	flip, flips := "", 0
	for i, a := range at {
		if !math.IsNaN(a.ours) {
			lo, hi = min(lo, a.ours), max(hi, a.ours)
		}
		if a.inside != v.inside {
			flips++
			if flip == "" {
				flip = points[i].label()
			}
		}
	}
	spread = "—"
	if !math.IsInf(lo, 1) {
		spread = v.format(lo) + "–" + v.format(hi)
	}
	switch {
	case v.inside && flips == 0:
		kind = fmt.Sprintf("inside across the grid (%d settings)", len(at))
	case v.inside:
		kind = fmt.Sprintf("inside here, outside at %s (%d of %d settings)", flip, flips, len(at))
	case flips == 0:
		kind = fmt.Sprintf("outside across the grid (%d settings): cannot be reached", len(at))
	default:
		kind = fmt.Sprintf("outside here, inside at %s (%d of %d settings)", flip, flips, len(at))
	}
	return kind, spread
}

// printScorecard prints x's headlines judged on own and at every point
// of its grid and, where x has a stated value (stated.go), under each
// the same headline judged with it.
func printScorecard(w io.Writer, x *experiment, own []outcome) {
	fmt.Fprintln(w, "| headline (paper's benchmarks) | paper | ours | ours / paper | band | verdict | ours across the grid | bound, across unstated inputs | rests on |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|---|---|---|")
	record := judgedRows(x, own)
	var stated [][]string
	if x.beside != nil {
		stated = judgedRows(x.beside.x, x.beside.own)
	}
	for i, v := range evalHeadlines(x.headlines, own) {
		fmt.Fprintf(w, "| %s | %s |\n", v.claim, strings.Join(record[i], " | "))
		if stated != nil && x.statedChanges(v.headline) {
			cells := stated[i]
			cells[len(cells)-1] = "the row above's, but stated: " + x.stated.label
			fmt.Fprintf(w, "| ↳ stated: %s | %s |\n", x.stated.short, strings.Join(cells, " | "))
		}
	}
	if len(x.points) > 0 {
		fmt.Fprintf(w, "\nThe grid: %s.\n", gridNames(x))
	}
	if x.costsIn != "" && !costGrid {
		fmt.Fprintf(w, "\nThe invented cost constants (samples/*cost.go) are varied at ×0.5 and ×2 in the grid of %s, the same benchmarks at small sizes, not here; `--cost-grid` adds them (the results of record are judged so: most of an hour on 2 cores).\n", x.costsIn)
	}
	if x.beside != nil {
		fmt.Fprintf(w, "\nThe rows marked ↳ stated are the headline above them with the paper's stated value in place of the measurement of record, judged across the same grid: %s. A claim about one benchmark the stated value leaves alone has no such row.\n", x.stated.label)
	}
}

// judgedRows is each of x's headlines judged on own and across x's grid:
// its scorecard cells after the claim.
func judgedRows(x *experiment, own []outcome) [][]string {
	vs := evalHeadlines(x.headlines, own)
	at := make([][]verdict, len(x.points))
	for i, p := range x.points {
		at[i] = evalHeadlines(x.headlines, ownOutcomes(p.outs))
	}
	rows := make([][]string, len(vs))
	for i, v := range vs {
		var col []verdict
		for _, a := range at {
			col = append(col, a[i])
		}
		kind, spread := scorecardVerdict(v, col, x.points)
		rows[i] = []string{fmt.Sprintf("%s (%s)", v.paperValue(), v.source), v.format(v.ours), fmt.Sprintf("%.2f", v.ratio),
			fmt.Sprintf("±%.0f%%", 100*v.band), kind, spread, v.boundCell(x.points), v.restsOn}
	}
	return rows
}

// gridNames lists the grid's inputs and their values.
func gridNames(x *experiment) string {
	var named, costs []unstated
	for _, u := range x.sensitive {
		if u.cost {
			costs = append(costs, u)
		} else {
			named = append(named, u)
		}
	}
	s := inputNames(append(slices.Clone(x.unstated), named...))
	if len(x.unstated) > 0 && len(x.sensitive) > 0 {
		s += fmt.Sprintf(" (the first %d in every combination, the rest one at a time)", len(x.unstated))
	} else if len(x.sensitive) > 0 {
		s += " (one at a time)"
	}
	if len(costs) > 0 {
		s += fmt.Sprintf("; and, one at a time, each of %d invented cost constants (samples/*cost.go) at ×0.5 and ×2 of its value: %s", len(costs), costNames(costs))
	}
	return s
}

// costNames lists the cost inputs by generator, each with its value:
// "amr: scan_step_cycles 40, claim_cycles 120; bfs: …".
func costNames(us []unstated) string {
	var gens []string
	by := map[string][]string{}
	for _, u := range us {
		gen, name, _ := strings.Cut(u.name, " ")
		if by[gen] == nil {
			gens = append(gens, gen)
		}
		value, _, _ := strings.Cut(u.choices[0].label, " ")
		by[gen] = append(by[gen], name+" "+value)
	}
	var parts []string
	for _, g := range gens {
		parts = append(parts, g+": "+strings.Join(by[g], ", "))
	}
	return strings.Join(parts, "; ")
}
