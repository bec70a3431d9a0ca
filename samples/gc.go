package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "gc",
		Doc:  "Jones-Plassmann graph coloring over a Kronecker or citation-like graph; high-degree uncolored vertices launch child kernels (SPAWN)",
		Params: []Param{
			graphParam("kron", "citation"),
			{Name: "scale", Default: "10", Doc: "the graph has 2^scale vertices"},
			{Name: "edgefactor", Default: "16", Doc: "edges generated per vertex"},
			{Name: "block", Default: "256", Doc: "threads per gc_color CTA, one uncolored vertex each"},
			{Name: "site_threshold", Default: "64", Doc: "an uncolored vertex with more neighbours than this is a launch site"},
			loopParam(int(gcLoopDefault), "neighbour loop"),
			variantParam,
			seedParam,
		},
		run:   runGC,
		loop:  gcLoopDefault,
		mixes: gcMixes,
		costs: gcCosts,
	})
}

// runGC generates the graph and the vertices' priorities, then writes the
// coloring's trace: a header, the buffers, and one gc_color kernel per
// round, host-launched into stream 0 over the vertices still uncolored,
// each followed by its CTAs and then, in (cta, warp, lane) order, the
// gc_color_child of each launch site. The kernels index col_indices through
// row_offsets, so they have no access records (irregular for CRCS).
//
// variant=flat writes the benchmark without dynamic parallelism as
// GraphBIG wrote it (graphbig/graphBIG,
// gpu_bench/gpu_GraphColoring/gc_data_thread_centric.cu: "Data-Driven:
// one node per thread, thread_centric"): every thread loops over its own
// vertex's neighbours and nothing balances long lists, so its gc_color
// warps wait for their longest lane, the launch sites included.
//
// Launch-site times: a gc_color thread holds one worklist vertex and
// launches or scans its neighbours in a loop after the same prologue on
// every lane, so a warp's launching lanes all reach their launch at
// gcBaseCycles, one warp-level site (see the package doc).
func runGC(p Params, out trace.Sink) error {
	cfg, err := parseGraphKernel(p, gcLoopDefault, "kron", "citation")
	if err != nil {
		return err
	}
	rng := newSeeded(cfg.seed)
	g := cfg.graph.draw(rng)
	t := &gcTrace{g: g, prio: gcPriorities(rng.Rand, g.vertices()), block: cfg.block, threshold: cfg.threshold, loop: cfg.loop, loopGiven: cfg.loopGiven, flat: cfg.flat}
	return writeTallied(out, t.records, func() *trace.Header {
		meta := p.Values()
		p.omitDefaults(meta, "loop_cycles", "variant")
		meta["vertices"] = strconv.Itoa(g.vertices())
		meta["edges"] = strconv.Itoa(g.edges())
		meta["max_degree"] = strconv.Itoa(g.maxDegree())
		meta["rounds"] = strconv.Itoa(t.rounds)
		meta["colors"] = strconv.Itoa(t.colors)
		meta["scanned"] = strconv.FormatInt(t.scanned, 10)
		return k20cHeader("gen:gc", meta)
	})
}

// gcTrace writes one coloring's records; records sets the coloring's
// statistics as it goes.
type gcTrace struct {
	g                *csr
	prio             []uint32
	block, threshold int
	loop             int64 // cycles of one iteration of a looping lane (loop_cycles)
	loopGiven        bool  // loop_cycles given: sites inline at loop a neighbour (gcLaneCycles)
	// flat is variant=flat: GraphBIG's non-DP kernel, whose every thread
	// loops over its own vertex's neighbours (no launch sites).
	flat bool

	out trace.Sink
	ids dpKernels

	rounds  int
	colors  int   // distinct colors the coloring used
	scanned int64 // neighbour visits, over all rounds
}

// gcSite is a gc_color thread that launches a child: its place in the
// parent grid, its vertex's degree, and what looping would have cost.
type gcSite struct {
	cta, warp, lane int
	degree, scanned int
	colored         bool
}

// records colors the graph from the start and writes the buffers and one
// gc_color kernel per round until every vertex has a color.
func (t *gcTrace) records(out trace.Sink) error {
	t.out, t.ids = out, dpKernels{}
	if err := t.buffers(); err != nil {
		return err
	}
	c, worklist := newGCColoring(t.g, t.prio)
	t.rounds, t.scanned = 0, 0
	for ; len(worklist) > 0; t.rounds++ {
		next := c.step(worklist)
		if err := t.round(c, worklist); err != nil {
			return err
		}
		worklist = next
	}
	t.colors = int(c.round)
	return nil
}

