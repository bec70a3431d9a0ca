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
// order; loops and children are priced as the default code's
// (ssspLaneCycles, ssspChildWarpCycles).
func (t *ssspTrace) dragonliIteration(worklist []int32, lowered []bool) error {
	edges := make([][]bool, len(worklist))
	for i, v := range worklist {
		d := t.g.degree(v)
		edges[i], lowered = lowered[:d], lowered[d:]
	}
	k := dlKernel{n: len(worklist), block: t.block, base: ssspBaseCycles, idle: ssspIdlePassCycles,
		lane: func(i int) dlLane { return t.dragonliLane(edges[i]) }, mix: ssspMixes["sssp_relax"]}
	parent := t.ids.declare("sssp_relax", dpLine(dragonliCTAs), dpLine(t.block), ssspRelaxRegs)
	sites, err := dlParent(t.out, parent, k)
	if err != nil {
		return err
	}
	for _, s := range sites {
		child, _ := dragonliSplit(len(edges[s.item]))
		at := trace.Parent{Kernel: parent.ID, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: s.at}
		if err := t.childOver(at, edges[s.item][:child], dragonliChildBlock); err != nil {
			return err
		}
	}
	return nil
}

// dragonliLane is a worklist thread whose edges have the given outcomes:
// a site above the threshold, relaxing in its loop what its child leaves.
func (t *ssspTrace) dragonliLane(lowered []bool) dlLane {
	if len(lowered) <= t.threshold {
		return dlLane{loop: ssspLaneCycles(len(lowered), ssspCount(lowered), t.loop)}
	}
	child, _ := dragonliSplit(len(lowered))
	rest := lowered[child:]
	return dlLane{site: true, loop: ssspLaneCycles(len(rest), ssspCount(rest), t.loop)}
}

// dragonliSolver makes s relax as Dragon_li's code does (relaxDragonli),
// a site's child taking the first degree>>5·32 of its edges.
func (t *ssspTrace) dragonliSolver(s *ssspSolver) {
	s.dragonli = true
	s.child = func(degree int) int {
		if degree <= t.threshold {
			return 0
		}
		child, _ := dragonliSplit(degree)
		return child
	}
}
