package samples

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// gcRun colors g with prio to the end, returning each round's worklist and
// the neighbours each of its vertices visited.
func gcRun(g *csr, prio []uint32) (c *gcColoring, worklists, scanned [][]int32) {
	c, worklist := newGCColoring(g, prio)
	for len(worklist) > 0 {
		next := c.step(worklist)
		worklists = append(worklists, worklist)
		scanned = append(scanned, append([]int32(nil), c.scanned...))
		worklist = next
	}
	return c, worklists, scanned
}

// TestGCColoringHandGraphs checks the rounds by hand. On handGraph (0-1,
// 0-2, 1-3, 2-3, 3-4, 5-6) with priorities 5 9 1 7 3 2 8: round 0 colors
// the local maxima 1 and 6; 3 is outranked by 1 although 1 took a color in
// this round. Round 1 skips 1 and 6, now colored, and colors 0, 3 and 5; 2
// and 4 stop at 0 and 3. Round 2 colors them. On the path 0-1-2 with equal
// priorities the smaller id wins every tie, so it takes three rounds.
func TestGCColoringHandGraphs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		g         *csr
		prio      []uint32
		worklists [][]int32
		scanned   [][]int32
		colors    []int32
	}{
		{"diamond", handGraph(), []uint32{5, 9, 1, 7, 3, 2, 8},
			[][]int32{{0, 1, 2, 3, 4, 5, 6}, {0, 2, 3, 4, 5}, {2, 4}},
			[][]int32{{1, 2, 1, 1, 1, 1, 1}, {2, 1, 3, 1, 1}, {2, 1}},
			[]int32{1, 0, 2, 1, 2, 1, 0}},
		{"tied path", newCSR(3, []int32{0, 1}, []int32{1, 2}), []uint32{4, 4, 4},
			[][]int32{{0, 1, 2}, {1, 2}, {2}},
			[][]int32{{1, 1, 1}, {2, 1}, {1}},
			[]int32{0, 1, 2}},
	} {
		c, worklists, scanned := gcRun(tc.g, tc.prio)
		if !reflect.DeepEqual(worklists, tc.worklists) || !reflect.DeepEqual(scanned, tc.scanned) ||
			!reflect.DeepEqual(c.color, tc.colors) {
			t.Errorf("%s: worklists %v, scanned %v, colors %v; want %v, %v, %v",
				tc.name, worklists, scanned, c.color, tc.worklists, tc.scanned, tc.colors)
		}
	}
}

// TestGCColoringProper colors real graphs and checks the result is the
// Jones-Plassmann coloring: each vertex's color is one more than the
// largest among the neighbours that outrank it (0 when none does), which
// makes the coloring proper, as every edge joins a vertex to one that
// outranks it.
func TestGCColoringProper(t *testing.T) {
	for name, g := range map[string]*csr{
		"kron":     kroneckerGraph(newRand(3), 10, 16),
		"citation": citationGraph(newRand(3), 10, 8),
	} {
		prio := gcPriorities(newRand(4), g.vertices())
		c, worklists, _ := gcRun(g, prio)
		if int(c.round) != len(worklists) {
			t.Errorf("%s: %d rounds, %d worklists", name, c.round, len(worklists))
		}
		for v := int32(0); int(v) < g.vertices(); v++ {
			want := int32(0)
			for _, u := range g.neighbours(v) {
				if c.color[u] == c.color[v] {
					t.Fatalf("%s: adjacent %d and %d share color %d", name, u, v, c.color[u])
				}
				if c.outranks(u, v) {
					want = max(want, c.color[u]+1)
				}
			}
			if c.color[v] != want {
				t.Fatalf("%s: vertex %d has color %d, want %d", name, v, c.color[v], want)
			}
		}
	}
}

