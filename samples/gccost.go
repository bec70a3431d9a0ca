package samples

// The gc cost model, in K20c core cycles (the trace's clock_mhz, 706),
// sized from GK110 memory and atomic latencies like the bfs and sssp models
// (bfscost.go, ssspcost.go), whose proportions it keeps: a neighbour check
// is a BFS edge visit with a second gather, and each vertex ends a round
// either colored (a store) or queued for the next round (an atomic).
// Change them here only.
var (
	// gcBaseCycles is what every gc_color thread spends before its first
	// neighbour: load its vertex from the worklist, then row_offsets[v],
	// row_offsets[v+1] and priority[v] (independent, so issued together):
	// two global-memory round trips of ~100 cycles. A launching lane
	// reaches its launch site here.
	gcBaseCycles int64 = 200

	// gcEdgeCycles is one iteration of the neighbour loop: load
	// col_indices[e] (consecutive, so mostly L1 hits), gather colors[u]
	// and, for a neighbour not colored in an earlier round, priority[u],
	// then compare. Like sssp's ssspEdgeCycles (50), bfs's levelEdgeCycles
	// (40) plus a second load per neighbour. A child thread always pays it
	// for its one neighbour; for the parent's loop it is the default of
	// gc's loop_cycles parameter.
	gcEdgeCycles int64 = 50

	// gcColorCycles ends a round for a local maximum: store the round's
	// color into colors[v], a store the warp issues without waiting for.
	gcColorCycles int64 = 20

	// gcRequeueCycles ends a round for an outranked vertex: append it to
	// the next round's worklist, an atomicAdd on the queue's tail (an L2
	// round trip, ~100 cycles) and the store of v.
	gcRequeueCycles int64 = 120

	// gcChildBaseCycles is what a gc_color_child thread spends before its
	// neighbour: compute the edge index from blockIdx and threadIdx, then
	// load col_indices[start+i], which coalesces across the warp: one
	// memory round trip plus the arithmetic, as bfs's expandBaseCycles.
	gcChildBaseCycles int64 = 120

	// gcGatherCycles is charged per active lane of a child warp: its
	// colors[u] and priority[u] gathers fall on up to 32 cache lines each,
	// and the load unit issues one transaction per line: twice bfs's
	// expandGatherCycles.
	gcGatherCycles int64 = 4

	// gcChildFlushCycles is what warp 0 of every child CTA adds after the
	// CTA's __syncthreads: publish the CTA's "outranked" flag to the
	// vertex's slot of site_state, __threadfence, then atomicInc the
	// site's count of finished CTAs (CUDA's last-block reduction
	// pattern): a fence and one atomic round trip.
	gcChildFlushCycles int64 = 150

	// gcChildDecideCycles is what the last child CTA to finish adds before
	// ending the vertex's round: reload the flag every CTA may have set, an
	// L2 round trip, then color or requeue the vertex as a looping parent
	// lane would (gcColorCycles or gcRequeueCycles).
	gcChildDecideCycles int64 = 100
)

// gcChildBlock is gc_color_child's CTA size: 64 threads, the nested block
// size of the DP graph-coloring kernels in NPSLab's
// show-me-dynamic-parallelism suite, and the fine-grained device-kernel
// shape of DTBL §2.
const gcChildBlock = 64

// Register counts of the two kernels, typical of what nvcc gives such
// loops; they matter only through occupancy.
const (
	gcColorRegs = 32
	gcChildRegs = 16
)

// gcOutcomeCycles is how a vertex's round ends: colored, or queued again.
func gcOutcomeCycles(colored bool) int64 {
	if colored {
		return gcColorCycles
	}
	return gcRequeueCycles
}

// gcLaneCycles is what a vertex's round costs a thread that loops over its
// neighbours itself: the neighbours it visits, at loop cycles each, then
// its outcome: a looping lane's, and a launch site's inline_cycles where
// loop_cycles is given (gcTrace.inline).
func gcLaneCycles(scanned int, colored bool, loop int64) int64 {
	return int64(scanned)*loop + gcOutcomeCycles(colored)
}

// gcColorWarpCycles is the time of a gc_color warp with lanes active
// threads, whose looping lanes visit at most longest neighbours at loop
// cycles each and of which some end colored and some requeued: SIMT, the
// warp waits for its longest loop and runs each outcome's branch once if
// any lane takes it. Launching lanes are excluded, as the trace's
// cta.cycles requires. A warp with no vertex is idle.
func gcColorWarpCycles(lanes, longest int, colored, requeued bool, loop int64) int64 {
	if lanes == 0 {
		return idleWarpCycles
	}
	c := gcBaseCycles + int64(longest)*loop
	if colored {
		c += gcColorCycles
	}
	if requeued {
		c += gcRequeueCycles
	}
	return c
}

// gcChildWarpCycles is the time of a gc_color_child warp with active
// lanes, one neighbour each.
func gcChildWarpCycles(active int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	return gcChildBaseCycles + gcEdgeCycles + int64(active)*gcGatherCycles
}

// gcCosts are the gc cost model's constants, all invented, which its
// parameters set (the parent's loop is loop_cycles).
var gcCosts = []costConst{
	cost("base_cycles", &gcBaseCycles, "a gc_color thread before its first neighbour (and a launching lane's site)"),
	cost("edge_cycles", &gcEdgeCycles, "a gc_color_child thread's neighbour"),
	cost("color_cycles", &gcColorCycles, "a round ending in a color"),
	cost("requeue_cycles", &gcRequeueCycles, "a round ending in a requeue"),
	cost("child_base_cycles", &gcChildBaseCycles, "a gc_color_child thread before its neighbour"),
	cost("gather_cycles", &gcGatherCycles, "each active lane of a gc_color_child warp (memory divergence)"),
	cost("child_flush_cycles", &gcChildFlushCycles, "warp 0 of a child CTA publishing its flag"),
	cost("child_decide_cycles", &gcChildDecideCycles, "the last child CTA ending the vertex's round"),
	cost("idle_warp_cycles", &idleWarpCycles, "a warp with nothing to do"),
}

// gcLoopDefault is loop_cycles' iteration at its default: gcEdgeCycles as
// the package starts, whatever edge_cycles a run sets.
var gcLoopDefault = gcEdgeCycles
