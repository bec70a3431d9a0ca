package samples

import (
	"math"
	"math/bits"
)

// The cost model of code=dragonli (amrdragonli.go), in K20c core cycles
// (the trace's clock_mhz, 706). Every kernel of the source runs the same
// per-cell steps (amrRegCtaRefine, amrCdpCtaRefine,
// amrCdpThreadRefineKernel); each constant is one of them. Three are
// measured on GPGPU-Sim's runs of the source at testAmr's defaults
// (validation/gpgpusim/whatif, captures dragonli-amr-cdp and -reg; Kepler
// Titan, 837 MHz, converted by time as the other Dragon_li costs are) and
// solved beside the four invented ones, which stay GK110 estimates (a
// shared-memory access ~20 cycles, an L2 round trip ~100, an atomic
// ~120): the capture times a CTA, not the steps inside it, and no CTA of
// either run separates the scan, the barrier, the overflow check or the
// claim from the steps around them. Change them here only.
var (
	// amrDLTempCycles is one sub-cell's value and its store: the source's
	// computeTemperature and the store of the float. It is one iteration
	// of the Reg code's refine loop (amrRegDevice.h:110-115 at 1397e03)
	// and a CDP child thread's first step (amrCdpThread.h:38-44), the same
	// function over the same refineId in both. Measured (amrDLTempFit):
	// 1,173 cycles, 1,391 at 837 MHz, the longest step, as GPGPU-Sim's
	// Kepler Titan config makes it: the function's three double divisions
	// (by the distance, by 100000 and by 4.6) are PTX div.rn.f64 at 330
	// cycles each and its sqrt an SFU operation at 200
	// (-ptx_opcode_latency_dp 8,19,8,8,330, -ptx_opcode_latency_sfu 200),
	// one dependent chain: those four alone are 1,190 of the 1,391.
	amrDLTempCycles = amrDLTempFit()

	// amrDLLoadCycles is a thread's look at its cell: load its value and
	// its pointer (two loads in flight together, one round trip), store -2
	// (processed) and compare the value with the threshold. Measured
	// (amrDLLoadFit), beside the scan, barrier and overflow check, which
	// the captures do not separate from it: it also holds what a CTA
	// pays that the model has no term for, its start and the
	// acknowledgement of its warps' last stores (GPGPU-Sim retires a warp
	// only when its stores are done, as joinStoreAckCycles says).
	amrDLLoadCycles = amrDLLoadFit()

	// amrDLScanStepCycles is one step of the source's prefixSumCta: a
	// shared-memory read and add, __syncthreads, the shared write and
	// __syncthreads again, two shared-memory accesses of ~20 cycles around
	// the barriers (twcElectCycles' estimate). The scan's first store and
	// barrier and its final read count as one more step. Invented.
	amrDLScanStepCycles int64 = 40

	// amrDLClaimCycles is thread 0's atomicAdd on the output counter (an
	// L2 round trip), made only when a lane of the CTA refines. Invented:
	// the captures give it only with the energy (amrDLEnergyFit).
	amrDLClaimCycles int64 = 120

	// amrDLBarrierCycles is the __syncthreads after the claim and every
	// thread's read of the shared globalOffset. Invented.
	amrDLBarrierCycles int64 = 40

	// amrDLOverflowCycles is every thread's overflow check, a load of the
	// output counter (one round trip; the line is in L2). Invented.
	amrDLOverflowCycles int64 = 100

	// amrDLEnergyCycles is a refining thread's pointer store and
	// computeEnergy (a double division by 100000, div.rn.f64 at 330 cycles
	// in the config, and a few dependent double operations). Measured
	// (amrDLEnergyFit): what a refining CTA takes over one that refines
	// nothing, less the claim.
	amrDLEnergyCycles = amrDLEnergyFit()
)

// The captured CTAs the three measured costs are solved from, in the
// captures' 837 MHz cycles (dragonli-amr-cdp and dragonli-amr-reg,
// validation/gpgpusim/whatif; TestAMRFitsCapture holds the model to
// them). Level 3's 756 children launch nothing (amrCdpThread.h:95-96 at
// refineLevel 4), so their CTAs hold no device-runtime call; each is one
// warp over 32 sub-cells, and the tree says which of them hold a
// refining cell: 290 hold none, 466 one or more.
const (
	// amrDLLeafCaptured is the mean of level 3's 290 children with no
	// refining cell: 629,992 cycles over 290 (2,162 to 2,226 each).
	amrDLLeafCaptured = 629992.0 / 290
	// amrDLLeafRefineCaptured is the mean of the other 466: 1,269,140
	// over 466 (2,712 to 2,784 each).
	amrDLLeafRefineCaptured = 1269140.0 / 466
	// amrDLRegLoopCaptured is the Reg run's second amrRegRefineKernel's
	// CTA 0, warm: one warp over level 1's 32 cells, all refining, each
	// lane looping over its 32 sub-cells, and the empty pass after.
	amrDLRegLoopCaptured = 46587.0
)

