package samples

// The sssp cost model, in K20c core cycles (the trace's clock_mhz, 706).
// The per-operation costs are measured: fitted to GPGPU-Sim's runs of
// Dragon_li's own SSSP (testSssp) on its sample graph, capture
// dragonli-sssp-sample (validation/gpgpusim/workloads; docs/calibration.md
// lists each fit), and on the 200-edge out-tree (dragonli-sssp-tree-reg,
// validation/gpgpusim/whatif), whose Kepler Titan runs at 837 MHz; the
// captures' cycles are converted by time (×706/837), as the replay
// converts a trace's cycles to the GPU's clock, because these costs are
// memory round trips and atomics, which wait on the L2 and DRAM. The
// sample's CTA 0 of each relaxation kernel holds the whole worklist (1 to
// 34 vertices), so CTAs without a launch give the costs below:
// ssspIdlePassCycles from the empty CTAs, ssspBaseCycles from a CTA whose
// vertex has no edge; ssspEdgeCycles and ssspLowerCycles come from CTAs
// of one looping lane only, the sample's two edges of which one lowers
// (2171) and the tree's root, 200 edges that all lower, so that no lane
// count is folded into an iteration (the sample's two lanes lowering one
// edge each, 1923, are held out: −13%); ssspChildBaseCycles and
// ssspLowerLaneCycles from the sample's two children in the capture's
// rerun with a perfect instruction cache, the child's cold start priced
// apart (ssspChildFetch). Both codes (code=dtbl,
// code=dragonli) charge them. Change them here only.
var (
	// ssspGatherCycles is charged per active lane of a child warp, once for
	// the dist[u] gathers and once more per lowering lane for its atomics:
	// the lanes' addresses fall on different cache lines, and the load and
	// atomic units issue one transaction per line (bfs's
	// expandGatherCycles). Kept: one child whose lanes lower (the sample's
	// child 1) cannot separate the per-lane term from the lowering's
	// fixed cost, and ssspLowerLaneCycles is solved beside it.
	ssspGatherCycles int64 = 2
)

var (
	// ssspChildBaseCycles is what an sssp_relax_child thread spends on its
	// one edge when it does not lower: compute the edge index from
	// blockIdx and threadIdx, load the parent's arguments, then
	// col_indices, weights and dist[u], and compare. Measured warm: the
	// sample's child whose 32 edges lower nothing takes 519 cycles at 837
	// MHz in the capture's rerun with a perfect instruction cache (935
	// captured, its code fetched cold: ssspChildColdCycles), 437 here,
	// less its 32 gathers: 373. It holds the edge whole, not
	// ssspEdgeCycles: the warm child (519) is shorter than a parent loop
	// iteration and the gathers (499.9 + 76), the loop's iteration also
	// paying its trip test and back edge (it was 302 beside
	// ssspEdgeCycles, solved on the cold 935; 120 before, bfs's
	// expandBaseCycles).
	ssspChildBaseCycles = ssspChildBaseFit()

	// ssspLowerLaneCycles is what each further lane of a warp taking the
	// lowering branch together adds: its atomicMin, its claim on the same
	// worklist counter and its store, the load/store unit sending one
	// transaction per lane. Measured warm: in the perfect-cache rerun the
	// sample's child whose 30 lanes of 32 lower takes 1,251 cycles at
	// 837 MHz, the one whose lanes lower nothing 519: 732 for the branch,
	// 617.5 here, less its first lane's ssspLowerCycles (374) and 30
	// gathers (ssspGatherCycles, 2 each), over 29 lanes: 6.3, 6 (it was
	// 14, solved on the cold 1,946 and 935, whose cold starts differ:
	// the first child's lines came from DRAM, the second's from the L2).
	ssspLowerLaneCycles = ssspLowerLaneFit()
)

