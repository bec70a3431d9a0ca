package samples

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestJoinHashUnchanged checks that algo=hash writes, byte for byte, the
// traces the join generator wrote at commit aa52402, before algo existed
// (dpTraces holds two more, the dp variant's defaults among them), but
// for the sites' inline_cycles, by the lane-loop rule (laneloop.go).
func TestJoinHashUnchanged(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		hash string
	}{
		{[]string{"variant=flat"}, "96afb078e933b0ba2f8f27118b8bcf454f85c8c0e8c4b49b87468e3ecf6e59d8"},
		{[]string{"dist=uniform"}, "58c14a6332a39814e7d181ae89d4f4b20da25f82ee0f3f8ba278e266c7d02f5a"},
		{[]string{"dist=uniform", "variant=flat"}, "7f3afd5bb72018ac1c29031fbf4af1772049252c0621351664f95f93c2ac0c9f"},
		{[]string{"r_tuples=2048", "s_tuples=1024", "site_threshold=20", "sigma=0.02", "block=64", "seed=7"},
			"2fbc3b74435afaac85ef6cdab88e2b65def401adf43ba5b11ba02d9d6f2ba56b"},
	} {
		if got := traceHash(t, "join", append([]string{"algo=hash"}, c.kv...)...); got != c.hash {
			t.Errorf("algo=hash %v: hash %s, want %s", c.kv, got, c.hash)
		}
	}
}

// TestMergeStepsByHand follows joinRegMainJoinKernel's loop on one
// partition with blocks of 4:
//
//	left  = 1 1 2 5 | 5 5 5 9        right = 0 [1 5 5 6 | 9 9] 12
//
// The partition's right range is [lower_bound(1), upper_bound(9)) = [1, 7).
//
//	left [0,4) × right [1,5): joined (found 2 1 1 0); right [5,7) starts
//	    at 9 > 5: staged, breaks
//	left [4,8) × right [1,5): joined (0 3 3 0); right [5,7): 9 ≤ 9, joined
//	    (1 1)
//
// 12 pairs, as the nested loops count: 2·1 (key 1) + 4·2 (5) + 1·2 (9).
func TestMergeStepsByHand(t *testing.T) {
	left := []int32{1, 1, 2, 5, 5, 5, 5, 9}
	right := []int32{0, 1, 5, 5, 6, 9, 9, 12}
	parts := mergePartitions(left, right, 1)
	if want := (mergePartition{lo: 0, hi: 8, rlo: 1, rhi: 7}); parts[0] != want {
		t.Fatalf("partition %+v, want %+v", parts[0], want)
	}
	steps := mergeSteps(left, right, parts[0], 4)
	want := []mergeStep{
		{join: true, l: 0, lb: 4, r: 1, rb: 4}, {l: 0, lb: 4, r: 5, rb: 2},
		{join: true, l: 4, lb: 4, r: 1, rb: 4}, {join: true, l: 4, lb: 4, r: 5, rb: 2},
	}
	if !slices.Equal(steps, want) {
		t.Fatalf("steps %+v, want %+v", steps, want)
	}
	var found []int
	for _, s := range steps {
		for th := 0; s.join && th < s.rb; th++ {
			found = append(found, mergeFound(left, right, s, th))
		}
	}
	if want := []int{2, 1, 1, 0, 0, 3, 3, 0, 1, 1}; !slices.Equal(found, want) {
		t.Errorf("found %v, want %v", found, want)
	}
}

