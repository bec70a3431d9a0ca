package samples

import "math/bits"

// A warp's instructions, and a warm kernel's code fetched again. The merge
// join's latencies (joinmergecost.go) are round trips, barriers and
// divisions; what a warp also pays is its instructions one after another,
// and, where the SM's L1I has held another kernel's code since the
// kernel last ran, the fetch of its code from the L2.
//
// GPGPU-Sim issues a warp's instructions in order, at most two a cycle
// ("-gpgpu_max_insn_issue_per_warp 2"), and holds the head of its
// instruction buffer while a source register awaits a result ("if
// (!m_scoreboard->checkCollision(warp_id, pI))", scheduler_unit::cycle,
// src/gpgpu-sim/shader.cc:1330 at 667834cf); an integer result is written
// back after its unit's latency ("-ptx_opcode_latency_int 4,13,4,5,145,32")
// and the operand collector's stages. A CTA of the join's kernels has 4
// warps, each on its own scheduler of the SM's 4 ("-gpgpu_num_sched_per_core
// 4"), so a warp's instruction chain is its time, and the CTA's is its
// longest warp's, the barriers making the others wait for it.
//
// The model: a warp instruction on the CTA's longest warp's path costs
// joinIssueCycles beyond the latencies priced elsewhere, counted past the
// joinCTABaseInsts the CTA's base (joinCTABaseCycles, a measured CTA)
// already holds. The counts are the paths through the PTX GPGPU-Sim ran
// (nvcc 11.8's sm_35 PTX of Dragon_li 1397e03, eight bytes an
// instruction: "m_inst_size = 8", src/cuda-sim/ptx_ir.cc:1236), checked
// against the log's warp instructions a kernel (gpgpu_n_tot_w_icount's
// differences) where a kernel's warps run one path.

// The paths, in warp instructions.
const (
	// joinCTABaseInsts is join_gather's empty CTA (joinRegGatherKernel
	// past CTA 0 with no output): seven parameter loads, the two offsets'
	// loads and their test, the exit test, ret: 22, the CTA
	// joinCTABaseCycles is measured on.
	joinCTABaseInsts = 22

	// scanBlocks (util/primitive.h): 24 to the prefix sum's first step,
	// 7 a step of prefixSumCta (setp, bra, ld.shared, add, bar.sync,
	// st.shared, bar.sync) over 7 steps, 8 for the last one and the total,
	// then the result's load, store and the CTA total's store: 81 on
	// thread 0's warp; the log's 636 over 8 warps, 79.5.
	joinScanBlocksInsts128 = 81
	// scanTotals: the two divisions and the loop's entry (10), its set-up
	// (9), a trip as scanBlocks' with the carry and ret: 89 (the log's
	// 356 over 4 warps); a further trip of its loop, 69 (89 less the 20
	// outside it).
	joinScanTotalsInsts128  = 89
	joinScanTotalsTripInsts = 69
	// scanDistribute: 20 a warp with values (the log's 160 over 8 warps).
	joinScanDistributeInsts = 20

	// prefixSumCta: the first store (3 with its test), the barrier and the
	// first step's load and add (6), six of 7 that end a step and begin
	// the next, the last step's end with the total and the offset's load
	// (8), and the barrier after (3): 62 at 128 threads, 13 and 7 for
	// each of log2(block) steps, in scanBlocks' path and join_main's.
	joinPrefixStepInsts = 7
	joinPrefixEndInsts  = 13

	// join_main (joinCdpMainJoinKernel) on the warp of the block's first
	// threads, the longest (the others stage no key and search nothing):
	// its prologue to the test of an empty partition (the partition's
	// bounds and offsets, 43), the block loop's set-up where there is work
	// (36), and epilogue (the count's store, 12); a trip of the block loop
	// staging both blocks, one key a thread, and comparing them (65); a
	// join step's searches' and output loop's set-up and the step's end
	// (34, beside prefixSumCta); and an iteration of either binary
	// search in shared memory (14). An output of the remainder loop (5
	// instructions: 20 an unrolled trip of 4) is not counted: loop_cycles
	// prices the iteration whole.
	joinMainEntryInsts    = 43
	joinMainSetupInsts    = 36
	joinMainEpilogueInsts = 12
	joinMainTripInsts     = 65
	joinMainJoinInsts     = 34
	joinMainSearchInsts   = 14
)

// joinScanBlocksInsts is scanBlocks' longest warp over CTAs of block
// threads: its 81 at 128, a prefix step more or less each doubling.
func joinScanBlocksInsts(block int) int64 {
	return joinScanBlocksInsts128 + joinPrefixInsts(block) - joinPrefixInsts(128)
}

// joinScanTotalsInsts is scanTotals' warp over ctas CTAs' totals, block
// at a time: its 89 at 128 threads and one trip, and 69 a further trip.
func joinScanTotalsInsts(ctas, block int) int64 {
	more := int64(ceilDiv(ctas, block) - 1)
	return joinScanTotalsInsts128 + joinPrefixInsts(block) - joinPrefixInsts(128) + more*(joinScanTotalsTripInsts+joinPrefixInsts(block)-joinPrefixInsts(128))
}

// joinPrefixInsts is prefixSumCta's warp instructions over a block of
// threads.
func joinPrefixInsts(block int) int64 {
	return joinPrefixEndInsts + int64(bits.Len(uint(block-1)))*joinPrefixStepInsts
}