const (
	// ssspBaseCycles is what every sssp_relax thread spends before its
	// first edge: load its vertex from the worklist, then row_offsets[v],
	// row_offsets[v+1] and dist[v]. Measured: a CTA whose one vertex has
	// no edge takes 728 cycles at 837 MHz, its final empty pass
	// (ssspIdlePassCycles) included: 425, or 359 here (it was 200, two
	// assumed round trips of ~100). A launching lane reaches its launch
	// site here; in the capture it reached it ~800 cycles later, the
	// launch path's own instructions (see docs/calibration.md).
	ssspBaseCycles = 359

	// ssspEdgeCycles is one iteration of the relaxation loop that does not
	// lower a distance: load col_indices[e] and weights[e], gather
	// dist[u], add and compare. Measured on one lane: the sample's CTA of
	// two edges, one lowering, 2171 cycles at 837 MHz less the no-edge
	// CTA's 728 is 2E + L = 1443; the tree's root, 189,802 cycles less its
	// cold empty pass (754, the same kernel's least empty CTA) and the
	// prologue (425), is 200 (E + L): E + L = 943.1. E = 499.9 at 837 MHz,
	// 422 here (it was 209, from the sample's CTA of two lanes; 50 before,
	// bfs's levelEdgeCycles plus a second stream of loads). A child thread
	// always pays it for its one edge; for the parent's loop it is the
	// default of sssp's loop_cycles parameter.
	ssspEdgeCycles = 422

	// ssspLowerCycles is what an edge that lowers dist[u] adds for the
	// first lane of its warp that takes the branch: the atomicMin on
	// dist[u], the atomic add that claims a worklist slot and the append.
	// Measured (ssspEdgeCycles' two equations): 943.1 − 499.9 = 443.2
	// cycles at 837 MHz, 374 here (it was 799 with the two-lane fit, 150
	// before, about one and a half assumed atomic round trips).
	ssspLowerCycles = 374

	// ssspIdlePassCycles is a persistent (code=dragonli) sssp_relax warp's
	// pass over a chunk where it holds no vertex, and the final empty
	// assignment every CTA takes before it leaves. Measured: a CTA with
	// only that pass takes 303 cycles at 837 MHz when it is alone on its
	// SM (the first 13 empty CTAs of each warm kernel), 255 here. Empty
	// CTAs sharing an SM with 6 or 7 others end later, one after another
	// (their mean is 556): ssspIdleQueueCycles below.
	ssspIdlePassCycles = 255

	// ssspIdleQueueCycles is what each older CTA on its SM adds to an
	// empty sssp_relax CTA (idleQueueWait). Measured: in
	// dragonli-sssp-sample's warm relaxations an SM's empty CTAs end one
	// after another, the k-th (from 0, oldest first) at 303 + 76.3·k
	// cycles at 837 MHz (least squares with the lone CTA's 303 held, over
	// the 474 empty CTAs of SMs without a busy one), 64 here.
	ssspIdleQueueCycles = 64
)

// ssspChildBlock is sssp_relax_child's CTA size: 64 threads, the
// fine-grained device-kernel shape of DTBL §2 (about 40 threads per
// device-launched kernel measured in irregular codes). SPAWN §III finds
// SSSP on Graph500 graphs runs best with small child CTAs.
const ssspChildBlock = 64

// ssspRegLoopAccesses is the memory instructions of Dragon_li's Reg SSSP
// loop body that send one access a lane (ssspRegDevice.h:72-90 at
// 1397e03): the neighbour's id, its weight, its distance, the atomicMin
// and the frontier counter's atomicAdd. A rerun of
// dragonli-sssp-tree3-reg that counts each memory instruction's accesses
// (validation/gpgpusim/whatif, dragonli-sssp-tree3-reg-ldst) sends 165
// an iteration for 32 lanes against 7 for one, and its 32-lane warp
// takes 155 cycles an iteration more than its lone lane: 5 · 31. A
// code=dragonli launch site's inline_cycles charges it for each other
// lane of its warp launching beside it (laneLoopPortCycles).
const ssspRegLoopAccesses = 5

// Register counts of the two kernels: ptxas's for Dragon_li's
// ssspCdpExpandKernel and ssspCdpThreadExpandKernel (CUDA 11.8, sm_35; the
// capture's log). They were 32 and 20, typical of what nvcc gives such
// loops; they matter only through occupancy.
const (
	ssspRelaxRegs = 30
	ssspChildRegs = 12
)

// ssspLaneCycles is what relaxing a vertex's edges costs one thread that
// loops over them: every edge at loop cycles an iteration, plus the
// atomics of the lowered ones. It is a looping lane's share of its warp's
// cycles, and a launch site's inline_cycles where loop_cycles is given
// (ssspTrace.inline).
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
// the lowering branch once if any lane takes it, each lane after the
// first adding its own atomics (ssspLowerLaneCycles).
func ssspChildWarpCycles(active, lowered int) int64 {
	if active == 0 {
		return idleWarpCycles
	}
	c := ssspChildBaseCycles + int64(active)*ssspGatherCycles
	if lowered > 0 {
		c += ssspLowerCycles + int64(lowered)*ssspGatherCycles + int64(lowered-1)*ssspLowerLaneCycles
	}
	return c
}

// ssspCosts are the sssp cost model's invented constants, which its
// parameters set; the measured ones above stay fixed.
var ssspCosts = []costConst{
	cost("gather_cycles", &ssspGatherCycles, "each active lane of an sssp_relax_child warp, and each lowering lane's atomics"),
	cost("idle_warp_cycles", &idleWarpCycles, "a warp with nothing to do (code=dtbl)").onlyIn("dtbl"),
}

// The sample's two children (dragonli-sssp-sample) in the capture's
// rerun with a perfect instruction and constant cache
// (dragonli-sssp-sample-cdp-perfect-icache, every other line of the
// config the capture's), in its 837 MHz cycles: the child whose 32 edges
// lower nothing (child 2) and the one whose 30 lanes of 32 lower (child
// 1). TestSSSPFitsCapture reads them from the log.
const (
	ssspChildWarmCaptured      = 519
	ssspChildLowerWarmCaptured = 1251
	ssspChildLowerLanes        = 30
)

