package samples

import (
	"container/heap"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// ssspHandGraph is 0-1 (5), 0-2 (1), 2-1 (1), 1-3 (1): from 0 the direct
// edge to 1 is beaten by the path through 2, which the worklist finds one
// iteration late, so 1 and then 3 are relaxed twice.
func ssspHandGraph() (*csr, []int32) {
	g := newCSR(4, []int32{0, 0, 2, 1}, []int32{1, 2, 1, 3})
	// Neighbour lists: 0: 1 2; 1: 0 2 3; 2: 0 1; 3: 1.
	return g, []int32{5, 1, 5, 1, 1, 1, 1, 1}
}

func TestSSSPSolverHandGraph(t *testing.T) {
	g, w := ssspHandGraph()
	s, worklist := newSSSPSolver(g, w, 0)
	want := []struct {
		worklist []int32
		lowered  []bool
	}{
		{[]int32{0}, []bool{true, true}},
		{[]int32{1, 2}, []bool{false, false, true, false, true}},
		{[]int32{3, 1}, []bool{false, false, false, true}},
		{[]int32{3}, []bool{false}},
	}
	for i, it := range want {
		if !reflect.DeepEqual(worklist, it.worklist) {
			t.Fatalf("iteration %d: worklist %v, want %v", i, worklist, it.worklist)
		}
		worklist = s.relax(worklist)
		if !reflect.DeepEqual(s.lowered, it.lowered) {
			t.Errorf("iteration %d: lowered %v, want %v", i, s.lowered, it.lowered)
		}
	}
	if len(worklist) != 0 {
		t.Errorf("worklist %v after the last iteration, want empty", worklist)
	}
	if want := []int64{0, 2, 1, 3}; !reflect.DeepEqual(s.dist, want) {
		t.Errorf("distances %v, want %v", s.dist, want)
	}
}

// TestSSSPMatchesDijkstra checks the worklist search's distances against
// Dijkstra's algorithm on a weighted Kronecker graph.
func TestSSSPMatchesDijkstra(t *testing.T) {
	rng := newRand(11)
	g := kroneckerGraph(rng, 9, 8)
	w := ssspWeights(rng, g, 50)
	root, _ := graph500Root(rng, g)
	s, worklist := newSSSPSolver(g, w, root)
	iterations := 0
	for ; len(worklist) > 0; iterations++ {
		worklist = s.relax(worklist)
	}
	if want := dijkstra(g, w, root); !reflect.DeepEqual(s.dist, want) {
		t.Error("worklist distances differ from Dijkstra's")
	}
	if iterations < 3 {
		t.Errorf("%d iterations; a weighted Kronecker graph should need several", iterations)
	}
}

// dijkstra is the reference single-source shortest paths.
func dijkstra(g *csr, w []int32, root int32) []int64 {
	dist := make([]int64, g.vertices())
	for v := range dist {
		dist[v] = ssspUnreached
	}
	dist[root] = 0
	q := &distHeap{{root, 0}}
	for q.Len() > 0 {
		top := heap.Pop(q).(distItem)
		if top.d > dist[top.v] {
			continue
		}
		for i, u := range g.neighbours(top.v) {
			if d := top.d + int64(w[int(g.offsets[top.v])+i]); d < dist[u] {
				dist[u] = d
				heap.Push(q, distItem{u, d})
			}
		}
	}
	return dist
}

type distItem struct {
	v int32
	d int64
}

type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func TestSSSPWeightsSymmetric(t *testing.T) {
	rng := newRand(2)
	g := kroneckerGraph(rng, 8, 8)
	w := ssspWeights(rng, g, 7)
	seen := map[int32]bool{}
	for v := int32(0); int(v) < g.vertices(); v++ {
		for i, u := range g.neighbours(v) {
			wt := w[int(g.offsets[v])+i]
			seen[wt] = true
			back := -1
			for j, x := range g.neighbours(u) {
				if x == v {
					back = j
				}
			}
			if wt < 1 || wt > 7 || back < 0 || w[int(g.offsets[u])+back] != wt {
				t.Fatalf("edge %d-%d: weight %d, reverse index %d", v, u, wt, back)
			}
		}
	}
	if len(seen) != 7 {
		t.Errorf("weights used %d of the 7 values", len(seen))
	}
}

func TestSSSPUniformGraphBalanced(t *testing.T) {
	u := ssspUniformGraph(newRand(1), 10, 16)
	k := kroneckerGraph(newRand(1), 10, 16)
	if u.vertices() != 1024 || u.edges() < 15000 {
		t.Errorf("uniform graph: %d vertices, %d edges", u.vertices(), u.edges())
	}
	if 3*u.maxDegree() > k.maxDegree() {
		t.Errorf("uniform max degree %d not well below Kronecker's %d", u.maxDegree(), k.maxDegree())
	}
}

// TestSSSPRelaxCTA checks the parent cost model on a worklist of known
// degrees and outcomes.
func TestSSSPRelaxCTA(t *testing.T) {
	degrees := []int{5, 20, 3, 40}
	g := &csr{offsets: make([]int32, len(degrees)+1)}
	for v, d := range degrees {
		g.offsets[v+1] = g.offsets[v] + int32(d)
	}
	g.cols = make([]int32, g.offsets[len(degrees)])
	lowered := make([]bool, len(g.cols)+3) // three flags for the next CTA
	lowered[0], lowered[4] = true, true    // vertex 0: 2 of 5 lower
	lowered[5+20] = true                   // vertex 2: 1 of 3
	lowered[5+20+3+39] = true              // vertex 3: its last edge
	tr := &ssspTrace{g: g, block: 64, threshold: 16, loop: ssspEdgeCycles}
	cta, sites, rest := tr.relaxCTA(7, 1, []int32{0, 1, 2, 3}, lowered)
	loop := max(ssspLaneCycles(5, 2, ssspEdgeCycles), ssspLaneCycles(3, 1, ssspEdgeCycles))
	want := &trace.CTA{Kernel: 7, CTA: 1, Cycles: ssspBaseCycles + loop,
		WarpCycles: []int64{ssspBaseCycles + loop, idleWarpCycles}}
	if !reflect.DeepEqual(cta, want) {
		t.Errorf("cta %+v, want %+v", cta, want)
	}
	if len(rest) != 3 {
		t.Errorf("%d flags left, want 3", len(rest))
	}
	if len(sites) != 2 || sites[0].lane != 1 || len(sites[0].lowered) != 20 || ssspCount(sites[0].lowered) != 0 ||
		sites[1].lane != 3 || len(sites[1].lowered) != 40 || !sites[1].lowered[39] {
		t.Errorf("sites %+v", sites)
	}
}

// TestSSSPChildCTA checks the child cost model: one thread per edge, the
// lowering branch only in warps with a lowering lane.
func TestSSSPChildCTA(t *testing.T) {
	lowered := make([]bool, 100)
	lowered[70], lowered[71] = true, true
	c0 := ssspChildCTA(3, 0, ssspChildBlock, lowered, 0)
	c1 := ssspChildCTA(3, 1, ssspChildBlock, lowered, 0)
	want0 := []int64{ssspChildWarpCycles(32, 0), ssspChildWarpCycles(32, 0)}
	want1 := []int64{ssspChildWarpCycles(32, 2), ssspChildWarpCycles(4, 0)}
	if !reflect.DeepEqual(c0.WarpCycles, want0) || !reflect.DeepEqual(c1.WarpCycles, want1) || c1.Cycles != want1[0] {
		t.Errorf("child CTAs %+v %+v, want warps %v %v", c0, c1, want0, want1)
	}
	if ssspChildWarpCycles(32, 2)-ssspChildWarpCycles(32, 0) != ssspLowerCycles+2*ssspGatherCycles+ssspLowerLaneCycles {
		t.Error("lowering lanes should add the branch once per warp, per-lane issue and the second lane's atomics")
	}
	if ssspChildWarpCycles(0, 0) != idleWarpCycles {
		t.Error("a warp past the last edge should be idle")
	}
}

// TestSSSPSites checks every launch site against the threshold and the
// cost model, that a site's inline cost counts the same lowered edges as
// its child's CTAs, and that no looping lane in a parent warp can exceed
// the threshold.
func TestSSSPSites(t *testing.T) {
	const threshold = 12
	recs := generate(t, "sssp", "scale=9", "site_threshold=12", "seed=3")
	relax := map[uint64]bool{}
	grids := map[uint64]uint64{}
	sites := map[uint64]*trace.Launch{} // by child kernel
	childLowered := map[uint64]int64{}  // by child kernel, decoded from its warps
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			relax[r.ID] = r.Name == "sssp_relax"
			grids[r.ID] = r.CTAs()
		case *trace.Launch:
			if r.Host() {
				continue
			}
			sites[r.Kernel] = r
			d := r.Workload
			if d <= threshold || r.Parent.At != ssspBaseCycles || !relax[r.Parent.Kernel] || relax[r.Kernel] ||
				grids[r.Kernel] != uint64(ceilDiv(int(d), ssspChildBlock)) {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		case *trace.CTA:
			for w, c := range r.WarpCycles {
				if relax[r.Kernel] {
					if c != idleWarpCycles && (c < ssspBaseCycles || c-ssspBaseCycles > ssspLaneCycles(threshold, threshold, ssspEdgeCycles)) {
						t.Errorf("kernel %d cta %d warp %d: %d cycles", r.Kernel, r.CTA, w, c)
					}
					continue
				}
				first := int64(r.CTA)*ssspChildBlock + int64(w)*warpSize
				active := int(min(max(sites[r.Kernel].Workload-first, 0), warpSize))
				if none := ssspChildWarpCycles(active, 0); c > none {
					childLowered[r.Kernel] += (c - none - ssspLowerCycles + ssspLowerLaneCycles) / (ssspGatherCycles + ssspLowerLaneCycles)
				}
			}
		}
	}
	if len(sites) == 0 {
		t.Fatal("no launch sites")
	}
	lowering := 0
	for k := range sites {
		if childLowered[k] > 0 {
			lowering++
		}
	}
	if lowering == 0 {
		t.Error("no site lowered a distance")
	}
	ruleInlines(t, "sssp", recs, workloadThreads)
}

