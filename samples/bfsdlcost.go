package samples

// The cost model of bfs code=dragonli (bfsdragonli.go), in K20c core
// cycles (the trace's clock_mhz, 706). Measured: fitted to GPGPU-Sim's
// runs of Dragon_li's own BFS (tests/testBfs.cu at 1397e03, CDP and Reg)
// on the out-tree whose root has 200 edges and four of whose leaves have
// 150 (captures dragonli-bfs-tree-cdp and -reg, validation/gpgpusim/whatif;
// Kepler Titan, 837 MHz, converted by time, ×706/837, as the other
// Dragon_li costs are: these are memory round trips, atomics and
// barriers, which wait on the L2 and DRAM). The 400-edge tree's captures
// (dragonli-bfs-tree400-cdp and -reg) are held out
// (docs/calibration.md, "Measured workload costs"; TestBFSFitsCapture,
// TestBFSHeldOutTree400). The default code (code=dtbl) keeps bfscost.go's
// invented costs: Dragon_li's expand kernel copies neighbour ids into the
// expanded frontier and leaves the visited test to its contract kernel,
// where the default code's bfs_level tests and appends each neighbour
// itself, so the two loops are different code. Each constant is one
// captured CTA's time, or the difference of two, in the fit's kernel;
// the Reg and CDP expand kernels are separate code (the CDP one runs its
// chunk's prologue, prefix sum and barrier again on its final empty
// assignment, bfsCdpDevice.h:122-134, where the Reg one skips it,
// bfsRegDevice.h:142-156), so each has its own prologue and empty pass.
// Change them here only.
const (
	// dlBFSRegIdleCycles is a bfsRegExpandKernel CTA with no chunk, and
	// the Reg code's final empty assignment: compute the assignment,
	// find workSize 0, leave. Measured: the least CTA of the Reg run's
	// last expand (a warm kernel), 151 cycles at 837 MHz.
	dlBFSRegIdleCycles = 127

	// dlBFSRegBaseCycles is the Reg expand's chunk before its neighbour
	// loop (bfsRegCtaExpand, bfsRegDevice.h:38-68): load the vertex, its
	// search distance (and store it), its two row offsets, the CTA-wide
	// prefix sum of the row lengths, thread 0's atomicAdd on the output
	// counter, __syncthreads and the overflow check. Measured: the last
	// expand's CTA 0, a chunk of 128 leaves (no edge), 1,836 cycles at
	// 837 MHz, less its empty pass: 1,685.
	dlBFSRegBaseCycles = 1421

	// dlBFSCdpIdleCycles and dlBFSCdpBaseCycles are the same for
	// bfsCdpExpandKernel, whose CTAs run bfsCdpCtaExpand on every
	// assignment, the final empty one too: the least CTA of the CDP run's
	// last expand takes 704 cycles at 837 MHz, its CTA 0 (128 leaves)
	// 1,911, 1,207 over it.
	dlBFSCdpIdleCycles = 594
	dlBFSCdpBaseCycles = 1018

	// dlBFSContractIdleCycles and dlBFSContractBaseCycles are
	// bfsRegContractKernel's (both codes run it): an empty CTA, and a
	// chunk (bfsRegCtaContract, bfsRegDevice.h:86-124): load the vertex
	// and its visited-mask byte, test it and store it, the prefix sum of
	// the survivors, thread 0's atomicAdd, __syncthreads, the store.
	// Measured: the Reg run's second contract (600 leaves, warm), its
	// least CTA 132 cycles at 837 MHz and its CTA 0 (a chunk of 128)
	// 1,764, 1,632 over it.
	dlBFSContractIdleCycles = 111
	dlBFSContractBaseCycles = 1377

	// dlBFSRootCaptured is the Reg run's first expand's CTA 0, the
	// root's one lane looping over its 200 edges, in 837 MHz cycles
	// (dlBFSEdgeCycles is solved on it).
	dlBFSRootCaptured = 34394
	dlBFSRootEdges    = 200

	// dlBFSLane2Captured is the Reg run's second expand's CTA 0, whose
	// warp 0 has four lanes looping over 150 edges each in step, in 837
	// MHz cycles (dlBFSLaneCycles is solved on it).
	dlBFSLane2Captured = 26059
	dlBFSLane2Edges    = 150

	// dlBFSChildCaptured is a full bfsCdpThreadExpandKernel warp: each
	// thread computes its column, loads it and stores it
	// (bfsCdpThread.h:21-29). Measured: the CDP run's four warm
	// children, one CTA of 128 threads each, every lane with an edge,
	// 374 to 408 cycles at 837 MHz, mean 392.5, 331 here. The warp's
	// lanes' share of it is expandGatherCycles a lane (invented, 2:
	// the child's one CTA size does not separate it), the rest its
	// base (dlBFSChildWarpCycles), so a run that sets
	// expand_gather_cycles keeps the captured full warp.
	dlBFSChildCaptured = 331
)

