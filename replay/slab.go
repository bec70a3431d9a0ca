package replay

// slab hands out values for result rows to point at (a CTA's slowdown, a
// device kernel's parent id), carved from blocks of slabLen: rows may
// outlive the call that makes them (a sink can batch them), so each needs
// a value of its own, and a launch-heavy trace makes one per row (BFS
// scale 20: 165K device kernels), which one allocation each would spend
// in the allocator. A block is garbage once the rows of all its values
// are, so memory still follows the rows a sink holds. Device kernels and
// DTBL's aggregated groups come from slabs too, in smaller blocks
// (deviceKernels, groupTable.newGroup).
//
// The slab is its current block and how many of its values are handed
// out: a value's taking writes a count, where taking it off the front of
// a slice wrote the slice's pointer, with the write barrier's test, each
// time: a CTA row's slowdown, synth's every CTA under the contention
// model, 44 instructions to 35 (scripts/instructions.sh --quick
// synth-parquet 1,907 instructions a CTA to 1,899).
type slab[T any] struct {
	blk  []T // the current block
	used int // its values handed out
}

const slabLen = 1024

// of is a fresh *T holding v.
func (s *slab[T]) of(v T) *T {
	p := s.next(slabLen)
	*p = v
	return p
}

// next is a fresh zero *T, from a new block of n where the current one
// is used up. Taken in the branch that tests for one, unsigned, a value
// needs no bounds check of its own, nor the block's length and count
// loaded again past the branch's merge: some 4 instructions a value
// fewer (callgrind: BFS's children 3 a child on these lines; --quick
// synth-parquet, a slowdown a CTA row, 620.6M -> 620.2M in all).
func (s *slab[T]) next(n int) *T {
	if blk, i := s.blk, s.used; uint(i) < uint(len(blk)) {
		s.used = i + 1
		return &blk[i]
	}
	s.blk, s.used = make([]T, n), 1
	return &s.blk[0]
}

// free is the fresh zero values left in the current block, from a new
// block of n where it is used up: a caller that takes several at once
// takes them from its front, and counts them in used.
func (s *slab[T]) free(n int) []T {
	if s.used == len(s.blk) {
		s.blk, s.used = make([]T, n), 0
	}
	return s.blk[s.used:]
}
