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
type slab[T any] []T // the unused rest of the current block

const slabLen = 1024

// of is a fresh *T holding v.
func (s *slab[T]) of(v T) *T {
	p := s.next(slabLen)
	*p = v
	return p
}

// next is a fresh zero *T, from a new block of n where the current one
// is used up.
func (s *slab[T]) next(n int) *T {
	if len(*s) == 0 {
		*s = make([]T, n)
	}
	p := &(*s)[0]
	*s = (*s)[1:]
	return p
}
