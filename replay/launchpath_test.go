package replay_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// replayStats replays data under policy on k20c with the given overrides.
func replayStats(t *testing.T, data []byte, policy string, set map[string]string) replay.Stats {
	t.Helper()
	cfg, _ := model.Preset("k20c")
	for k, v := range set {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	pol, err := policies.New(policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, discard{})
	if err != nil {
		t.Fatal(err)
	}
	return *st
}

// The pending-launch pool on a trace with thousands of launches: with a
// limit, the launches pending at once stay within it (a warp is let in
// only when its lanes fit, or alone into an empty pool) unless the
// virtualized pool had to take a held warp, each adding at most one
// warp's 32 lanes; without one, BFS's bursts pend far more. Every
// launch is still made, and the same CTAs run.
func TestPendingLimitBoundsPending(t *testing.T) {
	data := genTrace(t, "bfs", "scale=12")
	for _, c := range []struct {
		policy string
		limit  int64
	}{{"cdp", 64}, {"spawn", 16}} {
		policy, limit := c.policy, c.limit
		free := replayStats(t, data, policy, map[string]string{"cdp.pending_limit": "0"})
		held := replayStats(t, data, policy, map[string]string{"cdp.pending_limit": fmt.Sprint(limit)})
		if free.PeakPending <= limit || held.PeakPending >= free.PeakPending {
			t.Errorf("%s: at most %d launches pending without a limit, %d with %d", policy, free.PeakPending, held.PeakPending, limit)
		}
		// An empty pool takes a whole warp (up to 32 lanes) whatever the
		// limit.
		if bound := max(limit, 32) + 32*held.LaunchOverflows; held.PeakPending > bound {
			t.Errorf("%s: %d launches pending with limit %d and %d overflows (bound %d)", policy, held.PeakPending, limit, held.LaunchOverflows, bound)
		}
		if held.Launched != free.Launched || held.CTAs != free.CTAs || held.DeviceKernels != free.DeviceKernels {
			t.Errorf("%s: launched %d, CTAs %d, device kernels %d with the limit; %d, %d, %d without",
				policy, held.Launched, held.CTAs, held.DeviceKernels, free.Launched, free.CTAs, free.DeviceKernels)
		}
		t.Logf("%s: at most %d pending without a limit, %d with %d (%d overflows); makespan %d -> %d",
			policy, free.PeakPending, held.PeakPending, limit, held.LaunchOverflows, free.MakespanCycles, held.MakespanCycles)
	}
}