// TestSSSPSolverReadsDistancesAtStart checks that a worklist vertex relaxes
// with the distance it had when the iteration began, as a GPU thread that
// loads it first does: in 0-1 (1), 0-2 (10), 0-3 (10), 1-2 (1), 2-3 (1),
// vertex 2 is lowered to 2 by vertex 1 in the second iteration but still
// relaxes from 10 there, so 3 falls only in the third.
func TestSSSPSolverReadsDistancesAtStart(t *testing.T) {
	g := newCSR(4, []int32{0, 0, 0, 1, 2}, []int32{1, 2, 3, 2, 3})
	// Neighbour lists: 0: 1 2 3; 1: 0 2; 2: 0 1 3; 3: 0 2.
	s, worklist := newSSSPSolver(g, []int32{1, 10, 10, 1, 1, 10, 1, 1, 10, 1}, 0)
	var lists [][]int32
	for len(worklist) > 0 {
		lists = append(lists, worklist)
		worklist = s.relax(worklist)
	}
	want := [][]int32{{0}, {1, 2, 3}, {2}, {3}}
	if !reflect.DeepEqual(lists, want) || !reflect.DeepEqual(s.dist, []int64{0, 1, 2, 3}) {
		t.Errorf("worklists %v, distances %v; want %v, [0 1 2 3]", lists, s.dist, want)
	}
}

