package samples

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestAMRDLValues checks computeEnergy and computeTemperature on values
// worked by hand from amrRegDevice.h's formulas. From T = 5041.126 (the
// source's glibc start): E = 4.6e-5·T² + 0.14816·T + 962.62 = 1168.996 +
// 746.893 + 962.62 = 2878.509. Sub-cell 0 (x, y, z = 0: divisor 2) has E'
// - 962.62 = 957.944, and T' = (-0.1486 + √(0.1486² + 4·4.6e-5·957.944)) /
// (2·4.6e-5) = (-0.1486 + √0.198344)/9.2e-5 = 3225.6; sub-cell 31 (3, 3,
// 1: divisor 21) 91.233, √0.038869, 527.7. From 200: E = 994.09; sub-cell
// 0 gets 102.6, sub-cell 1 (divisor 3) 69.1: only sub-cell 0 refines.
func TestAMRDLValues(t *testing.T) {
	e := amrDLEnergy(5041.126)
	for _, c := range []struct{ got, want, tol float64 }{
		{float64(e), 2878.509, 1e-3},
		{float64(amrDLTemperature(e, 0)), 3225.6, 0.1},
		{float64(amrDLTemperature(e, 31)), 527.7, 0.1},
		{float64(amrDLEnergy(200)), 994.09, 0.01},
		{float64(amrDLTemperature(amrDLEnergy(200), 0)), 102.6, 0.1},
		{float64(amrDLTemperature(amrDLEnergy(200), 1)), 69.1, 0.1},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("got %g, want %g", c.got, c.want)
		}
	}
}

// TestAMRDLGlibcStart checks the tree from the source's own start value
// (glibc's unseeded first rand(), 1804289383/2147483647·6000) against an
// independent float-by-float recomputation of amrRegDevice.h's formulas:
// every level-1 cell refines, 756 of level 2's and 2,995 of level 3's.
func TestAMRDLGlibcStart(t *testing.T) {
	recs := generate(t, "amr", "start_value=5041.126")
	meta := recs[0].(*trace.Header).Meta
	want := map[string]string{"level_cells": "1,32,1024,24192,95840", "refining": "1,32,756,2995", "grid_cells": "121089", "sites": "789", "kernels": "790"}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("meta %s = %q, want %q", k, meta[k], v)
		}
	}
	flat := generate(t, "amr", "start_value=5041.126", "variant=flat")[0].(*trace.Header).Meta
	for _, k := range []string{"level_cells", "refining", "grid_cells"} {
		if flat[k] != meta[k] {
			t.Errorf("flat meta %s = %q, dp %q: the same grid", k, flat[k], meta[k])
		}
	}
	if flat["kernels"] != "4" || flat["sites"] != "0" {
		t.Errorf("flat: %s kernels, %s sites; want AmrReg's 4 levels, no sites", flat["kernels"], flat["sites"])
	}
}

// amrDLTiny is the hand-worked grid: start 200 on 2 CTAs of 64 threads.
// Cell 0 of level 0 refines; of its 32 sub-cells only sub-cell 0 (102.6)
// does; none of that one's (from 102.6: 52.0 at most). So level_cells
// 1,32,32,0,0.
var amrDLTiny = []string{"start_value=200", "ctas=2", "threads=64"}

