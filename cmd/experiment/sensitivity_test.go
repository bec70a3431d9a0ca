package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// A scorecard verdict is one of four, from the headline judged here and
// at every point of the grid, with the spread of ours over them.
func TestScorecardVerdictKinds(t *testing.T) {
	h := headline{claim: "X over Y", lo: 1.40, hi: 1.40, unit: "×", band: 0.30}
	points := []point{{}, {labels: []string{"gpu.issue_width 2"}}, {labels: []string{"model.contention off"}}}
	judged := func(xs ...float64) []verdict {
		var vs []verdict
		for _, x := range xs {
			vs = append(vs, h.judge(x))
		}
		return vs
	}
	for _, c := range []struct {
		here         float64
		at           []float64
		kind, spread string
	}{
		{1.40, []float64{1.40, 1.20, 1.60}, "inside across the grid (3 settings)", "1.20×–1.60×"},
		{1.40, []float64{1.40, 0.90, 1.60}, "inside here, outside at gpu.issue_width 2 (1 of 3 settings)", "0.90×–1.60×"},
		{0.50, []float64{0.50, 0.60, 0.70}, "outside across the grid (3 settings): cannot be reached", "0.50×–0.70×"},
		{0.50, []float64{0.50, 0.60, 1.10}, "outside here, inside at model.contention off (1 of 3 settings)", "0.50×–1.10×"},
	} {
		kind, spread := scorecardVerdict(h.judge(c.here), judged(c.at...), points)
		if kind != c.kind || spread != c.spread {
			t.Errorf("%v at %v: %q, %q; want %q, %q", c.here, c.at, kind, spread, c.kind, c.spread)
		}
	}
}

// The one-at-a-time points vary each input alone, and the scorecard's
// inputs follow the experiment's GPU: an issue width other than the
// preset's, contention flipped, the host's costs zeroed, a second seed
// for the generators that take one; SPAWN's device-runtime cycles read
// as stated only where they are counted on another clock.
func TestSensitivityInputs(t *testing.T) {
	us, err := spawnExperiment.sensitivity()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range us {
		names = append(names, u.name)
	}
	costs := inventedCosts(spawnExperiment.benchmarks)
	if want := []string{"gpu.issue_width", "model.contention", "host launch costs", "cdp.clock_mhz", "seed"}; !slices.Equal(names[:len(names)-len(costs)], want) {
		t.Errorf("spawn's inputs %v, want %v and then the invented cost constants", names, want)
	}
	ps := oneAtATime(us)
	if len(ps) != 6+2*len(costs) { // widths 2 and 3, contention off, host 0, clock 0, seed 2, each cost ×0.5 and ×2
		t.Errorf("%d points, want %d", len(ps), 6+2*len(costs))
	}
	for _, p := range ps {
		if len(p.labels) != 1 {
			t.Errorf("point %v varies %d inputs", p.labels, len(p.labels))
		}
	}
	us, err = dtblExperiment.sensitivity()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if u.name == "cdp.clock_mhz" {
			t.Errorf("dtbl (k20c, both clocks 706 MHz) varies cdp.clock_mhz")
		}
	}
	if us, _ := kneeExperiment.sensitivity(); us != nil {
		t.Errorf("an experiment without headlines has inputs %v", us)
	}
}

