package samples

import (
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestSynthCounts(t *testing.T) {
	recs := generate(t, "synth", "kernels=7", "ctas=300", "block=96", "site_rate=0.25", "child_ctas=3", "streams=3", "seed=2")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	n, host, device := countKinds(recs)
	if host != 7 {
		t.Errorf("%d host launches, want 7", host)
	}
	// About a quarter of the 2100 parent CTAs hold a site.
	if device < 400 || device > 650 {
		t.Errorf("%d launch sites from 2100 CTAs at rate 0.25", device)
	}
	if n[trace.KindKernel] != 7+device || n[trace.KindCTA] != 7*300+3*device {
		t.Errorf("records %v with %d sites", n, device)
	}
	streams := map[uint64]int{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Launch:
			if r.Host() {
				streams[r.Stream]++
			}
		case *trace.Kernel:
			if r.Block != [3]uint32{96, 1, 1} {
				t.Fatalf("kernel %+v: block not 96", r)
			}
		case *trace.CTA:
			if r.Cycles < 4000 || r.Cycles > 6000 {
				t.Fatalf("cta %+v outside 5000±20%%", r)
			}
		}
	}
	if !reflect.DeepEqual(streams, map[uint64]int{0: 3, 1: 2, 2: 2}) {
		t.Errorf("host launches per stream %v", streams)
	}
}

func TestSynthNoSites(t *testing.T) {
	recs := generate(t, "synth", "kernels=2", "ctas=5", "jitter=0")
	n, host, device := countKinds(recs)
	if host != 2 || device != 0 || n[trace.KindCTA] != 10 {
		t.Errorf("records %v, %d host, %d device launches", n, host, device)
	}
	for _, r := range recs {
		if c, ok := r.(*trace.CTA); ok && c.Cycles != 5000 {
			t.Errorf("cta %+v: want exactly 5000 cycles without jitter", c)
		}
	}
}

// countSink counts records without keeping them, as a streaming writer
// would consume them.
type countSink struct{ n int }

func (c *countSink) Write(trace.Record) error { c.n++; return nil }

// BenchmarkSynth5M measures generating 5M CTAs (500 kernels × 10000).
func BenchmarkSynth5M(b *testing.B) {
	g, _ := Lookup("synth")
	p, err := g.ParseParams([]string{"kernels=500", "site_rate=0.01"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		var c countSink
		if err := g.Run(p, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBFS measures the default scale-12 trace.
func BenchmarkBFS(b *testing.B) {
	g, _ := Lookup("bfs")
	p, err := g.ParseParams(nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if err := g.Run(p, &countSink{}); err != nil {
			b.Fatal(err)
		}
	}
}
