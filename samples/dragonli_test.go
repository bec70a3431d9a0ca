package samples

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// defaultCodeTraces are bfs and sssp configurations (the spawn experiments'
// among them) and the SHA-256 of the trace each gave at commit 0411b47,
// before the code parameter existed; sssp's are those traces with
// ssspcost.go's costs as fitted today (the sample's and the tree's
// single-lane CTAs, a lowering lane's atomics, the child's costs solved
// warm on the sample's perfect-cache rerun), and
// bfs's with launch sites those traces with each site's inline_cycles by
// the lane-loop rule (laneloop.go).
var defaultCodeTraces = []struct {
	gen  string
	kv   []string
	hash string
}{
	{"bfs", nil,
		"fc9d0744887b2fdf157ebc20016796cf3522430121ba5adb66a6aa5d8f61405d"},
	{"bfs", []string{"scale=10", "site_threshold=8", "seed=2"},
		"d5f472d8ab13b532d21ab3271708f40b985e0e243b5ae564651c8cd18c646f67"},
	{"bfs", []string{"graph=citation", "scale=10", "edgefactor=4", "loop_cycles=224", "variant=flat"},
		"68e57a0b00680f849725659bac05ba665c37ade0b774ba5035bbb5c807c11549"},
	{"sssp", []string{"graph=citation", "scale=9", "edgefactor=4", "loop_cycles=234"},
		"c46b7273244cc997d49709a9d0e25d42e6fd8eb5e3dd1447c3f4b281523626f5"},
	{"sssp", []string{"scale=9", "variant=flat"},
		"2e0e4de22a52506a93fecf20a5942bbae41663cf94945d720fb619de0107396b"},
	{"sssp", []string{"scale=9", "variant=twc"},
		"9ec7f4293340d3e7dfe804dc3f4944e6f77c11482baca48a11f06a1812375956"},
}

// TestDefaultCodeUnchanged checks that the default code, dtbl, writes byte
// for byte what bfs and sssp wrote before code=dragonli was added, with
// and without code=dtbl given.
func TestDefaultCodeUnchanged(t *testing.T) {
	for _, c := range defaultCodeTraces {
		if got := traceHash(t, c.gen, c.kv...); got != c.hash {
			t.Errorf("%s %v: hash %s, want %s", c.gen, c.kv, got, c.hash)
		}
		if got := traceHash(t, c.gen, append(c.kv, "code=dtbl")...); got != c.hash {
			t.Errorf("%s %v code=dtbl: hash %s, want %s", c.gen, c.kv, got, c.hash)
		}
	}
}

// dlHandGraph has vertices of degrees 0, 70, 31, 32 and 5, and dlHandItems
// is a frontier (or worklist) over them of 104·64+33 items, so that with
// block=64 CTA 0 walks two chunks, [0,64) and [6656,6689), and every
// other CTA one: mostly vertex 0, with
//
//	CTA 0 chunk 0: item 0 = v1 (warp 0 lane 0), 1 = v4, 40 = v2 (warp 1 lane 8)
//	CTA 0 chunk 1: item 6656 = v3 (warp 0 lane 0), 6688 = v1 (warp 1 lane 0)
//	CTA 1 chunk 0: item 97 = v3 (warp 1 lane 1)
//
// At site_threshold 31 (Dragon_li's CDP_THRESHOLD 32) v1 launches 70>>5 = 2
// CTAs over its first 64 edges and loops over 6; v3 launches 1 CTA and
// loops over none; v2, with 31, loops over all.
func dlHandGraph() (*csr, []int32) {
	degrees := []int{0, 70, 31, 32, 5}
	g := &csr{offsets: make([]int32, len(degrees)+1)}
	for v, d := range degrees {
		g.offsets[v+1] = g.offsets[v] + int32(d)
	}
	g.cols = make([]int32, g.offsets[len(degrees)])
	items := make([]int32, dragonliCTAs*64+33)
	items[0], items[1], items[40] = 1, 4, 2
	items[6656], items[6688] = 3, 1
	items[97] = 3
	return g, items
}

