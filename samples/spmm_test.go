package samples

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestSpMMRowLengths(t *testing.T) {
	for _, tc := range []struct {
		dist        string
		mean, rows  int
		minMaxRatio float64 // the longest row must be at least this many means
	}{
		{"powerlaw", 8, 20000, 20},
		{"powerlaw", 64, 4096, 5},
		{"uniform", 8, 20000, 1.5},
	} {
		lengths := spmmRowLengths(newRand(3), tc.rows, tc.mean, tc.dist, 2.5)
		sum, longest := 0, 0
		for _, n := range lengths {
			if n < 1 || int(n) > tc.rows {
				t.Fatalf("%s: row length %d outside [1, %d]", tc.dist, n, tc.rows)
			}
			sum += int(n)
			longest = max(longest, int(n))
		}
		mean := float64(sum) / float64(tc.rows)
		if mean < 0.9*float64(tc.mean) || mean > 1.15*float64(tc.mean) {
			t.Errorf("%s: mean row length %.2f, want about %d", tc.dist, mean, tc.mean)
		}
		if float64(longest) < tc.minMaxRatio*mean {
			t.Errorf("%s: longest row %d, mean %.1f: too little skew", tc.dist, longest, mean)
		}
		if tc.dist == "uniform" && longest > 2*tc.mean-1 {
			t.Errorf("uniform: longest row %d beyond 2·mean−1", longest)
		}
	}
}

// TestSpMMRowCTA checks the parent cost model on rows of known lengths:
// the rows above the threshold are sites, the others loop, and the warp
// waits for its longest looping row.
func TestSpMMRowCTA(t *testing.T) {
	tr := &spmmTrace{cfg: spmmConfig{spmmShape: spmmShape{cols: 100}, block: 64, threshold: 32}}
	cta, sites := tr.rowCTA(7, 3, []int32{5, 40, 32, 33})
	loop := spmmRowBaseCycles + int64(32*100*spmmInlineElemCycles)
	want := &trace.CTA{Kernel: 7, CTA: 3, Cycles: loop, WarpCycles: []int64{loop, spmmIdleWarpCycles}}
	if !reflect.DeepEqual(cta, want) {
		t.Errorf("cta %+v, want %+v", cta, want)
	}
	wantSites := []spmmSite{{3, 0, 1, 40}, {3, 0, 3, 33}}
	if !reflect.DeepEqual(sites, wantSites) {
		t.Errorf("sites %v, want %v", sites, wantSites)
	}
}

// TestSpMMColCTA checks the child cost model: one thread per column, warps
// past the last column idle.
func TestSpMMColCTA(t *testing.T) {
	busy := spmmColWarpCycles(32, 50)
	if busy != spmmColBaseCycles+50*spmmColNnzCycles {
		t.Errorf("busy warp %d cycles", busy)
	}
	for _, tc := range []struct {
		cta, cols int
		want      []int64
	}{
		{0, 100, []int64{busy, busy}},
		{1, 100, []int64{busy, busy}}, // 4 columns still make the second warp run the whole row
		{1, 80, []int64{busy, spmmIdleWarpCycles}},
	} {
		c := spmmColCTA(2, tc.cta, tc.cols, 50)
		if !reflect.DeepEqual(c.WarpCycles, tc.want) || c.Cycles != busy {
			t.Errorf("spmmColCTA(cta %d, cols %d) = %+v, want warps %v", tc.cta, tc.cols, c, tc.want)
		}
	}
}

// TestSpMMSites checks every launch site and parent warp of a generated
// trace against the threshold and the meta's totals.
func TestSpMMSites(t *testing.T) {
	const threshold, cols = 20, 96
	recs := generate(t, "spmm", "rows=2000", "cols=96", "nnz_per_row=6", "site_threshold=20", "block=64", "seed=9")
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	if host != 1 || strconv.Itoa(device) != h.Meta["sites"] || strconv.Itoa(n[trace.KindCTA]) != h.Meta["ctas"] ||
		strconv.Itoa(n[trace.KindKernel]) != h.Meta["kernels"] || h.Meta["rows"] != "2000" || h.Meta["size"] != "small" {
		t.Errorf("records %v, %d host, %d device launches; meta %v", n, host, device, h.Meta)
	}
	if device == 0 {
		t.Fatal("no launch sites")
	}
	perElem := int64(cols * spmmInlineElemCycles)
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if r.Name == "spmm_col" && r.Grid[0] != uint32(ceilDiv(cols, spmmColBlock)) {
				t.Errorf("child %+v", r)
			}
		case *trace.Launch:
			if !r.Host() && (r.Workload <= threshold || r.Parent.At != spmmRowBaseCycles) {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		case *trace.CTA:
			if r.Kernel != 1 {
				continue
			}
			for w, c := range r.WarpCycles {
				loop := c - spmmRowBaseCycles
				if c != spmmIdleWarpCycles && (loop < 0 || loop%perElem != 0 || loop/perElem > threshold) {
					t.Errorf("cta %d warp %d: %d cycles", r.CTA, w, c)
				}
			}
		}
	}
	ruleInlines(t, "spmm", recs, func(*trace.Launch, *trace.Kernel) int64 { return cols })
}

// TestSpMMPresets checks that size picks the shape and explicit values
// override it one by one.
func TestSpMMPresets(t *testing.T) {
	g, _ := Lookup("spmm")
	for _, tc := range []struct {
		kv   []string
		want spmmShape
	}{
		{nil, spmmShape{rows: 4096, cols: 128, nnz: 8}},
		{[]string{"size=large"}, spmmShape{rows: 32768, cols: 512, nnz: 16}},
		{[]string{"size=large", "rows=1000"}, spmmShape{rows: 1000, cols: 512, nnz: 16}},
		{[]string{"cols=7", "nnz_per_row=3"}, spmmShape{rows: 4096, cols: 7, nnz: 3}},
	} {
		p, err := g.ParseParams(tc.kv)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := parseSpMM(p)
		if err != nil || cfg.spmmShape != tc.want {
			t.Errorf("%v: shape %+v, %v; want %+v", tc.kv, cfg.spmmShape, err, tc.want)
		}
	}
}

func TestSpMMBadParams(t *testing.T) {
	g, _ := Lookup("spmm")
	for _, kv := range [][]string{
		{"rows=10", "nnz_per_row=11"}, {"rows=4"}, {"size=medium"}, {"dist=zipf"},
		{"alpha=1"}, {"cols=70000"}, {"block=0"}, {"site_threshold=-1"},
	} {
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, ok := err.(*ParamError); !ok {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
