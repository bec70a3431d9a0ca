package samples

// The kernel mixes of the generators whose CTAs get their demand from
// demand.go's demandSink: per kernel, a warp's issue rate and DRAM traffic
// per cycle of its time alone, from the loop body its cost model charges
// most of that time to (instructions counted from the operations the cost
// constant's comment names). DRAM bytes stream the arrays each iteration
// reads once (4 bytes a lane, warpStream a full warp); gathers into arrays
// the L2 holds add instructions (one load-unit replay per divergent lane,
// where the cost model charges such replays as the warp's own delay), not
// DRAM bytes. docs/model.md tabulates them.

var (
	// bfs: bfs_level's edge loop (levelEdgeCycles): load col_indices[e],
	// gather levels[u], compare, branch, store the level, atomicAdd onto
	// the frontier, store, advance: 8 instructions, streaming one index a
	// lane. bfs_expand's thread (expandBaseCycles + expandEdgeCycles +
	// expandGatherCycles a lane): ~14 instructions and one replay per lane
	// of its levels[u] gather, streaming its index.
	bfsMixes = map[string]warpMix{
		"bfs_level":  loopMix(8, warpStream, float64(levelEdgeCycles)),
		"bfs_expand": loopMix(14+warpSize, warpStream, float64(expandBaseCycles+expandEdgeCycles+expandGatherCycles*warpSize)),
		// code=dragonli's contract chunk (dlBFSContractBaseCycles): load
		// the vertex and its mask byte (one replay a lane for the
		// gather), test and store the mask, a 128-thread prefix sum (~14
		// shared-memory steps), the claim, the barrier and the store:
		// ~30 instructions, streaming the vertex ids.
		"bfs_contract": loopMix(30+warpSize, warpStream, float64(dlBFSContractBaseCycles)),
		// code=dragonli's expand loop (dlBFSEdgeCycles): load the
		// neighbour id, store it into the expanded frontier, advance,
		// compare, branch: 5 instructions, an id read and one written a
		// lane. Its child's thread (dlBFSChildCaptured): its column, the
		// bound check, the load and the store, ~8 instructions, reading
		// and writing a coalesced id a lane.
		"bfs_dl_expand": loopMix(5, 2*warpStream, float64(dlBFSEdgeCycles)),
		"bfs_dl_child":  loopMix(8, 2*warpStream, float64(dlBFSChildCaptured)),
	}

	// sssp: sssp_relax's edge loop (ssspEdgeCycles): load the neighbour
	// and the weight, gather dist[u], add, compare, branch, advance: ~10
	// instructions streaming two words a lane. sssp_relax_child's thread
	// likewise, ~16 instructions and one replay a lane for the gather.
	ssspMixes = map[string]warpMix{
		"sssp_relax":       loopMix(10, 2*warpStream, float64(ssspEdgeCycles)),
		"sssp_relax_child": loopMix(16+warpSize, 2*warpStream, float64(ssspChildBaseCycles+ssspGatherCycles*warpSize)),
	}

	// gc: gc_color's neighbour loop (gcEdgeCycles): load the neighbour,
	// gather its color, compare, set a bit: ~8 instructions, streaming the
	// neighbour ids. gc_color_child's thread: ~14 instructions and one
	// replay a lane for its color gather (gcGatherCycles a lane).
	gcMixes = map[string]warpMix{
		"gc_color":       loopMix(8, warpStream, float64(gcEdgeCycles)),
		"gc_color_child": loopMix(14+warpSize, warpStream, float64(gcChildBaseCycles+gcEdgeCycles+gcGatherCycles*warpSize)),
	}

	// amr: code=fronts's cell evaluation (amrCellCycles): load the cell's
	// four-word state, ~20 flux and error-estimate instructions, store:
	// ~24 instructions streaming four words a lane.
	// code=dragonli's kernels: a sub-cell's value and store
	// (amrDLTempCycles, amrDLTempInsts instructions), streaming one float
	// a lane.
	amrMixes = map[string]warpMix{
		"":                      loopMix(24, 4*warpStream, float64(amrCellCycles)),
		"amr_reg_refine":        loopMix(amrDLTempInsts, warpStream, float64(amrDLTempCycles)),
		"amr_cdp_refine":        loopMix(amrDLTempInsts, warpStream, float64(amrDLTempCycles)),
		"amr_cdp_thread_refine": loopMix(amrDLTempInsts, warpStream, float64(amrDLTempCycles)),
	}

	// join: the build kernels load a two-word tuple, hash it and atomicAdd
	// a bucket counter, each conflicting lane replaying the atomic
	// (joinConflictCycles a lane): ~10 instructions and 32 replays over
	// joinTupleCycles + joinAtomicCycles + joinConflictCycles a lane,
	// streaming the tuples. The probe loop (joinEntryCycles): load the next
	// bucket entry, compare its key, branch, advance: ~6 instructions,
	// streaming the bucket's two-word entries. The merge join (algo=merge):
	// join_bounds' search step is a dependent gather (~6 instructions and a
	// key a lane per round trip); a scan's block (joinScanBlockCycles) loads
	// and stores a value a lane around the 8-step prefix sum (~5 each), and
	// its distribution loads two values and stores one (~6);
	// join_main's is a joined block of 128 with one output a thread, the
	// common case: staging (~6 instructions, two keys a lane), two 8-step
	// searches (~4 each), the 8-step prefix sum (~5 each) and the output
	// (~6, two words a lane), over the block's time with its longest
	// warp's instructions (joinMainBlockCycles); join_output's thread ~8
	// instructions writing two words a lane; join_gather's copy ~6, two
	// words read and written.
	joinMixes = map[string]warpMix{
		"":                     loopMix(10+warpSize, 2*warpStream, float64(joinTupleCycles+joinAtomicCycles+joinConflictCycles*warpSize)),
		"join_probe":           loopMix(6, 2*warpStream, float64(joinEntryCycles)),
		"join_probe_child":     loopMix(6, 2*warpStream, float64(joinEntryCycles)),
		"join_build_scan":      loopMix(12, warpStream, float64(joinScanWarpCycles)),
		"join_build_hist":      loopMix(10+warpSize, 2*warpStream, float64(joinTupleCycles+joinAtomicCycles+joinConflictCycles*warpSize)),
		"join_build_scatter":   loopMix(10+warpSize, 2*warpStream, float64(joinTupleCycles+joinAtomicCycles+joinConflictCycles*warpSize)),
		"join_bounds":          loopMix(6, warpStream, float64(joinBoundsStepCycles)),
		"join_scan_blocks":     loopMix(6+8*5, 2*warpStream, float64(joinScanBlockCycles(128))),
		"join_scan_totals":     loopMix(6+8*5, 2*warpStream, float64(joinScanBlockCycles(128))),
		"join_scan_distribute": loopMix(6, 3*warpStream, float64(joinCTABaseCycles+joinStoreAckCycles())),
		"join_main":            loopMix(6+2*8*4+8*5+6, 4*warpStream, float64(joinMainBlockCycles())),
		"join_output":          loopMix(8, 2*warpStream, float64(joinOutputChildCycles())),
		"join_gather":          loopMix(6, 4*warpStream, float64(joinCopyCycles())),
	}

	// spmm: the row update (spmmInlineElemCycles) and the child's dot
	// product step (spmmColNnzCycles) each load a value and its column
	// index, gather the other operand, FMA and advance: ~4 instructions
	// streaming two words a lane. These loops are cheap per element
	// because their loads overlap, so they stream DRAM hard.
	spmmMixes = map[string]warpMix{
		"spmm_row": loopMix(4, 2*warpStream, float64(spmmInlineElemCycles)),
		"spmm_col": loopMix(4, 2*warpStream, float64(spmmColNnzCycles)),
	}

	// mandel: an iteration of z ← z² + c (mandelIterCycles): ~8 fp32
	// instructions and the escape test; a pixel's one-word store is
	// negligible beside its iterations.
	mandelMixes = map[string]warpMix{"": loopMix(8, 0, float64(mandelIterCycles))}

	// sa: sa_section's seed lookup (saSeedCycles): pack the k-mer (~12
	// instructions), hash and probe the index (~8), streaming a word of
	// the read a lane; sa_verify's banded step (saStepCycles): ~5
	// instructions on registers and shared memory.
	saMixes = map[string]warpMix{
		"sa_section": loopMix(20, warpStream, float64(saSeedCycles)),
		"sa_verify":  loopMix(5, 0, float64(saStepCycles)),
	}

	// bfs-levels (Rodinia's BFS Kernel): its edge trip (bflEdgeCycles):
	// load the neighbour id, gather visited[id], and for a new vertex
	// store its cost, mask and flag: ~10 instructions, streaming the
	// neighbour ids.
	bflMixes = map[string]warpMix{"": loopMix(10, warpStream, float64(bflEdgeCycles))}
)
