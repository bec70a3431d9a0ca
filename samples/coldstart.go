package samples

// A kernel's cold start: the instruction fetch of the first CTAs to run
// its code. GPGPU-Sim fetches a warp's next instructions from the SM's
// L1 instruction cache, one warp a cycle, and a warp that misses waits
// for the line before it fetches again ("if (status == MISS) { …
// m_warp[warp_id]->set_imiss_pending(); …", shader_core_ctx::fetch(),
// src/gpgpu-sim/shader.cc:921-1023 at 667834cf); the miss travels the
// interconnect to the L2 and, the first time the program runs that code,
// on to DRAM. The warps of an SM's first CTAs of a kernel start together
// at its first instruction, so they stall on each line of the code's path
// in turn; the CTAs that come later on the SM find the lines in its L1I
// (4 KB, `-gpgpu_cache:il1 N:8:128:4`) and pay nothing. The CTAs that run
// first are the lowest-numbered: the simulator issues a kernel's CTAs in
// index order ("unsigned ctaid = kernel.get_next_cta_id_single();",
// shader_core_ctx::issue_block2core, src/gpgpu-sim/gpu-sim.cc:1813 at
// 667834cf), one an SM in turn until every SM is full.
//
// The model: the first wave of a kernel's first launch in the program
// (coldWave: the CTAs an empty K20c holds at once, the GPU the generators'
// cycles are in) adds coldStartCycles(lines) to each of its warps, lines
// being the 128-byte lines of its code the warp waits for (the rule
// below), counted on the code's PCs for each path a warp takes
// (dlKernel's coldChunk, coldSite and coldLoop: the lines only some
// warps run; coldAhead and coldSiteAhead: those a warp on a longer path
// finds asked for, less the rest of their misses it still waits), or,
// where every warp takes the same path, as GPGPU-Sim's log counts them
// (the kernel's INST_ACC_R requests to the L2, four 32-byte sectors a
// line, over the SMs that ran it). A replayed
// capture carries its cold start in its CTAs' cycles already; the term
// prices generated work only. Where the trace is replayed on another
// shape (a GPU of other SMs, or beside other kernels) the wave is still
// the K20c's: on the 14-SM GPGPU-Sim configuration of the captures, the
// 14th SM's first CTAs replay warm (join_main's 52–55 of its 56 cold
// ones).
const (
	// coldLineBytes is the L1I line the footprints are counted in.
	coldLineBytes = 128

	// The K20c the generators' cycles are in (model preset k20c: 13
	// SMXs, 16 CTAs, 2048 threads and 64K registers an SMX;
	// TestColdWaveK20c holds these to it).
	k20cSMs          = 13
	k20cCTAsPerSM    = 16
	k20cThreadsPerSM = 2048
	k20cRegsPerSM    = 65536
)