// dlLaunch is what a test checks of a device launch: the parent's place,
// the workload, inline cost, and the child's grid, block and CTA cycles.
type dlLaunch struct {
	cta         uint64
	warp, lane  int
	at          int64
	workload    int64
	inline      int64
	grid, block uint32
	ctaCycles   []int64
}

// dlSplit returns a one-level trace's parent CTAs (kernel 1's) and its
// launches with their children's CTA cycles, in record order; the CTAs of
// any later host kernel (bfs's contract) are left out.
func dlSplit(t *testing.T, recs []trace.Record) (parent []*trace.CTA, launches []dlLaunch) {
	t.Helper()
	kernels := map[uint64]*trace.Kernel{}
	launchOf := map[uint64]int{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			kernels[r.ID] = r
		case *trace.Launch:
			if r.Host() {
				continue
			}
			k := kernels[r.Kernel]
			launchOf[r.Kernel] = len(launches)
			launches = append(launches, dlLaunch{r.Parent.CTA, r.Parent.Warp, r.Parent.Lane, r.Parent.At,
				r.Workload, r.InlineCycles, k.Grid[0], k.Block[0], nil})
		case *trace.CTA:
			if r.Kernel == 1 {
				parent = append(parent, r)
			} else if i, ok := launchOf[r.Kernel]; ok {
				launches[i].ctaCycles = append(launches[i].ctaCycles, r.Cycles)
			}
		}
	}
	return parent, launches
}

// checkDLParent checks the persistent grid's CTAs: CTA 0's and CTA 1's
// warps as computed by hand, every other CTA one chunk of vertex 0.
func checkDLParent(t *testing.T, parent []*trace.CTA, cta0, cta1, rest []int64) {
	t.Helper()
	if len(parent) != dragonliCTAs {
		t.Fatalf("%d parent CTAs, want %d", len(parent), dragonliCTAs)
	}
	for c, rec := range parent {
		want := rest
		switch c {
		case 0:
			want = cta0
		case 1:
			want = cta1
		}
		if !reflect.DeepEqual(rec.WarpCycles, want) || rec.Cycles != dpWarpMax(want) {
			t.Errorf("parent CTA %d: warps %v cycles %d, want %v", c, rec.WarpCycles, rec.Cycles, want)
		}
	}
}

// checkDLDemand checks a parent CTA's demand: mix m over own cycles.
func checkDLDemand(t *testing.T, rec *trace.CTA, m warpMix, own int64) {
	t.Helper()
	insts, bytes := uint64(math.Round(float64(own)*m.ipc)), uint64(math.Round(float64(own)*m.bpc))
	if rec.Insts != insts || rec.DRAMBytes != bytes || insts == 0 {
		t.Errorf("CTA %d demand %d insts %d bytes, want %d, %d (%d cycles)", rec.CTA, rec.Insts, rec.DRAMBytes, insts, bytes, own)
	}
}

