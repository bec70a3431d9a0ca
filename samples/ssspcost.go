package samples

// The sssp cost model, in K20c core cycles (the trace's clock_mhz, 706),
// sized from GK110 memory and atomic latencies like the bfs model
// (bfscost.go), whose proportions it keeps: a relaxation is a BFS edge
// visit plus a weight load, and an edge that lowers a distance also pays
// the atomics that publish it. Change them here only.
const (
	// ssspBaseCycles is what every sssp_relax thread spends before its
	// first edge: load its vertex from the worklist, then row_offsets[v],
	// row_offsets[v+1] and dist[v] (independent, so issued together): two
	// global-memory round trips of ~100 cycles. A launching lane reaches its
	// launch site here.
	ssspBaseCycles = 200

	// ssspEdgeCycles is one iteration of the relaxation loop that does not
	// lower a distance: load col_indices[e] and weights[e] (consecutive, so
	// mostly L1 hits), gather dist[u], add and compare. It is bfs's
	// levelEdgeCycles (40) plus the second stream of loads. A child thread
	// always pays it for its one edge; for the parent's loop it is the
	// default of sssp's loop_cycles parameter.
	ssspEdgeCycles = 50

	// ssspLowerCycles is what an edge that lowers dist[u] adds: an
	// atomicMin on dist[u] (an L2 round trip, since another thread may be
	// lowering it too) and the worklist append guarded by an atomic
	// test-and-set of u's queued flag: about one and a half atomic round
	// trips, the second partly overlapping the first.
	ssspLowerCycles = 150

	// ssspChildBaseCycles is what an sssp_relax_child thread spends before
	// its edge: compute the edge index from blockIdx and threadIdx, then
	// load col_indices and weights, which coalesce across the warp: one
	// memory round trip plus the arithmetic, as bfs's expandBaseCycles.
	ssspChildBaseCycles = 120

	// ssspGatherCycles is charged per active lane of a child warp, once for
	// the dist[u] gathers and once more per lowering lane for its atomics:
	// the lanes' addresses fall on different cache lines, and the load and
	// atomic units issue one transaction per line (bfs's
	// expandGatherCycles).
	ssspGatherCycles = 2
)

// ssspChildBlock is sssp_relax_child's CTA size: 64 threads, the
// fine-grained device-kernel shape of DTBL §2 (about 40 threads per
// device-launched kernel measured in irregular codes). SPAWN §III finds
// SSSP on Graph500 graphs runs best with small child CTAs.
const ssspChildBlock = 64

// Register counts of the two kernels, typical of what nvcc gives such
// loops (the relax loop keeps a 64-bit distance live); they matter only
// through occupancy.
const (
	ssspRelaxRegs = 32
	ssspChildRegs = 20
)

// ssspLaneCycles is what relaxing a vertex's edges costs one thread that
// loops over them: every edge at loop cycles an iteration, plus the
// atomics of the lowered ones. It is a looping lane's share of its warp's
// cycles, and a launch site's inline_cycles.
func ssspLaneCycles(degree, lowered int, loop int64) int64 {
	return int64(degree)*loop + int64(lowered)*ssspLowerCycles
}

// ssspRelaxWarpCycles is the time of an sssp_relax warp whose longest
// looping lane costs longest (SIMT: the warp waits for it); launching lanes
// are excluded, as the trace's cta.cycles requires. A warp with no vertex
// is idle.
func ssspRelaxWarpCycles(lanes int, longest int64) int64 {
	if lanes == 0 {
		return idleWarpCycles
	}
	return ssspBaseCycles + longest
}

// ssspChildWarpCycles is the time of an sssp_relax_child warp with active
// lanes, one edge each, of which lowered lower a distance: the warp runs
// the lowering branch once if any lane takes it.
func ssspChildWarpCycles(active, lowered int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	c := int64(ssspChildBaseCycles+ssspEdgeCycles) + int64(active)*ssspGatherCycles
	if lowered > 0 {
		c += ssspLowerCycles + int64(lowered)*ssspGatherCycles
	}
	return c
}
