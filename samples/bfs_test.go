package samples

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestBFSOrder(t *testing.T) {
	for _, kv := range [][]string{
		nil,
		{"scale=10", "block=100", "seed=7"},
		{"scale=8", "block=32", "site_threshold=0"},
		{"scale=8", "site_threshold=100000"},
	} {
		if err := checkOrder(generate(t, "bfs", kv...)); err != nil {
			t.Errorf("bfs %v: %v", kv, err)
		}
	}
}

// TestBFSHeaderMatchesRecords checks the header and buffers, and that the
// meta's totals are what the records hold.
func TestBFSHeaderMatchesRecords(t *testing.T) {
	recs := generate(t, "bfs", "scale=10", "block=128")
	h := recs[0].(*trace.Header)
	if h.Version != trace.Version || h.ClockMHz != 706 || h.PageBytes != 4096 || h.Source != "gen:bfs" || h.GPU != "k20c" {
		t.Errorf("header %+v", h)
	}
	n, host, device := countKinds(recs)
	meta := func(k string) int {
		v, err := strconv.Atoi(h.Meta[k])
		if err != nil {
			t.Fatalf("meta %s: %v", k, err)
		}
		return v
	}
	if meta("scale") != 10 || meta("block") != 128 || meta("vertices") != 1024 {
		t.Errorf("meta %v", h.Meta)
	}
	if host != meta("levels") || device != meta("sites") || n[trace.KindKernel] != meta("kernels") || n[trace.KindCTA] != meta("ctas") {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
	wantBytes := map[string]int64{
		"row_offsets": 4 * 1025, "col_indices": 8 * int64(meta("edges")),
		"levels": 4 * 1024, "frontier_in": 4 * 1024, "frontier_out": 4 * 1024,
	}
	for _, r := range recs[1 : 1+len(wantBytes)] {
		b := r.(*trace.Buffer)
		if b.Bytes != wantBytes[b.Name] || b.Base%allocAlign != 0 {
			t.Errorf("buffer %+v, want %d bytes", b, wantBytes[b.Name])
		}
	}
}

// TestBFSSites checks every launch site against the cost model and the
// threshold: sites are exactly the lanes above it, and each parent warp's
// cycles show its looping lanes at or below it.
func TestBFSSites(t *testing.T) {
	const threshold = 24
	recs := generate(t, "bfs", "scale=10", "site_threshold=24", "seed=3")
	levelKernels := map[uint64]bool{}
	sites := 0
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			levelKernels[r.ID] = r.Name == "bfs_level"
		case *trace.Launch:
			if r.Host() {
				continue
			}
			sites++
			if r.Workload <= threshold || r.Parent.At != levelBaseCycles {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		case *trace.CTA:
			if !levelKernels[r.Kernel] {
				continue
			}
			for w, c := range r.WarpCycles {
				loop := c - levelBaseCycles
				if c != idleWarpCycles && (loop < 0 || loop%levelEdgeCycles != 0 || loop/levelEdgeCycles > threshold) {
					t.Errorf("kernel %d cta %d warp %d: %d cycles", r.Kernel, r.CTA, w, c)
				}
			}
		}
	}
	if sites == 0 {
		t.Error("no launch sites")
	}
	ruleInlines(t, "bfs", recs, workloadThreads)
}

// TestLevelCTA checks the parent cost model on a frontier of known degrees.
func TestLevelCTA(t *testing.T) {
	degrees := []int{5, 20, 3, 40, 16, 17}
	g := &csr{offsets: make([]int32, len(degrees)+1)}
	for v, d := range degrees {
		g.offsets[v+1] = g.offsets[v] + int32(d)
	}
	g.cols = make([]int32, g.offsets[len(degrees)])
	tr := &bfsTrace{g: g, block: 64, threshold: 16, loop: levelEdgeCycles}
	cta, sites := tr.levelCTA(9, 2, []int32{0, 1, 2, 3, 4, 5})
	want := &trace.CTA{Kernel: 9, CTA: 2, Cycles: levelBaseCycles + 16*levelEdgeCycles,
		WarpCycles: []int64{levelBaseCycles + 16*levelEdgeCycles, idleWarpCycles}}
	if !reflect.DeepEqual(cta, want) {
		t.Errorf("cta %+v, want %+v", cta, want)
	}
	wantSites := []bfsSite{{2, 0, 1, 20}, {2, 0, 3, 40}, {2, 0, 5, 17}}
	if !reflect.DeepEqual(sites, wantSites) {
		t.Errorf("sites %v, want %v", sites, wantSites)
	}
}

// TestExpandCTA checks the child cost model: one thread per edge, warps
// past the last edge idle.
func TestExpandCTA(t *testing.T) {
	for _, tc := range []struct {
		cta, degree int
		want        []int64
	}{
		{0, 100, []int64{expandWarpCycles(32), expandWarpCycles(32)}},
		{1, 100, []int64{expandWarpCycles(32), expandWarpCycles(4)}},
		{1, 80, []int64{expandWarpCycles(16), idleWarpCycles}},
	} {
		c := (&bfsTrace{}).expandCTA(3, tc.cta, bfsExpandBlock, tc.degree)
		if !reflect.DeepEqual(c.WarpCycles, tc.want) || c.Cycles != tc.want[0] {
			t.Errorf("expandCTA(cta %d, degree %d) = %+v, want warps %v", tc.cta, tc.degree, c, tc.want)
		}
	}
	if expandWarpCycles(32) <= expandWarpCycles(1) {
		t.Error("a full child warp should wait longer for its gathers than one lane")
	}
}

func TestBFSBadParams(t *testing.T) {
	g, _ := Lookup("bfs")
	for _, kv := range [][]string{{"scale=25"}, {"scale=22", "edgefactor=32"}, {"block=0"}, {"site_threshold=-1"}} {
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
