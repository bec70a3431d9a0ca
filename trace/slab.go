package trace

// slab is the storage of a Prefetcher's batch for the records its source
// reuses (launch, cta and kernel records, their parents and warp_cycles),
// so that they cross goroutines without an allocation each. A Reader
// decodes straight into it (decodeInto); records from any other source
// are copied in (batch.own).
//
// A batch holds at most prefetchBatch records, so the record slices,
// allocated with that capacity, never grow and the records handed out
// stay put until reset.
type slab struct {
	kernels  []Kernel
	ctas     []CTA
	launches []Launch
	parents  []Parent
	warps    []int64 // the cta records' warp_cycles, one after another
}

// slot returns the next free element of *xs. A full slice (never, for a
// batch) gives a fresh element instead: growing it would move the ones
// handed out.
func slot[T any](xs *[]T) *T {
	s := *xs
	if s == nil {
		s = make([]T, 0, prefetchBatch)
	}
	if len(s) == cap(s) {
		return new(T)
	}
	s = s[:len(s)+1]
	*xs = s
	return &s[len(s)-1]
}

func (s *slab) kernel() *Kernel { return slot(&s.kernels) }
func (s *slab) cta() *CTA       { return slot(&s.ctas) }

// launch returns a launch record and a parent for it, should it have one.
func (s *slab) launch() (*Launch, *Parent) { return slot(&s.launches), slot(&s.parents) }

// warpBuf returns room for n warp_cycles (length 0, capacity n). A slab
// too small for them is replaced by one twice as large: the earlier
// records' warp_cycles stay in the old one, still theirs.
func (s *slab) warpBuf(n int) []int64 {
	at := len(s.warps)
	if cap(s.warps)-at < n {
		s.warps = make([]int64, 0, max(2*cap(s.warps), n, 8*prefetchBatch))
		at = 0
	}
	s.warps = s.warps[:at+n]
	return s.warps[at : at : at+n]
}

// reset empties s for another batch, dropping the references its launch
// records' after lists hold.
func (s *slab) reset() {
	clear(s.launches)
	s.kernels, s.ctas, s.launches, s.parents = s.kernels[:0], s.ctas[:0], s.launches[:0], s.parents[:0]
	s.warps = s.warps[:0]
}

// decodeInto asks src, or the Reader it reads from through a Validator or
// a host index check, to decode its launch, cta and kernel records into
// s from now on (nil: as before); false where src cannot.
func decodeInto(src Source, s *slab) bool {
	d, ok := src.(interface{ decodeInto(*slab) bool })
	return ok && d.decodeInto(s)
}
