package samples

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestAMRDistances(t *testing.T) {
	for _, tc := range []struct {
		c         amrCell
		px, py    float64
		near, far float64
	}{
		{amrCell{x: 1, y: 1, h: 1}, 0, 0, math.Sqrt2, math.Sqrt(8)},
		{amrCell{x: 1, y: 1, h: 1}, 1.5, 1.25, 0, math.Hypot(0.5, 0.75)},
		{amrCell{x: 1, y: 1, h: 1}, 1.5, 3, 1, math.Hypot(0.5, 2)},
	} {
		near, far := amrDistances(tc.c, tc.px, tc.py)
		if math.Abs(near-tc.near) > 1e-12 || math.Abs(far-tc.far) > 1e-12 {
			t.Errorf("distances from (%g, %g) to %+v: %g, %g; want %g, %g", tc.px, tc.py, tc.c, near, far, tc.near, tc.far)
		}
	}
}

// amrTestMesh has one front: a circle of radius 0.3 around the centre of
// the unit square, growing 0.1 per step, with a ridge too thin to reach
// any cell it does not cross.
func amrTestMesh(depth int) *amrMesh {
	return &amrMesh{
		fronts: []amrFront{{cx: 0.5, cy: 0.5, r0: 0.3, speed: 0.1, sigma: 1e-4}},
		ratio:  2, depth: depth, tol: 0.5,
	}
}

func TestAMRVariation(t *testing.T) {
	m := amrTestMesh(3)
	for _, tc := range []struct {
		c    amrCell
		want float64
	}{
		{amrCell{x: 0.75, y: 0.45, h: 0.1}, 1}, // crossed by the front
		{amrCell{x: 0.45, y: 0.45, h: 0.1}, 0}, // inside, far from it
		{amrCell{x: 0, y: 0, h: 0.1}, 0},       // outside
	} {
		if v := m.variation(tc.c); math.Abs(v-tc.want) > 1e-9 {
			t.Errorf("variation of %+v = %g, want %g", tc.c, v, tc.want)
		}
	}
	m.step = 1 // the front has grown to 0.4 and left the first cell
	if v := m.variation(amrCell{x: 0.75, y: 0.45, h: 0.1}); v > 1e-9 {
		t.Errorf("variation after a step = %g, want 0", v)
	}
	two := &amrMesh{fronts: append(m.fronts, m.fronts...), tol: 0.5}
	if v := two.variation(amrCell{x: 0.75, y: 0.45, h: 0.1}); math.Abs(v-2) > 1e-9 {
		t.Errorf("two coincident fronts: variation %g, want their sum 2", v)
	}
}

// TestAMRSubtree counts a hand-checkable refinement: the coarse cell
// [0.5,1]² holds a quarter of the front's circle; of its four sub-cells,
// all but the corner one [0.75,1]² are crossed and refine again.
func TestAMRSubtree(t *testing.T) {
	c := amrCell{x: 0.5, y: 0.5, h: 0.5}
	for depth, want := range []int{0, 4, 4 + 3*4} {
		if got := amrTestMesh(depth).subtree(c); got != want {
			t.Errorf("depth %d: subtree %d, want %d", depth, got, want)
		}
	}
	if got := amrTestMesh(3).subtree(amrCell{x: 0, y: 0, h: 0.1}); got != 0 {
		t.Errorf("a cell the front misses: subtree %d, want 0", got)
	}
}

