package samples

// The amr cost model, in K20c core cycles (the trace's clock_mhz, 706),
// sized from GK110 latencies like the bfs model (bfscost.go). A thread
// evaluates one cell; a refining thread either evaluates its sub-cells in a
// loop or launches amr_refine over them. Change them here only.
const (
	// amrCellCycles is one cell evaluation: load the cell's state
	// (temperature and species, one coalesced round trip, ~100 cycles) and
	// its four neighbours' (mostly shared-memory and L1 hits, ~40), compute
	// the Arrhenius heat-release rate (an exponential on the SFU and a few
	// dozen flops, ~60), the error indicator against the neighbours (~20)
	// and store the result (~20). A thread refining in a loop pays the same
	// per sub-cell: consecutive sub-cells share cache lines, as a child
	// warp's lanes do.
	amrCellCycles = 240

	// amrRefineCycles is what a refining thread adds before its sub-cells
	// are evaluated, whoever evaluates them: claim ratio² cells from the
	// cell pool with an atomicAdd on its counter (an L2 round trip) and
	// link them from the parent cell. A launching lane reaches its launch
	// site after it.
	amrRefineCycles = 120

	// amrCellBytes is a cell's state in the pool and in the shared-memory
	// tile: temperature, two species mass fractions and the heat-release
	// rate, four floats.
	amrCellBytes = 16

	// amrRefineRegs is amr_refine's register count per thread: the
	// reaction-rate arithmetic keeps more values live than the graph
	// kernels' loops, typical of what nvcc gives such code.
	amrRefineRegs = 40
)

// amrSmem is amr_refine's shared memory per CTA: the ratio×ratio tile of
// cells plus a one-cell halo, from which each thread reads its neighbours.
func amrSmem(ratio int) int64 {
	return int64((ratio+2)*(ratio+2)) * amrCellBytes
}

// amrLaneCycles is what a thread spends on its cell when it does its
// refinement (of subtree sub-cells, none if the cell does not refine)
// itself, or, with launch set, when it launches a child to do it.
func amrLaneCycles(refines bool, subtree int, launch bool) int64 {
	c := int64(amrCellCycles)
	if refines {
		c += amrRefineCycles
	}
	if !launch {
		c += amrInlineCycles(subtree)
	}
	return c
}

// amrInlineCycles is what evaluating subtree sub-cells in a loop costs the
// thread: a launch site's inline_cycles.
func amrInlineCycles(subtree int) int64 {
	return int64(subtree) * amrCellCycles
}
