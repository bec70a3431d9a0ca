package samples

import "math/bits"

// The merge join's cost model (algo=merge), in K20c core cycles like the
// hash join's (joincost.go), whose memory constants it reuses: a global
// round trip joinGatherCycles, a store's issue joinStoreCycles. Every
// kernel's CTA begins with its base (joinCTABaseCycles: its parameters
// and first round trip), and a warp whose last act is a store waits for
// its acknowledgement before it retires (joinStoreAckCycles). Change them
// here only.
var (
	// joinStageSyncCycles is what a trip of join_main's block loop
	// staging its blocks in shared memory (memcpyCta) adds to its load's
	// round trip (joinStageCycles()): the stores to shared memory and the
	// wait at the __syncthreads.
	joinStageSyncCycles int64 = 20

	// joinSearchStepCycles is one iteration of a binary search over the
	// shared-memory left block: a dependent shared load (~25 cycles on
	// GK110) and the compare and branch.
	joinSearchStepCycles int64 = 30
)

var (
	// joinPrefixStepCycles is what one step of prefixSumCta waits for
	// beyond its seven warp instructions (joinPrefixStepInsts, priced by
	// joinIssueCycles): the shared load's latency and the two barriers.
	// Measured: Dragon_li's second (warm) scanBlocks, one load, a
	// 128-thread prefixSumCta (8 steps) and a store, takes 1306 cycles at
	// 837 MHz in capture dragonli-join-1024, 1102 at the trace's 706 MHz,
	// of which its base and awaited store (322), its code fetched again from
	// the L2 (6 lines at joinGatherCycles: 600) and its 59 warp instructions
	// past the base's (joinIssueCycles, 225) leave −45: the refit is
	// negative, so the step charges its instructions only (0; it was 98,
	// which held the refetch and the instructions, and 30 before that, a
	// shared load and two barriers as assumed).
	joinPrefixStepCycles = joinPrefixFit()

	// joinBoundsStepCycles is one iteration of join_bounds' binary search
	// of the right input in global memory: a dependent load at a
	// data-dependent address.
	// Measured: Dragon_li's joinRegFindBoundsKernel searches 1024 keys
	// twice (22 steps) in 6956 cycles at 837 MHz (capture
	// dragonli-join-1024), 5867 at 706, the program's first kernel: (5867
	// − joinCTABaseCycles − joinStoreAckCycles() − its cold start,
	// coldStartCycles(joinBoundsColdLines), 8 lines at 241) / 22 = 164
	// (it was joinGatherCycles, 100, an assumed L2 round trip; 252 while
	// the cold start was in the steps, 261 beside the bare load and
	// unawaited store, 190 with the cold start at 170 a line).
	joinBoundsStepCycles = joinBoundsFit()
)

// joinCTABaseCycles is a 128-thread merge-join CTA that reads its
// parameters, computes its thread's index and bound, makes one global
// round trip and exits: a join_output CTA (joinOutputChildCycles), whose
// round trip is its stores' acknowledgement, and the start of every
// other kernel of the join (its first load standing for the round trip).
// GPGPU-Sim retires a warp only when "functional_done() && stores_done()
// && !inst_in_pipeline()" (src/gpgpu-sim/shader.cc:4066-4067 at
// 667834cf; stores_done() is "m_stores_outstanding == 0", shader.h:245),
// so a thread's two stores cost it the round trip a load would, not their
// issue alone.
// Measured: in capture dragonli-join-1024 the join_gather CTAs of the
// empty partitions (blockIdx 205–239: 1,024 left keys over 240 CTAs of
// 5) load their offsets, find nothing to copy and exit, the same shape
// with a load for the stores; the least of them, 240 cycles at 837 MHz
// (CTA 232), is one that no copying CTA on its SM queued behind (the
// others take up to 1421): 202 at the trace's 706 MHz (it was
// joinOutputCheckCycles 20 + two joinStoreCycles, 60, as if the warp left
// when its stores issued).
const joinCTABaseCycles = joinCTABaseCaptured * 706 / 837

// Dragon_li's shapes (tests/testJoin.cu): a child has CDP_THREADS =
// 1<<CDP_THREADS_BITS = 128 threads, so a thread launching for foundCount
// outputs asks for foundCount>>7 CTAs; joinScaleFactor (JOIN_SF) sizes the
// scattered output buffers at that many pairs per input tuple.
const (
	joinOutputBlock = 128
	joinOutputShift = 7 // log2(joinOutputBlock)
	joinScaleFactor = 700
)

