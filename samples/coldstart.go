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
// being the 128-byte lines of its code an SM fetches, as GPGPU-Sim's log
// counts them (the kernel's INST_ACC_R requests to the L2, four 32-byte
// sectors a line, over the SMs that ran it), or, for sssp_relax, as its
// code's PCs give them for each path a warp takes (dlKernel's coldChunk,
// coldSite and coldLoop: the lines only some warps run). A replayed
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

// The code footprints, measured in GPGPU-Sim's logs (docs/calibration.md,
// "A kernel's cold start"): the lines an SM fetched for the kernel's
// first launch.
const (
	// joinMainColdLines: dragonli-join-1024's join_main (Dragon_li's
	// joinCdpMainJoinKernel, 721 PTX instructions, 45 lines of 128
	// bytes): 1,632 instruction sectors at the L2 (408 lines) over 14
	// SMs, 29 a SM; 36 distinct lines came from DRAM.
	joinMainColdLines = 29
	// joinBoundsColdLines: the same capture's join_bounds
	// (joinRegFindBoundsKernel, 131 PTX instructions): 64 sectors, 16
	// lines over its 2 SMs, 8 a SM, all from DRAM (the program's first
	// kernel).
	joinBoundsColdLines = 8
	// The scans' (util/primitive.h's scanBlocks, scanTotals and
	// scanDistribute, 84, 92 and 20 PTX instructions) in the same capture's
	// first prefix scan: 12 lines over 2 SMs, 7 over 1 and 4 over 2, of
	// which 6, 6 and 1 from DRAM.
	joinScanBlocksColdLines     = 6
	joinScanTotalsColdLines     = 7
	joinScanDistributeColdLines = 2
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
	// launches, 11 lines from DRAM, 8 of them sssp_relax's.
	ssspRelaxColdLines     = 6
	ssspRelaxSiteColdLines = 1
	ssspRelaxLoopColdLines = 1
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
	// adds none. dragonli-sssp-sample-reg's first relaxation: its empty
	// CTAs 743 cycles and more against 171 warm, 572, two lines at the
	// 286 the CDP kernel's empty ones pay a line.
	ssspRegColdLines      = 2
	ssspRegChunkColdLines = 2
)

// The captured cold start coldLineCycles is fitted on, in the 837 MHz
// cycles of capture dragonli-join-1024: join_main's first wave (CTAs
// 0–55, 4 an SM on 14 SMs) takes 8,087 cycles a CTA on average, its
// CTAs 56–203 (the later ones with a partition) 2,230.
const (
	coldFirstWaveCaptured = 8087
	coldLaterCaptured     = 2230
)

// coldLineCycles is what a line of a kernel's code fetched from DRAM
// costs its SM's first CTAs: join_main's first-wave excess over its later
// CTAs, 5,857 cycles at 837 MHz (4,940 at the K20c's 706), over the 29
// lines an SM fetched: 170. The one constant fitted, on the calibration
// capture; the held-out checks are join_main at 30,720 keys and sssp's
// first relaxation (docs/calibration.md).
var coldLineCycles = roundDiv((coldFirstWaveCaptured-coldLaterCaptured)*706, 837*joinMainColdLines)

// coldStartCycles is what each warp of a first-wave CTA adds for a code
// of lines lines an SM fetches from DRAM, one after another.
func coldStartCycles(lines int) int64 { return int64(lines) * coldLineCycles }

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
