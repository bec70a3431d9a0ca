package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// runHashJoin (algo=hash) draws both relations' keys, builds the hash table, and writes
// the join's trace: a header, the buffers, the three build kernels
// (join_build_hist counts R's tuples per bucket, join_build_scan turns the
// counts into offsets, join_build_scatter places the tuples) and
// join_probe, one thread per S tuple, with the join_probe_child of each
// launch site after its CTAs. All are host-launched into stream 0. The
// kernels reach the table through hashed keys, so they have no access
// records.
//
// Launch-site times: a join_probe thread holds one S tuple and, once it
// has hashed it and loaded its bucket's offsets, launches or scans the
// bucket in a loop, so a warp's launching lanes all reach their launch at
// joinProbeBaseCycles(), one warp-level site (see the package doc).
//
// variant=flat is the original non-DP join, as the DTBL paper (§5.1)
// defines the flat versions of its benchmarks, JOIN among them: "We refer
// to the original CUDA implementations as flat implementations since the
// nested algorithmic structure is flattened and effectively serialized
// within each thread", the DP versions changing neither "the data
// structures and algorithms of the original implementations". So the same
// build kernels and a join_probe with a thread per S tuple, each scanning
// its whole bucket in its own loop: the DP code's `else` branch for every
// tuple, so no lane launches (site_threshold is ignored) and a warp waits
// for its largest bucket, all its lanes scanning together. The work is
// the DP variant's: every bucket entry is compared and every match
// emitted at the same joinEntryCycles and joinEmitCycles; a child warp
// instead pays joinChildBaseCycles per entry and one emit per warp.
func runHashJoin(p Params, cfg joinConfig, out trace.Sink) error {
	rng := newRand(cfg.seed)
	r := joinKeys(rng, cfg.rTuples, cfg.rTuples, cfg.gaussian, cfg.sigma)
	s := joinKeys(rng, cfg.sTuples, cfg.rTuples, cfg.gaussian, cfg.sigma)
	t := &joinTrace{r: r, s: s, table: newJoinTable(r), block: cfg.block, threshold: cfg.threshold}
	for _, k := range s {
		t.matches += joinMatches(t.table.probe(k), k)
	}
	return writeTallied(out, t.records, func() *trace.Header {
		meta := joinMeta(p, cfg)
		meta["buckets"] = strconv.Itoa(t.table.buckets())
		meta["max_bucket"] = strconv.Itoa(t.table.maxBucket())
		meta["matches"] = strconv.Itoa(t.matches)
		return k20cHeader("gen:join", meta)
	})
}

// joinTrace writes one join's records.
type joinTrace struct {
	r, s             []int32 // the relations' keys
	table            *joinTable
	block, threshold int
	matches          int // result pairs

	out trace.Sink
	ids dpKernels
}

// joinSite is a probing thread that launches a child: its place in the
// parent grid, its key, and the bucket it scans.
type joinSite struct {
	cta, warp, lane int
	key             int32
	bucket          []int32
}

// records writes the buffers and the four kernels with the probe's
// children.
func (t *joinTrace) records(out trace.Sink) error {
	t.out, t.ids = out, dpKernels{}
	var heap deviceHeap
	nb := int64(t.table.buckets())
	err := writeAll(out,
		heap.alloc("r_tuples", 8*int64(len(t.r)), trace.RoleInput),
		heap.alloc("s_tuples", 8*int64(len(t.s)), trace.RoleInput),
		heap.alloc("bucket_counts", 4*nb, trace.RoleTemp),
		heap.alloc("bucket_offsets", 4*(nb+1), trace.RoleTemp),
		heap.alloc("table", 8*int64(len(t.r)), trace.RoleTemp),
		heap.alloc("out_count", 4, trace.RoleTemp),
		heap.alloc("out_pairs", 8*int64(t.matches), trace.RoleOutput),
	)
	if err == nil {
		err = t.build(false)
	}
	if err == nil {
		err = t.scan()
	}
	if err == nil {
		err = t.build(true)
	}
	if err == nil {
		err = t.probe()
	}
	return err
}

// hostKernel declares and host-launches a kernel of a 1-D grid.
func (t *joinTrace) hostKernel(name string, grid, block, regs int) (*trace.Kernel, error) {
	k := t.ids.declare(name, dpLine(grid), dpLine(block), regs)
	return k, writeAll(t.out, k, &trace.Launch{Kernel: k.ID})
}