// Which lines a warp waits for, and how long. A warp that misses in the
// L1I fetches nothing until its line arrives
// ("m_warp[warp_id]->set_imiss_pending()", shader_core_ctx::fetch(),
// shader.cc:1006 at 667834cf); a second warp that misses on the same
// line while it is being filled merges into the line's MSHR (the il1's
// `S:2:48`: 2 entries, 48 merged requests) and waits for the same fill
// ("if (!miss_queue_full(0)) { … send_read_request(…)",
// read_only_cache::access, gpu-cache.cc:1899); and the fill wakes each
// merged warp in turn ("m_warp[mf->get_wid()]->clear_imiss_pending()",
// fetch(), shader.cc:925). So the warps of an SM's first CTAs, which
// start together at the kernel's first instruction, wait together for
// each line of the path they share, a whole miss each. Where their paths
// part, a warp that skips code (it holds no item, so it does not wait on
// an item's loads) asks for the lines after the branch first; a warp on
// the longer path that reaches such a line lag cycles later merges on
// its fill and waits only for the rest of it. The rule, counted on each
// kernel's code: a warp waits a whole miss (coldLineCycles) for each
// line of its path that no warp on a shorter path of its SM asks for
// before it, and max(0, miss − lag) (coldPartialCycles) for a line one
// did, lag being what the lagging warp does that the other does not
// between the last fill both waited for (or the point their paths part)
// and the line: its instructions at the generators' issue cost
// (joinIssueCycles) and each global load it waits on, an L2 hit
// (coldLoadCycles; the captures' inputs are copied in before the kernel,
// which fills the L2, `-gpgpu_perf_sim_memcpy 1`). A lag of a whole miss
// or more (a loop, or another line's miss, in between) leaves nothing.
// The warp scheduler's traces (validation/gpgpusim/whatif, the
// -fetch-sm1 and -fetch-sm6 excerpts, all held out) agree
// (docs/calibration.md, "A kernel's cold start"): join_main's slowest
// warp waits for 23 of its 28 lines, one of them (133) in part, the
// other three warps of its CTA for all 20 of theirs; sssp_relax's empty
// warps for all 6 of theirs, CTA 0's vertex warp for 8–10 and 14 whole
// and 11 and 13 in part (97 and 147 cycles at 837 MHz). What the rule
// does not see is a lag between CTAs: another CTA's warps of the SM a
// little ahead on the same path (join_main's lines 92, 105, 107, 108
// and 134, 127–259 cycles), a lead the code does not give (the CTAs
// run the same path; the excerpt keeps one CTA's warps, so what sets
// it is not measured here).

