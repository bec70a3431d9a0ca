package main

import (
	"slices"
	"strings"
)

// The papers' graph inputs at their own sizes, from the 10th DIMACS
// Implementation Challenge collection both papers cite (DTBL Table 4's
// [4], SPAWN Table I's [35]; sizes as the SuiteSparse collection lists
// them), or generated graphs of the same size and mean degree:
//
//   - citation network: citationCiteseer, 268,495 vertices and 1,156,647
//     edges (2,313,294 nonzeros), is 2^18 = 262,144 citation-model papers
//     citing 4 earlier papers each on average;
//   - graph500 logn20: kron_g500-logn20, 1,048,576 vertices and 89,239,674
//     nonzeros (about 44.6 M undirected edges, a multigraph), is the
//     Graph500 Kronecker generator at scale 20 with edgefactor 48 (50.3 M
//     generated edges, duplicates merged), the edgefactor DIMACS's
//     Kronecker graphs have (the Graph500 default of 16 gives a third of
//     the edges);
//   - cage15: 5,154,859 rows and 99,199,551 nonzeros, a mean of 18.2
//     neighbours a vertex off the diagonal, is a uniform random graph of
//     2^22 = 4,194,304 vertices with edgefactor 9 (mean degree 18), the
//     largest power of two below cage15's vertex count the generators
//     allow (edgefactor·2^scale ≤ 2^26).
//
// Graph coloring on graph500 is the exception: Jones–Plassmann makes every
// uncolored vertex of more than site_threshold neighbours a launch site in
// every round, and at edgefactor 48 most are, so the trace grows faster
// than the graph: at scale 16 (64 K vertices) generating takes 69 s and
// writes 110 MB with 6.9 M sites, and replaying flat, CDP and DTBL takes
// 185 s (scale 14: 6.5 s, 11 MB, 0.9 M sites, 20 s); scale 20 did not
// finish generating in 7 minutes. CLR and GC on graph500 therefore run at
// scale 14 with logn20's edgefactor (graph500Coloring), the largest that
// runs in a few minutes under the experiments' 5 to 15 replays.
var (
	citationPaper = []string{"graph=citation", "scale=18", "edgefactor=4"}
	graph500Paper = []string{"graph=kron", "scale=20", "edgefactor=48"}
	cage15Paper   = []string{"graph=uniform", "scale=22", "edgefactor=9"}

	graph500Coloring = []string{"graph=kron", "scale=14", "edgefactor=48"}
)

// smallerColoring flags graph500Coloring in a benchmark's paper column.
const smallerColoring = " (smaller: logn14 at logn20's edgefactor, graph500Coloring)"

// dtblPaperExperiment is the dtbl experiment on its graph inputs at the
// paper's sizes (the others name no size: AMR's combustion simulation and
// JOIN's data keep their generators' defaults).
var dtblPaperExperiment = atPaperScale(dtblExperiment, "dtbl",
	"DTBL §5, the result of record: as dtbl, the graph inputs at Table 4's sizes (citationCiteseer, kron_g500-logn20, cage15) (k20c)",
	dtblPaperInputs)

// dtblPaperInputs are the dtbl benchmarks' generator parameters at the
// paper's sizes, by benchmark name.
var dtblPaperInputs = map[string][]string{
	"bfs-citation":  append(slices.Clone(citationPaper), "site_threshold=32"),
	"clr-citation":  citationPaper,
	"clr-graph500":  graph500Coloring,
	"sssp-citation": append(slices.Clone(citationPaper), "site_threshold=32"),
	"sssp-cage15":   append(slices.Clone(cage15Paper), "site_threshold=32"),
}

// spawnPaperExperiment is the spawn experiment on its graph inputs at the
// DIMACS collection's sizes. SPAWN Table I names the collection, not the
// graphs: the citation network is its citationCiteseer (the one citation
// graph in it) and graph500 the logn20 DTBL used.
var spawnPaperExperiment = atPaperScale(spawnExperiment, "spawn",
	"SPAWN §V, the result of record: as spawn, the graph inputs at the DIMACS sizes (citationCiteseer, kron_g500-logn20) (k20c-spawn)",
	spawnPaperInputs)

// spawnPaperInputs are the spawn benchmarks' generator parameters at the
// DIMACS sizes, by benchmark name.
var spawnPaperInputs = map[string][]string{
	"bfs-citation":  citationPaper,
	"bfs-graph500":  graph500Paper,
	"sssp-citation": citationPaper,
	"sssp-graph500": graph500Paper,
	"gc-citation":   citationPaper,
	"gc-graph500":   graph500Coloring,
}

// atPaperScale is x with the named benchmarks' generator parameters
// replaced by params, key by key (a parameter params does not name, such
// as spawn's loop_cycles, stays): the same policies, columns and
// headlines on other inputs. A benchmark run at graph500Coloring says in
// its paper column that it is smaller than the paper's. Its grid leaves
// the invented cost constants to quick, the same experiment at small
// sizes (costsIn), unless --cost-grid asks for them here.
func atPaperScale(x *experiment, quick, doc string, params map[string][]string) *experiment {
	c := *x
	c.doc = doc
	c.costsIn = quick
	c.benchmarks = make([]benchmark, len(x.benchmarks))
	for i, b := range x.benchmarks {
		if p, ok := params[b.name]; ok {
			b.params = mergeParams(b.params, p)
			if slices.Equal(p, graph500Coloring) {
				b.paper += smallerColoring
			}
		}
		c.benchmarks[i] = b
	}
	return &c
}

// mergeParams is old's key=value parameters with those new names replaced,
// then new's.
func mergeParams(old, new []string) []string {
	named := map[string]bool{}
	for _, p := range new {
		named[paramKey(p)] = true
	}
	var out []string
	for _, p := range old {
		if !named[paramKey(p)] {
			out = append(out, p)
		}
	}
	return append(out, new...)
}

// paramKey is a key=value parameter's key.
func paramKey(p string) string {
	k, _, _ := strings.Cut(p, "=")
	return k
}
