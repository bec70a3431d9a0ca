package replay

import "math/bits"

// smSet is a set of SMs by id, a bit each.
//
// The SMs keep those with a free CTA slot in one (smArray.open), so
// that the round-robin placer tries only those: an SM at
// gpu.max_ctas_per_sm fits no CTA of any kernel, and under CDP most SMs
// are there most of the time (BFS scale 20: 80% of the 2.9M SMs
// RoundRobin.find tried were, mostly in scans that found no SM at all).
type smSet []uint64

func newSMSet(n int) smSet { return make(smSet, (n+63)/64) }

// put adds SM i when in is true, else removes it.
func (s smSet) put(i int, in bool) {
	if in {
		s[i>>6] |= 1 << (i & 63)
	} else {
		s[i>>6] &^= 1 << (i & 63)
	}
}

// next is the least SM in the set at or after i, or -1 if there is none.
func (s smSet) next(i int) int {
	w := uint(i) >> 6 // unsigned, so the test below is s[w]'s bound check too
	if w >= uint(len(s)) {
		return -1
	}
	if b := s[w] >> (i & 63); b != 0 {
		return i + bits.TrailingZeros64(b)
	}
	for w++; w < uint(len(s)); w++ {
		if s[w] != 0 {
			return int(w<<6) + bits.TrailingZeros64(s[w])
		}
	}
	return -1
}

// empty reports whether the set has no SM.
func (s smSet) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}
