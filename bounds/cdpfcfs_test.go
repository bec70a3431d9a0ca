package bounds

import (
	"math/rand"
	"slices"
	"testing"
)

// TestWaveFront checks the online waves against their definition, with
// every end kept: the i-th CTA starts at the latest of the (i-1)-th's
// start and the (i-r+1)-th smallest end of those before it.
func TestWaveFront(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 2000; trial++ {
		from, r := rng.Int63n(100), 1+rng.Int63n(6)
		chains := make([]int64, rng.Intn(40))
		for i := range chains {
			chains[i] = rng.Int63n(1000)
		}
		var w waveFront
		w.begin(from, r)
		last, end := from, from
		var ends []int64
		for i, c := range chains {
			if m := int64(i) - r + 1; m >= 1 {
				sorted := slices.Sorted(slices.Values(ends))
				last = max(last, sorted[m-1])
			}
			ends = append(ends, last+c)
			end = max(end, last+c)
			w.start(c)
			if w.last != last || w.end != end {
				t.Fatalf("trial %d, from %d, r %d, chains %v: CTA %d starts at %d, ends by %d; want %d, %d",
					trial, from, r, chains[:i+1], i, w.last, w.end, last, end)
			}
			if int64(w.ends.Len()) > r {
				t.Fatalf("trial %d: the front holds %d ends, more than r = %d", trial, w.ends.Len(), r)
			}
		}
	}
}