// TestMergeSkipsAndPartitions checks the loop's skips and the partitions:
// with two partitions of 4 the second CTA owns left [4,8) = 6 7 8 9 and
// the right range of keys in [6, 9]; an empty third partition gets the
// empty range at the end. Blocks of 2: left 6 7 × right 6 6 joins, and
// staging right 9 ends the inner loop (9 > 7); right 6 6 is then below
// left 8 9 and is skipped; 8 9 × 9 joins.
func TestMergeSkipsAndPartitions(t *testing.T) {
	left := []int32{1, 2, 3, 4, 6, 7, 8, 9}
	right := []int32{2, 6, 6, 9, 11}
	parts := mergePartitions(left, right, 3) // ⌈8/3⌉ = 3 a partition
	want := []mergePartition{{0, 3, 0, 1}, {3, 6, 1, 3}, {6, 8, 3, 4}}
	if !slices.Equal(parts, want) {
		t.Fatalf("3 partitions %+v, want %+v", parts, want)
	}
	parts = mergePartitions(left, right, 2)
	steps := mergeSteps(left, right, parts[1], 2)
	wantSteps := []mergeStep{
		{join: true, l: 4, lb: 2, r: 1, rb: 2}, {l: 4, lb: 2, r: 3, rb: 1},
		{l: 6, lb: 2, r: 1, rb: 2}, {join: true, l: 6, lb: 2, r: 3, rb: 1},
	}
	if parts[1] != (mergePartition{4, 8, 1, 4}) || !slices.Equal(steps, wantSteps) {
		t.Errorf("partition %+v steps %+v, want steps %+v", parts[1], steps, wantSteps)
	}
	if empty := mergePartitions(left, right, 9)[8]; empty != (mergePartition{8, 8, 5, 5}) {
		t.Errorf("empty partition %+v", empty)
	}
}

// TestMergeMatchesBruteForce checks that the partitions' block loops find
// every pair of a nested-loop join exactly once, over grids and blocks.
func TestMergeMatchesBruteForce(t *testing.T) {
	rng := newRand(5)
	cfg := joinConfig{maxKey: 300, gaussian: true, sigma: 0.05}
	left, right := sortedJoinKeys(rng, 1500, cfg), sortedJoinKeys(rng, 700, cfg)
	nested := 0
	for _, l := range left {
		for _, r := range right {
			if l == r {
				nested++
			}
		}
	}
	for _, shape := range [][2]int{{1, 128}, {7, 32}, {240, 128}, {3, 5}} {
		merged := 0
		for _, p := range mergePartitions(left, right, shape[0]) {
			for _, s := range mergeSteps(left, right, p, shape[1]) {
				for th := 0; s.join && th < s.rb; th++ {
					merged += mergeFound(left, right, s, th)
				}
			}
		}
		if merged != nested || nested == 0 {
			t.Errorf("grid %d, block %d: merge join found %d pairs, nested loops %d", shape[0], shape[1], merged, nested)
		}
	}
}

