package replay_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// Replay streams: memory follows the work in flight, not the trace length.
// A 5M-CTA trace (500 kernels of 10K CTAs, 1% of CTAs launching children)
// must replay with a live heap far below what holding it would take
// (about 5M × 40 B = 200 MB for the CTA records alone).
func TestReplayStreams5MCTAs(t *testing.T) {
	if testing.Short() {
		t.Skip("5M CTAs take a few seconds")
	}
	data := generateBytes(t, "synth", "kernels=500", "ctas=10000", "site_rate=0.01")
	cfg, _ := model.Preset("k20c")
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }

	var peak uint64
	var ms runtime.MemStats
	sample := func(int64, int64) {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	runtime.GC()
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: replay.Policy{Name: "cdp"}, Progress: sample}, discard{})
	if err != nil {
		t.Fatal(err)
	}
	if st.CTAs < 5_000_000 {
		t.Fatalf("replayed %d CTAs, want at least 5M", st.CTAs)
	}
	const limit = 64 << 20
	t.Logf("%d CTAs, peak heap in use %.1f MiB (trace %.1f MiB compressed)", st.CTAs, float64(peak)/(1<<20), float64(len(data))/(1<<20))
	if peak > limit {
		t.Errorf("peak heap in use %.1f MiB, want under %d MiB: replay is not streaming", float64(peak)/(1<<20), limit>>20)
	}
}