// dlBFSEdgeCycles is one iteration of the expand's neighbour loop for
// one lane (bfsRegDevice.h:70-74, bfsCdpDevice.h:99-103): load
// col_indices[rowOffset+columnId] and store it into the expanded
// frontier. Solved on the Reg run's first expand, whose CTA 0 is the
// root's one lane looping over its 200 edges, 34,394 cycles at 837 MHz
// (29,011 here), less the kernel's cold start (5 lines,
// dlBFSRegExpandColdLines, 1,205 here), the prologue (1,421) and the
// empty pass (127): 26,258 over 200 edges, 131 (155.7 at 837 MHz). It is
// code=dragonli's default loop_cycles: the expand's lanes and the Reg
// kernel's (variant=flat) loop at it.
var dlBFSEdgeCycles = roundDiv(roundDiv(dlBFSRootCaptured*706, 837)-coldStartCycles(dlBFSRegExpandColdLines)-dlBFSRegBaseCycles-dlBFSRegIdleCycles, dlBFSRootEdges)

// dlBFSLaneCycles is what each further lane looping in the same
// iteration adds: its store falls on another line (the lanes' output
// ranges are a row apart), and the store unit sends one transaction a
// line. Solved on the Reg run's second expand, whose CTA 0's warp 0 has
// four lanes looping over 150 edges each in step, 26,059 cycles at 837
// MHz (21,980 here), less the prologue, the empty pass and 150 edges at
// dlBFSEdgeCycles: 782 over 150 × 3 further lanes, 1.74, 2 (1 while an
// edge was 133, solved with a cold start of 170 a line).
var dlBFSLaneCycles = roundDiv(roundDiv(dlBFSLane2Captured*706, 837)-dlBFSRegBaseCycles-dlBFSRegIdleCycles-dlBFSLane2Edges*dlBFSEdgeCycles, 3*dlBFSLane2Edges)

// dlBFSRegLoopAccesses is the memory instructions of Dragon_li's Reg BFS
// loop body that send one access a lane (bfsRegDevice.h:70-74 at
// 1397e03): the neighbour's id and its store at the lane's own frontier
// offset. A code=dragonli launch site's inline_cycles charges it for
// each other lane of its warp launching beside it (laneLoopPortCycles):
// 2 · 706/837 = 1.69 cycles a further lane an iteration, where
// dlBFSLaneCycles, solved on the Reg run's four lanes in step, is 1.74.
const dlBFSRegLoopAccesses = 2

// The captured kernels' code footprints (coldstart.go): the L2's
// instruction sectors (INST_ACC_R) the run's first launch of each took,
// over the 14 SMs, 4 sectors a 128-byte line.
const (
	// dlBFSRegExpandColdLines: dragonli-bfs-tree-reg's first
	// bfsRegExpandKernel, 252 sectors, 63 lines, 4.5 an SM: 5.
	dlBFSRegExpandColdLines = 5
	// dlBFSCdpExpandColdLines: dragonli-bfs-tree-cdp's first
	// bfsCdpExpandKernel (its device-runtime calls' code too), 736
	// sectors, 184 lines, 13.1 an SM: 13.
	dlBFSCdpExpandColdLines = 13
	// dlBFSContractColdLines: the first bfsRegContractKernel of both,
	// 152 sectors, 38 lines, 2.7 an SM: 3.
	dlBFSContractColdLines = 3
)

// The empty CTAs' queue on their SM (idleQueueWait): what each older CTA
// there adds to an empty CTA of the kernel. Measured on the same warm
// kernels as the empty passes, the median CTA's cycles less the least,
// over the median CTA's rank on the generators' 13 SMXs (CTA 120 of the
// 240: 9 older CTAs on its SM): the Reg expand's 453 − 151, the CDP
// expand's 1,516 − 704 and the contract's 348 − 132 cycles at 837 MHz,
// 28, 76 and 20 here.
const (
	dlBFSRegQueueCycles      = 28
	dlBFSCdpQueueCycles      = 76
	dlBFSContractQueueCycles = 20
)

// Register counts: ptxas's for Dragon_li's kernels (CUDA 11.8, sm_35; the
// captures' kernel records): bfsRegExpandKernel 21, bfsCdpExpandKernel
// 25, bfsRegContractKernel 14, bfsCdpThreadExpandKernel 6.
const (
	dlBFSRegExpandRegs = 21
	dlBFSCdpExpandRegs = 25
	dlBFSContractRegs  = 14
	dlBFSChildRegs     = 6
)

// dlBFSWarpLoop is the neighbour loop of an expand warp whose lanes loop
// over the given numbers of neighbours (each a site's remainder, or all
// its neighbours): the lanes advance in step, the warp issuing an
// iteration while any lane has one left, each iteration an edge and each
// further lane in it its store's transaction (dlBFSLaneCycles): the
// longest lane's count of edges, and every other lane's iterations at
// dlBFSLaneCycles. The loop has no branch that splits the lanes
// (bfsRegDevice.h:70-74), so they do not diverge but by their counts.
func dlBFSWarpLoop(rest []int, edge int64) int64 {
	var longest, total int64
	for _, n := range rest {
		longest = max(longest, int64(n))
		total += int64(n)
	}
	return longest*edge + (total-longest)*dlBFSLaneCycles
}

// dlBFSChildWarpCycles is a bfsCdpThreadExpandKernel warp with active
// lanes, one edge each; a warp past the child's edges only checks its
// column.
func dlBFSChildWarpCycles(active int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	return dlBFSChildCaptured + int64(active-warpSize)*expandGatherCycles
}
