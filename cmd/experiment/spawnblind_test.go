package main

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// blindFindings: a benchmark whose every lane was decided blind runs as
// CDP and is set apart; the gap over the rest is their own geometric
// mean (b: 440/400 = 1.1, c: 1000/1000 = 1, so sqrt(1.1)-1 = 4.9%), the
// whole one includes a's 2000/500 (cube root of 4.4 - 1 = 63.9%).
func TestBlindFindings(t *testing.T) {
	run := func(makespan, sites, blind int64) *stats {
		return &stats{Stats: replay.Stats{MakespanCycles: makespan, LaunchSites: sites, BlindSites: blind}}
	}
	names := []string{"a", "b", "c"}
	sp := []*stats{run(2000, 10, 10), run(440, 10, 3), run(1000, 0, 0)}
	cdp := []*stats{run(2000, 10, 10), run(900, 10, 3), run(1200, 0, 0)}
	best := []*stats{run(500, 10, 10), run(400, 10, 3), run(1000, 0, 0)}
	var buf bytes.Buffer
	blindFindings(&buf, "SPAWN", names, sp, cdp, best)
	wantFindings(t, buf.String(),
		"SPAWN decided 13 of 20 launching lanes (65%) before any child CTA had finished (a 10/10, b 3/10)",
		"CDP's runs count the same.",
		"Every lane blind on a: there SPAWN's run is CDP's (makespans equal)",
		"over the other 2 benchmarks: 4.9% (all 3: 63.9%)")

	// A CDP count or makespan that differs is reported, not hidden.
	cdp[0] = run(2100, 10, 9)
	buf.Reset()
	blindFindings(&buf, "SPAWN", names, sp, cdp, best)
	wantFindings(t, buf.String(), "count differently on a", "makespans NOT equal")
}
