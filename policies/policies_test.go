package policies

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

func k20c(t *testing.T) model.Config {
	t.Helper()
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func decide(t *testing.T, p replay.Policy, workloads ...int64) []replay.Decision {
	t.Helper()
	s := &replay.Site{}
	for i, w := range workloads {
		s.Lanes = append(s.Lanes, replay.Lane{Lane: i, Workload: w})
	}
	out := make([]replay.Verdict, len(workloads))
	if p.Sites == nil {
		replay.LaunchAll{}.Decide(s, out)
	} else {
		p.Sites.Decide(s, out)
	}
	var ds []replay.Decision
	for _, v := range out {
		ds = append(ds, v.Decision)
	}
	return ds
}

// threshold launches iff workload > launch.threshold: equal is inlined.
func TestThresholdBoundary(t *testing.T) {
	cfg := k20c(t)
	cfg.Launch.Threshold = 64
	p, err := New("threshold", cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := decide(t, p, 0, 63, 64, 65, 1000)
	want := []replay.Decision{replay.Inline, replay.Inline, replay.Inline, replay.Launch, replay.Launch}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("workload lane %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// cdp (and its alias baseline) launch everything; flat inlines everything.
func TestCDPAndFlat(t *testing.T) {
	for name, want := range map[string]replay.Decision{"cdp": replay.Launch, "baseline": replay.Launch, "flat": replay.Inline} {
		p, err := New(name, k20c(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decide(t, p, 0, 1, 1<<40) {
			if d != want {
				t.Errorf("%s decided %s, want %s", name, d, want)
			}
		}
	}
}

// Unknown names list the valid ones; two mechanisms at one decision point
// are refused; mechanisms at different points combine.
func TestNewErrorsAndCombinations(t *testing.T) {
	cfg := k20c(t)
	if _, err := New("nope", cfg); err == nil || !strings.Contains(err.Error(), "valid policies: cdp, crcs, dtbl, flat, gemtc, hyperq, klap, overlap1, pagoda, ppcs, spawn, threshold") {
		t.Errorf("unknown policy: %v", err)
	}
	if _, err := New("flat+threshold", cfg); err == nil || !strings.Contains(err.Error(), "both decide launch sites") {
		t.Errorf("conflicting combination: %v", err)
	}
	// The baseline in a combination changes nothing: flat+cdp would
	// silently mean flat.
	if _, err := New("flat+cdp", cfg); err == nil || !strings.Contains(err.Error(), "policy cdp is the baseline hardware and changes nothing in the combination flat+cdp") {
		t.Errorf("flat+cdp: %v", err)
	}
	p, err := New("flat+ppcs", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "flat+ppcs" || decide(t, p, 5)[0] != replay.Inline || p.Placer == nil {
		t.Errorf("flat+ppcs: name %q, decision %s, placer %v", p.Name, decide(t, p, 5)[0], p.Placer)
	}
}

func TestListIsSortedAndDocumented(t *testing.T) {
	var prev string
	for _, i := range List() {
		if i.Name <= prev || i.Doc == "" || i.Source == "" {
			t.Errorf("policy %q: out of order or undocumented", i.Name)
		}
		prev = i.Name
	}
}

// A task runtime replaces the hardware path, so nothing combines with it.
func TestTaskPoliciesCombineWithNone(t *testing.T) {
	cfg, err := model.Preset("titanx")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"pagoda+dtbl", "spawn+gemtc", "pagoda+ppcs"} {
		if _, err := New(spec, cfg); err == nil || !strings.Contains(err.Error(), "combines with none") {
			t.Errorf("%s: got %v, want a refusal", spec, err)
		}
	}
	if _, err := New("hyperq+dtbl", cfg); err != nil {
		t.Errorf("hyperq+dtbl: %v (hyperq is the hardware path and combines)", err)
	}
}

// klap picks the engine's aggregation scope from klap.granularity (block
// by default), refuses any other value naming the key and the values it
// takes, and combines with a site decider but not with another
// aggregation.
func TestKLAPGranularity(t *testing.T) {
	cfg := k20c(t)
	for g, want := range map[string]replay.Aggregation{"": replay.AggregateBlock, "warp": replay.AggregateWarp, "block": replay.AggregateBlock, "kernel": replay.AggregateKernel} {
		c := cfg
		if g != "" {
			if err := c.Set("klap.granularity", g); err != nil {
				t.Fatal(err)
			}
		}
		p, err := New("klap", c)
		if err != nil || p.Aggregate != want || p.Sites != nil {
			t.Errorf("klap.granularity=%q: aggregate %v, sites %v, err %v; want %v", g, p.Aggregate, p.Sites, err, want)
		}
	}
	c := cfg
	err := c.Set("klap.granularity", "grid")
	if err == nil {
		err = c.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "klap.granularity") || !strings.Contains(err.Error(), "want warp, block or kernel") {
		t.Errorf("klap.granularity=grid: %v", err)
	}
	p, err := New("klap+threshold", cfg)
	if err != nil || p.Aggregate != replay.AggregateBlock || p.Sites == nil {
		t.Errorf("klap+threshold: %+v, %v", p, err)
	}
}