// TestGCColorCTA checks the parent cost model on a worklist of known
// degrees and outcomes, at site_threshold 64.
func TestGCColorCTA(t *testing.T) {
	degrees := []int{5, 80, 3, 100, 64, 65}
	scanned := []int32{5, 10, 1, 100, 64, 3}
	g := &csr{offsets: make([]int32, len(degrees)+1)}
	for v, d := range degrees {
		g.offsets[v+1] = g.offsets[v] + int32(d)
	}
	g.cols = make([]int32, g.offsets[len(degrees)])
	// Round 0 has just run: vertices 0, 3 and 4 took color 0.
	c := &gcColoring{g: g, color: []int32{0, -1, -1, 0, 0, -1}, round: 1}
	tr := &gcTrace{g: g, block: 64, threshold: 64, loop: gcEdgeCycles}
	cta, sites := tr.colorCTA(c, 9, 2, []int32{0, 1, 2, 3, 4, 5}, scanned)
	warp := int64(gcBaseCycles + 64*gcEdgeCycles + gcColorCycles + gcRequeueCycles)
	want := &trace.CTA{Kernel: 9, CTA: 2, Cycles: warp, WarpCycles: []int64{warp, idleWarpCycles}}
	if !reflect.DeepEqual(cta, want) {
		t.Errorf("cta %+v, want %+v", cta, want)
	}
	wantSites := []gcSite{{2, 0, 1, 80, 10, false}, {2, 0, 3, 100, 100, true}, {2, 0, 5, 65, 3, false}}
	if !reflect.DeepEqual(sites, wantSites) {
		t.Errorf("sites %v, want %v", sites, wantSites)
	}
	if tr.scanned != 183 {
		t.Errorf("scanned %d, want 183", tr.scanned)
	}
	if gcColorWarpCycles(3, 0, false, false, gcEdgeCycles) != gcBaseCycles {
		t.Error("a warp whose lanes all launch should spend only the base cycles")
	}
}

// TestGCChildCTA checks the child cost model: one thread per neighbour,
// every CTA publishing its result, the last ending the vertex's round.
func TestGCChildCTA(t *testing.T) {
	s := gcSite{degree: 100, colored: false}
	c0 := gcChildCTA(5, 0, 2, s)
	c1 := gcChildCTA(5, 1, 2, s)
	want0 := []int64{gcChildWarpCycles(32) + gcChildFlushCycles, gcChildWarpCycles(32)}
	want1 := []int64{gcChildWarpCycles(32) + gcChildFlushCycles + gcChildDecideCycles + gcRequeueCycles, gcChildWarpCycles(4)}
	if !reflect.DeepEqual(c0.WarpCycles, want0) || !reflect.DeepEqual(c1.WarpCycles, want1) ||
		c0.Cycles != want0[0] || c1.Cycles != want1[0] {
		t.Errorf("child CTAs %+v %+v, want warps %v %v", c0, c1, want0, want1)
	}
	one := gcChildCTA(5, 0, 1, gcSite{degree: 40, colored: true})
	if want := []int64{gcChildWarpCycles(32) + gcChildFlushCycles + gcChildDecideCycles + gcColorCycles, gcChildWarpCycles(8)}; !reflect.DeepEqual(one.WarpCycles, want) {
		t.Errorf("one-CTA child %v, want %v", one.WarpCycles, want)
	}
	if gcChildWarpCycles(0) != idleWarpCycles || gcChildWarpCycles(32) <= gcChildWarpCycles(1) {
		t.Error("an empty child warp should idle, and a full one wait longer for its gathers")
	}
}

// TestGCSites checks every launch site against the threshold and the cost
// model, that a site's inline cost ends the round as its child does, that
// no looping lane exceeds the threshold, and that the sites are exactly the
// worklist vertices above the threshold, round by round.
func TestGCSites(t *testing.T) {
	const threshold = 24
	for _, graph := range []string{"kron", "citation"} {
		recs := generate(t, "gc", "graph="+graph, "scale=9", "edgefactor=8", "site_threshold=24", "seed=3")
		color := map[uint64]bool{}
		sites := map[uint64]*trace.Launch{} // by child kernel
		outcome := map[uint64]int64{}       // by child kernel, from its last CTA
		for _, r := range recs {
			switch r := r.(type) {
			case *trace.Kernel:
				color[r.ID] = r.Name == "gc_color"
				if !color[r.ID] && (r.Name != "gc_color_child" || r.Block != dpLine(gcChildBlock)) {
					t.Fatalf("kernel %+v", r)
				}
			case *trace.Launch:
				if r.Host() {
					continue
				}
				sites[r.Kernel] = r
				if r.Workload <= threshold || r.Parent.At != gcBaseCycles || !color[r.Parent.Kernel] {
					t.Errorf("site %+v at %+v", r, r.Parent)
				}
			case *trace.CTA:
				checkGCCTA(t, r, color[r.Kernel], sites[r.Kernel], outcome, threshold)
			}
		}
		// The lane loops over the neighbours it visits, at least one and at
		// most all, by the lane-loop rule, then pays its outcome.
		_, all := ruleWants(recs, workloadThreads)
		for k, l := range sites {
			loop := l.InlineCycles - outcome[k]
			if loop <= 0 || loop > all[k] {
				t.Errorf("%s: site of kernel %d: inline %d, child outcome %d, all its threads %d by the lane-loop rule", graph, k, l.InlineCycles, outcome[k], all[k])
			}
		}
		if want := gcCountSites(graphInput{kind: graph, scale: 9, edgefactor: 8}, 3, threshold); len(sites) != want || want == 0 {
			t.Errorf("%s: %d sites, the coloring has %d vertices above the threshold", graph, len(sites), want)
		}
	}
}

