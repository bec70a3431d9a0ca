package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// A plain replay (its sink keeps no rows) has the same totals, every
// float64 of them, with swapPlain taking the cycles it may and with it
// off, where the general path takes them: synth traces of one and several
// streams, CTAs issue- and DRAM-bound, with launch sites and without
// jitter, and BFS, on three GPUs under four policies, and with the tie
// seed, two CTAs an SM and one SM. The totals hold the makespan, the
// kernels' and CTAs' counts and spans, and the issue and DRAM
// utilisation, sums of every SM's progress in the order the model
// advanced the SMs: a swap that ends, places or starts a CTA otherwise
// than the general path, or in another order, or puts an event in the
// queue with another tie key, moves them. Fails too where the swap takes
// no cycle of the plain synth trace (the test would then prove nothing),
// or takes one with swapPlain off.
func TestSwapSameStats(t *testing.T) {
	traces := []genSpec{
		{"synth", "synth", []string{"kernels=8", "ctas=2000"}},
		{"streams", "synth", []string{"kernels=12", "ctas=1000", "streams=4"}},
		{"issue", "synth", []string{"kernels=4", "ctas=2000", "block=512", "ipc=2"}},
		{"nodram", "synth", []string{"kernels=4", "ctas=2000", "dram_bpc=0", "jitter=0"}},
		{"sites", "synth", []string{"kernels=4", "ctas=1000", "site_rate=0.05"}},
		{"wide", "synth", []string{"kernels=12", "ctas=300", "streams=3", "block=1024"}},
		{"bfs", "bfs", []string{"scale=11"}},
	}
	type run struct {
		gpu, policy string
		set         []string
	}
	runs := []run{{"k20c", "cdp", nil}, {"k20c", "cdp", []string{"model.tie_seed=7"}},
		{"k20c", "cdp", []string{"gpu.max_ctas_per_sm=2", "gpu.sms=3"}}, {"h100", "flat", []string{"gpu.sms=1"}}}
	for _, g := range []string{"k20c", "h100", "titanx"} {
		for _, p := range []string{"cdp", "flat", "dtbl", "spawn"} {
			if !testing.Short() || g == "k20c" {
				runs = append(runs, run{g, p, nil})
			}
		}
	}
	defer replay.SetSwap(true)
	for _, tr := range traces {
		data := genTrace(t, tr.gen, tr.params...)
		for _, r := range runs {
			cfg := presetWith(t, r.gpu, r.set)
			replayed := func(swap bool) (*replay.Stats, int64) {
				replay.SetSwap(swap)
				pol, err := policies.New(r.policy, cfg)
				if err != nil {
					t.Fatal(err)
				}
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				st, swaps, err := replay.RunSwaps(open, replay.Options{Config: cfg, Policy: pol}, &discarder{})
				if err != nil {
					t.Fatalf("%s on %s under %s %v: %v", tr.name, r.gpu, r.policy, r.set, err)
				}
				return st, swaps
			}
			on, swaps := replayed(true)
			off, none := replayed(false)
			if *on != *off {
				t.Errorf("%s on %s under %s %v: totals differ with swapPlain (%d swaps):\n%+v\n%+v", tr.name, r.gpu, r.policy, r.set, swaps, *on, *off)
			}
			if none != 0 {
				t.Errorf("%s on %s under %s %v: %d swaps with swapPlain off", tr.name, r.gpu, r.policy, r.set, none)
			}
			if tr.name == "synth" && r.gpu == "k20c" && r.policy == "cdp" && r.set == nil && swaps < on.CTAs/2 {
				t.Errorf("synth on k20c: %d of %d CTAs swapped; the test proves little", swaps, on.CTAs)
			}
		}
	}
}

// genSpec is a trace a test generates: its name in the test's messages,
// its generator and the generator's key=value parameters.
type genSpec struct {
	name, gen string
	params    []string
}

// presetWith is GPU preset gpu with each key=value of set applied.
func presetWith(t *testing.T, gpu string, set []string) model.Config {
	t.Helper()
	cfg, err := model.Preset(gpu)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range set {
		k, v, _ := bytes.Cut([]byte(kv), []byte("="))
		if err := cfg.Set(string(k), string(v)); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}
