package bounds_test

import (
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
)

// TestBlindFloorHolds replays random DP traces (randomDP: host kernels
// on two streams, copies before and after them, children nested three
// deep) on random GPUs, hosts, costs, servers, pools, copy modes and the
// contention model under spawn and cdp: no run ends before its blind
// floor, and the two runs give the same floor (up to the first child
// CTA's end a SPAWN run is its CDP run, and what follows the blind calls
// is counted from the trace alone).
func TestBlindFloorHolds(t *testing.T) {
	const traces = 1500
	blind := 0
	forRandomDP(t, "k20c-spawn", traces, func(seed int64, tr string, cfg model.Config, _ bool, open replay.Opener) {
		var floors [2]int64
		for i, name := range []string{"spawn", "cdp"} {
			pol, err := policies.New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			floor := bounds.NewBlindFloor(cfg)
			st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Analyses: []replay.Analysis{floor}}, &policytest.Recorder{})
			if err != nil {
				t.Fatalf("seed %d, %s: %v\n%s", seed, name, err, tr)
			}
			if f := floor.Cycles(); f > st.MakespanCycles {
				t.Errorf("seed %d, %s: blind floor %d, makespan %d\n%s", seed, name, f, st.MakespanCycles, tr)
			}
			floors[i] = floor.Cycles()
		}
		if floors[0] != floors[1] {
			t.Errorf("seed %d: spawn's blind floor %d, cdp's %d\n%s", seed, floors[0], floors[1], tr)
		}
		if floors[0] > 0 {
			blind++
		}
	})
	if blind < traces/2 {
		t.Errorf("a blind floor on %d of %d traces: too few to test it", blind, traces)
	}
}
