package samples

// The spmm cost model, in K20c core cycles (the trace's clock_mhz, 706),
// modelled rather than measured, with the same GK110 memory latencies as
// the bfs model (bfscost.go). The parent computes C[i,:] += a·B[k,:] for
// each nonzero (k, a) of its row i; a child thread computes one C[i,j].
var (
	// spmmRowBaseCycles is what every spmm_row thread spends before its
	// first nonzero: load row_offsets[i] and row_offsets[i+1] (one
	// transaction), a global-memory round trip, then the loop setup. A
	// launching lane reaches its launch site at this point.
	spmmRowBaseCycles int64 = 150

	// spmmInlineElemCycles is one element of the parent's row update, for
	// one nonzero and one column j: load B[k][j] and C[i][j], one FFMA,
	// store C[i][j]. Lanes of a warp work on different rows, so each of
	// those loads splits into up to 32 transactions (L1 hits mostly, as each
	// lane streams along its own rows); successive iterations overlap, so
	// the amortised cost is a fraction of a round trip.
	spmmInlineElemCycles int64 = 16

	// spmmIdleWarpCycles is a warp with nothing to do (past the last row,
	// or past the last column of a child): compute its index, compare, exit.
	spmmIdleWarpCycles int64 = 20

	// spmmColBaseCycles is what an spmm_col thread spends outside its loop:
	// compute its column from blockIdx and threadIdx, load the row's
	// offsets (one round trip), and store C[i][j] (coalesced across the
	// warp) at the end.
	spmmColBaseCycles int64 = 160

	// spmmColNnzCycles is one nonzero of a child thread's dot product: the
	// nonzero's column index and value are the same address for every lane
	// (one broadcast transaction, cached after the first warp), then
	// B[k][j..j+31] is one coalesced 128-byte transaction and an FFMA. The
	// loads of successive nonzeros are independent and overlap.
	spmmColNnzCycles int64 = 12
)

// spmmColBlock is the spmm_col child's CTA size: 64 threads, one column
// each, the fine-grained device-kernel shape of DTBL §2 (as bfs_expand).
// SPAWN's Figure 7 finds MM insensitive to the child CTA size.
const spmmColBlock = 64

// Register counts of the two kernels, typical of what nvcc gives such
// loops; they matter only through occupancy, and neither limits it here.
const (
	spmmRowRegs = 32
	spmmColRegs = 20
)

// spmmRowWarpCycles is the time of one spmm_row warp whose active lanes
// hold rows of the given lengths. Rows longer than threshold launch a child
// instead of looping; the rest update their C row for each nonzero, and
// the warp waits for its longest looping lane. Launch-site work is
// excluded, as the trace's cta.cycles requires.
func spmmRowWarpCycles(nnz []int32, cols, threshold int) int64 {
	if len(nnz) == 0 {
		return spmmIdleWarpCycles
	}
	longest := int64(0)
	for _, n := range nnz {
		if int(n) <= threshold {
			longest = max(longest, spmmInlineCycles(int(n), cols))
		}
	}
	return spmmRowBaseCycles + longest
}

// spmmInlineCycles is what a lane adds to its warp by updating its C row
// for each of its nnz nonzeros itself, where the row is under the
// threshold (a launch site's inline_cycles is its child's by the
// lane-loop rule, spmmTrace.col).
func spmmInlineCycles(nnz, cols int) int64 {
	return int64(nnz) * int64(cols) * spmmInlineElemCycles
}

// spmmColWarpCycles is the time of one spmm_col warp with active lanes,
// each taking the dot product of a row of nnz nonzeros with one column.
func spmmColWarpCycles(active, nnz int) int64 {
	if active == 0 {
		return spmmIdleWarpCycles
	}
	return spmmColBaseCycles + int64(nnz)*spmmColNnzCycles
}

// spmmCosts are the spmm cost model's constants, all invented, which its
// parameters set: all but spmmIdleWarpCycles, which no warp of the
// experiments' inputs pays.
var spmmCosts = []costConst{
	cost("row_base_cycles", &spmmRowBaseCycles, "an spmm_row thread before its first nonzero (and a launching lane's site)"),
	cost("inline_elem_cycles", &spmmInlineElemCycles, "one element of the parent's row update"),
	cost("col_base_cycles", &spmmColBaseCycles, "an spmm_col thread outside its loop"),
	cost("col_nnz_cycles", &spmmColNnzCycles, "one nonzero of an spmm_col thread's dot product"),
}
