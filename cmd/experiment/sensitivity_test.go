package main

import (
	"slices"
	"testing"
)

// A scorecard verdict is one of four, from the headline judged here and
// at every point of the grid, with the spread of ours over them.
func TestScorecardVerdictKinds(t *testing.T) {
	h := headline{claim: "X over Y", lo: 1.40, hi: 1.40, unit: "×", band: 0.30}
	points := []point{{}, {labels: []string{"gpu.issue_width 2"}}, {labels: []string{"model.contention off"}}}
	judged := func(xs ...float64) []verdict {
		var vs []verdict
		for _, x := range xs {
			vs = append(vs, h.judge(x))
		}
		return vs
	}
	for _, c := range []struct {
		here         float64
		at           []float64
		kind, spread string
	}{
		{1.40, []float64{1.40, 1.20, 1.60}, "inside across the grid (3 settings)", "1.20×–1.60×"},
		{1.40, []float64{1.40, 0.90, 1.60}, "inside here, outside at gpu.issue_width 2 (1 of 3 settings)", "0.90×–1.60×"},
		{0.50, []float64{0.50, 0.60, 0.70}, "outside across the grid (3 settings): cannot be reached", "0.50×–0.70×"},
		{0.50, []float64{0.50, 0.60, 1.10}, "outside here, inside at model.contention off (1 of 3 settings)", "0.50×–1.10×"},
	} {
		kind, spread := scorecardVerdict(h.judge(c.here), judged(c.at...), points)
		if kind != c.kind || spread != c.spread {
			t.Errorf("%v at %v: %q, %q; want %q, %q", c.here, c.at, kind, spread, c.kind, c.spread)
		}
	}
}

// The one-at-a-time points vary each input alone, and the scorecard's
// inputs follow the experiment's GPU: an issue width other than the
// preset's, contention flipped, the host's costs zeroed, a second seed
// for the generators that take one; SPAWN's device-runtime cycles read
// as stated only where they are counted on another clock.
func TestSensitivityInputs(t *testing.T) {
	us, err := spawnExperiment.sensitivity()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range us {
		names = append(names, u.name)
	}
	if want := []string{"gpu.issue_width", "model.contention", "host launch costs", "cdp.clock_mhz", "seed"}; !slices.Equal(names, want) {
		t.Errorf("spawn's inputs %v, want %v", names, want)
	}
	ps := oneAtATime(us)
	if len(ps) != 6 { // widths 2 and 3, contention off, host 0, clock 0, seed 2
		t.Errorf("%d points, want 6", len(ps))
	}
	for _, p := range ps {
		if len(p.labels) != 1 {
			t.Errorf("point %v varies %d inputs", p.labels, len(p.labels))
		}
	}
	us, err = dtblExperiment.sensitivity()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if u.name == "cdp.clock_mhz" {
			t.Errorf("dtbl (k20c, both clocks 706 MHz) varies cdp.clock_mhz")
		}
	}
	if us, _ := kneeExperiment.sensitivity(); us != nil {
		t.Errorf("an experiment without headlines has inputs %v", us)
	}
}