// TestAMRDLHandCDP checks the dp trace of amrDLTiny, cycle by cycle (scan
// over 64 threads: 7·40 = 280; over 32: 6·40 = 240; the measured look
// 279, sub-cell 1,173 and energy 345, amrdlcost.go):
//
//	host CTA 0: warp 0 looks at cell 0 (279), both warps meet at the
//	    scan's barrier at 279; scan 280, claim 120, barrier 40: 719;
//	    overflow check 100 and energy 345: warp 0 launches at 1,164;
//	    warp 1 (no cell) ends at 819. CTA 1 has no chunk: idle, 20.
//	child of cell 0: its value 1,173 and look 279 (1,452), scan 240,
//	    claim 120, barrier 40 (1,852), check 100, energy 345: lane 0
//	    launches at 2,297.
//	grandchild: 1,452, scan and barrier (no claim) 1,732, check: 1,832.
//
// Workloads: the grandchild computes 32 cells, 32·1,173 = 37,536
// cycles; the child 32 cells, one refining (claim 120 + energy 345), and
// the grandchild's tree: 64 cells, 37,536 + 465 + 37,536 = 75,537.
func TestAMRDLHandCDP(t *testing.T) {
	recs := generate(t, "amr", amrDLTiny...)
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	block := func(n uint32) [3]uint32 { return [3]uint32{n, 1, 1} }
	kernel := func(id uint64, name string, grid, threads uint32) *trace.Kernel {
		return &trace.Kernel{ID: id, Name: name, Grid: block(grid), Block: block(threads), Regs: amrDLRegs, Smem: int64(threads)*4 + 4}
	}
	cta := func(k uint64, c uint64, warps ...int64) *trace.CTA {
		return &trace.CTA{Kernel: k, CTA: c, Cycles: dpWarpMax(warps), WarpCycles: warps}
	}
	want := []trace.Record{
		kernel(1, "amr_cdp_refine", 2, 64),
		&trace.Launch{Kernel: 1},
		cta(1, 0, 1164, 819),
		cta(1, 1, 20, 20),
		kernel(2, "amr_cdp_thread_refine", 1, 32),
		&trace.Launch{Kernel: 2, Parent: &trace.Parent{Kernel: 1, At: 1164}, Workload: 64, InlineCycles: 75537},
		cta(2, 0, 2297),
		kernel(3, "amr_cdp_thread_refine", 1, 32),
		&trace.Launch{Kernel: 3, Parent: &trace.Parent{Kernel: 2, At: 2297}, Workload: 32, InlineCycles: 37536},
		cta(3, 0, 1832),
		&trace.Memcpy{Dir: trace.DirD2H, Buffer: 3, Bytes: 4},
	}
	checkAMRDLRecords(t, recs, want)
	// The host CTA's demand: its warps' 1,983 cycles at 60 instructions
	// and 128 bytes per 1,173 (amrMixes): 101.43 and 216.39.
	if c := recs[6].(*trace.CTA); c.Insts != 101 || c.DRAMBytes != 216 {
		t.Errorf("host CTA 0's demand %d insts, %d bytes; want 101, 216", c.Insts, c.DRAMBytes)
	}
	meta := recs[0].(*trace.Header).Meta
	if meta["level_cells"] != "1,32,32,0,0" || meta["refining"] != "1,1,0,0" || meta["grid_cells"] != "65" || meta["first_start_value"] != "200" {
		t.Errorf("meta %v", meta)
	}
}

// TestAMRDLHandReg checks the flat (AmrReg) trace of amrDLTiny: one
// amr_reg_refine per level with cells (levels 0, 1, 2; level 3 is empty),
// each followed by the counter's copy.
//
//	level 0, CTA 0: as the dp host CTA to 719, then warp 0's check,
//	    energy and loop over 32 sub-cells, 100 + 345 + 32·1,173 =
//	    37,981 (38,700), warp 1's check 819; the empty pass: both meet at
//	    38,700, scan and barrier 320, check 100: 39,120. CTA 1: the
//	    empty pass alone, 420.
//	level 1: the same (cell 0 of its 32 refines, in warp 0).
//	level 2: no cell refines: 279, scan and barrier 599, check 699; the
//	    empty pass 699 + 320 + 100 = 1,119.
func TestAMRDLHandReg(t *testing.T) {
	recs := generate(t, "amr", append(amrDLTiny, "variant=flat")...)
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	var got [][]int64
	kernels, copies := 0, 0
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			kernels++
			if r.Name != "amr_reg_refine" || r.Grid != [3]uint32{2, 1, 1} || r.Block != [3]uint32{64, 1, 1} {
				t.Errorf("kernel %+v", r)
			}
		case *trace.CTA:
			got = append(got, r.WarpCycles)
		case *trace.Memcpy:
			copies++
		case *trace.Launch:
			if !r.Host() {
				t.Errorf("device launch %+v in the flat trace", r)
			}
		}
	}
	want := [][]int64{{39120, 39120}, {420, 420}, {39120, 39120}, {420, 420}, {1119, 1119}, {420, 420}}
	if kernels != 3 || copies != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d kernels, %d copies, warps %v; want 3, 3, %v", kernels, copies, got, want)
	}
}

// TestAMRDLSitesFollowPasses checks that a persistent host CTA's sites
// come where its chunk loop reaches them: 70 start cells of 200 on one
// CTA of 32 threads make three passes (32, 32 and 6 cells), every cell
// refining. Pass 1: look 279, scan 240, barrier 40, claim 120 (679),
// check 100, energy 345: sites at 1,124; pass 2 starts at 1,124 + 279
// and launches at 2,248; pass 3 at 3,372.
func TestAMRDLSitesFollowPasses(t *testing.T) {
	recs := generate(t, "amr", "start_cells=70", "start_value=200", "ctas=1", "threads=32", "max_level=2")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	count := map[int64]int{}
	for _, r := range recs {
		if l, ok := r.(*trace.Launch); ok && !l.Host() && l.Parent.Kernel == 1 {
			count[l.Parent.At]++
		}
	}
	if want := map[int64]int{1124: 32, 2248: 32, 3372: 6}; !reflect.DeepEqual(count, want) {
		t.Errorf("host sites by cycle %v, want %v", count, want)
	}
}

