package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "bfs",
		Doc:  "BFS over a Graph500 Kronecker or citation-like graph; high-degree frontier vertices launch child kernels (DTBL, SPAWN)",
		Params: []Param{
			graphParam("kron", "citation", grKind),
			{Name: "scale", Default: "12", Doc: "the graph has 2^scale vertices"},
			{Name: "edgefactor", Default: "16", Doc: "edges generated per vertex"},
			{Name: "block", Default: "256", Doc: "threads per bfs_level CTA, one frontier vertex each"},
			{Name: "site_threshold", Default: "16", Doc: "a frontier vertex with more neighbours than this is a launch site"},
			loopParam(levelEdgeCycles, "neighbour loop"),
			codeParam,
			{Name: "ctas", Default: "104", Doc: "code=dragonli: the persistent grid's CTAs (Dragon_li's CTAS; testBfs at 1397e03 has 240)"},
			{Name: "child_bits", Default: "5", Doc: "code=dragonli: a site's child has degree>>child_bits CTAs of 1<<child_bits threads (CDP_THREADS_BITS; testBfs at 1397e03 has 7)"},
			variantParam,
			seedParam,
		},
		run:   runBFS,
		loop:  levelEdgeCycles,
		mixes: bfsMixes,
		costs: bfsCosts,
	})
}

// runBFS generates the graph, runs the search, and writes its trace: a
// header, the graph's buffers, then one bfs_level kernel per BFS level,
// host-launched asynchronously into stream 0, each followed by its CTAs and
// then, in (cta, warp, lane) order, the bfs_expand child of each of its
// launch sites. A level's records all precede the next level's, so a reader
// holds at most one level in flight. The buffer roles imply the host's
// copies (graph in, levels out), so there are no memcpy records. The kernels
// index col_indices through row_offsets, so they have no access records:
// CRCS treats them as irregular, as that paper's profiler would.
//
// variant=flat writes the original benchmark without dynamic
// parallelism: each level's bfs_level expands long neighbour lists by CTA
// and by warp, Merrill's technique (twc.go), and has no launch sites.
//
// code=dragonli writes Dragon_li's structure instead (dragonli.go,
// bfsdragonli.go): each level a persistent bfs_level (the expand) grid
// walking the frontier in chunks, each site's bfs_expand covering whole
// CTAs of 1<<child_bits of its neighbours, then a bfs_contract over the
// level's neighbours, at costs measured on testBfs (bfsdlcost.go); its
// variant=flat is Dragon_li's Reg kernel.
//
// Launch-site times: a bfs_level thread holds one frontier vertex and, in
// the original kernel, loads its extent, then either launches (degree above
// site_threshold) or loops over its edges; the warp's launching lanes take
// that branch together, so all of them reach their launch at
// levelBaseCycles, one warp-level site (see the package doc).
func runBFS(p Params, out trace.Sink) error {
	cfg, err := parseGraphKernel(p, levelEdgeCycles, "kron", "citation", grKind)
	if err != nil {
		return err
	}
	ctas, err := p.Int("ctas", 1, 1<<16)
	if err != nil {
		return err
	}
	bits, err := p.Int("child_bits", 0, 10)
	if err != nil {
		return err
	}
	dragonli, err := parseDragonli(p, cfg.threshold, cfg.flat, bits)
	if err != nil {
		return err
	}
	if dragonli && !cfg.loopGiven {
		// Dragon_li's loop copies a neighbour id (bfsdlcost.go).
		cfg.loop = dlBFSEdgeCycles
	}
	rng := newSeeded(cfg.seed)
	g := cfg.graph.draw(rng)
	root, ok := cfg.graph.root(rng.Rand, g)
	if !ok {
		return cfg.graph.noEdges(p)
	}
	frontiers := bfsFrontiers(g, root)
	t := &bfsTrace{out: out, g: g, block: cfg.block, threshold: cfg.threshold, loop: cfg.loop, loopGiven: cfg.loopGiven, flat: cfg.flat, dragonli: dragonli,
		ctas: ctas, childBits: bits}
	if err := t.prologue(p, root, frontiers); err != nil {
		return err
	}
	for _, f := range frontiers {
		if err := t.level(f); err != nil {
			return err
		}
	}
	return nil
}

