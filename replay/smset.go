package replay

import "math/bits"

// smSet is a set of SMs by id, a bit each.
//
// The SMs keep those with a free CTA slot in one (smArray.open), so
// that the round-robin placer tries only those: an SM at
// gpu.max_ctas_per_sm fits no CTA of any kernel, and under CDP most SMs
// are there most of the time (BFS scale 20: 80% of the 2.9M SMs
// RoundRobin.find tried were, mostly in scans that found no SM at all).
//
// It counts its members, so that whether it is empty is one test
// (smArray.anyOpen, which reads n itself: a method of its own cost a NOP
// a call, see ctaRun.dropSpec; synth 2 instructions a CTA, BFS 1.5,
// uniform 1): RoundRobin asks it after every placement, and looking at
// the words there cost more than counting in put
// (scripts/instructions.sh --quick: uniform 6 instructions a CTA,
// synth 8).
type smSet struct {
	words []uint64
	n     int // members
}

func newSMSet(n int) smSet { return smSet{words: make([]uint64, (n+63)/64)} }

// put adds SM i when in is true, else removes it.
func (s *smSet) put(i int, in bool) {
	w, bit := &s.words[i>>6], uint64(1)<<(i&63)
	switch {
	case in && *w&bit == 0:
		*w |= bit
		s.n++
	case !in && *w&bit != 0:
		*w &^= bit
		s.n--
	}
}

// add puts SM i in the set: put(i, true).
func (s *smSet) add(i int) {
	if w, bit := &s.words[i>>6], uint64(1)<<(i&63); *w&bit == 0 {
		*w |= bit
		s.n++
	}
}

// next is the least SM in the set at or after i, or -1 if there is none,
// of those whose bit i%64 is set in mask.
func (s *smSet) next(i int, mask uint64) int {
	ws := s.words
	w := uint(i) >> 6 // unsigned, so the test below is ws[w]'s bound check too
	if w >= uint(len(ws)) {
		return -1
	}
	if b := ws[w] & mask >> (i & 63); b != 0 {
		return i + bits.TrailingZeros64(b)
	}
	for w++; w < uint(len(ws)); w++ {
		if b := ws[w] & mask; b != 0 {
			return int(w<<6) + bits.TrailingZeros64(b)
		}
	}
	return -1
}

// round is the first SM in the set in the round of the SMs that starts
// at i (i, i+1, ..., the last, 0, ..., i-1) where the set is one word, as
// on GPUs of up to 64 SMs: the word rotated right by i, one search where
// next from i, failing past the last member, and then from 0 were two.
// It is -1 where there is none, and where the set has more words (the
// caller then searches with next). RoundRobin.find tries it first:
// scripts/instructions.sh --quick synth 8 instructions a CTA fewer (a
// Place call a CTA, its first SM tried fits), BFS 2, uniform 1.
func (s *smSet) round(i int) int {
	if ws := s.words; len(ws) == 1 {
		if b := bits.RotateLeft64(ws[0], -i); b != 0 {
			return (i + bits.TrailingZeros64(b)) & 63
		}
	}
	return -1
}

// drop removes SM i, a member: put's removal without its test of the
// bit. smArray.enter drops the SM it placed a CTA on where the CTA took
// its last slot or the SM is now held: the SM fitted the CTA, so it had a
// free slot and was not held, and it is open (noteSlots keeps the set so;
// the SMs a task runtime fills, resident, take no placed CTAs). On synth,
// where nearly every CTA takes an SM's last slot, 2 instructions a CTA
// fewer (scripts/instructions.sh --quick). enter tests in line, where a
// function of its own (smArray.entered) cost a NOP (see ctaRun.dropSpec).
func (s *smSet) drop(i int) {
	s.words[i>>6] &^= 1 << (i & 63)
	s.n--
}

// reopen adds SM i, not a member, where closed is true: add without its
// test of the bit. smArray.leavePlain reopens an SM a CTA left where the
// CTA had taken its last slot: on plain SMs, none held, an SM is open
// where it has a free slot (enterPlain drops it where it has none), so
// the count of its CTAs tells what the bit would (--quick, replay's own
// functions: BFS, whose SMs are seldom full, 2.8 a CTA fewer, sweep8 E 2.4).
func (s *smSet) reopen(i int, closed bool) {
	if closed {
		s.words[i>>6] |= 1 << (i & 63)
		s.n++
	}
}
