package samples

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestJoinTable(t *testing.T) {
	keys := []int32{3, 9, 3, 5, 7, 3, 1, 9, 0}
	tb := newJoinTable(keys)
	if tb.buckets() != 4 { // 9 keys at two per bucket, rounded up to a power of two
		t.Fatalf("%d buckets, want 4", tb.buckets())
	}
	var all []int32
	for b := 0; b < tb.buckets(); b++ {
		bucket := tb.keys[tb.offsets[b]:tb.offsets[b+1]]
		var want []int32 // R's keys hashing to b, in R's order
		for _, k := range keys {
			if tb.bucket(k) == b {
				want = append(want, k)
			}
		}
		if !slices.Equal(bucket, want) {
			t.Errorf("bucket %d holds %v, want %v", b, bucket, want)
		}
		all = append(all, bucket...)
	}
	if len(all) != len(keys) {
		t.Errorf("table holds %d keys, want %d", len(all), len(keys))
	}
	if got := joinMatches(tb.probe(3), 3); got != 3 {
		t.Errorf("matches for 3: %d, want 3", got)
	}
	if got := joinMatches(tb.probe(4), 4); got != 0 {
		t.Errorf("matches for 4: %d, want 0", got)
	}
	if one := newJoinTable([]int32{8}); one.buckets() != 1 || one.bucket(8) != 0 || len(one.probe(123)) != 1 {
		t.Errorf("one-tuple table %+v", one)
	}
}

// TestJoinMatchesBruteForce checks probing the table against a nested-loop
// join.
func TestJoinMatchesBruteForce(t *testing.T) {
	rng := newRand(4)
	r := joinKeys(rng, 500, 500, true, 0.05)
	s := joinKeys(rng, 300, 500, true, 0.05)
	tb := newJoinTable(r)
	hashed, nested := 0, 0
	for _, k := range s {
		hashed += joinMatches(tb.probe(k), k)
		for _, x := range r {
			if x == k {
				nested++
			}
		}
	}
	if hashed != nested || nested == 0 {
		t.Errorf("hash join found %d pairs, nested loops %d", hashed, nested)
	}
}

// TestJoinKeys checks both distributions' moments and the skew the
// gaussian one gives the table.
func TestJoinKeys(t *testing.T) {
	const n, domain = 20000, 20000
	stats := func(keys []int32) (mean, sd float64) {
		for _, k := range keys {
			if k < 0 || k >= domain {
				t.Fatalf("key %d outside [0, %d)", k, domain)
			}
			mean += float64(k)
		}
		mean /= float64(len(keys))
		for _, k := range keys {
			sd += (float64(k) - mean) * (float64(k) - mean)
		}
		return mean, math.Sqrt(sd / float64(len(keys)))
	}
	g := joinKeys(newRand(1), n, domain, true, 0.02)
	if mean, sd := stats(g); math.Abs(mean-domain/2) > 20 || math.Abs(sd-400) > 20 {
		t.Errorf("gaussian keys: mean %.1f, sd %.1f; want %d, 400", mean, sd, domain/2)
	}
	u := joinKeys(newRand(1), n, domain, false, 0.02)
	if mean, sd := stats(u); math.Abs(mean-domain/2) > 200 || math.Abs(sd-domain/math.Sqrt(12)) > 200 {
		t.Errorf("uniform keys: mean %.1f, sd %.1f", mean, sd)
	}
	gm, um := newJoinTable(g).maxBucket(), newJoinTable(u).maxBucket()
	if gm < 3*um {
		t.Errorf("largest bucket: gaussian %d, uniform %d; want gaussian far larger", gm, um)
	}
}

func TestJoinCollisions(t *testing.T) {
	for _, tc := range []struct {
		buckets []int
		want    int
	}{
		{nil, 0}, {[]int{5}, 0}, {[]int{1, 2, 3}, 0}, {[]int{1, 2, 1, 1, 3, 2}, 2},
	} {
		if got := joinCollisions(slices.Clone(tc.buckets)); got != tc.want {
			t.Errorf("joinCollisions(%v) = %d, want %d", tc.buckets, got, tc.want)
		}
	}
	hist := joinBuildWarpCycles([]int{4, 4, 4, 1}, false)
	scatter := joinBuildWarpCycles([]int{4, 4, 4, 1}, true)
	if hist != joinTupleCycles+joinAtomicCycles+2*joinConflictCycles || scatter != hist+joinGatherCycles+joinStoreCycles {
		t.Errorf("build warps: hist %d, scatter %d", hist, scatter)
	}
	if joinBuildWarpCycles(nil, true) != idleWarpCycles {
		t.Error("a warp past the last tuple should be idle")
	}
}

// TestJoinChildCTA checks the child cost model: one thread per bucket
// entry, the emit branch only in warps holding a match.
func TestJoinChildCTA(t *testing.T) {
	bucket := make([]int32, 70)
	bucket[5], bucket[66] = 7, 7
	c0 := joinChildCTA(2, 0, bucket, 7)
	c1 := joinChildCTA(2, 1, bucket, 7)
	full := int64(joinChildBaseCycles + joinEntryCycles)
	if !reflect.DeepEqual(c0.WarpCycles, []int64{full + joinEmitCycles, full}) ||
		!reflect.DeepEqual(c1.WarpCycles, []int64{full + joinEmitCycles, idleWarpCycles}) || c1.Cycles != full+joinEmitCycles {
		t.Errorf("child CTAs %+v %+v", c0, c1)
	}
}

