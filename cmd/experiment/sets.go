package main

import (
	"fmt"
	"io"
)

// experiments are the papers' evaluations this command can rerun.
var experiments = map[string]*experiment{
	"dtbl":  dtblExperiment,
	"spawn": spawnExperiment,
}

// dtblExperiment is DTBL §5 (Table 4 applications, Figure 8): flat, CDP
// and DTBL on the K20c model of DTBL Table 2. The paper reports DTBL 1.21×
// over flat and 1.40× over CDP on average, and CDP 1.16× slower than flat
// (0.86×).
var dtblExperiment = &experiment{
	doc:      "DTBL §5: flat vs CDP vs DTBL on the DP benchmarks (k20c)",
	gpu:      "k20c",
	policies: []string{"flat", "cdp", "dtbl"},
	benchmarks: []benchmark{
		{name: "amr", gen: "amr", paper: "AMR (combustion)"},
		{name: "bfs-kron", gen: "bfs", params: []string{"scale=16", "site_threshold=32"}, paper: "BFS (graph500 logn20)"},
		{name: "join-uniform", gen: "join", params: []string{"dist=uniform"}, paper: "JOIN uniform"},
		{name: "join-gaussian", gen: "join", params: []string{"dist=gaussian"}, paper: "JOIN gaussian"},
		{name: "sssp-kron", gen: "sssp", params: []string{"graph=kron", "site_threshold=32"}, paper: "SSSP (citation)"},
		{name: "sssp-uniform", gen: "sssp", params: []string{"graph=uniform", "site_threshold=32"}, paper: "SSSP (cage15)"},
		{name: "spmm", gen: "spmm", paper: "— (SPAWN MM)"},
		{name: "mandel", gen: "mandel", paper: "— (SPAWN Mandel)"},
		{name: "sa", gen: "sa", paper: "— (SPAWN SA)"},
	},
	paperMean: map[string]string{"cdp": "0.86×", "dtbl": "1.21×"},
}

// thresholds is the Offline-Search grid of SPAWN §III: from launching
// every site (0) to launching none (2^40), doubling in between.
var thresholds = []string{"0", "8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096", "1099511627776"}

// spawnExperiment is SPAWN §V (Table I benchmarks, Figure 15): flat, CDP,
// the best static THRESHOLD per benchmark (Offline-Search) and SPAWN on the
// GPU of SPAWN Table II. The paper reports SPAWN 1.69× over flat and 1.57×
// over CDP on average, within 4–6% of Offline-Search, with 73% fewer child
// kernels than CDP.
var spawnExperiment = &experiment{
	doc:      "SPAWN §V: flat vs CDP vs Offline-Search vs SPAWN on the 13 benchmarks (k20c-spawn)",
	gpu:      "k20c-spawn",
	policies: []string{"flat", "cdp", "offline-search", "spawn"},
	searches: map[string]search{
		"offline-search": {policy: "threshold", key: "launch.threshold", values: thresholds},
	},
	benchmarks: []benchmark{
		{name: "amr", gen: "amr", paper: "AMR"},
		{name: "bfs-citation", gen: "bfs", params: []string{"graph=citation", "edgefactor=4", "scale=14"}, paper: "BFS-citation"},
		{name: "bfs-graph500", gen: "bfs", params: []string{"scale=14"}, paper: "BFS-graph500"},
		{name: "sssp-citation", gen: "sssp", params: []string{"graph=citation", "edgefactor=4"}, paper: "SSSP-citation"},
		{name: "sssp-graph500", gen: "sssp", params: []string{"graph=kron"}, paper: "SSSP-graph500"},
		{name: "join-uniform", gen: "join", params: []string{"dist=uniform"}, paper: "JOIN-uniform"},
		{name: "join-gaussian", gen: "join", params: []string{"dist=gaussian"}, paper: "JOIN-gaussian"},
		{name: "gc-citation", gen: "gc", params: []string{"graph=citation", "edgefactor=4", "scale=14"}, paper: "GC-citation"},
		{name: "gc-graph500", gen: "gc", params: []string{"graph=kron"}, paper: "GC-graph500"},
		{name: "mandel", gen: "mandel", paper: "Mandel"},
		{name: "mm-small", gen: "spmm", params: []string{"size=small"}, paper: "MM-small"},
		{name: "mm-large", gen: "spmm", params: []string{"size=large"}, paper: "MM-large"},
		{name: "sa", gen: "sa", paper: "SA-thaliana"},
	},
	paperMean: map[string]string{"cdp": "1.08× (1.69/1.57)", "offline-search": "SPAWN within 4–6%", "spawn": "1.69×"},
	extra:     spawnFindings,
}

// spawnFindings prints how many child kernels SPAWN launched against CDP
// and how close it came to the best static threshold on each benchmark.
func spawnFindings(w io.Writer, outs []outcome) {
	cdp, sp, best := column(outs, "cdp"), column(outs, "spawn"), column(outs, "offline-search")
	var cdpKernels, spKernels int64
	worst, within := 0.0, 0
	for i := range sp {
		cdpKernels += cdp[i].DeviceKernels
		spKernels += sp[i].DeviceKernels
		gap := float64(sp[i].MakespanCycles)/float64(best[i].MakespanCycles) - 1
		worst = max(worst, gap)
		if gap <= 0.15 {
			within++
		}
	}
	fewer := 0.0
	if cdpKernels > 0 {
		fewer = 100 * (1 - float64(spKernels)/float64(cdpKernels))
	}
	fmt.Fprintf(w, "Child kernels launched: SPAWN %d, CDP %d (%.0f%% fewer; paper: 73%% fewer).\n", spKernels, cdpKernels, fewer)
	fmt.Fprintf(w, "SPAWN within 15%% of Offline-Search on %d of %d benchmarks; largest gap %.0f%% (paper: within 4–6%% on average).\n", within, len(sp), 100*worst)
}