// TestDragonliBFSHand checks one level of code=dragonli bfs, the CDP
// code, on dlHandGraph (block 64, 104 CTAs, children of 32, threshold 31,
// a later level: no cold start), bfsdlcost.go's costs: the expand's
// prologue 1018 and empty pass 594, an edge 131 and each further lane in
// an iteration 2, the warps meeting at each chunk's barrier:
//
//	CTA 0 chunk 0: both warps 1018, release 1018; v1 launches at 1018;
//	  warp 0's lanes loop 6 (v1's rest) and 5 (v4) in step: 6·131 + 5·2
//	  = 796 → 1814; warp 1 v2's 31·131 = 4061 → 5079
//	CTA 0 chunk 1: 1814+1018 = 2832, 5079+1018 = 6097 → release 6097
//	  (warp 0 waits 3265); v3 (w0) and v1 (w1) launch at 6097; warp 0
//	  loops 0, warp 1 6·131 = 786 → 6883; the empty assignment +594:
//	  [6691, 7477], its own cycles 6691+7477−3265 = 10903
//	CTA 1: release 1018, v3 (w1 l1) launches at 1018, no loops: [1612, 1612]
//	CTAs 2-103: [1612, 1612] (none is empty: 104·64 < 6689 items)
//
// Children: v1 2 CTAs of 32 over 64 edges, v3 1 CTA over 32, each CTA one
// full warp, dlBFSChildWarpCycles(32) = 331; inline by the lane-loop
// rule, 0.452·(331 − 114) = 98.084 a thread: 64 threads 6277.376, 32
// 3138.688.
// Then the contract over the level's 2·70 + 5 + 31 + 2·32 = 240
// neighbours: CTAs 0–3 a chunk each (the last of 48), 1377 + 111 = 1488
// each warp; the empty CTAs 4–103 their pass 111 after (c/13)·20 of
// queue: 111 for CTAs 4–12, 131 for 13–25, … 251 for 91–103.
// 4 sites, 6 kernels, 2·104+2+1+2+1 = 214 CTAs.
// As the run's first level, every warp of the expand's first-wave CTAs
// (all 104: 13 SMXs hold 16 of 64 threads) starts 13 lines of cold start
// later (13 · 241 = 3133) and the contract's 3 (723).
func TestDragonliBFSHand(t *testing.T) {
	g, frontier := dlHandGraph()
	var sink sliceSink
	tr := &bfsTrace{out: &sink, g: g, block: 64, threshold: 31, loop: dlBFSEdgeCycles, dragonli: true, ctas: dragonliCTAs, childBits: dragonliChildBits, expands: 1}
	if err := tr.level(frontier); err != nil {
		t.Fatal(err)
	}
	parent, launches := dlSplit(t, sink.recs)
	checkDLParent(t, parent, []int64{6691, 7477}, []int64{1612, 1612}, []int64{1612, 1612})
	checkDLDemand(t, parent[0], bfsMixes["bfs_dl_expand"], 10903)
	full := dlBFSChildWarpCycles(32)
	want := []dlLaunch{
		{0, 0, 0, 1018, 64, 6277, 2, 32, []int64{full, full}},
		{0, 0, 0, 6097, 32, 3139, 1, 32, []int64{full}},
		{0, 1, 0, 6097, 64, 6277, 2, 32, []int64{full, full}},
		{1, 1, 1, 1018, 32, 3139, 1, 32, []int64{full}},
	}
	if full != 331 || !reflect.DeepEqual(launches, want) {
		t.Errorf("launches\n%v, want\n%v", launches, want)
	}
	checkDLContract(t, sink.recs, 0)
	if k, c, s := tr.count([][]int32{frontier}); k != 6 || c != 214 || s != 4 {
		t.Errorf("count: %d kernels, %d CTAs, %d sites; want 6, 214, 4", k, c, s)
	}

	sink = sliceSink{}
	tr = &bfsTrace{out: &sink, g: g, block: 64, threshold: 31, loop: dlBFSEdgeCycles, dragonli: true, ctas: dragonliCTAs, childBits: dragonliChildBits}
	if err := tr.level(frontier); err != nil {
		t.Fatal(err)
	}
	parent, _ = dlSplit(t, sink.recs)
	checkDLParent(t, parent, []int64{6691 + 3133, 7477 + 3133}, []int64{1612 + 3133, 1612 + 3133}, []int64{1612 + 3133, 1612 + 3133})
	checkDLContract(t, sink.recs, 723)
}

// checkDLContract checks the hand level's contract kernel (the last host
// kernel): 240 items, CTAs 0–3 a chunk each (1377 + 111), the rest their
// empty pass after their queue, every warp of a first-wave CTA cold
// cycles later, where a cold start holds it longer than the queue (all
// 104 CTAs here: the wave is 13·16).
func checkDLContract(t *testing.T, recs []trace.Record, cold int64) {
	t.Helper()
	var id uint64
	var ctas []*trace.CTA
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if r.Name == "bfs_contract" {
				id = r.ID
			}
		case *trace.CTA:
			if id != 0 && r.Kernel == id {
				ctas = append(ctas, r)
			}
		}
	}
	if len(ctas) != dragonliCTAs {
		t.Fatalf("contract: %d CTAs, want %d", len(ctas), dragonliCTAs)
	}
	for c, rec := range ctas {
		w := cold + 1488
		if c >= 4 {
			w = max(cold, int64(c/13)*20) + 111
		}
		if !reflect.DeepEqual(rec.WarpCycles, []int64{w, w}) {
			t.Errorf("contract CTA %d: warps %v, want [%d %d]", c, rec.WarpCycles, w, w)
		}
	}
}

