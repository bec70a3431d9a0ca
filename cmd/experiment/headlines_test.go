package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// A headline's ratio is ours over the paper's value (over the nearer end
// of a range, 1 inside it), and it is inside when the ratio is within the
// band: a value on each side of each edge.
func TestHeadlineJudge(t *testing.T) {
	point := headline{lo: 1.21, unit: "×", band: 0.30}
	rng := headline{lo: 4, hi: 6, unit: "%", band: 0.30}
	ideal := headline{lo: 1.63, unit: "×", band: 0.20}
	for _, c := range []struct {
		h      headline
		ours   float64
		ratio  float64
		inside bool
	}{
		{point, 1.21, 1, true},
		{point, 1.5, 1.5 / 1.21, true},    // 1.24
		{point, 1.6, 1.6 / 1.21, false},   // 1.32
		{point, 0.85, 0.85 / 1.21, true},  // 0.702
		{point, 0.84, 0.84 / 1.21, false}, // 0.694
		{rng, 5, 1, true},
		{rng, 4, 1, true},
		{rng, 7.5, 7.5 / 6, true},         // 1.25
		{rng, 8, 8.0 / 6, false},          // 1.33
		{rng, 2.9, 2.9 / 4, true},         // 0.725
		{rng, 2.7, 2.7 / 4, false},        // 0.675
		{rng, -1, -1.0 / 4, false},        // faster than the best: no ratio fits
		{ideal, 1.95, 1.95 / 1.63, true},  // 1.196
		{ideal, 1.96, 1.96 / 1.63, false}, // 1.202
		{ideal, 1.31, 1.31 / 1.63, true},  // 0.804
		{ideal, 1.30, 1.30 / 1.63, false}, // 0.798
	} {
		v := c.h.judge(c.ours)
		if math.Abs(v.ratio-c.ratio) > 1e-12 || v.inside != c.inside {
			t.Errorf("paper %g–%g ±%g, ours %g: ratio %.4f inside %v; want %.4f %v",
				c.h.lo, c.h.hi, c.h.band, c.ours, v.ratio, v.inside, c.ratio, c.inside)
		}
	}
	if v := point.judge(math.NaN()); v.inside {
		t.Error("a missing value is inside the band")
	}
}

// stat is an outcome of policy on b with makespan cycles and kernels
// device kernels.
func stat(b benchmark, policy string, cycles, kernels int64) outcome {
	return outcome{bench: b, policy: policy, stats: &replay.Stats{MakespanCycles: cycles, DeviceKernels: kernels}}
}

// The DTBL means and headlines are over Table 4's benchmarks alone:
// SPAWN's (spmm, mandel, sa) are in their own row, and the headlines
// computed from the outcomes match the hand-computed geometric means.
func TestDTBLMeanExcludesSPAWN(t *testing.T) {
	spawnOnes := map[string]bool{"spmm": true, "mandel": true, "sa": true}
	for _, b := range dtblExperiment.benchmarks {
		if spawnOnes[b.name] != (b.group == spawnInDTBL) {
			t.Errorf("%s: group %q", b.name, b.group)
		}
		if b.name == "bfs-kron" || strings.Contains(b.paper, "logn20") || (b.gen == "bfs" && strings.Contains(b.paper, "graph500")) {
			t.Errorf("%s labelled %q: graph500 logn20 is CLR's input in DTBL Table 4, not BFS's", b.name, b.paper)
		}
	}
	own := benchmark{name: "bfs-citation"}
	own2 := benchmark{name: "sssp-cage15"}
	spawn := benchmark{name: "spmm", group: spawnInDTBL}
	x := &experiment{policies: dtblPolicies, paperMean: dtblPaperMean}
	var outs []outcome
	// own: DTBL 2× and 8× over flat (geometric mean 4×), CDP 0.5× and 2×
	// (1×), the ideal ones 1.5× and 6× (3×) and 3× and 12× (6×); spmm:
	// everything 100×, which would move every mean if it were counted.
	for _, r := range []struct {
		b                               benchmark
		flat, cdp, dtbl, cdpI, dtblI, k int64
	}{
		{own, 800, 1600, 400, 533, 267, 10},
		{own2, 800, 400, 100, 133, 67, 30},
		{spawn, 800, 8, 8, 8, 8, 1000},
	} {
		outs = append(outs, stat(r.b, "flat", r.flat, 0), stat(r.b, "inlined", r.flat, 0), stat(r.b, "cdp", r.cdp, r.k), stat(r.b, "dtbl", r.dtbl, r.k),
			stat(r.b, "cdp-ideal", r.cdpI, r.k), stat(r.b, "dtbl-ideal", r.dtblI, r.k))
	}
	vs := evalHeadlines(dtblHeadlines, ownOutcomes(outs))
	want := map[string]float64{
		"DTBL over flat": 4, "DTBL over CDP": 4, "CDP over flat": 1,
		"CDP-ideal over flat": math.Sqrt(800.0 / 533 * 800.0 / 133), "DTBL-ideal over flat": math.Sqrt(800.0 / 267 * 800.0 / 67),
	}
	for _, v := range vs {
		if math.Abs(v.ours-want[v.claim]) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", v.claim, v.ours, want[v.claim])
		}
	}
	var buf bytes.Buffer
	x.meanRows(&buf, outs, "")
	got := buf.String()
	for _, row := range []string{
		"| **geometric mean** | | **1.00×** | **1.00×** | **4.00×** |",
		"| " + spawnInDTBL + " | | **1.00×** | **100.00×** | **100.00×** | **100.00×** | **100.00×** |",
		"| paper (mean) | | — | 0.86× | 1.21× | 1.43× | 1.63× |",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("mean rows lack %q:\n%s", row, got)
		}
	}
}

