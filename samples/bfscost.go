package samples

// The bfs cost model, in K20c core cycles (the trace's clock_mhz, 706). The
// values are modelled, not measured: they are sized from GK110 memory
// latencies so that what decides launch against inline — a parent lane's
// per-edge loop against the device-launch costs of docs/design.md §5 and the child's
// own run time — keeps realistic proportions. Change them here only.
// All are invented: each is a parameter of the generators that use it
// (bfsCosts; costparams.go), levelEdgeCycles as loop_cycles.
var (
	// levelBaseCycles is what every frontier thread of bfs_level spends
	// before its first edge: load its vertex from the frontier queue, then
	// row_offsets[v] and row_offsets[v+1] (one transaction, dependent on the
	// first load): two global-memory round trips, charged ~100 cycles each.
	// A launching lane reaches its launch site at this point.
	levelBaseCycles int64 = 200

	// idleWarpCycles is a warp with nothing to do (past the end of the
	// frontier, or of a child's edge list): compute its index, compare, exit.
	idleWarpCycles int64 = 20

	// expandBaseCycles is what a bfs_expand thread spends before its edge:
	// compute the edge index from blockIdx and threadIdx, then load
	// col_indices[start+i], which coalesces across the warp into one or two
	// transactions: one memory round trip plus the arithmetic.
	expandBaseCycles int64 = 120

	// expandEdgeCycles is the same per-edge work as levelEdgeCycles, done
	// once by each child thread.
	expandEdgeCycles int64 = 40

	// expandGatherCycles is charged per active lane of a child warp: its
	// levels[u] gathers fall on up to 32 different cache lines and the load
	// unit issues one transaction per line, so a full warp waits ~64 cycles
	// longer than a lone lane (memory divergence).
	expandGatherCycles int64 = 2
)

const (
	// levelEdgeCycles is one iteration of the parent's edge loop: load
	// col_indices[e] (consecutive, so mostly L1 hits), gather levels[u],
	// compare, and for an unvisited u store its level and append it to the
	// next frontier with an atomic. Successive iterations' loads overlap, so
	// the amortised cost is well under one memory round trip. It is the
	// default of bfs's loop_cycles parameter, which sets what the parent
	// warps and launch sites are charged.
	levelEdgeCycles = 40
)

// bfsExpandBlock is the child kernel's CTA size: 64 threads (2 warps), the
// shape of DTBL §2's fine-grained device kernels, close to the ~40 threads
// per device-launched kernel that paper measured in irregular applications.
const bfsExpandBlock = 64

// Register counts of the two kernels, typical of what nvcc gives such
// loops; they matter only through occupancy, and neither limits it here.
const (
	levelRegs  = 32
	expandRegs = 16
)

// levelWarpCycles is the time of one bfs_level warp whose active lanes hold
// vertices of the given degrees. Lanes with degree above threshold launch a
// child instead of looping; the rest loop over their edges at loop cycles
// an edge, and the warp (SIMT) waits for its longest looping lane.
// Launch-site work is excluded, as the trace's cta.cycles requires.
func levelWarpCycles(degrees []int, threshold int, loop int64) int64 {
	if len(degrees) == 0 {
		return idleWarpCycles
	}
	longest := 0
	for _, d := range degrees {
		if d <= threshold {
			longest = max(longest, d)
		}
	}
	return levelBaseCycles + int64(longest)*loop
}

// inlineCycles is what a lane adds to its warp by looping over its edges
// itself, at loop cycles an edge: a looping lane's, and a launch site's
// inline_cycles where loop_cycles is given (bfsTrace.inline).
func inlineCycles(degree int, loop int64) int64 {
	return int64(degree) * loop
}

// expandWarpCycles is the time of one bfs_expand warp with active lanes,
// each handling one edge.
func expandWarpCycles(active int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	return expandBaseCycles + expandEdgeCycles + int64(active)*expandGatherCycles
}

// bfsCosts are the bfs cost model's constants its parameters set.
var bfsCosts = []costConst{
	cost("level_base_cycles", &levelBaseCycles, "a bfs_level thread before its first edge (and a launching lane's site)"),
	cost("idle_warp_cycles", &idleWarpCycles, "a warp with nothing to do"),
	cost("expand_base_cycles", &expandBaseCycles, "a bfs_expand thread before its edge"),
	cost("expand_edge_cycles", &expandEdgeCycles, "a bfs_expand thread's edge"),
	cost("expand_gather_cycles", &expandGatherCycles, "each active lane of a bfs_expand warp (memory divergence)"),
	cost("elect_cycles", &twcElectCycles, "one election round of the flat variant's load balancing (twc.go)"),
}