// TestAMRDLNested checks the nesting from a start of 3000: one child kernel per refining cell of levels 0 to max_level-2,
// each one warp over 32 cells, and each site's workload its child's 32
// cells plus its child's sites' workloads.
func TestAMRDLNested(t *testing.T) {
	recs := generate(t, "amr", "start_value=3000")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	tr := newAMRTree(t, recs)
	below, deepest := tr.sitesBelow()
	device := 0
	for id, l := range tr.launches {
		if l.Host() {
			continue
		}
		device++
		if k := tr.kernels[id]; k.Name != "amr_cdp_thread_refine" || k.CTAs() != 1 || k.Threads() != 32 {
			t.Errorf("child %+v", k)
		}
		if l.Workload != 32+below[id] || l.InlineCycles < l.Workload*amrDLTempCycles {
			t.Errorf("site %+v: %d below", l, below[id])
		}
	}
	// From 3000 (the python check of TestAMRDLGlibcStart's formulas):
	// 1, 32 and 420 cells of levels 0-2 refine.
	if device != 1+32+420 || deepest != 3 {
		t.Errorf("%d child kernels, nesting %d; want 453 and 3", device, deepest)
	}
}

// TestAMRDLDeterministic checks that a run is a function of its
// parameters, that by default it starts where the source does whatever
// the seed, and that start_value=random lets the seed draw it.
func TestAMRDLDeterministic(t *testing.T) {
	a, b := generate(t, "amr", "seed=3", "start_value=random"), generate(t, "amr", "seed=3", "start_value=random")
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different traces")
	}
	c := generate(t, "amr", "seed=4", "start_value=random")
	if a[0].(*trace.Header).Meta["first_start_value"] == c[0].(*trace.Header).Meta["first_start_value"] {
		t.Error("seeds 3 and 4 drew the same start value")
	}
	for _, seed := range []string{"seed=3", "seed=4"} {
		if v := generate(t, "amr", seed)[0].(*trace.Header).Meta["first_start_value"]; v != "5041.126" {
			t.Errorf("%s: default start value %s, want the source's 5041.126", seed, v)
		}
	}
}

// TestAMRFrontsUnchanged checks that code=fronts writes byte for byte
// what the amr generator wrote at commit aa52402, before code=dragonli
// existed (dpTraces holds its dp traces).
func TestAMRFrontsUnchanged(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		hash string
	}{
		{[]string{"variant=flat"}, "1163770d9da76a9849ac24851c518ab2a22f9b6ff9ecb3043e91e7a70e65e65f"},
		{[]string{"cells=16", "depth=2", "seed=3", "variant=flat"}, "9a7eabbebc59dd6efcdb5df5e8c8d67518f42434f8bdf2d718945f5a3c46a092"},
		{[]string{"cells=8", "steps=2", "fronts=2", "seed=7"}, "4934231c5dc2e68493eb432d49453e74b362e7d733d747b8ca1f5bb9b939fca3"},
	} {
		if got := traceHash(t, "amr", append([]string{"code=fronts"}, c.kv...)...); got != c.hash {
			t.Errorf("%v: hash %s, want %s", c.kv, got, c.hash)
		}
	}
}

// TestAMRDLBadParams checks code=dragonli's checks, and that a parameter
// of the other code is refused rather than ignored.
func TestAMRDLBadParams(t *testing.T) {
	g, _ := Lookup("amr")
	for _, c := range []struct {
		kv    []string
		param string
	}{
		{[]string{"code=nested"}, "code"},
		{[]string{"cells=16"}, "cells"},
		{[]string{"code=fronts", "max_level=3"}, "max_level"},
		{[]string{"threads=48"}, "threads"},
		{[]string{"start_value=7000"}, "start_value"},
		{[]string{"start_value=x"}, "start_value"},
		{[]string{"start_value=5041", "max_cells=1000"}, "max_cells"},
		{[]string{"start_cells=5", "max_cells=4"}, "start_cells"},
		{[]string{"max_level=0"}, "max_level"},
		{[]string{"refine_threshold=-1"}, "refine_threshold"},
	} {
		p, err := g.ParseParams(c.kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%v: err %v, want a ParamError for %s", c.kv, err, c.param)
		}
	}
}

// checkAMRDLRecords compares the records after the header and the three
// buffers with want, CTAs without their demand.
func checkAMRDLRecords(t *testing.T, recs, want []trace.Record) {
	t.Helper()
	if len(recs) != 4+len(want) {
		t.Fatalf("%d records, want %d", len(recs), 4+len(want))
	}
	for i, w := range want {
		got := recs[4+i]
		if c, ok := got.(*trace.CTA); ok { // the demand is checked apart
			plain := *c
			plain.Insts, plain.DRAMBytes = 0, 0
			got = &plain
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("record %d: %+v, want %+v", 4+i, got, w)
		}
	}
}