// SPAWN's headlines: the gap to Offline-Search is a geometric mean of
// makespan ratios, the kernel reduction a ratio of sums.
func TestSPAWNHeadlines(t *testing.T) {
	a, b := benchmark{name: "a"}, benchmark{name: "b"}
	outs := []outcome{
		stat(a, "flat", 1000, 0), stat(a, "cdp", 2000, 300), stat(a, "offline-search", 500, 10), stat(a, "spawn", 550, 100),
		stat(b, "flat", 1000, 0), stat(b, "cdp", 500, 100), stat(b, "offline-search", 400, 10), stat(b, "spawn", 400, 0),
	}
	got := map[string]float64{}
	for _, v := range evalHeadlines(spawnHeadlines, outs) {
		got[v.claim] = v.ours
	}
	for claim, want := range map[string]float64{
		"SPAWN over flat":                     math.Sqrt(1000.0 / 550 * 1000.0 / 400),
		"SPAWN over CDP":                      math.Sqrt(2000.0 / 550 * 500.0 / 400),
		"SPAWN's gap to Offline-Search":       100 * (math.Sqrt(1.1) - 1),
		"child kernels: SPAWN fewer than CDP": 75,
	} {
		if math.Abs(got[claim]-want) > 1e-9 {
			t.Errorf("%s = %.6f, want %.6f", claim, got[claim], want)
		}
	}
}

// Every paper-scale input names a benchmark of its base experiment, and
// the registered experiments are the scaled ones: the paper's inputs
// replace the base's graph parameters and keep the others (spawn's
// calibrated loop_cycles, and its bfs and sssp's code=dragonli).
func TestPaperScaleNames(t *testing.T) {
	for name, c := range map[string]struct {
		scaled, base *experiment
		inputs       map[string][]string
	}{
		"dtbl-paper":  {dtblPaperExperiment, dtblExperiment, dtblPaperInputs},
		"spawn-paper": {spawnPaperExperiment, spawnExperiment, spawnPaperInputs},
	} {
		if experiments[name] != c.scaled {
			t.Errorf("%s is not registered", name)
		}
		for bench, params := range c.inputs {
			i := slices.IndexFunc(c.base.benchmarks, func(b benchmark) bool { return b.name == bench })
			if i < 0 {
				t.Errorf("%s: no benchmark %s", name, bench)
				continue
			}
			want := params
			if gen := c.base.benchmarks[i].gen; name == "spawn-paper" {
				want = append(slices.Clone(eq2Premise[gen]), params...)
				if gen == "bfs" || gen == "sssp" {
					want = append(dragonliCode(), want...)
				}
			}
			if got := c.scaled.benchmarks[i].params; !slices.Equal(got, want) {
				t.Errorf("%s %s: params %v, want %v", name, bench, got, want)
			}
		}
	}
}

// dtblWithout recomputes the headlines without the named benchmark: with
// amr gone only b counts (flat 1200, DTBL 1000: 1.20×, inside ±30% of
// 1.21×; CDP 1500: 0.80×, inside; DTBL over CDP 1.50×, inside).
func TestDTBLWithout(t *testing.T) {
	amr, b := benchmark{name: "amr"}, benchmark{name: "b"}
	var outs []outcome
	for _, bm := range []benchmark{amr, b} {
		scale := int64(1)
		if bm.name == "amr" {
			scale = 20 // amr's own speedups would dominate the means
		}
		outs = append(outs, stat(bm, "flat", 1200*scale, 0), stat(bm, "inlined", 1200*scale, 0),
			stat(bm, "cdp", 1500, 0), stat(bm, "dtbl", 1000, 0),
			stat(bm, "cdp-ideal", 800, 0), stat(bm, "dtbl-ideal", 700, 0))
	}
	var buf bytes.Buffer
	dtblWithout("amr")(dtblExperiment, &buf, outs)
	wantFindings(t, buf.String(), "Without amr: DTBL over flat 1.20× (inside ±30%)", "DTBL over CDP 1.50× (inside ±30%)", "CDP over flat 0.80× (inside ±30%)", "DTBL-ideal over flat 1.71× (inside ±20%)")
}

// wantFindings reports each of wants that the printed findings got lack.
func wantFindings(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}
