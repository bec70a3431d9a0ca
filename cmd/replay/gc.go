package main

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
// the default the process holds up to twice that. BFS scale 20 under cdp
// peaks at about 33 MB live; resident, of which ~26 MB is the binary
// itself (median of 5, interleaved): 96 MB at GOGC=100, 88 MB at 75,
// 84 MB at 50.
//
// The trade-off: collections run more often, each marking the same live
// heap, so the collector takes more CPU: on that replay, user time 1.30 s
// at 100, 1.40 s at 75, 1.53 s at 50; elapsed 1.05, 1.12, 1.25 s. 75 keeps
// the process well under 100 MB for a fraction of 50's cost. GOGC in the
// environment (GOGC=100 for Go's own choice) overrides it.
const gcPercent = 75

// tuneGC applies gcPercent when the environment leaves GOGC unset.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