// checkGCCTA checks one CTA of a gc trace: a gc_color warp's looping lanes
// are at or below threshold; a child's last CTA ends the vertex's round,
// whose cost it records in outcome.
func checkGCCTA(t *testing.T, r *trace.CTA, parent bool, site *trace.Launch, outcome map[uint64]int64, threshold int64) {
	t.Helper()
	if parent {
		for w, c := range r.WarpCycles {
			if c != idleWarpCycles && (c < gcBaseCycles || c > gcColorWarpCycles(1, int(threshold), true, true, gcEdgeCycles)) {
				t.Errorf("kernel %d cta %d warp %d: %d cycles", r.Kernel, r.CTA, w, c)
			}
		}
		return
	}
	grid := uint64(ceilDiv(int(site.Workload), gcChildBlock))
	active := int(min(site.Workload-int64(r.CTA)*gcChildBlock, warpSize))
	extra := r.WarpCycles[0] - gcChildWarpCycles(active) - gcChildFlushCycles
	switch {
	case r.CTA+1 < grid && extra != 0:
		t.Errorf("child %d cta %d of %d: warp 0 has %d extra cycles", r.Kernel, r.CTA, grid, extra)
	case r.CTA+1 == grid:
		outcome[r.Kernel] = extra - gcChildDecideCycles
		if o := outcome[r.Kernel]; o != gcColorCycles && o != gcRequeueCycles {
			t.Errorf("child %d: last CTA's warp 0 ends the round with %d cycles", r.Kernel, o)
		}
	}
}

// gcCountSites reruns the coloring gc makes of in with seed and counts
// the worklist entries above threshold over all rounds.
func gcCountSites(in graphInput, seed uint64, threshold int) int {
	rng := newRand(seed)
	g := in.build(rng)
	c, worklist := newGCColoring(g, gcPriorities(rng, g.vertices()))
	n := 0
	for len(worklist) > 0 {
		for _, v := range worklist {
			if g.degree(v) > threshold {
				n++
			}
		}
		worklist = c.step(worklist)
	}
	return n
}

// TestGCHeaderMatchesRecords checks the meta's totals against the records.
func TestGCHeaderMatchesRecords(t *testing.T) {
	recs := generate(t, "gc", "scale=9", "graph=citation")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	meta := func(k string) int {
		v, err := strconv.Atoi(h.Meta[k])
		if err != nil {
			t.Fatalf("meta %s: %v", k, err)
		}
		return v
	}
	if h.Source != "gen:gc" || h.Meta["graph"] != "citation" || host != meta("rounds") || meta("colors") != meta("rounds") ||
		device != meta("sites") || n[trace.KindKernel] != meta("kernels") || n[trace.KindCTA] != meta("ctas") ||
		n[trace.KindBuffer] != 7 || meta("vertices") != 512 || meta("scanned") < meta("edges") {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
}

func TestGCBadParams(t *testing.T) {
	g, _ := Lookup("gc")
	for _, kv := range [][]string{
		{"graph=uniform"}, {"scale=0"}, {"scale=22", "edgefactor=32"}, {"block=0"}, {"site_threshold=-1"}, {"seed=x"},
	} {
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