// The code footprints, counted on each kernel's code as GPGPU-Sim lays
// it out (docs/calibration.md, "A kernel's cold start"), and for the
// scans and join_bounds the lines an SM fetched for the kernel's first
// launch in GPGPU-Sim's logs, every warp on the same path.
const (
	// join_main (Dragon_li's joinCdpMainJoinKernel, 721 PTX
	// instructions from PC 0x2cf8, 45 lines of 128 bytes) at 1,024
	// keys: a CTA's partition (4–5 keys a side) is warp 0's alone, so
	// warp 0 loads the left and right caches (lines 96–97, 99–100),
	// searches them (104–105, after the barrier in line 101) and
	// writes its matches (113–114), 28 lines (89–109, 112–116, 133–134);
	// warps 1–3 skip those, 20 lines, and reach lines 98, 101, 106,
	// 115 and 116 first, each while warp 0 runs the code before it that
	// they skip (they wait for it at the barriers in lines 101 and 106,
	// past those lines' fetch). Warp 0, the CTA's slowest, waits for
	// 28 − 5 = 23 lines, joinMainColdLines.
	// dragonli-join-1024's log: 1,632 instruction sectors at the L2 (408
	// lines) over 14 SMs, 29 a SM (the 28 and a line of another CTA's
	// path); 36 distinct lines came from DRAM.
	// Of warp 0's 23, line 133 (the loop's exit past the writes) is one
	// warps 1–3 ask for first, less than a miss ahead: from line 112,
	// where the paths part (0x3818, the writes' test), warp 0 runs the
	// writes (0x3820–0x3920) and its lanes' matches' loop before it,
	// joinMainWriteInsts, and waits for lines 113–114 while warps 1–3
	// wait for 115–116; no load is waited on (the writes are stores).
	// So warp 0 waits the rest of line 133's miss (joinMainTailCold)
	// and 22 lines whole, joinMainColdLines.
	joinMainPathLines    = 28
	joinMainAheadLines   = 5
	joinMainPartialLines = 1
	joinMainColdLines    = joinMainPathLines - joinMainAheadLines - joinMainPartialLines
	// joinBoundsColdLines: the same capture's join_bounds
	// (joinRegFindBoundsKernel, 131 PTX instructions; every thread
	// searches, so its warps share one path): 64 sectors, 16 lines over
	// its 2 SMs, 8 a SM, all from DRAM (the program's first kernel).
	joinBoundsColdLines = 8
	// The scans' (util/primitive.h's scanBlocks, scanTotals and
	// scanDistribute, 84, 92 and 20 PTX instructions) in the same capture's
	// first prefix scan: 12 lines over 2 SMs, 7 over 1 and 4 over 2, of
	// which 6, 6 and 1 from DRAM.
	joinScanBlocksColdLines     = 6
	joinScanTotalsColdLines     = 7
	joinScanDistributeColdLines = 2
	// Of those, the lines their first run fetched from DRAM (the L2's
	// MISS and HIT_RESERVED requests an SM): all 6 of scanBlocks', 6 of
	// scanTotals' 7, 1 of scanDistribute's 2; the others the L2 held
	// already (hits), code run earlier in the program sharing their
	// line. Only those pay DRAM's part of a line (joinColdRefetchCycles).
	joinScanBlocksDRAMLines     = 6
	joinScanTotalsDRAMLines     = 6
	joinScanDistributeDRAMLines = 1
	// sssp_relax (Dragon_li's ssspCdpExpandKernel, 122 PTX instructions)
	// counted on its code as GPGPU-Sim lays it out: PCs 0x400–0x7cf of
	// the program (after memsetKernel's 49 instructions and
	// ssspRegExpandKernel's 79; the log's branch PCs agree), lines 8–15.
	// A warp holding no vertex runs 0x400–0x538 (the prologue and the
	// chunk's bounds), 0x590–0x598, 0x6d8–0x6e0 and 0x7b8–0x7c8 (the
	// tests that skip the launch, the loop and the next chunk): lines
	// 8–11, 13 and 15, ssspRelaxColdLines. A warp whose lane launches
	// fetches the launch's code (0x5a0–0x6d0) too, line 12
	// (ssspRelaxSiteColdLines); one whose lane loops over its own edges
	// the loop's (0x6e8–0x7b0), line 14 (ssspRelaxLoopColdLines).
	// dragonli-sssp-sample's first relaxation, whose one vertex loops,
	// fetched 340 sectors at the L2, 85 lines: 6 on each of 13 SMs and 7
	// on the SM of CTA 0; dragonli-sssp-rmat11-cdp's, whose vertex
	// launches, 11 lines from DRAM, 8 of them sssp_relax's. A warp
	// holding a vertex loads it (line 10) while the SM's empty warps go
	// on: they ask for lines 11, 13 and 15 first (ssspRelaxAheadLines),
	// so it waits for 8–10 and its own branches' 12 and 14 whole, and
	// the rest of 11's and 13's misses (ssspRelaxAheadCycles): past the
	// chunk's test (0x530) the empty warps branch to 0x590 (line 11)
	// while the vertex warp runs 0x538–0x578, 9 instructions, waiting on
	// one load (the frontier's vertex, 0x550, which 0x558 uses); from
	// line 11's fill the empty warps run 0x590–0x598 to line 13 (0x6d8)
	// and the vertex warp 0x580–0x588 first, 2 instructions more, the
	// sub at 0x588 waiting on the edge range's loads. A launching warp
	// reaches 13 inside the launch (0x5a0–0x6d0) after line 12's whole
	// miss, more than a miss late, and 15 comes after the loop: nothing.
	ssspRelaxColdLines     = 6
	ssspRelaxSiteColdLines = 1
	ssspRelaxLoopColdLines = 1
	ssspRelaxAheadLines    = 3
	ssspRelaxVertexLoads   = 1 // line 11's lag
	ssspRelaxVertexInsts   = 9
	ssspRelaxRangeLoads    = 1 // line 13's lag
	ssspRelaxRangeInsts    = 2
	// The Reg kernel (ssspRegExpandKernel, 79 PTX instructions; the sssp
	// generator's variant=flat under code=dragonli) at PCs 0x188–0x3ff of
	// its program, after memsetKernel's 49 (the log's branch PCs agree),
	// lines 3–7; line 3 holds memsetKernel's last instruction (ret at
	// 0x180), which the memset run before it left in every SM's L1I
	// (GPGPU-Sim invalidates an SM's data caches between kernels, not its
	// L1I: shader_core_ctx::cache_invalidate, shader.cc:3668). An empty
	// CTA runs 0x188–0x268 and 0x3e8–0x3f8: lines 4 and 7 cold,
	// ssspRegColdLines. A CTA whose chunk holds vertices tests per thread
	// only after 0x298, so all its warps run 0x270–0x298 and 0x300–0x308
	// too, lines 5 and 6 (ssspRegChunkColdLines); the loop (0x310–0x3e0)
	// adds none, but a warp whose lane loads its vertex and loops reaches
	// line 7 after the warps that skip the loop (ssspRegAheadLines),
	// the loop's loads (a miss or more) later: nothing of it.
	// dragonli-sssp-sample-reg's first relaxation: its empty CTAs 743
	// cycles and more against 171 warm, 572, two lines at the 286 the
	// CDP kernel's empty ones pay a line.
	ssspRegColdLines      = 2
	ssspRegChunkColdLines = 2
	ssspRegAheadLines     = 1
)

