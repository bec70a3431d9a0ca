package accelsim

// ctaSet is the set of thread blocks a kernel file held, so the ones it
// left out can be given their empty cta records. It is a bitmap allocated
// in 64 Ki-block pages as blocks appear, so a sparse trace of a huge grid
// stays small.
type ctaSet struct {
	pages map[uint64]*[1024]uint64
	n     uint64
}

const ctaPageBits = 1 << 16

// add puts cta in the set and reports whether it was new.
func (s *ctaSet) add(cta uint64) bool {
	if s.pages == nil {
		s.pages = make(map[uint64]*[1024]uint64)
	}
	p := s.pages[cta/ctaPageBits]
	if p == nil {
		p = new([1024]uint64)
		s.pages[cta/ctaPageBits] = p
	}
	i := cta % ctaPageBits
	w, bit := &p[i/64], uint64(1)<<(i%64)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	s.n++
	return true
}

// missing calls fn for every index below n not in the set, in order.
func (s *ctaSet) missing(n uint64, fn func(cta uint64) error) error {
	if s.n == n {
		return nil
	}
	for cta := uint64(0); cta < n; cta++ {
		p := s.pages[cta/ctaPageBits]
		if p != nil && p[cta%ctaPageBits/64]&(1<<(cta%64)) != 0 {
			continue
		}
		if err := fn(cta); err != nil {
			return err
		}
	}
	return nil
}
