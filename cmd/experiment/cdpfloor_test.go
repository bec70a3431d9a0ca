package main

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// cdpFloorFindings on two paper benchmarks and one of SPAWN's. a: flat
// 1000, CDP 4000 with floor 2000 (50%), DTBL 800: bound 1000/2000 =
// 0.50×, DTBL over flat 1.25× over it 2.50×. b: flat 3000, CDP 3000 with
// floor 1500, DTBL 1500: bound 2.00×, 2.00×/2.00× = 1.00×. c, SPAWN's,
// is in the table and out of the means. Over a and b: CDP over flat ≤
// sqrt(0.5·2) = 1.00× (replayed sqrt(0.25·1) = 0.50×), not below the
// band's 0.862·0.7 = 0.60× (1/0.6034 - 1 = 66% short); DTBL over CDP ≥
// sqrt(2.5·1) = 1.58× (replayed sqrt(5·2) = 3.16×), not above 1.4·1.3
// = 1.82× (1 - 1.5811/1.82 = 13% short); DTBL over flat at its band's
// 1.21·0.7 = 0.847× gives 0.847/1.00 = 0.85×, 53% short. With b's floor
// 6000 (bound 0.50×): ≤ 0.50×, below the band; ≥ sqrt(2.5·4) = 3.16×,
// above; 0.847/0.5 = 1.69×, 1 - 1.694/1.82 = 7% short.
func TestCDPFloorFindings(t *testing.T) {
	a, b := benchmark{name: "a"}, benchmark{name: "b"}
	c := benchmark{name: "c", group: spawnInDTBL}
	run := func(bm benchmark, policy string, makespan, floor int64) outcome {
		return outcome{bench: bm, policy: policy, stats: &stats{Stats: replay.Stats{MakespanCycles: makespan}, CDPFloorCycles: floor}}
	}
	outs := []outcome{
		run(a, "flat", 1000, 0), run(a, "cdp", 4000, 2000), run(a, "dtbl", 800, 0),
		run(b, "flat", 3000, 0), run(b, "cdp", 3000, 1500), run(b, "dtbl", 1500, 0),
		run(c, "flat", 100, 0), run(c, "cdp", 100, 0), run(c, "dtbl", 100, 0),
	}
	var buf bytes.Buffer
	cdpFloorFindings(&buf, outs)
	wantFindings(t, buf.String(),
		"| a | 2000 | 4000 | 50% | 0.50× | 0.25× | 2.50× |",
		"| b | 1500 | 3000 | 50% | 2.00× | 1.00× | 1.00× |",
		"| c | — | 100 | — | — | 1.00× | — |",
		"Over the paper's 2 benchmarks: CDP over flat ≤ 1.00× (geomean of the bounds; replayed 0.50×): not below the band's 0.60× (short by 66%).",
		"DTBL over CDP ≥ 1.58× (geomean of DTBL over flat / bound; replayed 3.16×): not above the band's 1.82× (short by 13%).",
		"With DTBL over flat anywhere inside its band (≥ 0.847×), DTBL over CDP ≥ 0.847× / 1.00× = 0.85×: not above the band's 1.82× (short by 53%).")

	outs[4].stats.CDPFloorCycles = 6000
	buf.Reset()
	cdpFloorFindings(&buf, outs)
	wantFindings(t, buf.String(),
		"CDP over flat ≤ 0.50× (geomean of the bounds; replayed 0.50×): below the band's 0.60×, so at this run's inputs the headline is beyond reach.",
		"DTBL over CDP ≥ 3.16× (geomean of DTBL over flat / bound; replayed 3.16×): above the band's 1.82×, so at this run's inputs the headline is beyond reach.",
		"DTBL over CDP ≥ 0.847× / 0.50× = 1.69×: not above the band's 1.82× (short by 7%).")

	outs[1].stats.CDPFloorCycles = 0
	buf.Reset()
	cdpFloorFindings(&buf, outs)
	wantFindings(t, buf.String(), "A paper benchmark has no CDP floor: no bound on the headlines.")
}

// On every benchmark of dtbl (and of dtbl-paper, which takes minutes, when
// DTBL_PAPER_FLOORS is set), no replayed CDP or CDP-ideal run ends before
// its CDP floor, and every one has a floor.
func TestCDPFloorsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("replays dtbl under cdp and cdp-ideal")
	}
	exps := []*experiment{dtblExperiment}
	if os.Getenv("DTBL_PAPER_FLOORS") != "" {
		exps = append(exps, dtblPaperExperiment)
	}
	for _, e := range exps {
		x := *e
		x.policies = []string{"cdp", "cdp-ideal"}
		outs, err := x.run(t.TempDir(), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 2*len(x.benchmarks) {
			t.Fatalf("%d runs, want %d", len(outs), 2*len(x.benchmarks))
		}
		for _, o := range outs {
			if s := o.stats; s.CDPFloorCycles <= 0 || s.CDPFloorCycles > s.MakespanCycles {
				t.Errorf("%s under %s: floor %d, makespan %d", o.bench.name, o.policy, s.CDPFloorCycles, s.MakespanCycles)
			}
		}
	}
}
