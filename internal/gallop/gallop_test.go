package gallop

import (
	"math/rand/v2"
	"testing"
)

// End finds where a scan finds a run's end, for runs of every length at
// every place, the sequence's end among them.
func TestEndAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 5000 {
		n := 1 + rng.IntN(300)
		i := rng.IntN(n)
		end := i + 1 + rng.IntN(n-i)
		in := func(j int) bool {
			if j <= i || j >= n {
				t.Fatalf("run %d: asked %d, outside (%d, %d)", run, j, i, n)
			}
			return j < end
		}
		if got := End(i, n, in); got != end {
			t.Fatalf("run %d (n %d, i %d): End %d, want %d", run, n, i, got, end)
		}
	}
}

// FuzzEnd holds End to a scan on any run in any sequence.
func FuzzEnd(f *testing.F) {
	f.Add(uint16(10), uint16(3), uint16(7))
	f.Fuzz(func(t *testing.T, n, i, end uint16) {
		if n == 0 {
			return
		}
		ii := int(i) % int(n)
		e := ii + 1 + int(end)%(int(n)-ii)
		if got := End(ii, int(n), func(j int) bool { return j < e }); got != e {
			t.Fatalf("End(%d, %d) with the run's end at %d: %d", ii, n, e, got)
		}
	})
}
