package replay

import "testing"

// The AGT holds only the entries a hardware thread index can reach (below
// max_ctas_per_sm × 1024): dtbl.agt_entries=2^62 panicked in make, 2^40
// ran out of memory and 2^31 took 4.2 GB, though past that power of two
// every setting indexes alike.
func TestAGTSizedByWhatTheGPUCanIndex(t *testing.T) {
	for _, c := range []struct {
		entries int64
		maxCTAs int
		want    int
	}{
		{1 << 62, 16, 16384}, {1 << 40, 16, 16384}, {1024, 16, 1024}, {16384, 16, 16384},
		{1 << 62, 4096, 1 << 22}, {1, 1, 1}, {1 << 62, 3, 4096},
	} {
		if got := len(newAGT(c.entries, c.maxCTAs).used); got != c.want {
			t.Errorf("newAGT(%d, %d): %d entries, want %d", c.entries, c.maxCTAs, got, c.want)
		}
	}
}
