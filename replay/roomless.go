package replay

// roomless is what the last failed placement searches learnt, so that
// the next search for a CTA as large skips the SMs that cannot have room
// for it (RoundRobin.find). A search that found no room for a CTA needing
// n on any SM with a free slot shows that none of them has room for a
// CTA needing n or more of every resource until a CTA leaves it or it
// gets a free slot back after a hold (grew): the search for such a CTA
// need try only the SMs that grew since.
//
// Under CDP, BFS's host kernels' CTAs (8 warps) wait while their
// children's (2 warps) fill the SMs, and each Place call searched every
// SM for the host kernel's next CTA, and often for a child's, in vain
// (scale 20: 0.8 SMs tried a CTA in searches that found none). It keeps
// two needs, the last two that failed, as BFS's host and child kernels:
// with one, the two replaced each other. scripts/instructions.sh bfs
// (scale 20): 16 instructions a CTA fewer; --quick synth 3 more, uniform
// 5 (the mark at each CTA's end), BFS scale 16 the same. Where none grew,
// as in 3 of 4 BFS searches that fail, find returns at once: 7 fewer.
//
// A set of SMs is a word, SM i at bit i%64: a bit stands for every SM
// with that remainder, so that marking one is a single OR at a CTA's end,
// into fresh; the needs' sets take fresh in only when a search asks.
type roomless struct {
	fresh uint64 // the SMs that grew since the needs' sets last took them in
	n     int    // needs known
	needs [2]need
	grown [2]uint64 // for each need, the SMs that grew since it failed
}

// grew marks SM i as one whose room grew, or that is open again.
func (r *roomless) grew(i int) { r.fresh |= 1 << (uint(i) & 63) }

// mask is the SMs that may have room for a CTA needing n: all, but for
// those a need no more than n failed on and that did not grow since.
func (r *roomless) mask(n *need) uint64 {
	m := ^uint64(0)
	for j := range r.n {
		r.grown[j] |= r.fresh
		if r.needs[j].within(*n) {
			m &= r.grown[j]
		}
	}
	r.fresh = 0
	return m
}

// failed records that no SM with a free slot has room for a CTA needing
// n, after mask: n replaces the needs no less than it, which it implies,
// and otherwise the older need.
func (r *roomless) failed(n need) {
	j := 0
	for i := range r.n {
		if !n.within(r.needs[i]) {
			r.needs[j], r.grown[j] = r.needs[i], r.grown[i]
			j++
		}
	}
	if j == len(r.needs) {
		r.needs[0], r.grown[0] = r.needs[1], r.grown[1]
		j--
	}
	r.needs[j], r.grown[j], r.n = n, 0, j+1
}
