package samples

import "github.com/gpureplay/gpureplay/trace"

// flatLevel writes one level of the flat bfs (variant=flat): the original
// benchmark's bfs_level, one thread per frontier vertex, which expands
// long neighbour lists by CTA and by warp (twc.go) instead of launching
// children, so it has no launch sites.
func (t *bfsTrace) flatLevel(frontier []int32) error {
	k := t.kernel("bfs_level", ceilDiv(len(frontier), t.block), t.block, levelRegs)
	if err := writeAll(t.out, k, &trace.Launch{Kernel: k.ID}); err != nil {
		return err
	}
	for c := 0; c*t.block < len(frontier); c++ {
		vertices := frontier[c*t.block : min((c+1)*t.block, len(frontier))]
		degrees := make([]int, len(vertices))
		for i, v := range vertices {
			degrees[i] = t.g.degree(v)
		}
		if err := t.out.Write(twcCTA(k.ID, c, t.block, degrees, t.twcCosts(degrees))); err != nil {
			return err
		}
	}
	return nil
}

// twcCosts prices the flat bfs_level's work in the dp variant's terms: a
// thread's prologue is bfs_level's, a short list costs its loop
// (inlineCycles, as an inlined site), and a strip of neighbours costs the
// bfs_expand warp over them.
func (t *bfsTrace) twcCosts(degrees []int) twcCosts {
	return twcCosts{
		base:   levelBaseCycles,
		lane:   func(i int) int64 { return inlineCycles(degrees[i], t.loop) },
		strip:  func(_, lo, hi int) int64 { return expandWarpCycles(hi - lo) },
		parent: bfsMixes["bfs_level"],
		child:  bfsMixes["bfs_expand"],
	}
}
