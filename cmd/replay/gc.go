package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target the command runs with unless
// GOGC says otherwise: the heap may grow half its live size between
// collections, not Go's default of all of it.
//
// Why: a replay's live heap is its work in flight — under CDP, every child
// kernel launched and waiting for a Kernel Distributor entry — and with
// the default the process holds up to twice that. BFS scale 20 under cdp
// peaks at about 33 MB live: 95-105 MB resident with GOGC=100, 85-89 MB
// with 50 (of which ~26 MB is the binary itself).
//
// The trade-off: collections run twice as often, each marking the same
// live heap, so the collector's CPU share roughly doubles; on that replay
// it is a few percent of the run at 100, and the run's user time did not
// measurably grow (1.18 s against 1.31 s, median of 5, noisy machine).
// GOGC=100 (or any value) in the environment restores Go's own choice.
const gcPercent = 50

// tuneGC applies gcPercent when the environment leaves GOGC unset.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