// bfsTrace writes one search's records, numbering kernels from 1 in the
// order they are written.
type bfsTrace struct {
	out              trace.Sink
	g                *csr
	block, threshold int
	loop             int64 // cycles of one iteration of a looping lane (loop_cycles)
	loopGiven        bool  // loop_cycles given: sites inline at loop an edge (inlineCycles)
	flat             bool  // variant=flat: bfs_level balances its lists itself (bfsflat.go)
	dragonli         bool  // code=dragonli: Dragon_li's persistent grid (bfsdragonli.go)
	ctas, childBits  int   // code=dragonli: CTAS and CDP_THREADS_BITS
	expands          int   // code=dragonli: expand kernels written (the first runs cold)
	lastID           uint64
}

// bfsSite is a frontier thread that launches a child: its place in the
// parent grid and its vertex's degree.
type bfsSite struct {
	cta, warp, lane int
	degree          int
}

// prologue writes the header, whose meta records the parameters and what
// the graph and search came to, and the buffers a GPU BFS allocates.
func (t *bfsTrace) prologue(p Params, root int32, frontiers [][]int32) error {
	kernels, ctas, sites := t.count(frontiers)
	meta := p.Values()
	p.omitDefaults(meta, "graph", "loop_cycles", "variant", "code", "ctas", "child_bits")
	meta["vertices"] = strconv.Itoa(t.g.vertices())
	meta["edges"] = strconv.Itoa(t.g.edges())
	meta["max_degree"] = strconv.Itoa(t.g.maxDegree())
	meta["root"] = strconv.Itoa(int(root))
	meta["levels"] = strconv.Itoa(len(frontiers))
	meta["sites"] = strconv.Itoa(sites)
	meta["kernels"] = strconv.Itoa(kernels)
	meta["ctas"] = strconv.Itoa(ctas)
	var heap deviceHeap
	n := int64(t.g.vertices())
	return writeAll(t.out,
		k20cHeader("gen:bfs", meta),
		heap.alloc("row_offsets", 4*(n+1), trace.RoleInput),
		heap.alloc("col_indices", 4*int64(len(t.g.cols)), trace.RoleInput),
		heap.alloc("levels", 4*n, trace.RoleOutput),
		heap.alloc("frontier_in", 4*n, trace.RoleTemp),
		heap.alloc("frontier_out", 4*n, trace.RoleTemp),
	)
}

// count totals the kernels, CTAs and launch sites the trace will hold.
func (t *bfsTrace) count(frontiers [][]int32) (kernels, ctas, sites int) {
	if t.dragonli {
		return t.dragonliCount(frontiers)
	}
	for _, f := range frontiers {
		kernels++
		ctas += ceilDiv(len(f), t.block)
		for _, v := range f {
			if d := t.g.degree(v); d > t.threshold && !t.flat {
				sites++
				kernels++
				ctas += ceilDiv(d, bfsExpandBlock)
			}
		}
	}
	return kernels, ctas, sites
}

// level writes one BFS level: the bfs_level kernel, one thread per frontier
// vertex, then its children.
func (t *bfsTrace) level(frontier []int32) error {
	if t.dragonli {
		return t.dragonliLevel(frontier)
	}
	if t.flat {
		return t.flatLevel(frontier)
	}
	parent := t.kernel("bfs_level", ceilDiv(len(frontier), t.block), t.block, levelRegs)
	if err := writeAll(t.out, parent, &trace.Launch{Kernel: parent.ID}); err != nil {
		return err
	}
	return writeFamily(t.out, ceilDiv(len(frontier), t.block),
		func(c int) (*trace.CTA, []bfsSite) {
			return t.levelCTA(parent.ID, c, frontier[c*t.block:min((c+1)*t.block, len(frontier))])
		},
		func(s bfsSite) error { return t.expand(parent.ID, s) })
}

