package samples

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestSASitesFollowLoop checks, on reads made by hand, that an sa_section
// warp's sites are spread over its run in the order its loop over reads
// reaches them, a lane launching twice at two cycles. Threshold 2:
//
//	few:  2 seeds, 1 hit, 1 candidate of 10 rows: lookup 150+2·250+1·40 = 690,
//	      inline 120+10·12 = 240 (verified in the loop)
//	many: 2 seeds, 5 hits, 3 candidates: lookup 150+2·250+5·40 = 850 (launches)
//
// Lane 0 maps many, few, many; lane 1 few, many.
//
//	step 0: lookup max(850, 690) = 850; lane 0 launches at 850; lane 1
//	        verifies inline, 240: the step ends at 850+240 = 1090
//	step 1: lane 1 launches at 1090+850 = 1940; lane 0 inline 240: ends 2180
//	step 2: lane 0 alone launches at 2180+850 = 3030; the warp ends there
func TestSASitesFollowLoop(t *testing.T) {
	few := saRead{seeds: 2, hits: 1, steps: []int32{10}}
	many := saRead{seeds: 2, hits: 5, steps: make([]int32, 3)}
	cycles, sites := saSectionWarpCycles([][]saRead{{many, few, many}, {few, many}}, 2)
	if cycles != 3030 {
		t.Errorf("warp cycles %d, want 3030", cycles)
	}
	var got [][2]int64
	for _, s := range sites {
		got = append(got, [2]int64{int64(s.at.Lane), s.at.At})
	}
	want := [][2]int64{{0, 850}, {1, 1940}, {0, 3030}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sites (lane, at) %v, want %v", got, want)
	}
}

// warpKey names one parent warp of a launch site.
type warpKey struct {
	kernel, cta uint64
	warp        int
}

// warpSites gathers a trace's device launch sites by parent warp: the
// warps in the order their first site appears, each warp's site cycles in
// record order, and each lane's.
func warpSites(recs []trace.Record) (order []warpKey, ats map[warpKey][]int64, lanes map[warpKey]map[int][]int64) {
	ats, lanes = map[warpKey][]int64{}, map[warpKey]map[int][]int64{}
	for _, r := range recs {
		l, ok := r.(*trace.Launch)
		if !ok || l.Host() {
			continue
		}
		k := warpKey{l.Parent.Kernel, l.Parent.CTA, l.Parent.Warp}
		if ats[k] == nil {
			order = append(order, k)
			lanes[k] = map[int][]int64{}
		}
		ats[k] = append(ats[k], l.Parent.At)
		lanes[k][l.Parent.Lane] = append(lanes[k][l.Parent.Lane], l.Parent.At)
	}
	return order, ats, lanes
}

// TestDPSiteTimes checks each DP generator's launch-site times on a small
// trace against the rule its doc comment states (package doc, "Launch-site
// times"): one item per thread puts all of a warp's sites at one cycle, the
// named constant where there is one; sa's loop over reads and the merge
// join's block loop spread a warp's sites, nondecreasing in record (loop)
// order, a lane's at distinct cycles.
func TestDPSiteTimes(t *testing.T) {
	cases := []struct {
		name string
		kv   []string
		at   int64 // the documented cycle of every site; 0: one per warp (mandel, amr code=dragonli) or spread (sa, join-merge)
	}{
		{"bfs", []string{"scale=10", "site_threshold=24", "seed=3"}, levelBaseCycles},
		{"sssp", []string{"scale=9", "site_threshold=12", "seed=3"}, ssspBaseCycles},
		{"gc", []string{"scale=9", "edgefactor=8", "site_threshold=24", "seed=3"}, gcBaseCycles},
		{"join", []string{"algo=hash", "r_tuples=2048", "s_tuples=1024", "site_threshold=20", "sigma=0.02"}, joinProbeBaseCycles()},
		{"spmm", []string{"rows=2000", "cols=96", "nnz_per_row=6", "site_threshold=20", "block=64", "seed=9"}, spmmRowBaseCycles},
		{"amr", []string{"code=fronts", "cells=16", "steps=2", "seed=5"}, amrCellCycles + amrRefineCycles},
		{"amr", []string{"start_value=5041.126", "max_level=3"}, 0}, // code=dragonli: host and child sites differ
		{"mandel", []string{"width=240", "height=144", "tile=48", "depth=3", "subdiv=3", "site_threshold=4", "region=seahorse", "block=32"}, 0},
		{"sa", []string{"genome=65536", "reads=1024", "section=3", "block=32", "site_threshold=16", "seed=6"}, 0},
		{"join-merge", []string{"grid=4", "r_tuples=8192", "s_tuples=4096", "max_key=512", "seed=2"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			order, ats, lanes := warpSites(generate(t, strings.TrimSuffix(tc.name, "-merge"), tc.kv...))
			if len(order) == 0 {
				t.Fatal("no launch sites")
			}
			if tc.name == "sa" || tc.name == "join-merge" {
				checkSpread(t, order, ats, lanes)
				return
			}
			for _, k := range order {
				for _, at := range ats[k] {
					if at != ats[k][0] || (tc.at != 0 && at != tc.at) {
						t.Fatalf("warp %+v: sites at %v, want all at one cycle %d", k, ats[k], tc.at)
					}
				}
			}
		})
	}
}

// checkSpread checks a looping generator's warps: sites nondecreasing in
// record order, no lane twice at one cycle, and some warp spread over more
// than one cycle (else the loop spread nothing).
func checkSpread(t *testing.T, order []warpKey, ats map[warpKey][]int64, lanes map[warpKey]map[int][]int64) {
	t.Helper()
	spread := 0
	for _, k := range order {
		a := ats[k]
		for i := 1; i < len(a); i++ {
			if a[i] < a[i-1] {
				t.Fatalf("warp %+v: sites at %v, not in loop order", k, a)
			}
		}
		if a[len(a)-1] > a[0] {
			spread++
		}
		for lane, la := range lanes[k] {
			for i := 1; i < len(la); i++ {
				if la[i] <= la[i-1] {
					t.Fatalf("warp %+v lane %d: sites at %v, not strictly later", k, lane, la)
				}
			}
		}
	}
	if spread == 0 {
		t.Errorf("no warp of %d has sites at more than one cycle", len(order))
	}
	t.Logf("%d of %d warps spread", spread, len(order))
}
