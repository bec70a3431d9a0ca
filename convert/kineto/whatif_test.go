package kineto_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gpureplay/gpureplay/convert/kineto"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// TestWhatIfMovesHostAfterSync holds what the sync records are for on a
// public profile (HTA's cuda_event_sync, testdata/event_sync_trace.json:
// three kernels on stream 7, a pageable copy back of one byte, a stream
// sync, then a spin kernel, an event record, an event sync and a device
// sync). A what-if that slows the GPU's launch path (lat.host_launch
// doubled) delays every kernel; the host's launch of the spin kernel
// comes after the blocking copy and the stream sync, which wait for the
// delayed kernels, so it moves too, by at least the extra latency, while
// the three launches before the first blocking call keep their cycles.
// Without the sync records (the same trace with them stripped and the
// copy made asynchronous) the spin kernel's launch stays where the
// profile had it.
func TestWhatIfMovesHostAfterSync(t *testing.T) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	if _, err := kineto.Convert("testdata/event_sync_trace.json", w, kineto.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	withSyncs := buf.Bytes()
	noSyncs := stripSyncs(t, withSyncs)

	base, slow := launchCycles(t, withSyncs, false), launchCycles(t, withSyncs, true)
	if len(base) != 4 || len(slow) != 4 {
		t.Fatalf("want 4 kernels, got %d and %d", len(base), len(slow))
	}
	cfg := capturedConfig(t, withSyncs)
	extra := cfg.Lat.HostLaunch // doubled: the what-if adds one more
	for i := 0; i < 3; i++ {
		if slow[i] != base[i] {
			t.Errorf("kernel %d, launched before any blocking call: launch %d with the what-if, %d without", i+1, slow[i], base[i])
		}
	}
	if moved := slow[3] - base[3]; moved < extra {
		t.Errorf("the spin kernel's launch, after the copy back and the stream sync, moved %d cycles with lat.host_launch doubled, want at least %d", moved, extra)
	}
	nb, ns := launchCycles(t, noSyncs, false), launchCycles(t, noSyncs, true)
	t.Logf("launch cycles with syncs %v, lat.host_launch doubled %v; without syncs %v and %v", base, slow, nb, ns)
	if ns[3] != nb[3] {
		t.Errorf("without sync records the spin kernel's launch moved from %d to %d; want it held at the profile's", nb[3], ns[3])
	}
}

// capturedConfig is --gpu=captured's configuration of a binary trace
// (study.CapturedConfig, which reads it from a file).
func capturedConfig(t *testing.T, bin []byte) model.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "captured.trace.zst")
	if err := os.WriteFile(path, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := study.CapturedConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// launchCycles replays bin under cdp with --gpu=captured, lat.host_launch
// doubled where slow, and returns its host kernels' launch cycles in
// kernel id order.
func launchCycles(t *testing.T, bin []byte, slow bool) []int64 {
	t.Helper()
	cfg := capturedConfig(t, bin)
	if slow {
		cfg.Lat.HostLaunch *= 2
	}
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &rows{}
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bin)) }
	if _, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rec); err != nil {
		t.Fatal(err)
	}
	ks := append([]tables.Kernel(nil), rec.kernels...)
	sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
	out := make([]int64, len(ks))
	for i, k := range ks {
		out[i] = k.LaunchCycle
	}
	return out
}

// stripSyncs is bin without its sync records and with its copies
// asynchronous: the trace the importer wrote before it read syncs.
func stripSyncs(t *testing.T, bin []byte) []byte {
	t.Helper()
	src, err := trace.NewReader(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	for {
		r, err := src.Next()
		if err != nil {
			break
		}
		switch r := r.(type) {
		case *trace.Sync:
			continue
		case *trace.Memcpy:
			m := *r
			m.Blocking, m.Pageable, m.Ret = false, false, 0
			r = &m
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
