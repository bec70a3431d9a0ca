package samples

import (
	"math"

	"github.com/gpureplay/gpureplay/trace"
)

// The flat variant of the graph generators (bfs, sssp): the original,
// non-DP benchmark, which balances a frontier vertex's neighbour list the
// way Merrill, Garland and Grimshaw's BFS does ("Scalable GPU Graph
// Traversal", PPoPP 2012; its code, back40computing's
// b40c/graph/bfs/compact_expand_atomic/cta.cuh, ProcessTile): every thread
// of a CTA holds one vertex; then
//
//  1. CTA-level expansion (ExpandByCta): while some thread's list has at
//     least CTA_GATHER_THRESHOLD neighbours, those threads vie for the CTA
//     (a shared-memory write, __syncthreads, a read of the winner), and the
//     whole CTA strides over the winner's list, one neighbour a thread a
//     strip of block neighbours; the next round begins at the barrier, so
//     every warp waits for the one with the most strips;
//  2. warp-level expansion (ExpandByWarp): while some lane's list has at
//     least WARP_GATHER_THRESHOLD (32) neighbours, those lanes vie for the
//     warp and the warp strides over the winner's list 32 at a time;
//  3. the rest, lists shorter than a warp, each thread loops over its own
//     (ThreadExpand in Gunrock's TWC, the thread-warp-CTA policy derived
//     from Merrill's code). Merrill's own code gathers these by a CTA-wide
//     prefix scan instead; we keep the per-thread loop, which DTBL §5.1
//     names ("TB and warp level vertex expansion") and which is the DP
//     variant's looping lane, so the two variants differ only in how the
//     long lists are spread.
//
// DTBL §5.1 names this flat code for bfs: "An exception is the bfs
// implementation [23] where dynamic parallelism for DFP is implemented by
// employing TB and warp level vertex expansion techniques." Its other
// flat codes are "flattened and effectively serialized within each
// thread", which for sssp is the dp trace with every site inlined (the
// flat policy; it differs from a per-thread kernel only in that a warp
// adds its longest site's loop to the rest's instead of waiting once for
// the longest lane); sssp's flat variant balances as bfs's does, the
// reading of issue 16, so the experiments show both.
//
// The CTA threshold is the block size (Merrill's "lists larger than a
// block"). Costs come from the DP variant's constants only: a thread's
// prologue is the parent's, a strip of 32 neighbours costs what a child
// warp over the same 32 neighbours costs, a short list what the parent's
// loop costs; the one constant of its own is the election (twcElectCycles).

// twcElectCycles is one election round: the contenders' shared-memory
// write, the barrier (or, for a warp, the lanes' convergence), and every
// thread's read of the winner's list bounds: two shared-memory accesses of
// ~20 cycles on GK110 around the barrier. Modelled, like bfscost.go's
// constants: invented, a parameter of bfs and sssp (elect_cycles).
var twcElectCycles int64 = 40

// twcCosts prices one graph kernel's work in the DP variant's terms.
type twcCosts struct {
	base int64 // a thread's prologue before its list (the DP parent's)
	// lane is what thread i's own loop over its whole list costs (the DP
	// parent's looping lane).
	lane func(i int) int64
	// strip is what one warp pays for neighbours [lo, hi) of thread i's
	// list, hi-lo ≤ 32, one a lane (the DP child warp over them).
	strip func(i, lo, hi int) int64
	// parent and child are the kernel's demand rates: the parent's loop
	// for the prologue, elections and short lists, the child's for strips.
	parent, child warpMix
}

// twcWarp is one warp's time, split into the parts of each demand rate.
type twcWarp struct {
	own   int64 // prologue, elections, barrier waits and own loops
	strip int64 // strips this warp ran
	wait  int64 // cycles at a barrier, waiting for other warps' strips
}

func (w twcWarp) cycles() int64 { return w.own + w.strip + w.wait }

// twcCTA costs one flat CTA of block threads whose first len(degrees)
// threads hold vertices of the given degrees, and gives it the demand of the work it ran.
func twcCTA(kernel uint64, cta, block int, degrees []int, c twcCosts) *trace.CTA {
	warps := make([]twcWarp, ceilDiv(block, warpSize))
	for w := range warps {
		if w*warpSize < len(degrees) {
			warps[w].own = c.base
		} else {
			warps[w].own = idleWarpCycles
		}
	}
	long := make([]bool, len(degrees)) // lists the CTA or a warp expanded
	twcByCTA(warps, block, degrees, long, c)
	for w := range warps {
		lo, hi := min(w*warpSize, len(degrees)), min((w+1)*warpSize, len(degrees))
		twcByWarp(&warps[w], lo, hi, degrees, long, c)
		twcByThread(&warps[w], lo, hi, long, c)
	}
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, len(warps))}
	var insts, bytes float64
	for w, t := range warps {
		rec.WarpCycles[w] = t.cycles()
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
		insts += float64(t.own)*c.parent.ipc + float64(t.strip)*c.child.ipc
		bytes += float64(t.own)*c.parent.bpc + float64(t.strip)*c.child.bpc
	}
	rec.Insts, rec.DRAMBytes = uint64(math.Round(insts)), uint64(math.Round(bytes))
	return rec
}

// twcByCTA runs stage 1: each list of at least block neighbours, in thread
// order, strided over by the whole CTA after an election; every warp then
// waits at the next round's barrier for the warp with the most work.
func twcByCTA(warps []twcWarp, block int, degrees []int, long []bool, c twcCosts) {
	for i, d := range degrees {
		if d < block {
			continue
		}
		long[i] = true
		work := make([]int64, len(warps))
		for s := 0; s < d; s += block {
			for w := range warps {
				lo := s + w*warpSize
				if hi := min(lo+warpSize, s+block, d); lo < hi {
					work[w] += c.strip(i, lo, hi)
				}
			}
		}
		round := dpWarpMax(work)
		for w := range warps {
			warps[w].own += twcElectCycles
			warps[w].strip += work[w]
			warps[w].wait += round - work[w]
		}
	}
}

// twcByWarp runs stage 2 for the warp holding threads [lo, hi): each list
// of at least 32 neighbours the CTA did not take, strided over by the warp
// after an election.
func twcByWarp(w *twcWarp, lo, hi int, degrees []int, long []bool, c twcCosts) {
	for i := lo; i < hi; i++ {
		if long[i] || degrees[i] < warpSize {
			continue
		}
		long[i] = true
		w.own += twcElectCycles
		for s := 0; s < degrees[i]; s += warpSize {
			w.strip += c.strip(i, s, min(s+warpSize, degrees[i]))
		}
	}
}

// twcByThread runs stage 3: the warp's threads with short lists loop over
// them, and the warp waits for the longest.
func twcByThread(w *twcWarp, lo, hi int, long []bool, c twcCosts) {
	longest := int64(0)
	for i := lo; i < hi; i++ {
		if !long[i] {
			longest = max(longest, c.lane(i))
		}
	}
	w.own += longest
}
