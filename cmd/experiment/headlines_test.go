package main

import (
	"bytes"
	"fmt"
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
	// One side only: "within 4%" takes any gap up to 4%, a negative one
	// (faster than the best) included; "at least 58%" anything above.
	within := headline{lo: math.Inf(-1), hi: 4, unit: "%", band: 0.30}
	atLeast := headline{lo: 58, hi: math.Inf(1), unit: "%", band: 0.30}
	for _, c := range []struct {
		h      headline
		ours   float64
		ratio  float64
		inside bool
	}{
		{within, -3, 1, true},
		{within, 4, 1, true},
		{within, 5.1, 5.1 / 4, true},  // 1.275
		{within, 5.3, 5.3 / 4, false}, // 1.325
		{within, 6, 1.5, false},       // inside §I's "within 6%", not §V-B's 4%
		{atLeast, 100, 1, true},
		{atLeast, 45, 45.0 / 58, true},  // 0.776
		{atLeast, 3.5, 3.5 / 58, false}, // 3MM's share
		{atLeast, 40, 40.0 / 58, false}, // 0.690
	} {
		v := c.h.judge(c.ours)
		if math.Abs(v.ratio-c.ratio) > 1e-12 || v.inside != c.inside {
			t.Errorf("paper %g–%g ±%g, ours %g: ratio %.4f inside %v; want %.4f %v",
				c.h.lo, c.h.hi, c.h.band, c.ours, v.ratio, v.inside, c.ratio, c.inside)
		}
	}
	for h, want := range map[*headline]string{
		&within: "≤ 4.0%", &atLeast: "≥ 58.0%", &point: "1.21×", &rng: "4–6%",
		{lo: math.Inf(-1), hi: 1.11, unit: "×"}: "≤ 1.11×",
	} {
		if got := h.paperValue(); got != want {
			t.Errorf("paper value %q, want %q", got, want)
		}
	}
}

// stat is an outcome of policy on b with makespan cycles and kernels
// device kernels.
func stat(b benchmark, policy string, cycles, kernels int64) outcome {
	return outcome{bench: b, policy: policy, stats: &stats{Stats: replay.Stats{MakespanCycles: cycles, DeviceKernels: kernels}}}
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
	// (1×), the ideal ones 1.5× and 6× (3×) and 3× and 12× (6×), KLAP 2×
	// and 4× at every granularity (2.83×); spmm: everything 100×, which
	// would move every mean if it were counted.
	for _, r := range []struct {
		b                                     benchmark
		flat, cdp, dtbl, klap, cdpI, dtblI, k int64
	}{
		{own, 800, 1600, 400, 400, 533, 267, 10},
		{own2, 800, 400, 100, 200, 133, 67, 30},
		{spawn, 800, 8, 8, 8, 8, 8, 1000},
	} {
		outs = append(outs, stat(r.b, "flat", r.flat, 0), stat(r.b, "inlined", r.flat, 0), stat(r.b, "cdp", r.cdp, r.k), stat(r.b, "dtbl", r.dtbl, r.k))
		for _, c := range klapColumns {
			outs = append(outs, stat(r.b, c, r.klap, 1))
		}
		outs = append(outs, stat(r.b, "cdp-ideal", r.cdpI, r.k), stat(r.b, "dtbl-ideal", r.dtblI, r.k))
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
		"| **geometric mean** | | **1.00×** | **1.00×** | **4.00×** | **2.83×** | **2.83×** | **2.83×** | **3.00×** | **5.98×** |",
		"| " + spawnInDTBL + " | | **1.00×** | **100.00×** | **100.00×** | **100.00×** | **100.00×** | **100.00×** | **100.00×** | **100.00×** |",
		"| paper (mean) | | — | 0.86× | 1.21× | — | — | — | 1.43× | 1.63× |",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("mean rows lack %q:\n%s", row, got)
		}
	}
}