// Register counts of the merge join's kernels; they matter only through
// occupancy. join_bounds', join_main's and join_gather's are ptxas's for
// Dragon_li's joinRegFindBoundsKernel, joinCdpMainJoinKernel and
// joinRegGatherKernel (CUDA 11.8, sm_35; capture dragonli-join-1024's
// log; they were 24, 32 and 16): join_main's 111 holds 4 of its
// 128-thread CTAs on an SM of 64K registers. variant=flat's join_main is
// joinRegMainJoinKernel, 72 (capture dragonli-join-30720-reg's log:
// "regs=72, lmem=0, smem=2052"; "CTA/core = 7, limited by: regs"; it
// was given the CDP kernel's 111 and 4). join_output's 16 is assumed
// (the capture launched none).
const (
	joinBoundsRegs   = 19
	joinMainRegs     = 111
	joinMainFlatRegs = 72
	joinOutputRegs   = 16
	joinGatherRegs   = 14
)

// mainRegs is join_main's registers a thread: the flat code's kernel or
// the CDP code's.
func (c joinConfig) mainRegs() int {
	if c.flat {
		return joinMainFlatRegs
	}
	return joinMainRegs
}

// joinStageTripCycles is a trip of the flat join's staged loop
// (joinstage.go): a thread's left id computed and both ids stored to
// shared memory, nothing waited for.
// Fitted: capture dragonli-join-30720-reg (testJoin -l 30720 -r 64 -m
// 16, the keys glibc's rand() gives), its 240 join_main CTAs at 706 MHz
// less the model's CTA at no cost a trip, over the trips each CTA's
// rounds run in turn, least squares through the origin: 26.87
// (`TestJoinStageTripFit`; 24.35 a trip and 1,532 a CTA with an
// intercept the model does not have). About seven warp instructions at
// joinIssueCycles.
const joinStageTripCycles int64 = 27

// joinSearchCycles is a thread's two binary searches (lower and upper
// bound) over a left block of lb keys: the warp waits for its longest,
// bits.Len(lb) iterations each.
func joinSearchCycles(lb int) int64 {
	return int64(2*bits.Len(uint(lb))) * joinSearchStepCycles
}

// joinPrefixSteps is prefixSumCta's steps over a block of threads: the
// first store and barrier, then log2(block) steps.
func joinPrefixSteps(block int) int64 { return int64(1 + bits.Len(uint(block-1))) }

// joinPrefixCycles is prefixSumCta's latency over a block of threads,
// beyond its instructions (joinPrefixInsts, priced by joinIssueCycles).
func joinPrefixCycles(block int) int64 {
	return joinPrefixSteps(block) * joinPrefixStepCycles
}

// joinScanBlockCycles is a warp of join_scan_blocks over CTAs of block
// threads: its base with the load of a value, prefixSumCta, and the store
// of the result, awaited, and its warp instructions past the base's
// (joinScanBlocksInsts, at joinIssueCycles). Every warp runs the prefix
// sum's barriers, values or not. A warm scan adds its code's refetch
// (joinRefetchCycles), a cold one its cold start; neither is here.
func joinScanBlockCycles(block int) int64 {
	return joinCTABaseCycles + joinPrefixCycles(block) + joinStoreAckCycles() + joinIssue(joinScanBlocksInsts(block))
}

// joinScanTotalsCycles is join_scan_totals' warp scanning the totals of
// ctas CTAs of block threads, block at a time: its two integer divisions
// (joinScanTotalsDivCycles), the first trip as a join_scan_blocks warp
// (with scanTotals' own instructions), each further one a load's round
// trip, the prefix sum, a store and the trip's instructions.
func joinScanTotalsCycles(ctas, block int) int64 {
	more := int64(ceilDiv(ctas, block) - 1)
	return joinScanTotalsDivCycles + joinCTABaseCycles + joinPrefixCycles(block) + joinStoreAckCycles() +
		more*(joinGatherCycles+joinPrefixCycles(block)+joinStoreCycles) + joinIssue(joinScanTotalsInsts(ctas, block))
}

// joinScanDistributeCycles is a join_scan_distribute warp with values: its
// base with the loads of its value and its CTA's total, and the store of
// their sum, awaited (its 20 warp instructions are fewer than the base's
// 22, which the base holds).
func joinScanDistributeCycles() int64 {
	return joinCTABaseCycles + joinStoreAckCycles() + joinIssue(joinScanDistributeInsts)
}

