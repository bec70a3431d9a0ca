package profile

import (
	"math"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// TestFitCopies checks the copy fit on copies that take 1000 ns +
// bytes / 10 GB/s (rounded to a ns): five pageable 8-byte copies (1001
// ns) and three of 1 MB (101000 ns) measure 1000 ns and 10 GB/s; two
// pinned copies, less GPU time, are left out.
func TestFitCopies(t *testing.T) {
	copies := func(n int, bytes int64, pageable bool) []CopySample {
		var s []CopySample
		for range n {
			s = append(s, CopySample{Bytes: bytes, Dur: int64(math.Round(1000 + float64(bytes)/10)), Pageable: pageable})
		}
		return s
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-3*want }
	// Pageable: latency from the small copies, rate from the large.
	s := append(copies(5, 8, true), copies(3, 1_000_000, true)...)
	s = append(s, copies(2, 100, false)...) // pinned, less time: left out
	f := FitCopies(s)
	if !f.Pageable || f.LatencyN != 5 || f.GBpsN != 3 || !near(f.Latency, 1000) || !near(f.GBps, 10) {
		t.Errorf("fit %+v, want pageable, latency 1000 ns over 5, 10 GB/s over 3", f)
	}
	meta := map[string]string{}
	f.Record(meta, 1500)
	if meta["set.io.copy_latency"] != "1500" || meta["set.io.pcie_gbps"] != "10" || meta["copy_memory"] != "pageable" ||
		meta["copy_latency_copies"] != "5" || meta["pcie_copies"] != "3" {
		t.Errorf("meta %v", meta)
	}
	// Too few small copies: a rate alone, with the latency in it.
	f = FitCopies(copies(3, 1_000_000, false))
	if f.Pageable || f.LatencyN != 0 || f.GBpsN != 3 || !near(f.GBps, 1e6/101000) {
		t.Errorf("fit %+v, want pinned, no latency, %.4f GB/s over 3", f, 1e6/101000.0)
	}
	meta = map[string]string{}
	f.Record(meta, 1500)
	if _, ok := meta["set.io.copy_latency"]; ok || meta["copy_memory"] != "pinned" {
		t.Errorf("meta %v: no latency measured", meta)
	}
	// One larger copy measures the rate: a 4 MB pageable copy there and
	// a 16 KB one back (gpu3's shape), 4016384 bytes in 2 × 1000 + 401638
	// ns. The model's own 15.75 GB/s would replay them in a third of it.
	f = FitCopies(append(copies(1, 4_000_000, true), copies(1, 16384, true)...))
	if !f.Pageable || f.LatencyN != 0 || f.GBpsN != 2 || !near(f.GBps, 4016384/403638.0) {
		t.Errorf("fit %+v, want pageable, no latency, %.4f GB/s over 2", f, 4016384/403638.0)
	}
	// Nothing to measure: nothing recorded.
	meta = map[string]string{}
	FitCopies(copies(2, 8, true)).Record(meta, 1500)
	if len(meta) != 0 {
		t.Errorf("meta %v from two copies, want none", meta)
	}
	// Durations that leave no time for the bytes, and absurd ones, give
	// values the model accepts.
	f = FitCopies(append(copies(3, 8, true), CopySample{Bytes: 5000, Dur: 900, Pageable: true},
		CopySample{Bytes: 5000, Dur: 900, Pageable: true}, CopySample{Bytes: 5000, Dur: 900, Pageable: true}))
	if f.GBpsN != 0 || f.LatencyN != 3 {
		t.Errorf("fit %+v: larger copies faster than the latency give no rate", f)
	}
	meta = map[string]string{}
	FitCopies([]CopySample{{1 << 40, 1, false}, {1 << 40, 1, false}, {1 << 40, 1, false}, {1, math.MaxInt64, false}, {1, math.MaxInt64, false}, {1, math.MaxInt64, false}}).Record(meta, 1e6)
	c := model.Config{}
	for k, v := range meta {
		if len(k) > 4 && k[:4] == "set." {
			if err := c.Set(k[4:], v); err != nil {
				t.Errorf("%s=%s: %v", k, v, err)
			}
		}
	}
}

// TestIdleLaunchReady: launches whose kernel started on an idle GPU
// measure the launch path; one queued behind a running op does not.
func TestIdleLaunchReady(t *testing.T) {
	spans := [][2]int64{{100, 200}, {305, 400}, {450, 1000}, {1005, 1100}, {2006, 2100}, {3007, 3100}}
	launches := [][2]int64{
		{0, 100},     // idle: 100
		{300, 305},   // idle: 5
		{420, 450},   // idle: 30
		{500, 1005},  // called while 450..1000 ran: queued
		{2000, 2006}, // idle: 6
		{3000, 3007}, // idle: 7
	}
	m, ok := IdleLaunchReady(launches, spans)
	if !ok || m.N != 5 || m.ReadyNs != 7 {
		t.Errorf("got %+v %v, want the median of 100, 5, 30, 6, 7: 7 over 5", m, ok)
	}
	if _, ok := IdleLaunchReady(launches[:2], spans); ok {
		t.Error("two idle launches measured a latency")
	}
	// First launches that loaded their module (over MaxLaunchReadyNs)
	// measure nothing: three of 4 ms leave too few.
	cold := [][2]int64{{0, 4_000_000}, {5_000_000, 9_000_000}, {10_000_000, 13_900_000}}
	coldSpans := [][2]int64{{4_000_000, 4_100_000}, {9_000_000, 9_100_000}, {13_900_000, 14_000_000}}
	if m, ok := IdleLaunchReady(cold, coldSpans); ok {
		t.Errorf("cold first launches measured %+v", m)
	}
	l := Latency{Issue: 100, Launch: 200, Dispatch: 5}
	if got := l.WithReady(150); got != (Latency{Issue: 100, Launch: 45, Dispatch: 5}) {
		t.Errorf("WithReady(150) = %+v", got)
	}
	if got := l.WithReady(50); got.Launch != 0 {
		t.Errorf("WithReady(50) = %+v, want Launch 0", got)
	}
}