// TestMergeCTAByHand costs join_main CTAs by hand, at an issue cost of 4
// cycles a warp instruction and no prefix-step latency past its
// instructions (withJoinRates; the fitted rates are joinissue.go's).
//
// Left 256 copies of 7, right 3 7 7 7, blocks of 128, threshold 128: the
// right range is [1, 4), two joined steps of lb 128, rb 3, every thread
// finding 128 and launching a 1-CTA child, no remainder. Latency:
// prologue 202 (a CTA's base: its parameters and the bounds' round
// trip), staging 120, searches 2·8·30 = 480 a step: 802 at the first
// site, 802+120+480 = 1402 at the second. Instructions (joinissue.go):
// 43 + 36 before the loop, a trip's 65, the join's 34, 16 search
// iterations of 14 (224), prefixSumCta's 62: 464 at the first site,
// 464+65+34+224+62 = 849 at the second; (464−22)·4 = 1768 and
// (849−22)·4 = 3308: sites at 802+1768 = 2570 and 1402+3308 = 4710
// (lanes 0-2 of warp 0). The CTA ends after the count's store and its
// acknowledgement (120) and the epilogue's 12 instructions:
// 1522 + (861−22)·4 = 1522+3356 = 4878. Flat: each step's loop writes
// 128 outputs at 40, 5120 (loop_cycles prices an output whole):
// 1522+2·5120+3356 = 15118.
//
// Left 200 copies of 7 in blocks of 256, right one 7: found 200 launches
// one CTA (200>>7) and writes the remaining 72 itself: 802 of latency
// and 79+65+34+224+69 (prefixSumCta at 256 threads) = 471 instructions,
// the site at 802+(471−22)·4 = 2598; the end at 802+72·40+120 = 3802 and
// (483−22)·4 = 1844: 5646.
//
// Each is the grid's CTA 0, in join_main's first wave (coldWave), so
// every time above is later by its cold start, the 22 lines its slowest
// warp waits for whole at 241 cycles (coldstart.go): 5302; and its end
// by line 133's wait after the writes (joinMainTailCold): whole (241)
// where warp 0's lanes write nothing themselves (the dp CTA: each lane's
// 128 go to its child), nothing where they write more than a miss of
// instructions (the flat CTA's 128 a lane and the remainder's 72, fours
// all: 9 + 20·32 and 9 + 20·18 instructions, 2,596 and 1,476 cycles at
// 4 cycles each, against the miss's 241).
func TestMergeCTAByHand(t *testing.T) {
	withJoinRates(t, 0, 4)
	sevens := func(n int) []int32 {
		k := make([]int32, n)
		for i := range k {
			k[i] = 7
		}
		return k
	}
	cfg := joinConfig{merge: true, grid: 1, block: 128, threshold: 128, loopCycles: 40}
	left, right := sevens(256), []int32{3, 7, 7, 7}
	dp := newMergeTrace(cfg, left, right).main[0]
	var sites []mergeSite
	const cold, tail = 5302, 241
	for _, at := range []int64{cold + 2570, cold + 4710} {
		for lane := range 3 {
			sites = append(sites, mergeSite{lane: lane, at: at, found: 128})
		}
	}
	if dp.cycles != cold+tail+4878 || dp.outputs != 768 || !slices.Equal(dp.sites, sites) {
		t.Errorf("dp CTA %+v, want %d cycles, 768 outputs, sites %+v", dp, cold+tail+4878, sites)
	}
	cfg.threshold = noSites
	if flat := newMergeTrace(cfg, left, right).main[0]; flat.cycles != cold+15118 || len(flat.sites) != 0 || flat.outputs != 768 {
		t.Errorf("flat CTA %+v, want %d cycles, 768 outputs, no sites", flat, cold+15118)
	}
	cfg.block, cfg.threshold = 256, 128
	rem := newMergeTrace(cfg, sevens(200), []int32{7}).main[0]
	if want := []mergeSite{{at: cold + 2598, found: 200}}; rem.cycles != cold+5646 || !slices.Equal(rem.sites, want) {
		t.Errorf("remainder CTA %+v, want %d cycles, sites %+v", rem, cold+5646, want)
	}
}

// withJoinRates sets the merge join's fitted rates, a prefix step's
// latency and a warp instruction's issue, for a test worked by hand, and
// puts them back after it.
func withJoinRates(t *testing.T, prefix int64, issue float64) {
	t.Helper()
	p, c := joinPrefixStepCycles, joinIssueCycles
	joinPrefixStepCycles, joinIssueCycles = prefix, issue
	t.Cleanup(func() { joinPrefixStepCycles, joinIssueCycles = p, c })
}

// mergeSmall is a merge join with launch sites that generates quickly: 4
// CTAs of 2048 left tuples each, gaussian keys over 512 values (sd 5), so
// the central keys fill whole blocks.
var mergeSmall = []string{"grid=4", "r_tuples=8192", "s_tuples=4096", "max_key=512", "seed=2"}

