package samples

// The sa cost model, in K20c core cycles (the trace's clock_mhz, 706),
// modelled rather than measured, with the GK110 memory latencies of the
// bfs model (bfscost.go). A parent thread maps the reads of its section
// one after another: seed lookups, then verification of every candidate,
// inline or by a child with a thread per candidate.
var (
	// saReadCycles is what a parent thread spends loading one read (100
	// bytes: a few independent loads, one round trip of ~100 cycles plus
	// issue) and setting up its candidate list.
	saReadCycles int64 = 150

	// saSeedCycles is one seed lookup: pack k bases into the k-mer code
	// (two integer ops a base), then read the q-gram table's offsets[code]
	// and offsets[code+1] (one transaction, a dependent round trip that
	// misses in cache: the table is tens of MB).
	saSeedCycles int64 = 250

	// saHitCycles is one seed occurrence: load its position (consecutive
	// for one seed, so mostly L1 hits), shift it by the seed's offset, and
	// insert it into the read's candidate set in local memory, which the
	// dedup of candidates needs.
	saHitCycles int64 = 40

	// saCandidateCycles is what verifying one candidate costs before its
	// first DP row: load its start, then the reference window (read length
	// plus the band, ~30 packed words, loads overlapping), one round trip.
	saCandidateCycles int64 = 120

	// saStepCycles is one row of the banded verification, one read base
	// against the band: with the band in one machine word, as BitMapper's
	// bit-vector verifier keeps it, about 15 integer ops (Hyyrö's banded
	// Myers step) with dual issue, plus shifting the next reference base in.
	saStepCycles int64 = 12

	// saChildBaseCycles is what an sa_verify child thread spends outside
	// its verification: its candidate index from blockIdx and threadIdx,
	// the read (the same address across the warp: one broadcast load), and
	// reporting a match with an atomic append.
	saChildBaseCycles int64 = 80

	// saIdleWarpCycles is a warp with nothing to do (past the last section
	// or candidate): compute its index, compare, exit.
	saIdleWarpCycles int64 = 20
)

// saVerifyBlock is the sa_verify child's CTA size: 64 threads, one
// candidate each, DTBL §2's fine-grained device-kernel shape (as
// bfs_expand). Many such small CTAs are what make SPAWN's SA hit the
// concurrent-CTA limit.
const saVerifyBlock = 64

// Register counts, typical of what nvcc gives these loops (the seed and
// candidate bookkeeping makes the parent heavier); they matter only
// through occupancy.
const (
	saSectionRegs = 40
	saVerifyRegs  = 24
)

// saLookupCycles is what a parent thread spends on one read before
// verifying it: load it, look up its seeds, gather their hits.
func saLookupCycles(r *saRead) int64 {
	return saReadCycles + int64(r.seeds)*saSeedCycles + int64(r.hits)*saHitCycles
}

// saInlineCycles is what a parent thread spends verifying all of a read's
// candidates itself, one after another, where the read is under the
// threshold (a launch site's inline_cycles is its child's by the lane-loop
// rule, saTrace.verify).
func saInlineCycles(r *saRead) int64 {
	c := int64(len(r.steps)) * saCandidateCycles
	for _, s := range r.steps {
		c += int64(s) * saStepCycles
	}
	return c
}

// saVerifyWarpCycles is the time of an sa_verify warp whose active lanes
// verify candidates taking the given DP rows: SIMT, so the warp runs until
// its longest verification ends.
func saVerifyWarpCycles(steps []int32) int64 {
	if len(steps) == 0 {
		return saIdleWarpCycles
	}
	longest := int32(0)
	for _, s := range steps {
		longest = max(longest, s)
	}
	return saChildBaseCycles + saCandidateCycles + int64(longest)*saStepCycles
}

// saCosts are the sa cost model's constants, all invented, which its
// parameters set.
var saCosts = []costConst{
	cost("read_cycles", &saReadCycles, "loading one read"),
	cost("seed_cycles", &saSeedCycles, "one seed lookup"),
	cost("hit_cycles", &saHitCycles, "one seed occurrence"),
	cost("candidate_cycles", &saCandidateCycles, "a candidate before its first DP row"),
	cost("step_cycles", &saStepCycles, "one row of the banded verification"),
	cost("child_base_cycles", &saChildBaseCycles, "an sa_verify thread outside its verification"),
	cost("idle_warp_cycles", &saIdleWarpCycles, "a warp with nothing to do"),
}
