package trace

import "unsafe"

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
	kernels  arena[Kernel]
	ctas     arena[CTA]
	launches arena[Launch]
	parents  arena[Parent]
	warps    []int64 // the cta records' warp_cycles, one after another: warps[:nwarps]
	nwarps   int
}

// arena is a slab's storage for records of one type, taken in order. It
// counts what it has handed out rather than reslicing: a slice header
// stored back for every record is a pointer write, which costs a write
// barrier while the GC marks (a good part of a replay's first reading).
type arena[T any] struct {
	all   []T // prefetchBatch of them, once the first is asked for
	taken int
}

// next returns the next free element. A full slab (never, for a batch)
// gives a fresh element instead: growing it would move the ones handed
// out.
func (s *arena[T]) next() *T {
	if s.all == nil {
		s.all = make([]T, prefetchBatch)
	}
	if s.taken == len(s.all) {
		return new(T)
	}
	s.taken++
	return &s.all[s.taken-1]
}

// rest is the elements not handed out yet, for a caller that fills them
// in order and then takes them (slab.took).
func (s *arena[T]) rest() []T {
	if s.all == nil {
		s.all = make([]T, prefetchBatch)
	}
	return s.all[s.taken:]
}

// storeChanged stores v in *dst unless it holds v already. A slab's
// records are decoded into the same places batch after batch, where a
// device launch keeps its parent (the slab's parent of the same index)
// and a kernel record its name (the name of the one before it), and a
// pointer store costs a write barrier while the GC marks, as it does
// through much of a replay's first reading.
func storeChanged[T comparable](dst *T, v T) {
	if *dst != v {
		*dst = v
	}
}

// storeName is storeChanged for a kernel's name, telling the name *dst
// holds by where its bytes are, not by comparing them: kernelFast stores
// the name read last, the same string record after record, and
// comparing it was a call (runtime.memequal; BFS --quick, 6
// instructions a CTA). Another string of the same bytes is stored anew.
func storeName(dst *string, name string) {
	if unsafe.StringData(*dst) != unsafe.StringData(name) || len(*dst) != len(name) {
		*dst = name
	}
}

func (s *slab) kernel() *Kernel { return s.kernels.next() }
func (s *slab) cta() *CTA       { return s.ctas.next() }

// launch returns a launch record and a parent for it, should it have one.
func (s *slab) launch() (*Launch, *Parent) { return s.launches.next(), s.parents.next() }

// warpBuf returns room for n warp_cycles (length 0, capacity n).
func (s *slab) warpBuf(n int) []int64 {
	s.warpRoom(n)
	at := s.nwarps
	s.nwarps += n
	return s.warps[at : at : at+n]
}

// warpRoom makes room for n more warp_cycles: a slab too small for them
// is replaced by one twice as large, the earlier records' warp_cycles
// staying in the old one, still theirs.
func (s *slab) warpRoom(n int) {
	if len(s.warps)-s.nwarps < n {
		s.warps = make([]int64, max(2*len(s.warps), n, 8*prefetchBatch))
		s.nwarps = 0
	}
}

// runRoom is room for a run of up to n cta records in s and their
// warp_cycles (Validator.CTAs), which took then takes: the records not
// yet handed out, in order, and RunWarps of warp_cycles for each.
func (s *slab) runRoom(n int) ([]CTA, []int64) {
	ctas := s.ctas.rest()
	ctas = ctas[:min(n, len(ctas))]
	s.warpRoom(len(ctas) * RunWarps)
	return ctas, s.warps[s.nwarps:]
}

// took takes the first n records of what runRoom gave and nw of its
// warp_cycles.
func (s *slab) took(n, nw int) {
	s.ctas.taken += n
	s.nwarps += nw
}

// reset empties s for another batch. Like batch.reset it clears nothing:
// every record decoded or copied into s is written whole, after list
// included, and an after list of a launch before stays referenced only
// until its place is taken again.
func (s *slab) reset() {
	s.kernels.taken, s.ctas.taken, s.launches.taken, s.parents.taken = 0, 0, 0, 0
	s.nwarps = 0
}

// decodeInto asks src, or the Reader it reads from through a Validator or
// a host index check, to decode its launch, cta and kernel records into
// s from now on (nil: as before); false where src cannot.
func decodeInto(src Source, s *slab) bool {
	d, ok := src.(interface{ decodeInto(*slab) bool })
	return ok && d.decodeInto(s)
}
