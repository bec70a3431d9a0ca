package samples

import "math/bits"

// The cost model of code=dragonli (amrdragonli.go), in K20c core cycles
// (the trace's clock_mhz, 706), sized from GK110 latencies as the other
// generators' models are: a coalesced global round trip ~100 cycles, an
// L2 atomic ~120, a shared-memory access ~20, a dependent double-precision
// operation ~10. Every kernel of the source runs the same per-cell steps
// (amrRegCtaRefine, amrCdpCtaRefine, amrCdpThreadRefineKernel); each
// constant is one of them. Change them here only.
var (
	// amrDLTempCycles is one sub-cell's value and its store: the source's
	// computeTemperature (the index's x, y, z by shifts and masks, three
	// double divisions, (energy-962.62)/(d²+2), /100000 and /4.6, which
	// nvcc keeps as divisions, and a double sqrt, each an iterative
	// sequence of ~8 dependent double FMAs, ~80 cycles; ~12 further
	// dependent double operations and float↔double conversions, ~120)
	// and the store of the float, ~20 to issue. It is one iteration of the
	// Reg code's refine loop and a CDP child thread's first step.
	amrDLTempCycles int64 = 460

	// amrDLLoadCycles is a thread's look at its cell: load its value and
	// its pointer (two coalesced loads in flight together, one round trip),
	// store -2 (processed) and compare the value with the threshold.
	amrDLLoadCycles int64 = 120

	// amrDLScanStepCycles is one step of the source's prefixSumCta: a
	// shared-memory read and add, __syncthreads, the shared write and
	// __syncthreads again, two shared-memory accesses of ~20 cycles around
	// the barriers (twcElectCycles' estimate). The scan's first store and
	// barrier and its final read count as one more step.
	amrDLScanStepCycles int64 = 40

	// amrDLClaimCycles is thread 0's atomicAdd on the output counter (an
	// L2 round trip), made only when a lane of the CTA refines.
	amrDLClaimCycles int64 = 120

	// amrDLBarrierCycles is the __syncthreads after the claim and every
	// thread's read of the shared globalOffset.
	amrDLBarrierCycles int64 = 40

	// amrDLOverflowCycles is every thread's overflow check, a load of the
	// output counter (one round trip; the line is in L2).
	amrDLOverflowCycles int64 = 100

	// amrDLEnergyCycles is a refining thread's pointer store and
	// computeEnergy: a double division by 100000 (~80) and a few dependent
	// double multiply-adds and conversions (~50).
	amrDLEnergyCycles int64 = 130
)

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

// amrCosts are the code=dragonli cost model's constants, all invented,
// which amr's parameters set (code=fronts's, amrcost.go, are not
// parameters: no experiment runs that code).
var amrCosts = []costConst{
	cost("temp_cycles", &amrDLTempCycles, "one sub-cell's computeTemperature and store (code=dragonli)"),
	cost("load_cycles", &amrDLLoadCycles, "a thread's look at its cell (code=dragonli)"),
	cost("scan_step_cycles", &amrDLScanStepCycles, "one step of prefixSumCta (code=dragonli)"),
	cost("claim_cycles", &amrDLClaimCycles, "thread 0's atomicAdd on the output counter (code=dragonli)"),
	cost("barrier_cycles", &amrDLBarrierCycles, "the barrier after the claim (code=dragonli)"),
	cost("overflow_cycles", &amrDLOverflowCycles, "every thread's overflow check (code=dragonli)"),
	cost("energy_cycles", &amrDLEnergyCycles, "a refining thread's pointer store and computeEnergy (code=dragonli)"),
	cost("idle_warp_cycles", &idleWarpCycles, "a warp with nothing to do"),
}
