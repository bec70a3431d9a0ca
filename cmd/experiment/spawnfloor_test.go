package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// floorFindings on three benchmarks. a: floor 3000 against Offline's 1500
// (flat 3000): bound 3000/3000 = 1.00×, Offline 2.00×, least gap
// 3000/1500 - 1 = 100%; SPAWN replayed 4000, floor 75% of it, gap
// 4000/1500 - 1 = 166.7%. b: floor 500 under Offline's 1000 (flat 2000):
// bound 4.00×, least gap 0 (max(1, 500/1000)); replayed 1100, gap 10%.
// c: no blind lane, no floor. Mean: cube root of 2·1·1 = 1.2599, 26.0%;
// replayed: cube root of (8/3)·1.1·1 = 1.4310, 43.1%.
func TestFloorFindings(t *testing.T) {
	run := func(makespan, blind, floor int64) *stats {
		return &stats{Stats: replay.Stats{MakespanCycles: makespan, BlindSites: blind, LaunchSites: blind}, BlindFloorCycles: floor}
	}
	names := []string{"a", "b", "c"}
	sp := []*stats{run(4000, 10, 3000), run(1100, 2, 500), run(900, 0, 0)}
	cdp := []*stats{run(5000, 10, 3000), run(1200, 2, 500), run(900, 0, 0)}
	best := []*stats{run(1500, 10, 0), run(1000, 2, 0), run(900, 0, 0)}
	flat := []*stats{run(3000, 0, 0), run(2000, 0, 0), run(900, 0, 0)}
	var buf bytes.Buffer
	floorFindings(&buf, "SPAWN", names, sp, cdp, best, flat)
	wantFindings(t, buf.String(),
		"| a | 10 | 3000 | 4000 | 75% | 1.00× | 2.00× | 0.75× | 100.0% | 166.7% |",
		"| b | 2 | 500 | 1100 | 45% | 4.00× | 2.00× | 1.82× | 0.0% | 10.0% |",
		"| c | 0 | — | 900 | — | — | 1.00× | 1.00× | 0.0% | 0.0% |",
		"Assuming SPAWN equalled Offline-Search on every benchmark except where its blind floor forces it lower",
		"over the 3 benchmarks would be 26.0%: the part no SPAWN estimate can remove (replayed: 43.1%).",
		"That is above the band's 5.2% (the paper's within 4%, ±30%), so at this run's inputs the headline is beyond reach, and over 10%: no run of these traces under Algorithm 1 at these inputs, whatever its estimates, comes within 10% of Offline-Search on the geometric mean.",
		"CDP's runs give the same floors.")

	// Above the band but under 10%: a floor 29.5% over Offline's makespan
	// on one of three benchmarks, a cube root of 1.295 = 1.0900, 9.0%.
	buf.Reset()
	mid := []*stats{run(1400, 10, 1295), sp[1], sp[2]}
	midBest := []*stats{run(1000, 10, 0), best[1], best[2]}
	floorFindings(&buf, "SPAWN", names, mid, mid, midBest, flat)
	wantFindings(t, buf.String(), "would be 9.0%", "That is above the band's 5.2% (the paper's within 4%, ±30%), so at this run's inputs the headline is beyond reach.")
	if strings.Contains(buf.String(), "over 10%") {
		t.Errorf("a least gap of 9.0%% said to be over 10%%:\n%s", buf.String())
	}

	// Above "within 4%" ±30% (5.2%), though inside the 4–6% of §I ±30%
	// the band once was: a floor 19.1% over Offline's makespan on one
	// of three benchmarks, a cube root of 1.191 = 1.0600, 6.0%.
	buf.Reset()
	six := []*stats{run(1400, 10, 1191), sp[1], sp[2]}
	floorFindings(&buf, "SPAWN", names, six, six, midBest, flat)
	wantFindings(t, buf.String(), "would be 6.0%", "That is above the band's 5.2% (the paper's within 4%, ±30%), so at this run's inputs the headline is beyond reach.")

	// Under the band: 5.0% (a cube root of 1.158 = 1.0501) reaches it, so no verdict.
	buf.Reset()
	five := []*stats{run(1400, 10, 1158), sp[1], sp[2]}
	floorFindings(&buf, "SPAWN", names, five, five, midBest, flat)
	wantFindings(t, buf.String(), "would be 5.0%")
	if strings.Contains(buf.String(), "beyond reach") {
		t.Errorf("a least gap of 5.0%% said to be out of reach:\n%s", buf.String())
	}

	// Under the band the findings say nothing more: b alone forces no gap.
	buf.Reset()
	floorFindings(&buf, "SPAWN", names[1:], sp[1:], cdp[1:], best[1:], flat[1:])
	if out := buf.String(); strings.Contains(out, "That is above") || !strings.Contains(out, "would be 0.0%") {
		t.Errorf("findings with no forced gap:\n%s", out)
	}

	// A CDP floor that differs is reported.
	cdp[1] = run(1200, 2, 600)
	buf.Reset()
	floorFindings(&buf, "SPAWN", names, sp, cdp, best, flat)
	wantFindings(t, buf.String(), "CDP's runs give different floors on b.")
}

// On every benchmark of spawn and spawn-paper, no replayed SPAWN or CDP
// run ends before its blind floor, a benchmark with blind lanes has one,
// and the two policies' floors are the same (their blind prefixes are).
func TestSpawnBlindFloorsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("replays spawn under cdp and spawn")
	}
	// spawn-paper (the DIMACS sizes) takes about four minutes here, so it
	// runs only when asked: SPAWN_PAPER_FLOORS=1 go test -run BlindFloors.
	exps := []*experiment{spawnExperiment}
	if os.Getenv("SPAWN_PAPER_FLOORS") != "" {
		exps = append(exps, spawnPaperExperiment)
	}
	for _, e := range exps {
		x := *e
		x.policies = []string{"cdp", "spawn"}
		outs, err := x.run(t.TempDir(), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		sp, cdp := column(outs, "spawn"), column(outs, "cdp")
		names := benchNames(outs, "spawn")
		if len(sp) != len(x.benchmarks) || len(cdp) != len(sp) {
			t.Fatalf("%d spawn and %d cdp runs, want %d", len(sp), len(cdp), len(x.benchmarks))
		}
		for i, s := range sp {
			if s.BlindSites > 0 && s.BlindFloorCycles <= 0 {
				t.Errorf("%s: %d blind lanes and no floor", names[i], s.BlindSites)
			}
			if s.BlindFloorCycles > s.MakespanCycles || cdp[i].BlindFloorCycles > cdp[i].MakespanCycles {
				t.Errorf("%s: floor %d over a makespan: spawn %d, cdp %d", names[i], s.BlindFloorCycles, s.MakespanCycles, cdp[i].MakespanCycles)
			}
			if s.BlindFloorCycles != cdp[i].BlindFloorCycles {
				t.Errorf("%s: spawn floor %d, cdp floor %d", names[i], s.BlindFloorCycles, cdp[i].BlindFloorCycles)
			}
		}
	}
}
