package replay_test

import (
	"bytes"
	"fmt"
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

// With the launch trees filed ahead (Options.Ahead, as the command
// runs), the live heap stays within what the tree filer may hold
// (replay.TreeAheadBound: a byte limit on its messages and its window of
// host CTAs, which for a host kernel whose trees come after all its CTAs'
// records is the grid) plus the engine's state and the trace readers',
// inFlight. Measured after a collection at every sampled progress report.
// A message used to keep the storage of the largest hand-over it ever
// carried (a host kernel's grid of specs), and a host kernel its grid of
// specs: 20 kernels of 100K CTAs held about 200 MB, a kernel of 4M CTAs
// three times its grid. Kernels on streams of their own arrive together,
// and each one's body is read before the earlier ones' CTAs are placed:
// those wait in their spec queues, packed past spillAt (QueuedBound); 10
// kernels of 1M CTAs held 240 MB of specs before.
func TestReplayLiveHeapBound(t *testing.T) {
	const inFlight = 16 << 20
	for _, c := range []struct {
		kernels, ctas int
		siteRate      string
		every         int // progress reports per sample
		long          bool
		streams       int
	}{
		{20, 100_000, "0.01", 2, false, 1},
		{1, 4_000_000, "0", 8, true, 1},
		// Every kernel's body is read as it arrives, before the earlier
		// ones' CTAs are placed: all but the first wait in their spec
		// queues, packed past spillAt.
		{10, 1_000_000, "0", 8, true, 10},
	} {
		name := fmt.Sprintf("%dx%d/%d", c.kernels, c.ctas, c.streams)
		t.Run(name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("a 4M-CTA kernel takes a few seconds")
			}
			data := generateBytes(t, "synth", fmt.Sprint("kernels=", c.kernels), fmt.Sprint("ctas=", c.ctas), "site_rate="+c.siteRate, fmt.Sprint("streams=", c.streams))
			cfg, _ := model.Preset("k20c")
			open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
			var peak uint64
			var ms runtime.MemStats
			reports := 0
			sample := func(int64, int64) {
				if reports++; reports%c.every != 0 {
					return
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc // the trace itself, in memory here
			opt := replay.Options{Config: cfg, Policy: replay.Policy{Name: "cdp"}, Progress: sample, Ahead: readAhead(true)}
			st, err := replay.Run(open, opt, discard{})
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(c.kernels * c.ctas); st.CTAs < want {
				t.Fatalf("replayed %d CTAs, want at least %d", st.CTAs, want)
			}
			if reports < 4*c.every {
				t.Fatalf("%d progress reports: too few samples", reports)
			}
			live := int64(peak) - int64(base)
			bound := replay.TreeAheadBound(c.ctas) + inFlight
			if c.streams > 1 {
				bound += replay.QueuedBound(c.kernels, c.ctas, true)
			}
			t.Logf("%d CTAs: peak live heap %.1f MiB above the trace's %.1f MiB, bound %.1f MiB", st.CTAs, float64(live)/(1<<20), float64(base)/(1<<20), float64(bound)/(1<<20))
			if live > bound {
				t.Errorf("peak live heap %.1f MiB, want at most %.1f MiB: memory is not bounded by work in flight", float64(live)/(1<<20), float64(bound)/(1<<20))
			}
		})
	}
}

// A host loop streams too: 200K iterations of a launch, a blocking copy
// back, an event recorded and waited for on another stream, and a device
// sync every tenth iteration keep the host's synchronisation state to the
// operations in flight (the host's read-ahead stops at each blocking
// call), so the live heap, measured after a collection at every sampled
// progress report, stays the same whether the loop runs 200K iterations
// or twice as many.
func TestReplayHostLoopStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("200K iterations take a few seconds")
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	must := func(r trace.Record) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	must(&trace.Header{Version: trace.Version, ClockMHz: 1000, Source: "test"})
	must(&trace.Buffer{ID: 1, Name: "count", Bytes: 4, Role: trace.RoleTemp})
	const n = 200_000
	tick := int64(0)
	for i := range n {
		id := uint64(2*i + 1)
		s := uint64(i % 4)
		must(&trace.Kernel{ID: id, Name: "expand", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}})
		must(&trace.Launch{Kernel: id, T: tick, Stream: s})
		must(&trace.CTA{Kernel: id, CTA: 0, Cycles: 100})
		must(&trace.Memcpy{Dir: trace.DirD2H, Buffer: 1, Bytes: 4, Stream: s, T: tick + 1, Blocking: true, Ret: tick + 300})
		must(&trace.Sync{Op: trace.EventRecord, Event: 1, Stream: s, T: tick + 301})
		must(&trace.Sync{Op: trace.StreamWait, Stream: (s + 1) % 4, Event: 1, T: tick + 302})
		must(&trace.Kernel{ID: id + 1, Name: "next", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}})
		must(&trace.Launch{Kernel: id + 1, T: tick + 303, Stream: (s + 1) % 4})
		must(&trace.CTA{Kernel: id + 1, CTA: 0, Cycles: 50})
		if i%10 == 9 {
			must(&trace.Sync{Op: trace.SyncDevice, T: tick + 304, Ret: tick + 500})
		}
		tick += 500
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes()) // the trace alone, not the buffer's spare room
	buf = bytes.Buffer{}
	cfg, _ := model.Preset("k20c")
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
	var peak uint64
	var ms runtime.MemStats
	sample := func(int64, int64) {
		runtime.GC() // the live heap, not the garbage a collection would free
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	runtime.GC()
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: replay.Policy{Name: "cdp"}, Progress: sample}, discard{})
	if err != nil {
		t.Fatal(err)
	}
	peak -= min(peak, uint64(len(data)))
	if st.Kernels != 2*n {
		t.Fatalf("replayed %d kernels, want %d", st.Kernels, 2*n)
	}
	const limit = 8 << 20 // 4.1 MiB at 200K and at 400K iterations
	t.Logf("%d kernels, peak heap in use %.1f MiB beside the trace (%.1f MiB compressed)", st.Kernels, float64(peak)/(1<<20), float64(len(data))/(1<<20))
	if peak > limit {
		t.Errorf("peak heap in use %.1f MiB, want under %d MiB: the host's synchronisation state grows with the loop", float64(peak)/(1<<20), limit>>20)
	}
}
