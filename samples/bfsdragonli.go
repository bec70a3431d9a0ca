package samples

import "github.com/gpureplay/gpureplay/trace"

// dragonliLevel writes one BFS level in Dragon_li's structure (code=dragonli,
// dragonli.go): a persistent bfs_level of dragonliCTAs CTAs walking the
// frontier in chunks of block vertices, its warps meeting at each chunk's
// barrier, then the bfs_expand child of each launch site in the order the
// CTAs' loops reach them. A site's child covers degree>>5 CTAs of 32
// neighbours and the thread loops over the rest; variant=flat (the Reg
// kernel) loops over every vertex's neighbours. Loops and children are
// priced as the default code's (inlineCycles at loop_cycles an edge,
// expandWarpCycles).
func (t *bfsTrace) dragonliLevel(frontier []int32) error {
	k := dlKernel{n: len(frontier), block: t.block, base: levelBaseCycles, idle: idleWarpCycles, barrier: true,
		lane: func(i int) dlLane { return t.dragonliLane(t.g.degree(frontier[i])) }, mix: bfsMixes["bfs_level"]}
	parent := t.kernel("bfs_level", dragonliCTAs, t.block, levelRegs)
	sites, err := dlParent(t.out, parent, k)
	if err != nil {
		return err
	}
	for _, s := range sites {
		edges, _ := dragonliSplit(t.g.degree(frontier[s.item]))
		at := trace.Parent{Kernel: parent.ID, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: s.at}
		if err := t.child(at, edges, dragonliChildBlock); err != nil {
			return err
		}
	}
	return nil
}

// dragonliLane is a frontier thread of degree neighbours: a site above the
// threshold (never in the flat code), looping over what its child leaves.
func (t *bfsTrace) dragonliLane(degree int) dlLane {
	if t.flat || degree <= t.threshold {
		return dlLane{loop: inlineCycles(degree, t.loop)}
	}
	_, rest := dragonliSplit(degree)
	return dlLane{site: true, loop: inlineCycles(rest, t.loop)}
}

// dragonliCount totals the kernels, CTAs and sites of the dragonli trace:
// per level the persistent grid, and per site a child of degree>>5 CTAs.
func (t *bfsTrace) dragonliCount(frontiers [][]int32) (kernels, ctas, sites int) {
	for _, f := range frontiers {
		kernels++
		ctas += dragonliCTAs
		for _, v := range f {
			if t.dragonliLane(t.g.degree(v)).site {
				edges, _ := dragonliSplit(t.g.degree(v))
				sites++
				kernels++
				ctas += edges / dragonliChildBlock
			}
		}
	}
	return kernels, ctas, sites
}