// SPAWN's headlines: the gap to Offline-Search is a geometric mean of
// makespan ratios, the kernel reduction a mean of per-benchmark
// reductions over the benchmarks CDP launches on (u launches nothing),
// and Obs. 4's claims compare a benchmark's best offloading threshold
// (outcome.offload) with flat.
func TestSPAWNHeadlines(t *testing.T) {
	a, sa, jg, u := benchmark{name: "a"}, benchmark{name: "sa"}, benchmark{name: "join-gaussian"}, benchmark{name: "u"}
	search := func(b benchmark, cycles, kernels int64, offload *stats) outcome {
		o := stat(b, "offline-search", cycles, kernels)
		o.offload = offload
		return o
	}
	outs := []outcome{
		stat(a, "flat", 1000, 0), stat(a, "cdp", 2000, 300), search(a, 500, 10, nil), stat(a, "spawn", 550, 100),
		// sa: the best threshold offloads (10 kernels) and is the best run.
		stat(sa, "flat", 1000, 0), stat(sa, "cdp", 500, 100), search(sa, 400, 10, &stats{Stats: replay.Stats{MakespanCycles: 400, DeviceKernels: 10}}), stat(sa, "spawn", 400, 0),
		// join-gaussian: the best threshold launches nothing (1000
		// cycles); the best that offloads runs 960.
		stat(jg, "flat", 1000, 0), stat(jg, "cdp", 4000, 50), search(jg, 1000, 0, &stats{Stats: replay.Stats{MakespanCycles: 960, DeviceKernels: 5}}), stat(jg, "spawn", 1000, 10),
		stat(u, "flat", 1000, 0), stat(u, "cdp", 1000, 0), search(u, 1000, 0, nil), stat(u, "spawn", 1000, 0),
	}
	got := map[string]float64{}
	for _, v := range evalHeadlines(spawnHeadlines, outs) {
		got[v.claim] = v.ours
	}
	for claim, want := range map[string]float64{
		"SPAWN over flat":               math.Pow(1000.0/550*1000.0/400, 0.25),
		"SPAWN over CDP":                math.Pow(2000.0/550*500.0/400*4000.0/1000, 0.25),
		"SPAWN's gap to Offline-Search": 100 * (math.Pow(1.1, 0.25) - 1),
		// a 1 − 100/300, sa 1 − 0/100, join-gaussian 1 − 10/50; pooled
		// it would be 1 − 110/450 = 75.6%.
		"child kernels: SPAWN fewer than CDP, mean per benchmark":        100 * (2.0/3 + 1 + 0.8) / 3,
		"SA-thaliana: best offloading threshold over flat":               2.5,
		"JOIN-gaussian: gain of the best offloading threshold over flat": 100 * (1000.0/960 - 1),
	} {
		if math.Abs(got[claim]-want) > 1e-9 {
			t.Errorf("%s = %.6f, want %.6f", claim, got[claim], want)
		}
	}
	if len(got) != len(spawnHeadlines) {
		t.Errorf("%d headlines evaluated, want %d", len(got), len(spawnHeadlines))
	}
	// No threshold of join-gaussian's launched a kernel: no offloading
	// gain, outside every band.
	outs[10].offload = nil
	for _, v := range evalHeadlines(spawnHeadlines, outs) {
		if v.bench == "join-gaussian" && (!math.IsNaN(v.ours) || v.inside) {
			t.Errorf("join-gaussian without an offloading run: %v, inside %v", v.ours, v.inside)
		}
	}
}