// TestAMRHandTrace writes a hand-checkable trace: one coarse cell, ratio
// 2, and a front around (0.75, 0.25) that crosses only sub-cell (1, 0) of
// it, i.e. thread 1 of the child (threads are row-major, x fastest).
func TestAMRHandTrace(t *testing.T) {
	tr := &amrTrace{
		mesh:  amrMesh{fronts: []amrFront{{cx: 0.75, cy: 0.25, r0: 0.1, sigma: 1e-4}}, ratio: 2, depth: 2, tol: 0.5},
		cells: 1, steps: 1, threshold: 0,
	}
	var sink sliceSink
	if err := tr.records(&sink, 8); err != nil {
		t.Fatal(err)
	}
	site := int64(amrCellCycles + amrRefineCycles)
	at := func(kernel uint64, lane int) *trace.Parent {
		return &trace.Parent{Kernel: kernel, Lane: lane, At: site}
	}
	block := [3]uint32{2, 2, 1}
	want := []trace.Record{
		&trace.Kernel{ID: 1, Name: "amr_refine", Grid: [3]uint32{1, 1, 1}, Block: block, Regs: amrRefineRegs, Smem: amrSmem(2)},
		&trace.Launch{Kernel: 1},
		&trace.CTA{Kernel: 1, Cycles: site, WarpCycles: []int64{site}}, // threads 1-3 lie outside the mesh
		&trace.Kernel{ID: 2, Name: "amr_refine", Grid: [3]uint32{1, 1, 1}, Block: block, Regs: amrRefineRegs, Smem: amrSmem(2)},
		&trace.Launch{Kernel: 2, Parent: at(1, 0), Workload: 8, InlineCycles: 8 * amrCellCycles},
		&trace.CTA{Kernel: 2, Cycles: site, WarpCycles: []int64{site}},
		&trace.Kernel{ID: 3, Name: "amr_refine", Grid: [3]uint32{1, 1, 1}, Block: block, Regs: amrRefineRegs, Smem: amrSmem(2)},
		&trace.Launch{Kernel: 3, Parent: at(2, 1), Workload: 4, InlineCycles: 4 * amrCellCycles},
		&trace.CTA{Kernel: 3, Cycles: amrCellCycles, WarpCycles: []int64{amrCellCycles}}, // level 2: the deepest
	}
	if len(sink.recs) != 3+len(want) {
		t.Fatalf("%d records, want %d", len(sink.recs), 3+len(want))
	}
	for i, w := range want {
		if got := sink.recs[3+i]; !reflect.DeepEqual(got, w) {
			t.Errorf("record %d: %+v, want %+v", 3+i, got, w)
		}
	}
}

// amrTree indexes a generated trace's kernels and device launches.
type amrTree struct {
	kernels  map[uint64]*trace.Kernel
	launches map[uint64]*trace.Launch
	level    map[uint64]int // 0 for host-launched kernels
}

// sitesBelow sums the workloads of the sites in each kernel (by the
// kernel's id) and finds the deepest nesting level.
func (tr *amrTree) sitesBelow() (below map[uint64]int64, deepest int) {
	below = map[uint64]int64{}
	for id, l := range tr.launches {
		if !l.Host() {
			below[l.Parent.Kernel] += l.Workload
			deepest = max(deepest, tr.level[id])
		}
	}
	return below, deepest
}

func newAMRTree(t *testing.T, recs []trace.Record) *amrTree {
	tr := &amrTree{kernels: map[uint64]*trace.Kernel{}, launches: map[uint64]*trace.Launch{}, level: map[uint64]int{}}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			tr.kernels[r.ID] = r
		case *trace.Launch:
			tr.launches[r.Kernel] = r
			if !r.Host() {
				tr.level[r.Kernel] = tr.level[r.Parent.Kernel] + 1
			}
		}
	}
	return tr
}

// TestAMRNested checks the nesting: grandchildren exist, every level runs
// the same kernel, and with site_threshold=0 every refinement is launched,
// so the device kernels' threads are exactly the sub-cells refined, and a
// site's workload is its child's cells plus its child's sites' workloads.
func TestAMRNested(t *testing.T) {
	recs := generate(t, "amr", "code=fronts", "cells=16", "steps=2", "site_threshold=0", "seed=5")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	tr := newAMRTree(t, recs)
	below, deepest := tr.sitesBelow()
	device := 0
	for id, k := range tr.kernels {
		if k.Name != "amr_refine" || k.Block != [3]uint32{4, 4, 1} || k.Smem != amrSmem(4) {
			t.Errorf("kernel %+v", k)
		}
		l := tr.launches[id]
		if l.Host() {
			continue
		}
		device++
		if l.Workload != 16+below[id] || l.InlineCycles != amrInlineCycles(int(l.Workload)) ||
			l.Parent.At != amrCellCycles+amrRefineCycles || k.CTAs() != 1 {
			t.Errorf("site %+v at %+v; %d below", l, l.Parent, below[id])
		}
	}
	h := recs[0].(*trace.Header)
	if sub, _ := strconv.Atoi(h.Meta["subcells"]); sub != 16*device || sub == 0 {
		t.Errorf("%d device kernels of 16 cells, meta subcells %s", device, h.Meta["subcells"])
	}
	if deepest != 3 {
		t.Errorf("deepest launch nesting %d, want 3 (depth)", deepest)
	}
}

