package samples

// The SM's load/store unit under a persistent kernel's chunk prologue
// (code=dragonli). A warp's memory instruction sends one access for each
// 32-byte sector its lanes' addresses fall in, and the unit sends one a
// cycle, holding the instruction while others remain ("m_icnt->push(mf);
// inst.accessq_pop_back();", ldst_unit::memory_cycle,
// src/gpgpu-sim/shader.cc:2284-2306 at 667834cf; 32 lanes reading 32
// consecutive words send 4 in the rerun that counts them,
// validation/gpgpusim/whatif, dragonli-sssp-tree3-reg-ldst). The
// prologue's costs (ssspBaseCycles) were measured on CTAs holding one
// vertex, whose loads send an access each; a warp holding 32 vertices
// that lie apart sends up to 32 for each of its gathers: in that rerun
// the three gathers of SSSP's prologue (dist[v], row_offsets[v] and
// [v+1]) send 26.7 accesses on average for 32 lanes.
//
// What that adds to a warp: its own accesses past a lone lane's, one a
// cycle, and, in the grid's first chunk, those of every warp of its
// SM's CTAs too. The grid is one wave that starts at once (one CTA an
// SM in turn, coldWave), so the first chunk's warps reach their gathers
// together and the unit serves their instructions as they come; each
// warp's last gather waits for nearly all of them (the rerun's tree3
// last relaxation: the two CTAs holding vertices on an SM end within
// 4% of each other, 1,694 and 1,763 cycles, where serving the oldest
// first would end the first near 1,260).
// Later chunks start as each warp's own loop ends, apart, and a warp
// there waits for its own accesses only.

// dlPortCycles is accesses sent one a core cycle of the captured GPU
// (837 MHz), in the trace's 706 MHz cycles, as the captures' cycles are
// read (joinWaveLDSTCycles).
func dlPortCycles(accesses int64) int64 {
	return roundDiv(accesses*706, 837)
}

// portWait is what each warp holding items of CTA c's chunk from lo
// waits at its SM's load/store unit, past a lone lane's accesses
// (dlKernel.prologue): in the grid's first chunk one wait for them all,
// the extra accesses of every warp holding items of its SM's first-wave
// CTAs' first chunks (shared); in a later chunk each warp's own, which
// the returned function gives by warp.
func (k dlKernel) portWait(c, lo int) func(w int) int64 {
	switch {
	case k.prologue == nil:
		return func(int) int64 { return 0 }
	case lo != c*k.block || c >= k.firstWave():
		return func(w int) int64 { return dlPortCycles(k.warpAccesses(lo, w)) }
	}
	var sum int64
	for o := c % k20cSMs; o < k.firstWave() && o*k.block < k.n; o += k20cSMs {
		for v := range ceilDiv(k.block, warpSize) {
			sum += k.warpAccesses(o*k.block, v)
		}
	}
	shared := dlPortCycles(sum)
	return func(int) int64 { return shared }
}

// warpAccesses is the extra accesses of warp w in the chunk from lo, or 0
// where it holds no item.
func (k dlKernel) warpAccesses(lo, w int) int64 {
	first := lo + w*warpSize
	hi := min(lo+k.block, k.n)
	if first >= hi {
		return 0
	}
	return k.prologue(first, min(first+warpSize, hi))
}

// firstWave is the CTAs of the grid that start at once: its first wave
// on the K20c (coldWave), at most the grid.
func (k dlKernel) firstWave() int {
	return min(k.grid(), coldWave(k.block, k.regs))
}

// sectors is how many 32-byte sectors the 4-byte elements at idx fall in
// (arrays aligned to their sectors: cudaMalloc's are to 256 bytes), the
// accesses a warp's load of them sends.
func sectors(idx []int32) int64 {
	var n int64
	seen := make(map[int32]struct{}, len(idx))
	for _, i := range idx {
		if _, ok := seen[i>>3]; !ok {
			seen[i>>3] = struct{}{}
			n++
		}
	}
	return n
}