// The grid varies each invented cost constant (samples/costparams.go) of
// the generators of the benchmarks the headlines cover at ×0.5 and ×2,
// each on its own, with only that generator's parameter; measured
// constants are no parameters, and another paper's benchmarks (dtbl's
// SPAWN group) add none.
func TestInventedCosts(t *testing.T) {
	us := inventedCosts(dtblExperiment.benchmarks)
	byName := map[string]unstated{}
	gens := map[string]bool{}
	for _, u := range us {
		byName[u.name] = u
		gen, _, _ := strings.Cut(u.name, " ")
		gens[gen] = true
	}
	for _, gen := range []string{"spmm", "mandel", "sa"} {
		if gens[gen] {
			t.Errorf("dtbl varies %s's costs, a benchmark of SPAWN's group", gen)
		}
	}
	for _, gen := range []string{"amr", "bfs", "gc", "join", "sssp"} {
		if !gens[gen] {
			t.Errorf("dtbl varies none of %s's costs", gen)
		}
	}
	u, ok := byName["bfs expand_base_cycles"]
	if !ok {
		t.Fatalf("no bfs expand_base_cycles in %v", slices.Collect(maps.Keys(byName)))
	}
	if len(u.choices) != 3 || u.choices[0].label != "120 (invented)" ||
		!slices.Equal(u.choices[1].params["bfs"], []string{"expand_base_cycles=60"}) ||
		!slices.Equal(u.choices[2].params["bfs"], []string{"expand_base_cycles=240"}) || len(u.choices[1].params) != 1 {
		t.Errorf("bfs expand_base_cycles: %+v", u.choices)
	}
	for _, measured := range []string{"sssp base_cycles", "sssp edge_cycles", "sssp lower_cycles", "join bounds_step_cycles", "join prefix_step_cycles"} {
		if _, ok := byName[measured]; ok {
			t.Errorf("the grid varies %s, a measured constant", measured)
		}
	}
	// sssp's idle_warp_cycles prices code=dtbl's idle warps alone: dtbl
	// (sssp at that code) varies it, spawn (Dragon_li's code) does not.
	if _, ok := byName["sssp idle_warp_cycles"]; !ok {
		t.Error("dtbl, whose sssp runs code=dtbl, does not vary sssp idle_warp_cycles")
	}
	for _, u := range inventedCosts(spawnExperiment.benchmarks) {
		if u.name == "sssp idle_warp_cycles" {
			t.Error("spawn, whose sssp runs Dragon_li's code, varies sssp idle_warp_cycles, which no kernel of it reads")
		}
	}
	if got := inventedCosts(pagodaTable5.benchmarks); len(got) == 0 {
		t.Error("pagoda-table5 varies none of the tasks' invented costs")
	}
	// The paper-size runs leave them to their quick runs unless asked.
	count := func(x *experiment) int {
		us, err := x.sensitivity()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, u := range us {
			if len(u.choices) > 0 && strings.HasSuffix(u.choices[0].label, " (invented)") {
				n++
			}
		}
		return n
	}
	if n := count(dtblPaperExperiment); n != 0 {
		t.Errorf("dtbl-paper varies %d cost constants without --cost-grid", n)
	}
	costGrid = true
	defer func() { costGrid = false }()
	if n, want := count(dtblPaperExperiment), len(us); n != want {
		t.Errorf("dtbl-paper with --cost-grid varies %d cost constants, want dtbl's %d", n, want)
	}
}

// A point that sets a constant a benchmark's code never charges takes
// the experiment's own outcomes for it instead of replaying the same
// trace; one the code charges is replayed.
func TestReuseSameTraces(t *testing.T) {
	base := benchmark{name: "dct", gen: "tasks", params: []string{"kind=dct", "count=64", "work=model"}}
	own := []outcome{{bench: base, policy: "hyperq"}}
	for _, tc := range []struct {
		set  string
		same bool
	}{{"des_round_cycles=300", true}, {"warp_start_cycles=80", false}} {
		c := runCache{}
		c.add(nil, own)
		b := base
		b.params = append(slices.Clone(base.params), tc.set)
		same, err := reuseSameTraces(c, nil, base, b, digests{})
		if err != nil {
			t.Fatal(err)
		}
		got, filed := c[c.key(nil, b)]
		if same != tc.same || filed != tc.same {
			t.Errorf("%s: reused %v (filed %v), want %v", tc.set, same, filed, tc.same)
		}
		if filed && (len(got) != 1 || !slices.Equal(got[0].bench.params, b.params)) {
			t.Errorf("%s: filed %+v", tc.set, got)
		}
	}
}
