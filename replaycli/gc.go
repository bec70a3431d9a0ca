package replaycli

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target the command runs with unless
// GOGC says otherwise: the heap may grow three quarters of its live size
// between collections, not Go's default of all of it.
//
// Why: a replay's live heap is its work in flight — under CDP, every child
// kernel launched and waiting for a Kernel Distributor entry — and with
// the default the process holds up to twice that. When this was set, BFS
// scale 20 under cdp peaked at about 33 MB live, resident 96 MB at
// GOGC=100, 88 MB at 75 and 84 MB at 50 (median of 5, interleaved), and
// user time was 1.30, 1.40 and 1.53 s: 75 kept the process well under
// 100 MB for a fraction of 50's cost.
//
// Measured again with today's smaller kernels and deeper read-ahead
// (docs/scale-out.md; 20 alternating rounds, median of the per-round
// ratios to 75): wall time 0.98, 0.97 and 0.98 at 150, 200 and 300, within
// the machine's noise, and at most 77.5 MiB resident at 75 against 79.3,
// 80.5 and 76.4 MiB. The collector no longer costs this replay measurably either
// way, so 75 stays: it holds less for a trace with more in flight. GOGC
// in the environment (GOGC=100 for Go's own choice) overrides it.
const gcPercent = 75

// tuneGC applies gcPercent when the environment leaves GOGC unset.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
