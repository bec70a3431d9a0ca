package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSMSet checks smSet against a slice of bools over random changes (a
// member's removal by drop, smArray.enter's, every other time), on
// sets of one word, of a word exactly, and of several words: next from
// every SM (and one past the last) is the least member at or after it
// (of those in a mask, a random one every other step, where bit j stands
// for every SM j modulo 64), and its count whether there is none; round from every SM is the
// first member in the round from it, or -1 on sets of several words.
func TestSMSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 13, 64, 65, 200} {
		s, want := newSMSet(n), make([]bool, n)
		for step := range 2000 {
			i, in := r.IntN(n), r.IntN(3) == 0
			if !in && want[i] && step%2 == 0 {
				s.drop(i)
			} else {
				s.put(i, in)
			}
			want[i] = in
			if got := s.n == 0; got != !slices.Contains(want, true) {
				t.Fatalf("%d SMs, step %d: empty %v for %v", n, step, got, want)
			}
			mask := ^uint64(0)
			if step%2 == 1 {
				mask = r.Uint64()
			}
			for from := 0; from <= n; from++ {
				exp := -1
				for j := from; j < n; j++ {
					if want[j] && mask&(1<<(j%64)) != 0 {
						exp = j
						break
					}
				}
				if got := s.next(from, mask); got != exp {
					t.Fatalf("%d SMs, step %d: next(%d, %#x) = %d, want %d", n, step, from, mask, got, exp)
				}
				if from < n {
					checkRound(t, s, want, from, step)
				}
			}
		}
	}
}

func checkRound(t *testing.T, s smSet, want []bool, from, step int) {
	t.Helper()
	n, exp := len(want), -1
	for j := range n {
		if sm := (from + j) % n; n <= 64 && want[sm] {
			exp = sm
			break
		}
	}
	if got := s.round(from); got != exp {
		t.Fatalf("%d SMs, step %d: round(%d) = %d, want %d", n, step, from, got, exp)
	}
}