// The whole miss of a code line, measured in the 837 MHz cycles of
// capture dragonli-sssp-sample against its rerun with a perfect
// instruction and constant cache (dragonli-sssp-sample-cdp-perfect-icache,
// every other line of the config the capture's): the first relaxation's
// least empty CTA takes 2,016 cycles against 302, 1,714 of instruction
// fetch (no constant misses, no global data) over the 6 lines of its
// path, each of which every one of its warps waits for in full.
const (
	coldMissCaptured = 2016 - 302
	coldMissLines    = ssspRelaxColdLines
)

// join_main's first wave in capture dragonli-join-1024, held out (837
// MHz cycles): CTAs 0–55, 4 an SM on 14 SMs, take 8,087 cycles a CTA on
// average, its CTAs 56–203 (the later ones with a partition) 2,230
// (joinissue.go solves the issue cost on the later ones).
const (
	coldFirstWaveCaptured = 8087
	coldLaterCaptured     = 2230
)

// coldLineCycles is a line a warp waits for in full: the measured miss,
// 1,714 cycles over 6 lines, 285.7 at 837 MHz, 241 at the K20c's 706. No
// constant is fitted: dragonli-sssp-rmat11-cdp's rerun (1,724 over the
// same 6), the Reg code's (572 over 2), join_main's first wave (22 lines
// and the rest of one a warp waits for) and the fetch traces' lags and
// waits are held out (docs/calibration.md).
var coldLineCycles = roundDiv(coldMissCaptured*706, 837*coldMissLines)

// coldStartCycles is what a first-wave warp waits for lines lines of its
// code it reaches first on its SM, one after another.
func coldStartCycles(lines int) int64 { return int64(lines) * coldLineCycles }

// coldLoadCycles is a global load a lagging warp waits on: an L2 hit's
// round trip, the L2's ROP queue (`-gpgpu_l2_rop_latency 120` in the
// captures' config, SM3_KEPLER_TITAN at 837 MHz, where the L2 runs at the
// core's clock), 101 at the K20c's 706 MHz; the interconnect's hops are
// not counted (the fetch traces' loads take 142 cycles at 837 MHz).
var coldLoadCycles = roundDiv(120*706, 837)

// coldLag is how far a warp lags one on a shorter path at a line: loads
// global loads it waits on and insts instructions more, at issue cycles
// an instruction (joinIssueCycles, the generators' issue cost; passed
// in, since join_main's fit of it runs the same code).
func coldLag(loads, insts int, issue float64) int64 {
	return int64(loads)*coldLoadCycles + int64(float64(insts)*issue+0.5)
}