// joinDivCycles is an integer division in the captured GPU, in the
// trace's 706 MHz cycles: GPGPU-Sim gives div.s32 and rem the fifth
// integer latency ("latency = int_latency[4]", src/cuda-sim/cuda-sim.cc:994
// at 667834cf), 145 cycles in the captures' configuration
// ("-ptx_opcode_latency_int 4,13,4,5,145,32"), at 837 MHz.
const joinDivCycles = 145 * 706 / 837

// joinScanTotalsDivCycles is what scanTotals (util/primitive.h at 1397e03)
// spends before its loop: "int ctas = (inputCnt + step - 1) / step; int
// steps = (ctas + step - 1) / step;" with step = blockDim.x, two dependent
// div.s32 in nvcc 11.8's sm_35 PTX, the loop's entry test waiting on the
// second. scanBlocks and scanDistribute divide nothing.
const joinScanTotalsDivCycles = 2 * joinDivCycles

// joinBoundsWarpCycles is a join_bounds warp with a partition in some lane:
// its base with the load of the partition's first and last left keys,
// search the right input of n keys for each in global memory, a
// dependent access per iteration (joinBoundsStepCycles), and store the
// three bounds, awaited.
func joinBoundsWarpCycles(n int) int64 {
	return joinCTABaseCycles + int64(2*bits.Len(uint(n)))*joinBoundsStepCycles + joinStoreAckCycles()
}

// joinGatherWarpCycles is warp w of a join_gather CTA of block threads
// compacting a partition's outputs (joinRegGatherKernel,
// join/joinRegDevice.h:379-411 at 1397e03): its base with the load of
// its histogram offsets; then, when it copies, the load of the partition's
// scattered offset (devOutBounds[blockIdx.x]), which issues only once the
// offsets say the warp enters the loop (joinGatherEntryCycles); then copy
// element i in the thread i mod block, the warp waiting for its first
// lane's trips (joinCopyCycles), and for its last stores'
// acknowledgement (a round trip).
func joinGatherWarpCycles(outputs, block, w int) int64 {
	return joinGatherWarpLoaded(outputs, block, w, 0)
}

// joinGatherTrips is the copy trips of warp w of a join_gather CTA of
// block threads compacting outputs pairs: element i goes to thread i
// mod block, so the warp's first lane's.
func joinGatherTrips(outputs, block, w int) int {
	if first := w * warpSize; outputs > first {
		return ceilDiv(outputs-first, block)
	}
	return 0
}

// joinGatherWarpLoaded is joinGatherWarpCycles with the DRAM under load:
// the warp's copy takes copyCycles (its share of the kernel's DRAM time,
// joinGatherDRAMCopy) where that is given (above 0), else its trips'
// unloaded time.
func joinGatherWarpLoaded(outputs, block, w int, copyCycles int64) int64 {
	trips := joinGatherTrips(outputs, block, w)
	if trips == 0 {
		return joinCTABaseCycles
	}
	if copyCycles <= 0 {
		copyCycles = int64(trips) * joinCopyCycles()
	}
	return joinCTABaseCycles + joinGatherEntryCycles() + copyCycles + joinGatherCycles
}

// joinGatherEntryCycles() is what a copying join_gather warp waits before
// its first trip: "ld.global.s32 %rd2, [%rd16]" (devOutBounds[blockIdx.x],
// the partition's offset in the scattered buffers) follows the branch on
// the histogram's offsets in nvcc 11.8's sm_35 PTX of Dragon_li 1397e03,
// and every copy's address adds it: one round trip.
func joinGatherEntryCycles() int64 { return joinGatherCycles }

// joinStageCycles() is a trip of join_main's block loop staging its blocks
// in shared memory (memcpyCta): each thread loads a key of each block,
// coalesced and both in flight together, one round trip
// (joinGatherCycles), stores them to shared memory and waits at the
// __syncthreads (joinStageSyncCycles). The block comparisons that follow
// read shared memory and are folded in.
func joinStageCycles() int64 { return joinGatherCycles + joinStageSyncCycles }

// joinOutputCycles is one iteration of a join_main thread's output loop:
// two stores (the left and right tuple ids) it does not wait for, the
// index arithmetic overlapping them. loop_cycles' default.
func joinOutputCycles() int64 { return 2 * joinStoreCycles }

// joinOutputChildCycles() is a join_output thread
// (joinCdpThreadOutputKernel, join/joinCdpThread.h:21-27 at 1397e03): its
// output id, the bounds check against the count, two stores and the wait
// for their acknowledgement, a CTA's base (joinCTABaseCycles).
func joinOutputChildCycles() int64 { return joinCTABaseCycles }

// joinStoreAckCycles is a warp's last store and the wait for its
// acknowledgement before it retires: the store's issue and a round trip.
func joinStoreAckCycles() int64 { return joinStoreCycles + joinGatherCycles }

