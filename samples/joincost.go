package samples

import "slices"

// The join cost model, in K20c core cycles (the trace's clock_mhz, 706),
// sized from GK110 memory and atomic latencies like the bfs model
// (bfscost.go). The build kernels' cost is fixed per warp but for the
// atomics that collide on a bucket; the probe's is the bucket scan, which
// is where skew makes threads unequal. Change them here only.
var (
	// joinGatherCycles is one dependent load at a data-dependent address
	// (a bucket's offsets), which does not coalesce: a round trip.
	joinGatherCycles int64 = 100

	// joinStoreCycles is a store the warp does not wait for beyond issuing
	// it (the scattered tuple).
	joinStoreCycles int64 = 20

	// joinEntryCycles is one iteration of the probe loop: load the next
	// key of the bucket (consecutive, so mostly L1 hits) and compare it,
	// the same work as bfs's levelEdgeCycles.
	joinEntryCycles int64 = 40
)

const (
	// joinTupleCycles is loading a thread's tuple (coalesced across the
	// warp: one ~100-cycle round trip) and hashing its key (a multiply and
	// a shift).
	joinTupleCycles = 110

	// joinAtomicCycles is an atomicAdd on a bucket's counter that returns
	// the old value: one L2 round trip.
	joinAtomicCycles = 120

	// joinConflictCycles is what each further lane of a warp adds when it
	// updates the same bucket counter: the L2 applies same-address atomics
	// one after another, a few cycles each. Skewed keys collide more.
	joinConflictCycles = 10

	// joinScanWarpCycles is a warp of join_build_scan, which turns bucket
	// counts into offsets (a single-pass scan): load four counts per
	// thread (~100), a warp shuffle scan (~50), the block scan through
	// shared memory (~60), the look-back at the previous CTA's total (an L2
	// round trip and the wait for it, ~150) and the store (~20).
	joinScanWarpCycles = 380

	// joinEmitCycles is what a match adds: an atomicAdd on the output
	// counter for a slot (an L2 round trip) and the store of the
	// (r, s) pair. A child warp claims its matches' slots with one
	// warp-aggregated atomic, so it pays this once.
	joinEmitCycles = 130

	// joinChildBaseCycles is what a join_probe_child thread spends before
	// its compare: compute its entry's index, then load that key, which
	// coalesces across the warp: one round trip plus the arithmetic, as
	// bfs's expandBaseCycles.
	joinChildBaseCycles = 120
)

// joinProbeBaseCycles() is what every join_probe thread spends before its
// bucket scan: its tuple and hash, then the bucket's two offsets. A
// launching lane reaches its launch site here.
func joinProbeBaseCycles() int64 { return joinTupleCycles + joinGatherCycles }

// Block shapes. The build kernels and the scan use 256 threads, a common
// choice for such streaming kernels; join_probe_child uses 64, the
// fine-grained device-kernel shape of DTBL §2 (bfs's child size).
const (
	joinBuildBlock = 256
	joinScanBlock  = 256
	joinScanItems  = 4 // bucket counts per scan thread
	joinChildBlock = 64
)

// Register counts, typical of what nvcc gives such kernels; they matter
// only through occupancy.
const (
	joinBuildRegs = 16
	joinScanRegs  = 32
	joinProbeRegs = 24
	joinChildRegs = 16
)

// joinBuildWarpCycles is a warp of join_build_hist (scatter false) or
// join_build_scatter whose lanes hash to the given buckets: load and hash
// the tuple, then the atomic on its bucket's counter, serialised with the
// warp's other lanes on the same bucket; the scatter also loads the
// bucket's offset first and stores the tuple at its slot after.
func joinBuildWarpCycles(buckets []int, scatter bool) int64 {
	if len(buckets) == 0 {
		return idleWarpCycles
	}
	c := int64(joinTupleCycles+joinAtomicCycles) + int64(joinCollisions(buckets))*joinConflictCycles
	if scatter {
		c += joinGatherCycles + joinStoreCycles
	}
	return c
}

// joinCollisions is how many lanes wait behind another lane's atomic on
// the same counter: the size of the largest group of equal buckets, less
// one. It sorts buckets.
func joinCollisions(buckets []int) int {
	slices.Sort(buckets)
	run, longest := 0, 0
	for i := range buckets {
		if i > 0 && buckets[i] == buckets[i-1] {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	return max(longest-1, 0)
}

// joinLaneCycles is what scanning a bucket of entries with matches costs a
// probing thread that loops over it: a looping lane's share of its warp's
// cycles (a launch site's inline_cycles is its child's, joinProbeInline).
func joinLaneCycles(entries, matches int) int64 {
	return int64(entries)*joinEntryCycles + int64(matches)*joinEmitCycles
}

// joinProbeWarpCycles is a join_probe warp whose longest looping lane costs
// longest; launching lanes are excluded, as the trace's cta.cycles
// requires. A warp with no tuple is idle.
func joinProbeWarpCycles(lanes int, longest int64) int64 {
	if lanes == 0 {
		return idleWarpCycles
	}
	return joinProbeBaseCycles() + longest
}

// joinChildWarpCycles is a join_probe_child warp with active lanes, one
// entry each, of which matches match: the emit branch runs once if any
// lane takes it.
func joinChildWarpCycles(active, matches int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	c := int64(joinChildBaseCycles + joinEntryCycles)
	if matches > 0 {
		c += joinEmitCycles
	}
	return c
}
