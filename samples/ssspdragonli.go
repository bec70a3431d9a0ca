package samples

import "github.com/gpureplay/gpureplay/trace"

// dragonliIteration writes one relaxation iteration in Dragon_li's
// structure (code=dragonli, dragonli.go): a persistent sssp_relax of
// dragonliCTAs CTAs walking the worklist in chunks of block vertices, its
// warps running their chunks independently (Dragon_li's sssp has no
// barrier in the chunk), then the sssp_relax_child of each launch site in
// the order the CTAs' loops reach them. A site's child relaxes the first
// degree>>5·32 edges, 32 a CTA, and the thread relaxes the rest in its
// loop (Dragon_li advances rowOffset past the child's edges); the flat
// code (the Reg kernel, threshold noSites) relaxes every edge in the
// thread. lowered holds the outcomes of the worklist's edges, in worklist
// order; a warp's loop is priced as dlLoops ran it, every warp of the
// grid at once and, in the CDP code, the children beside them, children
// as the default code's (ssspChildWarpCycles).
func (t *ssspTrace) dragonliIteration(worklist []int32, lowered []bool) error {
	edges := make([][]bool, len(worklist))
	for i, v := range worklist {
		d := t.g.degree(v)
		edges[i], lowered = lowered[:d], lowered[d:]
	}
	k := dlKernel{n: len(worklist), block: t.block, base: ssspBaseCycles, idle: ssspIdlePassCycles,
		queue: ssspIdleQueueCycles,
		lane:  func(i int) dlLane { return t.dragonliLane(edges[i]) }, mix: ssspMixes["sssp_relax"]}
	k.warp = func(lo, hi int) int64 { return t.loops[lo] }
	k.prologue, k.regs = func(lo, hi int) int64 { return ssspPrologueAccesses(worklist, lo, hi) }, ssspRelaxRegs
	if t.iterations == 0 {
		// The first relaxation runs the code cold (coldstart.go): every
		// warp the lines of an empty CTA's path, and those of the paths
		// it takes beyond it, each counted on its code (the CDP kernel's
		// launch and loop, the Reg kernel's chunk), less, for a warp
		// holding a vertex, the lines its SM's empty warps ask for first
		// but the rest of those it lags them by less than a miss.
		k.cold, k.wave = coldStartCycles(ssspRelaxColdLines), coldWave(t.block, ssspRelaxRegs)
		k.coldSite, k.coldLoop = coldStartCycles(ssspRelaxSiteColdLines), coldStartCycles(ssspRelaxLoopColdLines)
		k.coldAhead, k.coldSiteAhead = ssspRelaxAheadCycles(joinIssueCycles), ssspRelaxSiteAheadCycles(joinIssueCycles)
		if t.threshold == noSites {
			k.cold, k.coldChunk, k.coldSite, k.coldLoop = coldStartCycles(ssspRegColdLines), coldStartCycles(ssspRegChunkColdLines), 0, 0
			k.coldAhead, k.coldSiteAhead = coldStartCycles(ssspRegAheadLines), 0
		}
	}
	parent := t.ids.declare("sssp_relax", dpLine(dragonliCTAs), dpLine(t.block), ssspRelaxRegs)
	sites, err := dlParent(t.out, parent, k)
	if err != nil {
		return err
	}
	lanes := dlSiteLanes(sites)
	for i, s := range sites {
		child, _ := dragonliSplit(len(edges[s.item]))
		at := trace.Parent{Kernel: parent.ID, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: s.at}
		var wait func(int) int64
		if ssspChildWaits {
			wait = func(c int) int64 { return t.childWait[[2]int{s.item, c}] }
		}
		if err := t.childOver(at, edges[s.item][:child], dragonliChildBlock, wait, lanes[i]); err != nil {
			return err
		}
	}
	return nil
}

// ssspPrologueAccesses is the accesses past a lone lane's that the chunk
// prologue of a warp holding worklist[lo:hi] sends (dlport.go): its
// load of the worklist entries and its gathers of dist[v],
// row_offsets[v] and row_offsets[v+1] (ssspRegDevice.h:45-52,
// ssspCdpDevice.h at 1397e03), each a sector an access where a lone
// lane's sends one.
func ssspPrologueAccesses(worklist []int32, lo, hi int) int64 {
	vs := worklist[lo:hi]
	next := make([]int32, len(vs))
	for i, v := range vs {
		next[i] = v + 1
	}
	entries := int64((hi-1)>>3 - lo>>3 + 1)
	return entries - 1 + 2*(sectors(vs)-1) + sectors(next) - 1
}

// ssspChildWaits is whether a child CTA's record carries what its appends
// waited at the frontier's counter (ssspdlcounter.go). The lane-loop
// rule prices a launch's inline_cycles on its child's own CTAs, which a
// lane running their work in its loop does not share with other
// children: TestLaneLoopSites turns the waits off to check it on them.
var ssspChildWaits = true

// dragonliLane is a worklist thread whose edges have the given outcomes:
// a site above the threshold, looping over what its child leaves. Its
// loop's price is its warp's, from the clock (dlLoops: k.warp).
func (t *ssspTrace) dragonliLane(lowered []bool) dlLane {
	if len(lowered) <= t.threshold {
		return dlLane{looped: len(lowered) > 0}
	}
	child, _ := dragonliSplit(len(lowered))
	return dlLane{site: true, looped: len(lowered) > child}
}

// dragonliSolver makes s relax as Dragon_li's code does (relaxDragonli),
// a site's child taking the first degree>>5·32 of its edges.
func (t *ssspTrace) dragonliSolver(s *ssspSolver) {
	s.dragonli, s.flat = true, t.threshold == noSites
	s.block, s.step, s.loops, s.childWait = t.block, t.loop, map[int]int64{}, map[[2]int]int64{}
	t.loops, t.childWait = s.loops, s.childWait
	s.child = func(degree int) int {
		if degree <= t.threshold {
			return 0
		}
		child, _ := dragonliSplit(degree)
		return child
	}
}