// coldPartialCycles is what a warp waits for a line another warp of its
// SM asked for lag cycles before it: the rest of the miss, nothing past
// it (its request merges on the line's fill: "bool mshr_hit =
// m_mshrs.probe(mshr_addr); … if (mshr_hit && mshr_avail) { …
// m_mshrs.add(mshr_addr, mf);", baseline_cache::send_read_request,
// gpu-cache.cc:1362-1370 at 667834cf, from read_only_cache::access,
// gpu-cache.cc:1899).
func coldPartialCycles(lag int64) int64 { return max(0, coldLineCycles-lag) }

// ssspRelaxAheadCycles is what a warp holding a vertex of sssp_relax's
// first chunk does not wait of an empty warp's path where its SM holds
// an empty warp (dlKernel.coldAhead): lines 11, 13 and 15 whole, less
// the rest of 11's and 13's misses, which it still waits for.
func ssspRelaxAheadCycles(issue float64) int64 {
	return coldStartCycles(ssspRelaxAheadLines) - ssspRelaxVertexCold(issue) - ssspRelaxSiteAheadCycles(issue)
}

// ssspRelaxVertexCold is the rest of line 11's miss a vertex warp waits.
func ssspRelaxVertexCold(issue float64) int64 {
	return coldPartialCycles(coldLag(ssspRelaxVertexLoads, ssspRelaxVertexInsts, issue))
}

// ssspRelaxSiteAheadCycles is line 13's rest, which a launching vertex
// warp, more than a miss late, does not wait (dlKernel.coldSiteAhead).
func ssspRelaxSiteAheadCycles(issue float64) int64 {
	return coldPartialCycles(coldLag(ssspRelaxRangeLoads, ssspRelaxRangeInsts, issue))
}

// joinMainWriteInsts is what join_main's warp 0 runs between line 112's
// fill and line 133 that warps 1–3, which write nothing, do not: the
// writes' set-up and test (0x3820–0x3840 and 0x3908–0x3920, 9
// instructions), the loop's remainder for its lanes' largest count mod 4
// (rem: 0x3848–0x3898, 11, for one, 0x38a0–0x38d8, 8 more, for two,
// 0x38e0–0x3900, 5 more, for three) and its unrolled body (0x3928–0x39c0,
// 20) quads times, counted on the PCs of the code GPGPU-Sim ran (the
// excerpt dragonli-join-1024-fetch-sm1 lists them; its warp 0 writes
// two: 28).
func joinMainWriteInsts(rem, quads int) int {
	return 9 + [4]int{0, 11, 19, 24}[rem&3] + 20*quads
}

// joinMainTailCold is line 133's wait for a first-wave join_main warp 0
// whose lanes write up to rem mod 4 and quads fours of matches in its
// first join step, the other warps none: the rest of the miss past its
// lag (no load waited on).
func joinMainTailCold(rem, quads int, issue float64) int64 {
	return coldPartialCycles(coldLag(0, joinMainWriteInsts(rem, quads), issue))
}

// coldWave is how many of a kernel's CTAs of block threads and regs
// registers a thread dispatch first onto an empty K20c: its 13 SMXs full,
// the occupancy bound by CTAs, threads or registers (shared memory is not
// declared by these generators' kernels and bounds none of them).
func coldWave(block, regs int) int {
	warps := ceilDiv(block, warpSize)
	n := min(k20cCTAsPerSM, k20cThreadsPerSM/(warps*warpSize))
	if regs > 0 {
		n = min(n, k20cRegsPerSM/(regs*warpSize)/warps)
	}
	return k20cSMs * max(n, 1)
}

// coldCTA is the cold start CTA c of a kernel's first launch pays: the
// term where c is in the first wave of wave CTAs, else nothing.
func coldCTA(c, wave, lines int) int64 {
	if c >= wave {
		return 0
	}
	return coldStartCycles(lines)
}