// TestDragonliBFSFlatHand checks the Reg kernel (variant=flat) on the same
// level: every thread loops over all its neighbours, no sites; the Reg
// expand's prologue 1421 and empty pass 127:
//
//	CTA 0 chunk 0: release 1421; warp 0 v1's 70 and v4's 5 in step,
//	  70·131 + 5·2 = 9180 → 10601, warp 1 v2's 31·131 = 4061 → 5482
//	CTA 0 chunk 1: 12022, 6903 → release 12022; warp 0 v3's 32·131 = 4192
//	  → 16214, warp 1 v1's 9170 → 21192; +127: [16341, 21319]
//	CTA 1: release 1421, warp 1 v3's 4192 → [1548, 5740]
//	CTAs 2-103: [1548, 1548]
//
// The contract is the CDP code's (TestDragonliBFSHand).
func TestDragonliBFSFlatHand(t *testing.T) {
	g, frontier := dlHandGraph()
	var sink sliceSink
	tr := &bfsTrace{out: &sink, g: g, block: 64, threshold: 31, loop: dlBFSEdgeCycles, flat: true, dragonli: true, ctas: dragonliCTAs, childBits: dragonliChildBits, expands: 1}
	if err := tr.level(frontier); err != nil {
		t.Fatal(err)
	}
	parent, launches := dlSplit(t, sink.recs)
	checkDLParent(t, parent, []int64{16341, 21319}, []int64{1548, 5740}, []int64{1548, 1548})
	if len(launches) != 0 {
		t.Errorf("flat: %d launches, want none", len(launches))
	}
	checkDLContract(t, sink.recs, 0)
}

// TestDragonliSSSPHand checks one iteration of code=dragonli sssp on
// dlHandGraph (block 64, loop 422, threshold 31, a lowering edge +374),
// its warps running their chunks without a barrier. The first v1 (item 0)
// lowers its edges 0 (the child's) and 65 (its loop's); nothing else
// lowers. Base 359, an idle pass 255:
//
// The warps' loops are dlLoops' (hand-worked in testdata/ssspdlorder.txt),
// given here as the solver would leave them:
//
//	CTA 0 warp 0: 359, v1 launches at 359; its loop (6 edges) and v4's (5)
//	  run in step for iteration 0, then at 1 v1 lowers and v4 does not,
//	  and the two run the rest apart: 2 steps, v4's 3, v1's 4,
//	  9·422+374 = 4172 → 4531; chunk 1: 4890, v3 launches at
//	  4890, no loop; +255: 5145
//	CTA 0 warp 1: 359 + v2's 31·422 = 13441; chunk 1: 13800, v1 launches
//	  at 13800, loops 6·422 = 2532 → 16332; +255: 16587
//	CTA 1: warp 1's v3 launches at 359, no loop: 359 + 255 = 614 each warp
//	CTAs 2–103: one chunk of v0s: [614, 614]
//
// The load/store unit then adds its accesses past a lone lane's
// (dlport.go): every warp of the first chunk loads 32 worklist entries,
// 4 sectors (3 past one), and its vertices (0 to 4) and their
// successors lie in sector 0 (none past one): 3 a warp. In the first
// chunk each warp waits for its SM's: CTAs c, c+13, …, c+91 of the one
// wave, 8 CTAs of 2 warps, 48 accesses, 48·706/837 = 40 cycles; in
// chunk 1 CTA 0's warp 0 (entries 6656–6687) its own 3, 3 cycles, warp
// 1 (entry 6688 alone) none. So CTA 0 [5145+40+3, 16587+40] = [5188,
// 16627], the others [654, 654], and every site 40 later (warp 0's in
// chunk 1 43). The waits issue nothing: the demand is as without them.
//
// Children (32-thread CTAs over the first 64 or 32 edges):
// ssspChildWarpCycles(32, 1) = 302+422+64+374+2 = 1164 for the first v1's
// lowering CTA (one lowering lane: no further lane's atomics), 302+422+64
// = 788 for the others; inline by the lane-loop rule, 0.452·(c − 114) a
// thread: (32·1050 + 32·674)·0.452 = 24935.936, 32·674·0.452 = 9748.736,
// 64·674·0.452 = 19497.472.
func TestDragonliSSSPHand(t *testing.T) {
	g, worklist := dlHandGraph()
	lowered := make([]bool, 0, 4096)
	for _, v := range worklist {
		lowered = append(lowered, make([]bool, g.degree(v))...)
	}
	lowered[0], lowered[65] = true, true // item 0 is v1: its edges come first
	var sink sliceSink
	// A later relaxation: the first adds its cold start to every warp
	// (coldstart.go; TestColdStartOnlyFirst), and the run's first
	// k20cSMs child CTAs theirs (ssspChildColdCycles; testdata/coldstart.txt).
	tr := &ssspTrace{out: &sink, g: g, block: 64, threshold: 31, loop: ssspEdgeCycles, dragonli: true, iterations: 1, childCTAs: k20cSMs}
	tr.loops = map[int]int64{0: 9*ssspEdgeCycles + ssspLowerCycles, 32: 31 * ssspEdgeCycles, 6688: 6 * ssspEdgeCycles}
	if err := tr.iteration(worklist, lowered); err != nil {
		t.Fatal(err)
	}
	parent, launches := dlSplit(t, sink.recs)
	checkDLParent(t, parent, []int64{5188, 16627}, []int64{654, 654}, []int64{654, 654})
	checkDLDemand(t, parent[0], ssspMixes["sssp_relax"], 5145+16587) // no barrier; the port's waits issue nothing
	// A warm child CTA whose 32 edges lower nothing is 373 + 32·2 = 437
	// (ssspChildWarpCycles); v1's first, one edge lowering, 437 + 374 + 2
	// = 813. inline_cycles by the lane-loop rule, 0.452 of the threads'
	// cycles past 114: 32·(437 − 114)·0.452 = 4,671.9 a CTA of 437, and
	// 32·(813 − 114)·0.452 = 10,110.3 for v1's first.
	want := []dlLaunch{
		{0, 0, 0, 399, 64, 14782, 2, 32, []int64{813, 437}},
		{0, 0, 0, 4933, 32, 4672, 1, 32, []int64{437}},
		{0, 1, 0, 13840, 64, 9344, 2, 32, []int64{437, 437}},
		{1, 1, 1, 399, 32, 4672, 1, 32, []int64{437}},
	}
	if !reflect.DeepEqual(launches, want) {
		t.Errorf("launches\n%v, want\n%v", launches, want)
	}
}