// joinIssue is what n warp instructions on a CTA's longest warp add past
// the base's: (n − joinCTABaseInsts) · joinIssueCycles, rounded, none
// for a path no longer than the base's.
func joinIssue(n int64) int64 {
	return joinIssueAt(n, joinIssueCycles)
}

// joinIssueAt is joinIssue at an issue cost of c cycles an instruction.
func joinIssueAt(n int64, c float64) int64 {
	if n <= joinCTABaseInsts {
		return 0
	}
	return int64(float64(n-joinCTABaseInsts)*c + 0.5)
}

// joinRefetchCycles is a warm scan's code fetched again from the L2: a
// round trip (joinGatherCycles) for each of its lines an SM, one after
// another, since a warp that misses in the L1I fetches nothing more until
// the line arrives ("if (status == MISS) { … set_imiss_pending(); …",
// shader_core_ctx::fetch(), src/gpgpu-sim/shader.cc:921-1023 at 667834cf).
// In capture dragonli-join-1024 the second scanBlocks, scanTotals and
// scanDistribute make 12, 7 and 4 instruction requests at the L2, all
// hits: 6, 7 and 2 lines an SM, the lines of their first run (coldstart.go).
func joinRefetchCycles(lines int) int64 { return int64(lines) * joinGatherCycles }

// joinColdRefetchCycles is what a scan's first (cold) run adds over its
// warm run, which pays the refetch already: DRAM's part of a line over the
// L2's, the whole miss (coldLineCycles, 241) less the L2's round trip
// (100), 141 for each of lines lines from DRAM.
func joinColdRefetchCycles(lines int) int64 {
	return int64(lines) * max(0, coldLineCycles-joinGatherCycles)
}

// joinIssueCycles is the cost of a warp instruction (joinIssue).
// Measured on one kernel: join_main's CTAs after its first wave (56–203)
// in capture dragonli-join-1024, 2,230 cycles a CTA at 837 MHz, 1,881 at
// the trace's 706, against the generator's draw of the same input at the
// same CTAs: what their latencies leave, over their instructions past the
// base's (joinIssueFit). Held out: the scans (their refetch and prefix
// step beside it), join_main at 30,720 keys.
var joinIssueCycles = joinIssueFit()

// The fit's inputs: the capture's join_main CTAs after its first wave
// (coldLaterCaptured, CTAs 56–203), and the input, Dragon_li testJoin's
// defaults.
const (
	joinIssueFitTuples = 1024
	joinIssueFitFrom   = 56
	joinIssueFitTo     = 204
)

// joinIssueFit solves joinIssueCycles and the prefix step together from
// join_main's later CTAs at 1,024 keys and the warm scanBlocks
// (joinPrefixFit): the CTAs' mean latency L, prefix steps P and
// instructions N, and the scan's latency left for its 8 steps and 59
// instructions past the base's, A: c = (target − L − P·A/8) / (N − 22 −
// P·59/8). When that leaves the step a negative latency, the step is none
// and c is join_main's alone: (target − L) / (N − 22).
func joinIssueFit() float64 {
	lat, steps, insts := joinIssueFitCTAs(mergeRates{})
	target := float64(coldLaterCaptured) * 706 / 837
	scanInsts := float64(joinScanBlocksInsts(128) - joinCTABaseInsts)
	a := float64(joinPrefixCaptured - joinCTABaseCycles - joinStoreAckCycles() - joinRefetchCycles(joinScanBlocksColdLines))
	perStep := float64(joinPrefixSteps(128))
	c := (target - lat - steps*a/perStep) / (insts - joinCTABaseInsts - steps*scanInsts/perStep)
	if a-scanInsts*c < 0 {
		c = (target - lat) / (insts - joinCTABaseInsts)
	}
	return c
}

// joinIssueFitCTAs costs join_main's CTAs 56–203 of the generator's draw
// of the fit's input (seed 1) at rates r and returns their mean cycles,
// prefix steps and longest warp's instructions.
func joinIssueFitCTAs(r mergeRates) (cycles, steps, insts float64) {
	cfg := joinConfig{merge: true, rTuples: joinIssueFitTuples, sTuples: joinIssueFitTuples, maxKey: joinIssueFitTuples,
		grid: 240, block: joinOutputBlock, threshold: joinOutputBlock, loopCycles: joinOutputCycles(), seed: 1}
	rng := newRand(cfg.seed)
	left := sortedJoinKeys(rng, cfg.rTuples, cfg)
	right := sortedJoinKeys(rng, cfg.sTuples, cfg)
	t := &mergeTrace{cfg: cfg, left: left, right: right, parts: mergePartitions(left, right, cfg.grid)}
	n := float64(joinIssueFitTo - joinIssueFitFrom)
	for id := joinIssueFitFrom; id < joinIssueFitTo; id++ {
		c := t.costCTA(t.parts[id], 0, r)
		cycles += float64(c.cycles) / n
		steps += float64(c.prefixSteps) / n
		insts += float64(c.insts) / n
	}
	return cycles, steps, insts
}

// joinMainBlockCycles is a join_main trip joining a block of 128 with one
// output a thread, the mixes' loop body (mixes.go): its staging, searches
// of 8 steps, prefix sum and output, and its longest warp's instructions
// for them (a trip's, a join's, 16 search iterations, prefixSumCta's).
func joinMainBlockCycles() int64 {
	insts := joinMainTripInsts + joinMainJoinInsts + 2*8*joinMainSearchInsts + joinPrefixInsts(128)
	return joinStageCycles() + joinSearchCycles(128) + joinPrefixCycles(128) + joinOutputCycles() + joinIssue(joinCTABaseInsts+insts)
}