// TestJoinProbeCTA checks the parent cost model on known buckets.
func TestJoinProbeCTA(t *testing.T) {
	r := make([]int32, 0, 60)
	for range 40 {
		r = append(r, 1) // key 1: a bucket of at least 40
	}
	r = append(r, 2, 2, 3)
	tr := &joinTrace{table: newJoinTable(r), block: 64, threshold: 32}
	cta, sites := tr.probeCTA(5, 3, []int32{2, 1, 9})
	b2 := tr.table.probe(2)
	loop := max(joinLaneCycles(len(b2), 2), joinLaneCycles(len(tr.table.probe(9)), 0))
	want := []int64{joinProbeBaseCycles() + loop, idleWarpCycles}
	if !reflect.DeepEqual(cta.WarpCycles, want) || cta.Cycles != want[0] {
		t.Errorf("cta %+v, want warps %v", cta, want)
	}
	if len(sites) != 1 || sites[0].lane != 1 || sites[0].key != 1 || joinMatches(sites[0].bucket, 1) != 40 {
		t.Errorf("sites %+v", sites)
	}
}

// TestJoinSites checks every launch site against the threshold and the
// cost model, and that no looping lane in a probe warp can exceed it.
func TestJoinSites(t *testing.T) {
	const threshold = 20
	recs := generate(t, "join", "algo=hash", "r_tuples=2048", "s_tuples=1024", "site_threshold=20", "sigma=0.02")
	if err := checkOrder(recs); err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	grids := map[uint64]uint64{}
	sites := map[uint64]*trace.Launch{} // by child kernel
	emits := map[uint64]bool{}          // child kernels with a warp that emits
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
			grids[r.ID] = r.CTAs()
		case *trace.Launch:
			if r.Host() {
				continue
			}
			sites[r.Kernel] = r
			n := r.Workload
			if n <= threshold || r.Parent.At != joinProbeBaseCycles() || names[r.Parent.Kernel] != "join_probe" ||
				names[r.Kernel] != "join_probe_child" || grids[r.Kernel] != uint64(ceilDiv(int(n), joinChildBlock)) {
				t.Errorf("site %+v at %+v", r, r.Parent)
			}
		case *trace.CTA:
			for w, c := range r.WarpCycles {
				switch names[r.Kernel] {
				case "join_probe":
					if c != idleWarpCycles && (c < joinProbeBaseCycles() || c-joinProbeBaseCycles() > joinLaneCycles(threshold, threshold)) {
						t.Errorf("probe cta %d warp %d: %d cycles", r.CTA, w, c)
					}
				case "join_probe_child":
					emits[r.Kernel] = emits[r.Kernel] || c == joinChildBaseCycles+joinEntryCycles+joinEmitCycles
				}
			}
		}
	}
	if len(sites) == 0 {
		t.Fatal("no launch sites")
	}
	emitting := 0
	for k := range sites {
		if emits[k] {
			emitting++
		}
	}
	if emitting == 0 {
		t.Errorf("none of %d sites' children emits: the rule's check sees no emit branch", len(sites))
	}
	ruleInlines(t, "join", recs, workloadThreads)
}

// TestJoinHeaderMatchesRecords checks the kernels, buffers and meta.
func TestJoinHeaderMatchesRecords(t *testing.T) {
	for _, dist := range []string{"uniform", "gaussian"} {
		recs := generate(t, "join", "algo=hash", "dist="+dist, "r_tuples=3000", "s_tuples=1000")
		h := recs[0].(*trace.Header)
		n, host, device := countKinds(recs)
		meta := func(k string) int {
			v, err := strconv.Atoi(h.Meta[k])
			if err != nil {
				t.Fatalf("meta %s: %v", k, err)
			}
			return v
		}
		if h.Source != "gen:join" || host != 4 || device != meta("sites") || n[trace.KindKernel] != meta("kernels") ||
			n[trace.KindCTA] != meta("ctas") || meta("buckets") != 2048 || (device == 0) != (meta("max_bucket") <= 32) {
			t.Errorf("%s: records %v, %d host, %d device launches; meta %v", dist, n, host, device, h.Meta)
		}
		var hosts []string
		for _, r := range recs {
			if k, ok := r.(*trace.Kernel); ok && k.Name != "join_probe_child" {
				hosts = append(hosts, k.Name)
			}
			if b, ok := r.(*trace.Buffer); ok && b.Name == "out_pairs" && b.Bytes != 8*int64(meta("matches")) {
				t.Errorf("%s: out_pairs %d bytes for %d matches", dist, b.Bytes, meta("matches"))
			}
		}
		if want := []string{"join_build_hist", "join_build_scan", "join_build_scatter", "join_probe"}; !slices.Equal(hosts, want) {
			t.Errorf("%s: kernels %v, want %v", dist, hosts, want)
		}
	}
}

func TestJoinBadParams(t *testing.T) {
	g, _ := Lookup("join")
	for _, kv := range [][]string{
		{"dist=zipf"}, {"r_tuples=0"}, {"s_tuples=67108865"}, {"sigma=1.5"}, {"sigma=-0.1"},
		{"block=0"}, {"site_threshold=-1"},
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