// joinCopyCycles() is one iteration of join_gather's copy loop:
// "leftOut[beginIndex + i] = leftBegin[i]; rightOut[beginIndex + i] =
// rightBegin[i]" (join/joinRegDevice.h:403-404 at 1397e03), which nvcc
// 11.8's sm_35 PTX runs as ld.global, st.global, ld.global, st.global.
// GPGPU-Sim issues a warp's instructions in order and holds an
// instruction whose source register a load has yet to write ("if
// (!m_scoreboard->checkCollision(warp_id, pI))" on the head of its
// instruction buffer, scheduler_unit::cycle, src/gpgpu-sim/shader.cc:1330
// at 667834cf), so the first store waits for its
// load's round trip and the second load, behind it, starts only then:
// two round trips and two store issues a trip, where the model charged
// one probe iteration (joinEntryCycles, 40: "consecutive, so mostly L1
// hits"; the captured GPU skips the L1 for global loads,
// -gpgpu_gmem_skip_L1D 1).
func joinCopyCycles() int64 { return 2 * (joinGatherCycles + joinStoreCycles) }

// joinCosts are the join cost models' invented constants that the merge
// join (algo=merge, the papers' benchmark) charges, which join's
// parameters set; the measured ones (joinBoundsStepCycles,
// joinPrefixStepCycles, joinIssueCycles: solved again beside them), the
// hash join's own, and idleWarpCycles (no warp of the merge join's
// kernels is idle at the experiments' sizes) stay fixed.
var joinCosts = []costConst{
	cost("gather_cycles", &joinGatherCycles, "a dependent load at a data-dependent address (a global round trip)"),
	cost("store_cycles", &joinStoreCycles, "a store the warp does not wait for"),
	cost("stage_sync_cycles", &joinStageSyncCycles, "join_main's shared-memory stores and barrier, a block loop trip"),
	cost("search_step_cycles", &joinSearchStepCycles, "one step of join_main's binary search in shared memory"),
}

// The captured times join's two fits solve for, in the trace's 706 MHz
// cycles (capture dragonli-join-1024): a warm scanBlocks and a
// joinRegFindBoundsKernel CTA.
const (
	joinPrefixCaptured = 1102
	joinBoundsCaptured = 5867
)

// joinCTABaseCaptured is the least join_gather CTA of an empty partition
// in capture dragonli-join-1024, in its 837 MHz cycles (joinCTABaseCycles).
const joinCTABaseCaptured = 240

// joinPrefixFit is joinPrefixStepCycles solved from the capture: what the
// warm scanBlocks CTA leaves after its base, its awaited store, its code's
// refetch and its instructions past the base's, over its 8 steps; a
// latency, so none when that is negative. A run that sets gather_cycles or
// store_cycles solves it again (joinRefit).
func joinPrefixFit() int64 {
	left := joinPrefixCaptured - joinCTABaseCycles - joinStoreAckCycles() - joinRefetchCycles(joinScanBlocksColdLines) - joinIssue(joinScanBlocksInsts(128))
	return max(0, roundDiv(left, 8))
}

// joinBoundsFit is joinBoundsStepCycles solved from the capture: what the
// bounds CTA leaves after its load, its store and its cold start (the
// program's first kernel: coldStartCycles of joinBoundsColdLines, 1,928
// cycles), over its 22 steps.
func joinBoundsFit() int64 {
	return roundDiv(joinBoundsCaptured-joinCTABaseCycles-joinStoreAckCycles()-coldStartCycles(joinBoundsColdLines), 22)
}

// joinRefit solves join's fitted constants again from the invented ones
// they were fitted beside: the issue cost on join_main (with the prefix
// step at none), then the prefix step and the bounds' search step beside
// it.
func joinRefit() {
	joinPrefixStepCycles = 0
	joinIssueCycles = joinIssueFit()
	joinPrefixStepCycles, joinBoundsStepCycles = joinPrefixFit(), joinBoundsFit()
}

// joinLoopDefault is loop_cycles' iteration at its default:
// joinOutputCycles() as the package starts, whatever store_cycles a run
// sets.
var joinLoopDefault = joinOutputCycles()