// amrDLCycles converts a captured time at 837 MHz to the trace's 706
// MHz cycles.
func amrDLCycles(captured float64) float64 { return captured * 706 / 837 }

// amrDLTempFit solves a sub-cell's cost from the three captured CTAs
// and the invented steps (S the scan over a CTA, B the barrier, O the
// overflow check, C the claim):
//
//	leaf        = T + L + S(32) + B + O
//	leafRefine  = leaf + C + E
//	regLoop     = L + S(256) + C + B + O + E + 32·T  (the chunk's pass)
//	            + S(256) + B + O                      (the empty pass)
//
// so 31·T = regLoop − leafRefine − 2·S(256) + S(32) − B − O, S(256) the
// captured run's 256-thread CTAs' scan. A run that sets an invented step
// solves it again (amrRefit), so the captured CTAs keep their times,
// unless the steps set outgrow the captured CTAs: each fit stops at 0.
func amrDLTempFit() int64 {
	t := amrDLCycles(amrDLRegLoopCaptured) - amrDLCycles(amrDLLeafRefineCaptured) -
		float64(2*amrDLScanCycles(256)-amrDLScanCycles(amrDLChildThreads)+amrDLBarrierCycles+amrDLOverflowCycles)
	return max(0, int64(math.Round(t/(amrDLRefine-1))))
}

// amrDLLoadFit is the look: a childless leaf's CTA less its sub-cell,
// scan, barrier and overflow check.
func amrDLLoadFit() int64 {
	return max(0, int64(math.Round(amrDLCycles(amrDLLeafCaptured)))-amrDLTempFit()-
		amrDLScanCycles(amrDLChildThreads)-amrDLBarrierCycles-amrDLOverflowCycles)
}

// amrDLEnergyFit is a refining leaf's CTA over a childless one, less the
// claim: the two captured means differ by 551 cycles (465 at 706 MHz).
func amrDLEnergyFit() int64 {
	return max(0, int64(math.Round(amrDLCycles(amrDLLeafRefineCaptured)-amrDLCycles(amrDLLeafCaptured)))-amrDLClaimCycles)
}

// amrRefit solves amr's measured constants again from the invented ones
// they were fitted beside.
func amrRefit() {
	amrDLTempCycles, amrDLLoadCycles, amrDLEnergyCycles = amrDLTempFit(), amrDLLoadFit(), amrDLEnergyFit()
}

const (
	// amrDLRegs is every kernel's register count per thread. The source
	// launches its persistent kernels as 104 CTAs of 256 threads on the
	// 13-SMX K20c, 8 CTAs and 2,048 threads an SMX, the most that can be
	// resident; that fits the 65,536-register file only at 32 registers a
	// thread, so the configuration says the kernels were built to it.
	amrDLRegs = 32

	// amrDLTempInsts is the warp instructions of one amrDLTempCycles: ~12
	// for each division and the sqrt, ~8 other double operations and
	// conversions, ~8 integer ones for the index, the store and the loop's
	// ~3.
	amrDLTempInsts = 60
)

// amrDLScanCycles is prefixSumCta over a CTA of threads: one step per
// doubling up to the CTA's size, and one more (amrDLScanStepCycles).
func amrDLScanCycles(threads int) int64 {
	return int64(bits.Len(uint(threads-1))+1) * amrDLScanStepCycles
}

// amrDLSmem is a kernel's shared memory per CTA: prefixSumCta's array of
// one 4-byte int per thread and the shared globalOffset.
func amrDLSmem(threads int) int64 {
	return int64(threads)*4 + 4
}

// amrCosts are the code=dragonli cost model's invented constants, which
// amr's parameters set; the measured ones above are solved again
// (amrRefit). code=fronts's (amrcost.go) are not parameters: no
// experiment runs that code.
var amrCosts = []costConst{
	cost("scan_step_cycles", &amrDLScanStepCycles, "one step of prefixSumCta (code=dragonli)"),
	cost("claim_cycles", &amrDLClaimCycles, "thread 0's atomicAdd on the output counter (code=dragonli)"),
	cost("barrier_cycles", &amrDLBarrierCycles, "the barrier after the claim (code=dragonli)"),
	cost("overflow_cycles", &amrDLOverflowCycles, "every thread's overflow check (code=dragonli)"),
	cost("idle_warp_cycles", &idleWarpCycles, "a warp with nothing to do"),
}