// TestDragonliTraces checks whole dragonli traces of both generators, dp
// and flat: valid order, the header's totals equal to the records, the
// persistent grid in every host kernel, children of 32-thread CTAs
// covering whole warps, sites above the threshold only, spread over their
// warps' loops in order; and two runs byte-identical.
func TestDragonliTraces(t *testing.T) {
	for _, kv := range [][]string{
		{"bfs", "scale=12", "site_threshold=31", "code=dragonli"},
		{"bfs", "graph=citation", "edgefactor=4", "scale=12", "site_threshold=31", "code=dragonli", "variant=flat"},
		{"sssp", "scale=11", "site_threshold=31", "code=dragonli"},
		{"sssp", "graph=citation", "edgefactor=4", "scale=11", "site_threshold=63", "code=dragonli", "variant=flat"},
	} {
		recs := generate(t, kv[0], kv[1:]...)
		if err := checkOrder(recs); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
		if traceHash(t, kv[0], kv[1:]...) != traceHash(t, kv[0], kv[1:]...) {
			t.Errorf("%v: two runs differ", kv)
		}
		checkDLTotals(t, kv, recs)
	}
}

// checkDLTotals checks one dragonli trace's shape against its header.
func checkDLTotals(t *testing.T, kv []string, recs []trace.Record) {
	t.Helper()
	h := recs[0].(*trace.Header)
	n, host, device := countKinds(recs)
	if strconv.Itoa(n[trace.KindKernel]) != h.Meta["kernels"] || strconv.Itoa(n[trace.KindCTA]) != h.Meta["ctas"] ||
		strconv.Itoa(device) != h.Meta["sites"] || h.Meta["code"] != "dragonli" {
		t.Errorf("%v: %d kernels, %d CTAs, %d sites; meta %v", kv, n[trace.KindKernel], n[trace.KindCTA], device, h.Meta)
	}
	threshold, _ := strconv.Atoi(h.Meta["site_threshold"])
	flat := h.Meta["variant"] == "flat"
	if flat != (device == 0) {
		t.Errorf("%v: %d sites", kv, device)
	}
	lastAt := map[warpKey]int64{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			parent := r.Name == "bfs_level" || r.Name == "bfs_contract" || r.Name == "sssp_relax"
			if parent && r.Grid[0] != dragonliCTAs || !parent && r.Block[0] != dragonliChildBlock {
				t.Errorf("%v: kernel %+v", kv, r)
			}
		case *trace.Launch:
			if r.Host() {
				continue
			}
			k := warpKey{r.Parent.Kernel, r.Parent.CTA, r.Parent.Warp}
			// A site has degree > threshold and its child all but degree mod 32.
			if r.Workload < int64(threshold-dragonliMinThreshold+1) || r.Workload%dragonliChildBlock != 0 || r.Parent.At < lastAt[k] {
				t.Errorf("%v: site %+v at %+v (warp's last %d)", kv, r, r.Parent, lastAt[k])
			}
			lastAt[k] = r.Parent.At
		}
	}
	if host == 0 {
		t.Errorf("%v: no host kernels", kv)
	}
}