// TestSSSPHeaderMatchesRecords checks the meta's totals against the
// records, and the iteration cap.
func TestSSSPHeaderMatchesRecords(t *testing.T) {
	for _, tc := range []struct {
		kv        []string
		converged string
	}{
		{[]string{"scale=9", "graph=uniform", "edgefactor=8"}, "true"},
		{[]string{"scale=9", "iters=2"}, "false"},
	} {
		recs := generate(t, "sssp", tc.kv...)
		if err := checkOrder(recs); err != nil {
			t.Fatalf("%v: %v", tc.kv, err)
		}
		h := recs[0].(*trace.Header)
		n, host, device := countKinds(recs)
		meta := func(k string) int {
			v, err := strconv.Atoi(h.Meta[k])
			if err != nil {
				t.Fatalf("%v: meta %s: %v", tc.kv, k, err)
			}
			return v
		}
		if h.Source != "gen:sssp" || h.Meta["converged"] != tc.converged || host != meta("iterations") ||
			device != meta("sites") || n[trace.KindKernel] != meta("kernels") || n[trace.KindCTA] != meta("ctas") ||
			n[trace.KindBuffer] != 7 || meta("reached") < 2 || meta("relaxations") < meta("iterations") {
			t.Errorf("%v: records %v, %d host, %d device launches; meta %v", tc.kv, n, host, device, h.Meta)
		}
	}
}

func TestSSSPBadParams(t *testing.T) {
	g, _ := Lookup("sssp")
	for _, kv := range [][]string{
		{"graph=road"}, {"scale=25"}, {"scale=22", "edgefactor=32"}, {"max_weight=0"},
		{"block=1025"}, {"site_threshold=-1"}, {"iters=0"}, {"seed=x"},
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