// TestMergeTraceRecords checks a generated merge trace: its order and
// kernels, every launch a join_main thread's of found>>7 CTAs with the
// inline cost of those outputs, the meta's totals against the records and
// a nested-loop count, and the flat variant: the same host kernels and
// work, no launches, no CTA faster than its dp CTA.
func TestMergeTraceRecords(t *testing.T) {
	recs := generate(t, "join", mergeSmall...)
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	h := recs[0].(*trace.Header)
	names, hosts, grids := map[uint64]string{}, []string{}, map[uint64]uint64{}
	dpMain := map[uint64]int64{}
	sites := 0
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID], grids[r.ID] = r.Name, r.CTAs()
		case *trace.Launch:
			if r.Host() {
				hosts = append(hosts, names[r.Kernel])
				continue
			}
			sites++
			if names[r.Parent.Kernel] != "join_main" || names[r.Kernel] != "join_output" || r.Workload%joinOutputBlock != 0 ||
				grids[r.Kernel] != uint64(r.Workload/joinOutputBlock) {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		case *trace.CTA:
			if names[r.Kernel] == "join_main" {
				dpMain[r.CTA] = r.Cycles
			}
		}
	}
	want := []string{"join_bounds", "join_scan_blocks", "join_main", "join_scan_blocks", "join_gather"} // 5 values: one scan CTA
	if !slices.Equal(hosts, want) || sites == 0 || h.Meta["sites"] != strconv.Itoa(sites) || h.Meta["site_threshold"] != "128" || h.Meta["block"] != "128" {
		t.Errorf("host kernels %v (want %v), %d sites; meta %v", hosts, want, sites, h.Meta)
	}
	cfg := joinConfig{maxKey: 512, gaussian: true, sigma: 0.01}
	rng := newRand(2)
	left, right := sortedJoinKeys(rng, 8192, cfg), sortedJoinKeys(rng, 4096, cfg)
	nested := 0
	for _, k := range right {
		nested += upperBound(left, k) - lowerBound(left, k)
	}
	if h.Meta["matches"] != strconv.Itoa(nested) {
		t.Errorf("meta matches %s, nested loops %d", h.Meta["matches"], nested)
	}
	flat := generate(t, "join", append(mergeSmall, "variant=flat")...)
	fh := flat[0].(*trace.Header)
	if n, _, device := countKinds(flat); device != 0 || n[trace.KindKernel] != len(want) || fh.Meta["matches"] != h.Meta["matches"] {
		t.Errorf("flat: %v records, %d device launches, meta %v", n, device, fh.Meta)
	}
	for _, r := range flat {
		if c, ok := r.(*trace.CTA); ok && c.Kernel == 3 && c.Cycles < dpMain[c.CTA] {
			t.Errorf("flat join_main CTA %d: %d cycles, dp %d", c.CTA, c.Cycles, dpMain[c.CTA])
		}
	}
	ruleInlines(t, "join", recs, workloadThreads)
}

// TestMergeScanKernels checks the prefix scans of 131 per-CTA values
// (grid 130) in CTAs of 128, at an issue cost of 4 cycles a warp
// instruction and no prefix-step latency (withJoinRates):
// join_scan_blocks' 2 CTAs, every warp 202+120 = 322 (a CTA's base with
// its load, a store and its acknowledgement) and (81−22)·4 = 236 for its
// instructions, 558; join_scan_totals' two integer divisions (2·122) and
// one trip (2 totals), 244+322+(89−22)·4 = 834; join_scan_distribute's 2
// CTAs, 202+120 = 322 in the warps holding values (CTA 1's first warp:
// values 128-130; its 20 instructions fewer than the base's), idle
// after. Each kernel's first wave, here all its CTAs, fetches its code:
// the second scan from the L2, 6, 7 and 2 lines at 100 (1158, 1534, 522
// and idle 220); the first, cold, 141 more for each line from DRAM, 6, 6
// and 1 (1158+846 = 2004, 1534+846 = 2380, 522+141 = 663 and idle 361),
// a whole miss, 241, for each of those (coldstart.go).
func TestMergeScanKernels(t *testing.T) {
	withJoinRates(t, 0, 4)
	recs := generate(t, "join", "dist=uniform", "grid=130", "r_tuples=1000", "s_tuples=1000")
	names := map[uint64]string{}
	var hosts []string
	warps := map[string][][]int64{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.Launch:
			hosts = append(hosts, names[r.Kernel])
		case *trace.CTA:
			warps[names[r.Kernel]] = append(warps[names[r.Kernel]], r.WarpCycles)
		}
	}
	scan := []string{"join_scan_blocks", "join_scan_totals", "join_scan_distribute"}
	want := slices.Concat([]string{"join_bounds"}, scan, []string{"join_main"}, scan, []string{"join_gather"})
	if !slices.Equal(hosts, want) {
		t.Fatalf("host kernels %v, want %v", hosts, want)
	}
	all, i := []int64{1158, 1158, 1158, 1158}, int64(idleWarpCycles)
	dist := [][]int64{{522, 522, 522, 522}, {522, 200 + i, 200 + i, 200 + i}}
	totals := []int64{1534, 1534, 1534, 1534}
	coldBlocks, coldTotals := []int64{2004, 2004, 2004, 2004}, []int64{2380, 2380, 2380, 2380}
	coldDist := [][]int64{{663, 663, 663, 663}, {663, 341 + i, 341 + i, 341 + i}}
	for name, w := range map[string][][]int64{
		"join_scan_blocks":     {coldBlocks, coldBlocks, all, all},
		"join_scan_totals":     {coldTotals, totals},
		"join_scan_distribute": slices.Concat(coldDist, dist),
	} {
		if !reflect.DeepEqual(warps[name], w) {
			t.Errorf("%s warps %v, want %v (both scans' CTAs, in order)", name, warps[name], w)
		}
	}
}