// TestDragonliBadParams checks what code=dragonli refuses: a threshold its
// children cannot cover (unless flat, which has no sites), sssp's twc, and
// an unknown code.
func TestDragonliBadParams(t *testing.T) {
	for _, c := range []struct {
		gen string
		kv  []string
		ok  bool
	}{
		{"bfs", []string{"code=dragonli"}, false},
		{"bfs", []string{"code=dragonli", "site_threshold=30"}, false},
		{"bfs", []string{"code=dragonli", "site_threshold=31", "scale=8"}, true},
		{"bfs", []string{"code=dragonli", "variant=flat", "scale=8"}, true},
		{"bfs", []string{"code=cuda"}, false},
		{"bfs", []string{"code=dragonli", "child_bits=7", "site_threshold=126"}, false}, // testBfs's CDP_THRESHOLD 128 is 127
		{"bfs", []string{"code=dragonli", "child_bits=7", "site_threshold=127", "ctas=240", "block=128", "scale=8"}, true},
		{"bfs", []string{"code=dragonli", "site_threshold=31", "ctas=0"}, false},
		{"bfs", []string{"code=dragonli", "site_threshold=31", "child_bits=11"}, false},
		{"sssp", []string{"code=dragonli", "site_threshold=16"}, false},
		{"sssp", []string{"code=dragonli", "site_threshold=31", "variant=twc"}, false},
		{"sssp", []string{"code=dragonli", "variant=flat", "scale=8"}, true},
	} {
		g, _ := Lookup(c.gen)
		p, err := g.ParseParams(c.kv)
		if err == nil {
			err = g.Run(p, &sliceSink{})
		}
		if _, isParam := err.(*ParamError); (err == nil) != c.ok || (err != nil && !isParam) {
			t.Errorf("%s %v: err %v, want ok %v or a ParamError", c.gen, c.kv, err, c.ok)
		}
	}
}

// TestDragonliSitesFollowChunks checks, on traces whose frontiers outgrow
// the persistent grid (block 8: 832 vertices a stride), that a warp's sites
// follow its chunk loop (package doc, "Launch-site times"): nondecreasing
// in record order, a lane's strictly later, some warp's over several
// cycles. (The barrier's effect on site times is in TestDragonliBFSHand.)
func TestDragonliSitesFollowChunks(t *testing.T) {
	for _, kv := range [][]string{
		{"bfs", "scale=12", "block=8", "site_threshold=31", "code=dragonli"},
		{"sssp", "scale=11", "block=8", "site_threshold=31", "code=dragonli"},
	} {
		order, ats, lanes := warpSites(generate(t, kv[0], kv[1:]...))
		if len(order) == 0 {
			t.Fatalf("%v: no launch sites", kv)
		}
		checkSpread(t, order, ats, lanes)
	}
}
