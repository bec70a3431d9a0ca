package samples

import (
	"math"

	"github.com/gpureplay/gpureplay/trace"
)

// The lane loop: what a launching lane pays when, instead of launching its
// child, it does the child's threads' work itself, one thread after
// another. SPAWN calls it in-parent execution: a thread under THRESHOLD
// does "the work by themselves in an iterative fashion" (§III), and "Each
// iteration time is approximately similar to the counterpart's child warp
// execution time" (§IV-A, Eq. 2: t_parent = workload × t_warp). Dragon_li's
// Reg kernels are such loops (ssspRegDevice.h:72-90, bfsRegDevice.h:70-74
// at 1397e03), and so are the flat codes of every generator that prices a
// launch site with laneLoopCycles.
//
// The rule is the importer's (convert --from=gpgpusim --opt inline=loop;
// docs/calibration.md, "The importer's lane loop"): a child thread of a
// CTA of c cycles costs the lane loop_share · (c − cta_once). Under SIMT
// a thread alone follows its warp's path, so it takes at most its warp's
// time, and a CTA's warps run side by side, so a warp's time is at most
// its CTA's c; alone, the thread escapes what a CTA pays once (cta_once)
// and what its warp's 32 lanes paid together (their memory transactions
// and atomics, serialised), the share loop_share keeps. SPAWN's own
// estimate is loop_share 1, cta_once 0.
//
// The constants are Kepler's, measured on the two Dragon_li tree pairs
// (dragonli-{sssp,bfs}-tree-{cdp,reg}, 837 MHz): cta_once 135 cycles,
// loop_share 0.452 (`go run ./cmd/experiment validation-whatif` prints
// them). The generators count K20c cycles (706 MHz); cta_once is
// converted by time, as docs/calibration.md converts the Dragon_li costs
// (these are memory round trips and atomics, on DRAM's clock), 135 ·
// 706/837 = 113.9, 114 cycles; loop_share is a ratio of two times and
// stays.
const (
	laneLoopCTAOnce = 114   // cta_once, K20c cycles (135 at 837 MHz)
	laneLoopShare   = 0.452 // loop_share
)

// laneLoop sums a child's threads' cycles past cta_once: Σ threads ·
// max(c − cta_once, 0) over its CTAs, capped at trace.MaxCycles.
type laneLoop struct{ threadCycles int64 }

// add counts threads child threads (those with work: a lane loops over its
// work items, not over a CTA's idle padding) of a CTA of cycles.
func (l *laneLoop) add(threads int, cycles int64) {
	if threads <= 0 {
		return
	}
	c := max(cycles-laneLoopCTAOnce, 0)
	if c > (trace.MaxCycles-l.threadCycles)/int64(threads) {
		l.threadCycles = trace.MaxCycles
		return
	}
	l.threadCycles += c * int64(threads)
}

// cycles is the lane's loop over the threads added: loop_share of their
// cycles, rounded to the nearest cycle, as the importer rounds.
func (l laneLoop) cycles() int64 {
	return min(int64(math.Round(laneLoopShare*float64(l.threadCycles))), trace.MaxCycles)
}

// laneLoopCycles is a launch site's inline_cycles by the lane-loop rule
// for a child of one thread per work item, items of them in CTAs of block
// threads (the last CTA partial), CTA c taking ctaCycles(c): the cost
// model's own cycles for that CTA, so the price follows the child's cost
// model.
func laneLoopCycles(items, block int, ctaCycles func(c int) int64) int64 {
	var l laneLoop
	for c := 0; c*block < items; c++ {
		l.add(min(items-c*block, block), ctaCycles(c))
	}
	return l.cycles()
}

// laneLoopPortCycles is what a looping lane's items iterations wait for
// the other looping lanes of its warp at the SM's load/store unit, lanes
// lanes of the warp looping side by side (those that reached the launch
// in one instruction: in the flat code all of them loop) and accesses the
// loop body's memory instructions that send one access a lane. The rule
// is the importer's (convert/gpgpusim's portCycles, --opt loop_accesses):
// the unit sends one access a cycle and holds the warp's instruction
// while others remain ("m_icnt->push(mf); inst.accessq_pop_back();",
// ldst_unit::memory_cycle, src/gpgpu-sim/shader.cc:2284-2306 at
// 667834cf), so each further lane adds accesses cycles of the captured
// GPU an iteration (dlPortCycles converts them to the trace's clock).
// Lanes past a warp's 32 are another warp's, which has its own
// instructions.
func laneLoopPortCycles(items, lanes int, accesses int64) int64 {
	further := int64(min(max(lanes, 1), warpSize) - 1)
	if items <= 0 || further == 0 || accesses <= 0 {
		return 0
	}
	if accesses > trace.MaxCycles/further/int64(items) {
		return trace.MaxCycles
	}
	return min(dlPortCycles(further*accesses*int64(items)), trace.MaxCycles)
}