// TestAMRSites checks the threshold: sites' workloads exceed it, and no
// warp pays for a lane refining more cells than it.
func TestAMRSites(t *testing.T) {
	const threshold = 47 // subtrees are multiples of 16: 48 must launch
	recs := generate(t, "amr", "code=fronts", "cells=16", "site_threshold=47", "seed=2")
	tr := newAMRTree(t, recs)
	grandchildren, boundary := 0, 0
	for _, l := range tr.launches {
		if l.Host() {
			continue
		}
		if l.Workload <= threshold {
			t.Errorf("site with workload %d", l.Workload)
		}
		if l.Workload == threshold+1 {
			boundary++
		}
		if tr.level[l.Parent.Kernel] > 0 {
			grandchildren++
		}
	}
	if grandchildren == 0 || boundary == 0 {
		t.Errorf("%d nested launches, %d at the threshold's edge; want some of each", grandchildren, boundary)
	}
	limit := amrLaneCycles(true, threshold, false)
	for _, r := range recs {
		if c, ok := r.(*trace.CTA); ok && c.Cycles > limit {
			t.Errorf("kernel %d cta %d: %d cycles, more than a lane within the threshold costs (%d)", c.Kernel, c.CTA, c.Cycles, limit)
		}
	}
}

// TestAMRCoarseEdge checks the coarse grid's tiling: 10×10 cells in
// tiles of 8×8 leave the upper tiles' second warp (rows 4-7 of the tile,
// rows 12-15 of the mesh) past the edge, idle.
func TestAMRCoarseEdge(t *testing.T) {
	recs := generate(t, "amr", "code=fronts", "cells=10", "ratio=8", "depth=0", "steps=1")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	if k := recs[4].(*trace.Kernel); k.Grid != [3]uint32{2, 2, 1} || k.Block != [3]uint32{8, 8, 1} {
		t.Fatalf("coarse kernel %+v, want 2×2 tiles of 8×8", k)
	}
	for _, r := range recs[6:] {
		c := r.(*trace.CTA)
		want := []int64{amrCellCycles, amrCellCycles}
		if c.CTA >= 2 {
			want[1] = idleWarpCycles
		}
		if !reflect.DeepEqual(c.WarpCycles, want) {
			t.Errorf("cta %d: warps %v, want %v", c.CTA, c.WarpCycles, want)
		}
	}
}

func TestAMRHeaderMatchesRecords(t *testing.T) {
	recs := generate(t, "amr", "code=fronts", "cells=16", "fronts=2", "steps=4")
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	meta := func(k string) int {
		v, err := strconv.Atoi(h.Meta[k])
		if err != nil {
			t.Fatalf("meta %s: %v", k, err)
		}
		return v
	}
	if h.Source != "gen:amr" || host != 4 || device != meta("sites") || n[trace.KindKernel] != meta("kernels") ||
		n[trace.KindCTA] != meta("ctas") || device == 0 || meta("pool_cells") > meta("subcells") {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
	pool := recs[2].(*trace.Buffer)
	if pool.Name != "cell_pool" || pool.Bytes != int64(meta("pool_cells"))*amrCellBytes {
		t.Errorf("pool buffer %+v", pool)
	}
}

func TestAMRBadParams(t *testing.T) {
	g, _ := Lookup("amr")
	for _, kv := range [][]string{
		{"cells=0"}, {"ratio=1"}, {"ratio=33"}, {"depth=-1"}, {"cells=4096", "ratio=32", "depth=2"},
		{"fronts=-1"}, {"steps=0"}, {"tol=-0.1"}, {"tol=NaN"}, {"site_threshold=-1"},
	} {
		p, err := g.ParseParams(append([]string{"code=fronts"}, kv...))
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
	if d := amrMaxDepth(4096, 32); d != 0 {
		t.Errorf("amrMaxDepth(4096, 32) = %d, want 0", d)
	}
	if d := amrMaxDepth(32, 4); d != 5 {
		t.Errorf("amrMaxDepth(32, 4) = %d, want 5", d)
	}
}