// join_gather's first wave (docs/calibration.md, "JOIN's join_gather").
// Every warp of joinRegGatherKernel first reads its 7 parameters and
// loads its partition's two histogram offsets, "devHistogram[blockIdx.x]"
// and "[blockIdx.x + 1]" (join/joinRegDevice.h:393-394 at 1397e03): 7
// ld.param and 2 ld.global a warp in nvcc 11.8's sm_35 PTX, every lane
// the same address. The kernel's first wave starts together (16 CTAs an
// SMX), and two queues stand between a warp and its offsets.
//
// The SM's memory port: GPGPU-Sim takes one memory instruction a cycle
// into an SM's load/store unit ("-gpgpu_pipeline_widths
// 6,4,0,2,1,6,4,0,2,1,12": ID_OC_MEM and OC_EX_MEM 1), the parameter
// loads included (they read the L1 constant cache there,
// ldst_unit::constant_cycle, src/gpgpu-sim/shader.cc:2212-2215 at
// 667834cf), so the wave's 9 memory instructions a warp on an SM take
// that many cycles (joinWaveLDSTCycles).
//
// The histogram's banks: a 128-byte line holds the offsets of 32 CTAs,
// and the captured configuration puts each 128-byte line on one memory
// sub-partition ("-gpgpu_mem_addr_mapping dramid@8;…RBBBCCCC.BCCSSSSS":
// the chip from bit 8, the sub-partition bit 7, sub_partition_id_mask
// 0x80 in the log), so a bank takes 32 × warps × 2 requests of the wave
// at once (256 for 128-thread CTAs; in dragonli-join-1024 the 8 banks 0,
// 1 and 18–23 took 2,297 of the kernel's 3,408 accesses), delivered to it
// by the interconnect at the rate joinBankRequestMilli measures
// (joinHistQueueCycles).
//
// A first-wave warp adds both, a stall that issues nothing; the CTAs that
// start later find neither queue.
const (
	// joinGatherWaveMemInsts: each warp's ld.param (7) and its two
	// histogram loads, the memory instructions before the offsets are
	// used.
	joinGatherWaveMemInsts = 9

	// joinHistLineCTAs is the CTAs whose histogram offsets (4-byte
	// SizeType) share a 128-byte line, and so a bank.
	joinHistLineCTAs = coldLineBytes / 4
)

// The interconnect's rate into a histogram bank, measured in capture
// dragonli-join-1024 (837 MHz cycles): its join_gather's longest wait
// from an SM into a memory partition, 476 cycles (the log's
// max_icnt2mem_latency, 300 before the kernel), over the unloaded
// network's 7 (avg_icnt2mem_latency of the kernels before it), for the
// 256 requests its busiest banks took from the wave (32 CTAs, 4 warps, 2
// loads).
const (
	joinHistQueueCaptured = 476
	joinIcntUnloaded      = 7
	joinHistQueueRequests = 256
)

// joinBankRequestMilli is what one request ahead of a first-wave load at
// its bank costs it, in thousandths of the trace's 706 MHz cycles: (476 −
// 7) / 256 = 1.83 cycles at 837 MHz, 1.55 at 706. The sub-partition pops
// one a cycle ("mem_fetch *mf = (mem_fetch
// *)icnt_pop(m_shader_config->mem2device(i))", gpu-sim.cc:1985); the rest
// is the crossbar's (config_kepler_islip.icnt: one virtual channel an
// input, internal_speedup 2.0, iSLIP).
const joinBankRequestMilli = (joinHistQueueCaptured - joinIcntUnloaded) * 706 * 1000 / (837 * joinHistQueueRequests)

// joinWaveLDSTCycles is the SM's memory port's queue in a first wave of
// wave CTAs of block threads: the CTAs an SMX holds of it (wave over the
// K20c's 13), their warps' joinGatherWaveMemInsts each, one a cycle, in
// the trace's 706 MHz cycles as the captures' cycles are read.
func joinWaveLDSTCycles(wave, block int) int64 {
	insts := int64(ceilDiv(wave, k20cSMs) * ceilDiv(block, warpSize) * joinGatherWaveMemInsts)
	return roundDiv(insts*706, 837)
}

// joinHistQueueCycles is the wait of the last of a histogram bank's
// requests in a first wave of wave CTAs of block threads: the CTAs a line
// holds (at most the wave's), their warps' two loads each, at
// joinBankRequestMilli a request.
func joinHistQueueCycles(wave, block int) int64 {
	requests := int64(min(joinHistLineCTAs, wave) * ceilDiv(block, warpSize) * 2)
	return roundDiv(requests*joinBankRequestMilli, 1000)
}

// joinGatherWaveCycles is what each warp of join_gather's first wave of
// wave CTAs of block threads waits and issues nothing in: the SM's memory
// port, then the histogram bank.
func joinGatherWaveCycles(wave, block int) int64 {
	return joinWaveLDSTCycles(wave, block) + joinHistQueueCycles(wave, block)
}