// buffers writes the allocations a GPU coloring makes: the CSR graph and
// the priorities it reads, the colors it returns, the two worklists, and
// per vertex the flag and finished-CTA count its child kernels share.
func (t *gcTrace) buffers() error {
	var heap deviceHeap
	n := int64(t.g.vertices())
	return writeAll(t.out,
		heap.alloc("row_offsets", 4*(n+1), trace.RoleInput),
		heap.alloc("col_indices", 4*int64(len(t.g.cols)), trace.RoleInput),
		heap.alloc("priority", 4*n, trace.RoleInput),
		heap.alloc("colors", 4*n, trace.RoleOutput),
		heap.alloc("worklist_in", 4*n, trace.RoleTemp),
		heap.alloc("worklist_out", 4*n, trace.RoleTemp),
		heap.alloc("site_state", 8*n, trace.RoleTemp),
	)
}

// round writes the gc_color kernel of the round c last ran over worklist,
// then its children.
func (t *gcTrace) round(c *gcColoring, worklist []int32) error {
	parent := t.ids.declare("gc_color", dpLine(ceilDiv(len(worklist), t.block)), dpLine(t.block), gcColorRegs)
	if err := writeAll(t.out, parent, &trace.Launch{Kernel: parent.ID}); err != nil {
		return err
	}
	return writeFamily(t.out, ceilDiv(len(worklist), t.block),
		func(b int) (*trace.CTA, []gcSite) {
			lo, hi := b*t.block, min((b+1)*t.block, len(worklist))
			return t.colorCTA(c, parent.ID, b, worklist[lo:hi], c.scanned[lo:hi])
		},
		func(s gcSite) error { return t.child(parent.ID, s) })
}

// colorCTA costs one gc_color CTA whose threads hold vertices, which
// visited scanned neighbours each in the round c last ran, and finds its
// launch sites.
func (t *gcTrace) colorCTA(c *gcColoring, kernel uint64, cta int, vertices, scanned []int32) (*trace.CTA, []gcSite) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.block, warpSize))}
	var sites []gcSite
	for w := range rec.WarpCycles {
		lanes := min(max(len(vertices)-w*warpSize, 0), warpSize)
		longest, colored, requeued := 0, false, false
		for lane := 0; lane < lanes; lane++ {
			v, n := vertices[w*warpSize+lane], int(scanned[w*warpSize+lane])
			t.scanned += int64(n)
			done := c.coloredNow(v)
			if d := t.g.degree(v); d > t.threshold && !t.flat {
				sites = append(sites, gcSite{cta: cta, warp: w, lane: lane, degree: d, scanned: n, colored: done})
				continue
			}
			longest = max(longest, n)
			colored, requeued = colored || done, requeued || !done
		}
		rec.WarpCycles[w] = gcColorWarpCycles(lanes, longest, colored, requeued, t.loop)
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec, sites
}

// child writes a launch site's gc_color_child: one thread per neighbour of
// the site's vertex. The launch record also carries what the parent's own
// loop would cost, so a policy can choose.
func (t *gcTrace) child(parent uint64, s gcSite) error {
	grid := ceilDiv(s.degree, gcChildBlock)
	child := t.ids.declare("gc_color_child", dpLine(grid), dpLine(gcChildBlock), gcChildRegs)
	launch := &trace.Launch{
		Kernel:       child.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: gcBaseCycles},
		Workload:     int64(s.degree),
		InlineCycles: t.inline(grid, s),
	}
	if err := writeAll(t.out, child, launch); err != nil {
		return err
	}
	for cta := 0; cta < grid; cta++ {
		if err := t.out.Write(gcChildCTA(child.ID, cta, grid, s)); err != nil {
			return err
		}
	}
	return nil
}

// inline is site s's inline_cycles, its child being grid CTAs: the lane's
// loop over the neighbours it visits before the round's outcome (the flat
// code stops at the first that decides it), each priced as the child's
// thread for it by the lane-loop rule (laneLoopCycles), then the outcome
// once; with loop_cycles given, loop cycles a neighbour (gcLaneCycles).
func (t *gcTrace) inline(grid int, s gcSite) int64 {
	if t.loopGiven {
		return gcLaneCycles(s.scanned, s.colored, t.loop)
	}
	return laneLoopCycles(s.scanned, gcChildBlock, func(c int) int64 { return gcChildCTA(0, c, grid, s).Cycles }) + gcOutcomeCycles(s.colored)
}

// gcChildCTA costs CTA cta of a site's gc_color_child of grid CTAs. Every
// CTA's warp 0 publishes the CTA's result; the last CTA's also ends the
// vertex's round. Which CTA finishes last depends on scheduling; the
// trace gives the work to the highest-numbered, normally dispatched last.
func gcChildCTA(kernel uint64, cta, grid int, s gcSite) *trace.CTA {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, gcChildBlock/warpSize)}
	for w := range rec.WarpCycles {
		rec.WarpCycles[w] = gcChildWarpCycles(min(max(s.degree-cta*gcChildBlock-w*warpSize, 0), warpSize))
	}
	rec.WarpCycles[0] += gcChildFlushCycles
	if cta == grid-1 {
		rec.WarpCycles[0] += gcChildDecideCycles + gcOutcomeCycles(s.colored)
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec
}