// ssspChildBaseFit is ssspChildBaseCycles solved from the rerun: the warm
// child, in the trace's 706 MHz cycles (whole cycles, 437), less its 32
// gathers. A run that sets gather_cycles solves it again (ssspRefit), so
// the measured child keeps its time.
func ssspChildBaseFit() int64 {
	return ssspChildWarmCaptured*706/837 - warpSize*ssspGatherCycles
}

// ssspLowerLaneFit is ssspLowerLaneCycles solved from the rerun: child
// 1's lowering branch over child 2 (706 MHz cycles), less its first
// lane's ssspLowerCycles and its lanes' gathers, over the lanes after the
// first, rounded.
func ssspLowerLaneFit() int64 {
	branch := float64(ssspChildLowerWarmCaptured-ssspChildWarmCaptured) * 706 / 837
	rest := branch - ssspLowerCycles - float64(ssspChildLowerLanes*ssspGatherCycles)
	return int64(rest/float64(ssspChildLowerLanes-1) + 0.5)
}

// ssspRefit solves sssp's fitted constants again from the invented one
// they were fitted beside.
func ssspRefit() { ssspChildBaseCycles, ssspLowerLaneCycles = ssspChildBaseFit(), ssspLowerLaneFit() }

// ssspChildColdLines is the lines of sssp_relax_child's code (Dragon_li's
// ssspCdpThreadExpandKernel, 43 PTX instructions) an SM fetches the first
// time it runs one, counted on the code as GPGPU-Sim lays it out
// (functions from PC 0, 8 bytes an instruction, cuda-sim.cc:288 and
// ptx_ir.cc:1236 at 667834cf): PCs 0x7d0–0x927, after sssp_relax's
// 0x400–0x7cf (the log's branch PCs agree: "@%p1 bra" of its line 486 at
// 0x840, ret at 0x920), lines 15–18 of 128 bytes (`-gpgpu_cache:il1
// N:8:128:4`). Line 15 holds sssp_relax's last instructions, which every
// SM ran in the relaxation before (coldstart.go, ssspRelaxColdLines), so
// it stays in the L1I; every warp runs the prologue and its edge
// (0x7d0–0x8b8) and the ret (0x920), a lowering one the atomics between
// (0x8c0–0x918), in the same lines: 16, 17 and 18 on every path.
const ssspChildColdLines = 3

// coldFetch is where a CTA's first fetch of its code's lines finds them.
type coldFetch int

const (
	fetchWarm coldFetch = iota // in its SM's L1I: nothing to pay
	fetchDRAM                  // from DRAM: coldStartCycles
	fetchL2                    // from the L2: joinRefetchCycles
)

// ssspChildFetch is where the n-th sssp_relax_child CTA of the run (from
// 0), CTA c of its launch, first whether the launch is the run's first
// child launch, finds the child's code. The generator does not place
// CTAs, so it takes the simulator's order for them: a kernel's CTAs go
// one an SM in turn (coldstart.go), and a later launch's to the SMs
// after. The first launch's first wave (coldWave) fetches the lines from
// DRAM, as sssp_relax's first relaxation does (coldCTA: the SMs' misses
// merge in the L2 and wait for DRAM's fill); dragonli-sssp-rmat11-cdp's
// first child, 49 CTAs on 13 SMs, takes 3,196 cycles a CTA at 837 MHz
// against 2,422 in the perfect-cache rerun, 258 a line. A later CTA among
// the run's first k20cSMs lands on an SM that has not run the child and
// finds the lines in the L2: dragonli-sssp-sample's child 2, on another
// SM (3) than child 1 (10), takes 935 cycles against 519 warm, 139 a
// line. The rest find the code in their SM's L1I (4 KB: sssp_relax's and
// the child's 11 lines stay) and pay nothing: rmat11's later child CTAs
// take 597 cycles a CTA captured, 602 in the rerun. Where the first
// launch holds k20cSMs CTAs or more, as rmat11's does, every SM has the
// code after it.
func ssspChildFetch(n, c int, first bool) coldFetch {
	switch {
	case first && c < coldWave(dragonliChildBlock, ssspChildRegs):
		return fetchDRAM
	case !first && n < k20cSMs:
		return fetchL2
	}
	return fetchWarm
}

// ssspChildColdCycles is the cold start each warp of that CTA adds
// (ssspChildFetch), ssspChildColdLines priced by coldStartCycles or
// joinRefetchCycles, whatever those charge a line.
func ssspChildColdCycles(n, c int, first bool) int64 {
	switch ssspChildFetch(n, c, first) {
	case fetchDRAM:
		return coldStartCycles(ssspChildColdLines)
	case fetchL2:
		return joinRefetchCycles(ssspChildColdLines)
	}
	return 0
}
