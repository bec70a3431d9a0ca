package samples

import "github.com/gpureplay/gpureplay/trace"

// flatIteration writes one iteration of the load-balanced sssp (variant=twc): the
// non-DP sssp_relax, one thread per worklist vertex, which relaxes long
// edge lists by CTA and by warp (twc.go) instead of launching children,
// so it has no launch sites. lowered holds the outcomes of the worklist's
// edges, in worklist order.
func (t *ssspTrace) flatIteration(worklist []int32, lowered []bool) error {
	k := t.ids.declare("sssp_relax", dpLine(ceilDiv(len(worklist), t.block)), dpLine(t.block), ssspRelaxRegs)
	if err := writeAll(t.out, k, &trace.Launch{Kernel: k.ID}); err != nil {
		return err
	}
	for c := 0; c*t.block < len(worklist); c++ {
		vertices := worklist[c*t.block : min((c+1)*t.block, len(worklist))]
		degrees := make([]int, len(vertices))
		edges := make([][]bool, len(vertices))
		for i, v := range vertices {
			degrees[i] = t.g.degree(v)
			edges[i], lowered = lowered[:degrees[i]], lowered[degrees[i]:]
		}
		if err := t.out.Write(twcCTA(k.ID, c, t.block, degrees, ssspTWCCosts(edges, t.loop))); err != nil {
			return err
		}
	}
	return nil
}

// ssspTWCCosts prices the flat sssp_relax's work in the dp variant's
// terms, edges[i] being thread i's edges' outcomes: a thread's prologue is
// sssp_relax's, a short list costs its loop (ssspLaneCycles, as an inlined
// site), and a strip of edges costs the sssp_relax_child warp over them.
func ssspTWCCosts(edges [][]bool, loop int64) twcCosts {
	return twcCosts{
		base: ssspBaseCycles,
		lane: func(i int) int64 { return ssspLaneCycles(len(edges[i]), ssspCount(edges[i]), loop) },
		strip: func(i, lo, hi int) int64 {
			return ssspChildWarpCycles(hi-lo, ssspCount(edges[i][lo:hi]))
		},
		parent: ssspMixes["sssp_relax"],
		child:  ssspMixes["sssp_relax_child"],
	}
}
