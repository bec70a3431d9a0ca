package samples

import "github.com/gpureplay/gpureplay/trace"

// dragonliLevel writes one BFS iteration in Dragon_li's structure
// (code=dragonli, dragonli.go): the expand kernel, a persistent bfs_level
// of ctas CTAs walking the frontier in chunks of block vertices, its warps
// meeting at each chunk's barrier, then the bfs_expand child of each
// launch site in the order the CTAs' loops reach them, then the contract
// kernel over what the expand wrote. Dragon_li's BFS is expand-contract
// (bfsReg.h and bfsCdp.h's search(), 1397e03): the expand copies every
// neighbour of every frontier vertex into the expanded frontier without
// testing it, and bfsRegContractKernel, which both codes launch, then
// drops the visited ones (its visited mask) and writes the next frontier.
// So the contract's items are the level's neighbours, its frontier's
// degrees summed; its survivors are the next level's frontier, which is
// what the search (bfsFrontiers) gives where no vertex is reached twice
// in one level (Dragon_li's mask test is not atomic, so two lanes
// reaching one vertex in a level may both keep it; the trees of the
// captures reach none twice).
//
// A site's child covers degree>>child_bits CTAs of 1<<child_bits
// neighbours and the thread loops over the rest; variant=flat (the Reg
// kernel) loops over every vertex's neighbours. Costs are bfsdlcost.go's:
// the prologue, empty pass and queue of the code's expand kernel, the
// lanes' loop in step (dlBFSWarpLoop at loop_cycles an edge), the child's
// warps (dlBFSChildWarpCycles) and the contract's chunk; the first expand
// and the first contract run cold (coldstart.go).
func (t *bfsTrace) dragonliLevel(frontier []int32) error {
	base, idle, queue, regs, lines := int64(dlBFSCdpBaseCycles), int64(dlBFSCdpIdleCycles), int64(dlBFSCdpQueueCycles), dlBFSCdpExpandRegs, dlBFSCdpExpandColdLines
	if t.flat {
		base, idle, queue, regs, lines = dlBFSRegBaseCycles, dlBFSRegIdleCycles, dlBFSRegQueueCycles, dlBFSRegExpandRegs, dlBFSRegExpandColdLines
	}
	k := dlKernel{n: len(frontier), block: t.block, ctas: t.ctas, base: base, idle: idle, queue: queue, barrier: true,
		lane: func(i int) dlLane { return dlLane{site: t.dragonliSite(t.g.degree(frontier[i]))} },
		mix:  bfsMixes["bfs_dl_expand"]}
	k.warp = func(lo, hi int) int64 {
		rest := make([]int, 0, warpSize)
		for _, v := range frontier[lo:hi] {
			rest = append(rest, t.dragonliRest(t.g.degree(v)))
		}
		return dlBFSWarpLoop(rest, t.loop)
	}
	first := t.expands == 0
	if first {
		k.cold, k.wave = coldStartCycles(lines), coldWave(t.block, regs)
	}
	t.expands++
	parent := t.kernel("bfs_level", t.ctas, t.block, regs)
	sites, err := dlParent(t.out, parent, k)
	if err != nil {
		return err
	}
	lanes := dlSiteLanes(sites)
	for i, s := range sites {
		edges, _ := t.dragonliSplit(t.g.degree(frontier[s.item]))
		at := trace.Parent{Kernel: parent.ID, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: s.at}
		if err := t.child(at, edges, 1<<t.childBits, lanes[i]); err != nil {
			return err
		}
	}
	return t.dragonliContract(t.expanded(frontier), first)
}

// dragonliContract writes the contract kernel over n expanded items, cold
// where it is the run's first.
func (t *bfsTrace) dragonliContract(n int, first bool) error {
	k := dlKernel{n: n, block: t.block, ctas: t.ctas, base: dlBFSContractBaseCycles, idle: dlBFSContractIdleCycles,
		queue: dlBFSContractQueueCycles, barrier: true, lane: func(int) dlLane { return dlLane{} },
		mix: bfsMixes["bfs_contract"]}
	if first {
		k.cold, k.wave = coldStartCycles(dlBFSContractColdLines), coldWave(t.block, dlBFSContractRegs)
	}
	_, err := dlParent(t.out, t.kernel("bfs_contract", t.ctas, t.block, dlBFSContractRegs), k)
	return err
}

// expanded is the number of items the expand writes for frontier: every
// neighbour of every vertex.
func (t *bfsTrace) expanded(frontier []int32) int {
	n := 0
	for _, v := range frontier {
		n += t.g.degree(v)
	}
	return n
}

// dragonliSite is whether a frontier thread of degree neighbours launches
// ("if(rowLength >= Settings::CDP_THRESHOLD)", bfsCdpDevice.h:73; never in
// the flat code).
func (t *bfsTrace) dragonliSite(degree int) bool {
	return !t.flat && degree > t.threshold
}

// dragonliRest is what a frontier thread's own loop covers: a site's
// remainder (bfsCdpDevice.h:94-95 advances rowOffset past the child's
// neighbours), every neighbour of the others.
func (t *bfsTrace) dragonliRest(degree int) int {
	if !t.dragonliSite(degree) {
		return degree
	}
	_, rest := t.dragonliSplit(degree)
	return rest
}

// dragonliSplit is a site's split of its degree neighbours: the child's
// share, whole CTAs of 1<<child_bits, and the rest the thread loops over.
func (t *bfsTrace) dragonliSplit(degree int) (child, rest int) {
	child = degree >> t.childBits << t.childBits
	return child, degree - child
}

// dragonliCount totals the kernels, CTAs and sites of the dragonli trace:
// per level the persistent expand and contract grids, and per site a child
// of degree>>child_bits CTAs.
func (t *bfsTrace) dragonliCount(frontiers [][]int32) (kernels, ctas, sites int) {
	for _, f := range frontiers {
		kernels += 2
		ctas += 2 * t.ctas
		for _, v := range f {
			if d := t.g.degree(v); t.dragonliSite(d) {
				edges, _ := t.dragonliSplit(d)
				sites++
				kernels++
				ctas += edges >> t.childBits
			}
		}
	}
	return kernels, ctas, sites
}