// build writes join_build_hist, or with scatter join_build_scatter: one
// thread per R tuple.
func (t *joinTrace) build(scatter bool) error {
	name := "join_build_hist"
	if scatter {
		name = "join_build_scatter"
	}
	k, err := t.hostKernel(name, ceilDiv(len(t.r), joinBuildBlock), joinBuildBlock, joinBuildRegs)
	if err != nil {
		return err
	}
	buckets := make([]int, 0, warpSize)
	for c := 0; c < int(k.CTAs()); c++ {
		rec := &trace.CTA{Kernel: k.ID, CTA: uint64(c), WarpCycles: make([]int64, joinBuildBlock/warpSize)}
		for w := range rec.WarpCycles {
			first := c*joinBuildBlock + w*warpSize
			buckets = buckets[:0]
			for i := first; i < min(first+warpSize, len(t.r)); i++ {
				buckets = append(buckets, t.table.bucket(t.r[i]))
			}
			rec.WarpCycles[w] = joinBuildWarpCycles(buckets, scatter)
		}
		rec.Cycles = dpWarpMax(rec.WarpCycles)
		if err := t.out.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

// scan writes join_build_scan over the bucket counts, joinScanItems per
// thread.
func (t *joinTrace) scan() error {
	perCTA := joinScanBlock * joinScanItems
	k, err := t.hostKernel("join_build_scan", ceilDiv(t.table.buckets(), perCTA), joinScanBlock, joinScanRegs)
	if err != nil {
		return err
	}
	for c := 0; c < int(k.CTAs()); c++ {
		rec := &trace.CTA{Kernel: k.ID, CTA: uint64(c), WarpCycles: make([]int64, joinScanBlock/warpSize)}
		for w := range rec.WarpCycles {
			rec.WarpCycles[w] = idleWarpCycles
			if c*perCTA+w*warpSize*joinScanItems < t.table.buckets() {
				rec.WarpCycles[w] = joinScanWarpCycles
			}
		}
		rec.Cycles = dpWarpMax(rec.WarpCycles)
		if err := t.out.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

// probe writes join_probe, one thread per S tuple, then its children.
func (t *joinTrace) probe() error {
	k, err := t.hostKernel("join_probe", ceilDiv(len(t.s), t.block), t.block, joinProbeRegs)
	if err != nil {
		return err
	}
	return writeFamily(t.out, int(k.CTAs()),
		func(c int) (*trace.CTA, []joinSite) {
			return t.probeCTA(k.ID, c, t.s[c*t.block:min((c+1)*t.block, len(t.s))])
		},
		func(s joinSite) error { return t.child(k.ID, s) })
}

// probeCTA costs one join_probe CTA whose threads hold keys and finds its
// launch sites: probes of buckets larger than site_threshold.
func (t *joinTrace) probeCTA(kernel uint64, cta int, keys []int32) (*trace.CTA, []joinSite) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.block, warpSize))}
	var sites []joinSite
	for w := range rec.WarpCycles {
		lanes := min(max(len(keys)-w*warpSize, 0), warpSize)
		longest := int64(0)
		for lane := 0; lane < lanes; lane++ {
			key := keys[w*warpSize+lane]
			bucket := t.table.probe(key)
			if len(bucket) > t.threshold {
				sites = append(sites, joinSite{cta: cta, warp: w, lane: lane, key: key, bucket: bucket})
				continue
			}
			longest = max(longest, joinLaneCycles(len(bucket), joinMatches(bucket, key)))
		}
		rec.WarpCycles[w] = joinProbeWarpCycles(lanes, longest)
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec, sites
}

// child writes a launch site's join_probe_child: one thread per entry of
// the site's bucket. The launch record also carries what scanning the
// bucket in the parent's loop would cost, so a policy can choose.
func (t *joinTrace) child(parent uint64, s joinSite) error {
	grid := ceilDiv(len(s.bucket), joinChildBlock)
	k := t.ids.declare("join_probe_child", dpLine(grid), dpLine(joinChildBlock), joinChildRegs)
	launch := &trace.Launch{
		Kernel:       k.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: joinProbeBaseCycles()},
		Workload:     int64(len(s.bucket)),
		InlineCycles: joinProbeInline(s.bucket, s.key),
	}
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	for c := 0; c < grid; c++ {
		if err := t.out.Write(joinChildCTA(k.ID, c, s.bucket, s.key)); err != nil {
			return err
		}
	}
	return nil
}

// joinProbeInline is a site's inline_cycles: the probing lane's loop over
// its join_probe_child's threads, an entry of the bucket each, by the
// lane-loop rule (laneLoopCycles).
func joinProbeInline(bucket []int32, key int32) int64 {
	return laneLoopCycles(len(bucket), joinChildBlock, func(c int) int64 { return joinChildCTA(0, c, bucket, key).Cycles })
}

// joinChildCTA costs CTA cta of a join_probe_child scanning bucket for key.
func joinChildCTA(kernel uint64, cta int, bucket []int32, key int32) *trace.CTA {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, joinChildBlock/warpSize)}
	for w := range rec.WarpCycles {
		lo := min(cta*joinChildBlock+w*warpSize, len(bucket))
		entries := bucket[lo:min(lo+warpSize, len(bucket))]
		rec.WarpCycles[w] = joinChildWarpCycles(len(entries), joinMatches(entries, key))
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec
}