// TestMergeGatherAndChildByHand costs join_gather's warps and a
// join_output CTA by hand. A partition of 200 outputs in CTAs of 128:
// its first lanes copy elements 0 and 128 (two trips) in warp 0, 32 and
// 160 in warp 1, 64 and 192 in warp 2, and 96 alone in warp 3 (224 is
// past the end); each warp begins with a CTA's base (202), waits a round
// trip for the partition's scattered offset (100), copies at two round
// trips and two store issues a trip (2·(100+20) = 240) and ends with a
// round trip to its stores' acknowledgement (100): 202+100+2·240+100 =
// 882 three times, then 202+100+240+100 = 642. An empty partition's warps copy nothing and
// wait for no store: 202 each. A join_output CTA is a CTA's base, 202,
// in each of its 4 warps.
func TestMergeGatherAndChildByHand(t *testing.T) {
	var got []int64
	for w := range 4 {
		got = append(got, joinGatherWarpCycles(200, 128, w))
	}
	if want := []int64{882, 882, 882, 642}; !slices.Equal(got, want) {
		t.Errorf("join_gather warps of 200 outputs: %v, want %v", got, want)
	}
	if got := joinGatherWarpCycles(0, 128, 0); got != 202 {
		t.Errorf("join_gather warp of an empty partition: %d, want 202", got)
	}
	names, children := map[uint64]string{}, 0
	for _, r := range generate(t, "join", mergeSmall...) {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.CTA:
			if names[r.Kernel] != "join_output" {
				continue
			}
			if r.Cycles != 202 || !slices.Equal(r.WarpCycles, []int64{202, 202, 202, 202}) {
				t.Errorf("join_output CTA %d cycles, warps %v; want 202 each", r.Cycles, r.WarpCycles)
			}
			children++
		}
	}
	if children == 0 {
		t.Error("no join_output CTA in a trace with launch sites")
	}
}

// TestMergeDefaults checks the default inputs' premise (runMergeJoin):
// uniform keys make no launch site, gaussian keys do, the hash join's key
// range kept.
func TestMergeDefaults(t *testing.T) {
	for dist, sited := range map[string]bool{"uniform": false, "gaussian": true} {
		h := generate(t, "join", "dist="+dist)[0].(*trace.Header)
		if (h.Meta["sites"] != "0") != sited || h.Meta["r_tuples"] != "65536" || h.Meta["max_key"] != "8192" || h.Meta["algo"] != "merge" {
			t.Errorf("%s: meta %v", dist, h.Meta)
		}
	}
}

// TestMergeDeterministic checks that a merge trace depends on its
// parameters only, the seed included.
func TestMergeDeterministic(t *testing.T) {
	a, b := generate(t, "join", mergeSmall...), generate(t, "join", mergeSmall...)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs differ")
	}
	if c := generate(t, "join", append(slices.Clone(mergeSmall[:4]), "seed=3")...); reflect.DeepEqual(a, c) {
		t.Error("the seed changes nothing")
	}
}

// TestJoinAlgoBadParams checks the merge join's ranges and that algo=hash
// refuses the merge-only parameters.
func TestJoinAlgoBadParams(t *testing.T) {
	for _, kv := range [][]string{
		{"algo=sort"}, {"site_threshold=127"}, {"grid=0"}, {"max_key=0"}, {"loop_cycles=0"}, {"block=auto2"},
		{"algo=hash", "grid=100"}, {"algo=hash", "max_key=10"}, {"algo=hash", "loop_cycles=60"},
	} {
		g, _ := Lookup("join")
		p, err := g.ParseParams(kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%v: err %v, want a ParamError", kv, err)
		}
	}
}
