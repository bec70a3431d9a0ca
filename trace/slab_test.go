package trace

import "testing"

// A slab hands out a batch's elements in order, each once until reset, a
// fresh one past prefetchBatch; warpBuf's room never overlaps what it
// handed out before, also when it moves to a larger slice.
func TestSlabHandsOutOnce(t *testing.T) {
	var s slab
	seen := map[*CTA]bool{}
	for i := 0; i < prefetchBatch+2; i++ {
		c := s.cta()
		if seen[c] {
			t.Fatalf("cta %d handed out twice", i)
		}
		seen[c] = true
		if inSlab := i < prefetchBatch; inSlab != (c == &s.ctas.all[min(i, prefetchBatch-1)]) {
			t.Fatalf("cta %d: in the slab %v, want %v", i, !inSlab, inSlab)
		}
	}
	if s.ctas.taken != prefetchBatch {
		t.Fatalf("%d handed out, want %d", s.ctas.taken, prefetchBatch)
	}
	l, p := s.launch()
	var bufs [][]int64
	for _, n := range []int{3, 8*prefetchBatch - 4, 5, 1} {
		b := s.warpBuf(n)
		if len(b) != 0 || cap(b) != n {
			t.Fatalf("warpBuf(%d): len %d cap %d", n, len(b), cap(b))
		}
		b = b[:n]
		for i := range b {
			b[i] = int64(len(bufs))
		}
		bufs = append(bufs, b)
	}
	for k, b := range bufs {
		for _, w := range b {
			if w != int64(k) {
				t.Fatalf("warpBuf %d overwritten by a later one: %v", k, b)
			}
		}
	}
	s.reset()
	if s.cta() != &s.ctas.all[0] {
		t.Fatal("reset did not start the ctas over")
	}
	if l2, p2 := s.launch(); l2 != l || p2 != p {
		t.Fatal("reset did not start the launches over")
	}
}
