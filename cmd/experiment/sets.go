package main

// experiments are the papers' evaluations this command can rerun.
var experiments = map[string]*experiment{
	"dtbl": dtblExperiment,
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