// levelCTA costs one bfs_level CTA whose threads hold vertices (fewer than
// block in the last CTA) and finds its launch sites.
func (t *bfsTrace) levelCTA(kernel uint64, cta int, vertices []int32) (*trace.CTA, []bfsSite) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.block, warpSize))}
	var sites []bfsSite
	degrees := make([]int, 0, warpSize)
	for w := range rec.WarpCycles {
		degrees = degrees[:0]
		for lane := 0; lane < warpSize && w*warpSize+lane < len(vertices); lane++ {
			d := t.g.degree(vertices[w*warpSize+lane])
			degrees = append(degrees, d)
			if d > t.threshold {
				sites = append(sites, bfsSite{cta: cta, warp: w, lane: lane, degree: d})
			}
		}
		rec.WarpCycles[w] = levelWarpCycles(degrees, t.threshold, t.loop)
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	return rec, sites
}

// expand writes a launch site's bfs_expand child: one thread per edge of the
// site's vertex.
func (t *bfsTrace) expand(parent uint64, s bfsSite) error {
	at := trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: levelBaseCycles}
	return t.child(at, s.degree, bfsExpandBlock, 1)
}

// child writes a bfs_expand launched from at over edges neighbours, one a
// thread in CTAs of block threads. The launch record also carries what
// inlining would cost, so a policy can choose, lanes lanes of the warp
// (this one among them) reaching the launch together.
func (t *bfsTrace) child(at trace.Parent, edges, block, lanes int) error {
	grid := ceilDiv(edges, block)
	regs := expandRegs
	if t.dragonli {
		regs = dlBFSChildRegs
	}
	child := t.kernel("bfs_expand", grid, block, regs)
	launch := &trace.Launch{
		Kernel:       child.ID,
		Parent:       &at,
		Workload:     int64(edges),
		InlineCycles: t.inline(edges, block, lanes),
	}
	if err := writeAll(t.out, child, launch); err != nil {
		return err
	}
	for c := 0; c < grid; c++ {
		if err := t.out.Write(t.expandCTA(child.ID, c, block, edges)); err != nil {
			return err
		}
	}
	return nil
}

// inline is a launch site's inline_cycles for a bfs_expand over edges
// neighbours in CTAs of block threads, lanes lanes of its warp launching
// together: the lane's loop over the child's threads by the lane-loop
// rule (laneLoopCycles) and, under code=dragonli, what the other lanes
// looping beside it add at the load/store unit (laneLoopPortCycles, the
// Reg loop's dlBFSRegLoopAccesses); or, with loop_cycles given, loop
// cycles an edge (inlineCycles).
func (t *bfsTrace) inline(edges, block, lanes int) int64 {
	if t.loopGiven {
		return inlineCycles(edges, t.loop)
	}
	c := laneLoopCycles(edges, block, func(c int) int64 { return t.expandCTA(0, c, block, edges).Cycles })
	if t.dragonli {
		c = min(c+laneLoopPortCycles(edges, lanes, dlBFSRegLoopAccesses), trace.MaxCycles)
	}
	return c
}

// expandCTA costs CTA cta, of block threads, of a bfs_expand child over
// degree edges: the default code's warps (expandWarpCycles), or
// Dragon_li's (dlBFSChildWarpCycles).
func (t *bfsTrace) expandCTA(kernel uint64, cta, block, degree int) *trace.CTA {
	warp := expandWarpCycles
	if t.dragonli {
		warp = dlBFSChildWarpCycles
	}
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(block, warpSize))}
	for w := range rec.WarpCycles {
		active := min(max(degree-cta*block-w*warpSize, 0), warpSize)
		rec.WarpCycles[w] = warp(active)
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	if t.dragonli {
		// Dragon_li's child thread, not the default code's: its own
		// demand, which the demand sink keeps.
		bfsMixes["bfs_dl_child"].set(rec, len(rec.WarpCycles))
	}
	return rec
}

// kernel declares the next kernel, with a 1-D grid and block.
func (t *bfsTrace) kernel(name string, grid, block, regs int) *trace.Kernel {
	t.lastID++
	return &trace.Kernel{
		ID:    t.lastID,
		Name:  name,
		Grid:  [3]uint32{uint32(grid), 1, 1},
		Block: [3]uint32{uint32(block), 1, 1},
		Regs:  regs,
	}
}
