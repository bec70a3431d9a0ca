package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// On the generated bfs, amr and join traces DTBL finishes sooner and
// keeps the SMs busier than CDP, and nearly every launching lane finds an
// eligible kernel (the paper: 98%).
func TestDTBLBeatsCDPOnDPWorkloads(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	// amr's start value is the one Dragon_li's runs start from (its
	// unseeded glibc rand()): 789 sites, of which only the host kernel's
	// one can find no eligible kernel (its children run another function).
	// The default seed draws 375.7, 9 sites: one miss in nine.
	params := map[string][]string{"amr": {"start_value=5041.126"}}
	for _, name := range []string{"bfs", "amr", "join"} {
		data := generateBytes(t, name, params[name]...)
		open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
		run := func(policy string) *replay.Stats {
			pol, err := policies.New(policy, cfg)
			if err != nil {
				t.Fatal(err)
			}
			st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, discard{})
			if err != nil {
				t.Fatalf("%s under %s: %v", name, policy, err)
			}
			return st
		}
		cdp, dtbl := run("cdp"), run("dtbl")
		if dtbl.MakespanCycles >= cdp.MakespanCycles || dtbl.AvgOccupancy <= cdp.AvgOccupancy {
			t.Errorf("%s: dtbl makespan %d occupancy %.3f, cdp %d %.3f; want dtbl faster and busier",
				name, dtbl.MakespanCycles, dtbl.AvgOccupancy, cdp.MakespanCycles, cdp.AvgOccupancy)
		}
		if frac := float64(dtbl.Coalesced) / float64(dtbl.LaunchSites); frac < 0.9 {
			t.Errorf("%s: %.0f%% of launching lanes coalesced, want at least 90%%", name, 100*frac)
		}
	}
}

// generateBytes and encode are the package's own (generate_test.go).
var (
	generateBytes = replay.GenerateBytes
	encode        = replay.Encode
)