// DTBL's clr_graph500 claim is that benchmark's DTBL over flat alone.
func TestDTBLPerBenchmark(t *testing.T) {
	clr, b := benchmark{name: "clr-graph500"}, benchmark{name: "b"}
	var outs []outcome
	for _, bm := range []benchmark{clr, b} {
		dtbl := int64(1000) // clr-graph500: 1200/1000 = 1.20×
		if bm.name == "b" {
			dtbl = 100
		}
		outs = append(outs, stat(bm, "flat", 1200, 0), stat(bm, "cdp", 1500, 0), stat(bm, "dtbl", dtbl, 0))
	}
	for _, v := range evalHeadlines(dtblHeadlines, outs) {
		if v.claim == "clr_graph500: DTBL over flat" {
			if math.Abs(v.ours-1.2) > 1e-12 || !v.inside { // 1.20 / 0.97 = 1.237
				t.Errorf("clr_graph500: %.4f inside %v, want 1.2000 inside", v.ours, v.inside)
			}
			return
		}
	}
	t.Error("no clr_graph500 headline")
}

// CRCS's 3MM claim: the products' share of the baseline against the share
// PPCS's 1.67× needs with the run's prelude P = 400, postlude Q = 100 and
// copies X = 600 − 400 − 100 − 60 = 40: K = (1.67·500 − 540) / (1 −
// 1.67/3) = 295·3/1.33 = 665.41, 665.41 / (540 + 665.41) = 55.20%; here
// K = 60 of 600, 10%: ratio 0.181, outside.
func TestCRCSThreeMM(t *testing.T) {
	mm := benchmark{name: "3mm"}
	base := outcome{bench: mm, policy: "baseline", stats: &stats{Stats: replay.Stats{MakespanCycles: 600, PreludeCycles: 400, PostludeCycles: 100, KernelsCycles: 60}}}
	outs := []outcome{base, stat(mm, "overlap1", 580, 0), stat(mm, "crcs", 560, 0), stat(mm, "ppcs", 550, 0)}
	for _, v := range evalHeadlines(crcsHeadlines, outs) {
		if v.bench != "3mm" {
			continue
		}
		need := 100 * (295 * 3 / 1.33) / (540 + 295*3/1.33)
		if math.Abs(need-55.2021) > 1e-4 || math.Abs(v.lo-need) > 1e-9 || v.ours != 10 || v.inside {
			t.Errorf("3MM: needs %.4f (want %.4f), ours %.4f (want 10), inside %v", v.lo, need, v.ours, v.inside)
		}
		if got := v.paperValue(); got != "≥ 55.2%" {
			t.Errorf("3MM paper value %q", got)
		}
		return
	}
	t.Error("no 3MM headline")
}

// The scorecard carries what each number rests on, and every claim says.
func TestScorecardRestsOn(t *testing.T) {
	for name, x := range experiments {
		for _, h := range x.headlines {
			if !strings.Contains(h.restsOn, "invented") && !strings.Contains(h.restsOn, "measured") {
				t.Errorf("%s %q: rests on %q, naming nothing invented or measured", name, h.claim, h.restsOn)
			}
		}
	}
	var buf bytes.Buffer
	v := spawnGap.judge(52.2)
	kind, spread := scorecardVerdict(v, nil, nil)
	fmt.Fprintf(&buf, "| %s | %s | %s |", kind, spread, v.restsOn)
	want := "| outside | — | " + spawnRestsOn + " |"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("scorecard row:\n%s\nwant %s", buf.String(), want)
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
				want = append(slices.Clone(spawnLoops[gen]), params...)
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
	if strings.Contains(buf.String(), "clr_graph500") {
		t.Errorf("a one-benchmark claim among the means:\n%s", buf.String())
	}
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

// A headline that rests on a measured fit says beside it how the fit
// does out of sample: the held-out errors (docs/calibration.md), or
// that none is held out.
func TestRestsOnHeldOut(t *testing.T) {
	for name, x := range experiments {
		for _, h := range x.headlines {
			if strings.Contains(h.restsOn, "measured: ") && !strings.Contains(h.restsOn, "held out") && !strings.HasPrefix(h.restsOn, "the row above") {
				t.Errorf("%s: %q rests on a measurement but names no held-out error: %s", name, h.claim, h.restsOn)
			}
		}
	}
}
