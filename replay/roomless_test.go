package replay

import "testing"

// TestRoomless checks which SMs roomless leaves to a search: all for a
// need no failed need is within, else those that grew since each failed
// need within it failed, and that a need that fails replaces those no
// less than it and, past two, the older.
func TestRoomless(t *testing.T) {
	small, big, wide := need{warps: 2, regs: 1024}, need{warps: 8, regs: 8192}, need{warps: 1, smem: 4096}
	var r roomless
	check := func(step string, n need, want uint64) {
		t.Helper()
		if got := r.mask(&n); got != want {
			t.Fatalf("%s: mask(%v) = %#x, want %#x", step, n, got, want)
		}
	}
	check("none failed", big, ^uint64(0))
	r.failed(big)
	check("big failed", big, 0)
	check("big failed", small, ^uint64(0))
	r.grew(3)
	r.grew(67) // the bit of SM 3 too
	check("SM 3 grew", big, 1<<3)
	r.failed(small) // implies big: its set goes
	check("small failed", big, 0)
	check("small failed", small, 0)
	r.grew(5)
	check("SM 5 grew", small, 1<<5)
	check("SM 5 grew", big, 1<<5)
	r.failed(wide) // neither within the other
	r.grew(7)
	check("wide failed", small, 1<<5|1<<7)
	check("wide failed", wide, 1<<7)
	check("wide failed", need{warps: 8, regs: 8192, smem: 4096}, 1<<7)
	r.failed(need{warps: 1, regs: 2048}) // a third: small's set goes, the older
	check("third failed", small, ^uint64(0))
	check("third failed", wide, 1<<7)
}
