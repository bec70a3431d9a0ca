package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "sssp",
		Doc:  "worklist Bellman-Ford SSSP over a weighted Kronecker, uniform or citation-like graph; high-degree vertices launch child kernels (DTBL, SPAWN)",
		Params: []Param{
			graphParam("kron", "uniform", "citation", grKind),
			{Name: "scale", Default: "11", Doc: "the graph has 2^scale vertices"},
			{Name: "edgefactor", Default: "16", Doc: "edges generated per vertex"},
			{Name: "max_weight", Default: "64", Doc: "edge weights are integers drawn uniformly from [1, max_weight]"},
			{Name: "block", Default: "256", Doc: "threads per sssp_relax CTA, one worklist vertex each"},
			{Name: "site_threshold", Default: "16", Doc: "a worklist vertex with more edges than this is a launch site"},
			{Name: "iters", Default: "1000", Doc: "at most this many relaxation iterations (the search stops earlier when no distance falls)"},
			loopParam(ssspEdgeCycles, "neighbour loop"),
			codeParam,
			ssspVariantParam,
			seedParam,
		},
		run:   runSSSP,
		loop:  ssspEdgeCycles,
		mixes: ssspMixes,
		costs: ssspCosts,
		refit: ssspRefit,
	})
}

// ssspConfig is the sssp generator's parameters, checked.
type ssspConfig struct {
	graph                              graphInput
	maxWeight, block, threshold, iters int
	loop                               int64 // loop_cycles' iteration
	loopGiven                          bool  // loop_cycles given: sites inline at loop an edge
	seed                               uint64
	flat                               bool // variant=flat: no sites, each thread loops over its edges
	twc                                bool // variant=twc (ssspflat.go)
	dragonli                           bool // code=dragonli (ssspdragonli.go)
}

// ssspVariantParam is variantParam with a third value. DTBL §5.1 says its
// flat codes are "flattened and effectively serialized within each
// thread", bfs alone being the exception that expands lists by thread
// block and warp; so sssp's flat is the DP code's loop branch for every
// vertex, and its load-balanced form, which the DP issue first asked for,
// is twc.
var ssspVariantParam = Param{
	Name:    variantParam.Name,
	Default: variantParam.Default,
	Doc:     "dp: the dynamic-parallelism code, with launch sites; flat: the original non-DP code (DTBL §5.1), each thread relaxing its own edges in a loop; twc: a non-DP code that relaxes long edge lists by CTA and by warp (Merrill's expansion, as bfs's flat)",
}

func parseSSSP(p Params) (c ssspConfig, err error) {
	if c.graph, err = parseGraphInput(p, "kron", "uniform", "citation", grKind); err != nil {
		return c, err
	}
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"max_weight", &c.maxWeight, 1, 1 << 20},
		{"block", &c.block, 1, 1024},
		{"site_threshold", &c.threshold, 0, 1 << 30},
		{"iters", &c.iters, 1, 1 << 20},
	}
	for _, f := range ints {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	lc, err := parseLoopCycles(p, ssspEdgeCycles)
	if err != nil {
		return c, err
	}
	c.loop, c.loopGiven = lc.cycles, lc.given
	variant, err := p.Choice(ssspVariantParam.Name, "dp", "flat", "twc")
	if err != nil {
		return c, err
	}
	c.flat, c.twc = variant == "flat", variant == "twc"
	if c.dragonli, err = parseDragonli(p, c.threshold, c.flat, dragonliChildBits); err != nil {
		return c, err
	}
	if c.dragonli && c.twc {
		return c, p.errorf(ssspVariantParam.Name, variant, "code=dragonli has no twc code: its non-DP code is variant=flat, the Reg kernel")
	}
	if c.flat {
		c.threshold = noSites
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// runSSSP generates the weighted graph, then writes the search's trace: a
// header, the graph's buffers, and one sssp_relax kernel per iteration,
// host-launched into stream 0, each followed by its CTAs and then, in
// (cta, warp, lane) order, the sssp_relax_child of each launch site. Like
// bfs's kernels these index through row_offsets, so they have no access
// records (irregular for CRCS).
//
// variant=flat writes the benchmark without dynamic parallelism as DTBL
// §5.1 defines its flat codes, "flattened and effectively serialized
// within each thread": every thread relaxes its edges in its own loop, the
// DP code's loop branch for every vertex (site_threshold is ignored).
// variant=twc is the load-balanced alternative: sssp_relax relaxes long
// edge lists by CTA and by warp, as bfs's flat variant does (twc.go).
//
// code=dragonli writes Dragon_li's structure instead (dragonli.go,
// ssspdragonli.go): a persistent sssp_relax grid walking the worklist in
// chunks, each site's sssp_relax_child covering whole 32-thread CTAs of its
// edges; its variant=flat is Dragon_li's Reg kernel (and it has no twc).
//
// Launch-site times: an sssp_relax thread holds one worklist vertex and
// launches or relaxes its edges in a loop after the same prologue on every
// lane, so a warp's launching lanes all reach their launch at
// ssspBaseCycles, one warp-level site (see the package doc).
func runSSSP(p Params, out trace.Sink) error {
	cfg, err := parseSSSP(p)
	if err != nil {
		return err
	}
	rng := newSeeded(cfg.seed)
	g := cfg.graph.draw(rng)
	var weight []int32
	if f := cfg.graph.file; f != nil {
		weight = f.weights
	} else {
		key := "weights " + cfg.graph.key() + " " + strconv.Itoa(cfg.maxWeight)
		weight = drawn(key, rng, func(w []int32) int64 { return 4 * int64(cap(w)) }, func() []int32 {
			return ssspWeights(rng.Rand, g, cfg.maxWeight)
		})
	}
	root, ok := cfg.graph.root(rng.Rand, g)
	if !ok {
		return cfg.graph.noEdges(p)
	}
	t := &ssspTrace{g: g, weight: weight, root: root, block: cfg.block, threshold: cfg.threshold, iters: cfg.iters, loop: cfg.loop, loopGiven: cfg.loopGiven, twc: cfg.twc, dragonli: cfg.dragonli}
	return writeTallied(out, t.records, func() *trace.Header {
		meta := p.Values()
		p.omitDefaults(meta, "loop_cycles", "variant", "code")
		meta["vertices"] = strconv.Itoa(g.vertices())
		meta["edges"] = strconv.Itoa(g.edges())
		meta["max_degree"] = strconv.Itoa(g.maxDegree())
		meta["root"] = strconv.Itoa(int(root))
		meta["iterations"] = strconv.Itoa(t.iterations)
		meta["converged"] = strconv.FormatBool(t.converged)
		meta["relaxations"] = strconv.FormatInt(t.relaxations, 10)
		meta["reached"] = strconv.Itoa(t.reached)
		return k20cHeader("gen:sssp", meta)
	})
}

// ssspTrace writes one search's records; records sets the search's
// statistics as it goes.
type ssspTrace struct {
	g                       *csr
	weight                  []int32
	root                    int32
	block, threshold, iters int
	loop                    int64 // cycles of one iteration of a looping lane (loop_cycles)
	loopGiven               bool  // loop_cycles given: sites inline at loop an edge (ssspLaneCycles)
	twc                     bool  // variant=twc: sssp_relax balances its lists itself (ssspflat.go)
	dragonli                bool  // code=dragonli: Dragon_li's persistent grid (ssspdragonli.go)

	// loops are, under code=dragonli, the solver's warps' loops in the
	// relaxation just run (dlLoops), by their first items, and
	// childWait what its children's CTAs waited at the frontier's
	// counter (ssspSolver.childWait).
	loops     map[int]int64
	childWait map[[2]int]int64
	// frontiers, where set, are the worklists relaxed after the first,
	// in place of the solver's: a run's measured frontiers, to price
	// each relaxation on the worklist the run had (a test's).
	frontiers [][]int32

	out trace.Sink
	ids dpKernels

	iterations  int
	converged   bool
	relaxations int64 // edges relaxed, over all iterations
	childCTAs   int   // sssp_relax_child CTAs written so far (ssspChildColdCycles)
	reached     int   // vertices with a finite distance at the end
}

// ssspSite is a worklist thread that launches a child: its place in the
// parent grid, and its vertex's edges with which of them lowered a
// distance.
type ssspSite struct {
	cta, warp, lane int
	lowered         []bool // one per edge
}

// records runs the search from the start and writes the buffers and
// kernels, one sssp_relax per iteration, until no distance falls or iters
// iterations have run.
func (t *ssspTrace) records(out trace.Sink) error {
	t.out, t.ids = out, dpKernels{}
	if err := t.buffers(); err != nil {
		return err
	}
	s, worklist := newSSSPSolver(t.g, t.weight, t.root)
	if t.dragonli {
		t.dragonliSolver(s)
	}
	t.iterations, t.relaxations, t.childCTAs = 0, 0, 0
	for ; len(worklist) > 0 && t.iterations < t.iters; t.iterations++ {
		next := s.relax(worklist)
		t.relaxations += int64(len(s.lowered))
		if err := t.iteration(worklist, s.lowered); err != nil {
			return err
		}
		worklist = next
		if t.iterations < len(t.frontiers) {
			worklist = t.frontiers[t.iterations]
		}
	}
	t.converged = len(worklist) == 0
	t.reached = 0
	for _, d := range s.dist {
		if d != ssspUnreached {
			t.reached++
		}
	}
	return nil
}

// buffers writes the allocations a GPU SSSP makes: the weighted CSR graph,
// the 64-bit distances it returns, and the two worklists with their
// queued flags.
func (t *ssspTrace) buffers() error {
	var heap deviceHeap
	n := int64(t.g.vertices())
	m := int64(len(t.g.cols))
	return writeAll(t.out,
		heap.alloc("row_offsets", 4*(n+1), trace.RoleInput),
		heap.alloc("col_indices", 4*m, trace.RoleInput),
		heap.alloc("weights", 4*m, trace.RoleInput),
		heap.alloc("dist", 8*n, trace.RoleOutput),
		heap.alloc("worklist_in", 4*n, trace.RoleTemp),
		heap.alloc("worklist_out", 4*n, trace.RoleTemp),
		heap.alloc("queued", n, trace.RoleTemp),
	)
}

// iteration writes one sssp_relax kernel over worklist, whose edges'
// outcomes are lowered (in worklist order), then its children.
func (t *ssspTrace) iteration(worklist []int32, lowered []bool) error {
	if t.dragonli {
		return t.dragonliIteration(worklist, lowered)
	}
	if t.twc {
		return t.flatIteration(worklist, lowered)
	}
	parent := t.ids.declare("sssp_relax", dpLine(ceilDiv(len(worklist), t.block)), dpLine(t.block), ssspRelaxRegs)
	if err := writeAll(t.out, parent, &trace.Launch{Kernel: parent.ID}); err != nil {
		return err
	}
	return writeFamily(t.out, ceilDiv(len(worklist), t.block),
		func(c int) (cta *trace.CTA, s []ssspSite) {
			cta, s, lowered = t.relaxCTA(parent.ID, c, worklist[c*t.block:min((c+1)*t.block, len(worklist))], lowered)
			return cta, s
		},
		func(s ssspSite) error { return t.child(parent.ID, s) })
}

// relaxCTA costs one sssp_relax CTA whose threads hold vertices, given the
// outcomes of their edges at the front of lowered, and finds its launch
// sites. It returns the outcomes it did not use.
func (t *ssspTrace) relaxCTA(kernel uint64, cta int, vertices []int32, lowered []bool) (*trace.CTA, []ssspSite, []bool) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.block, warpSize))}
	var sites []ssspSite
	for w := range rec.WarpCycles {
		lanes := min(max(len(vertices)-w*warpSize, 0), warpSize)
		longest := int64(0)
		for lane := 0; lane < lanes; lane++ {
			d := t.g.degree(vertices[w*warpSize+lane])
			edges := lowered[:d]
			lowered = lowered[d:]
			if d > t.threshold {
				sites = append(sites, ssspSite{cta: cta, warp: w, lane: lane, lowered: edges})
				continue
			}
			longest = max(longest, ssspLaneCycles(d, ssspCount(edges), t.loop))
		}
		rec.WarpCycles[w] = ssspRelaxWarpCycles(lanes, longest)
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec, sites, lowered
}

// child writes a launch site's sssp_relax_child: one thread per edge of the
// site's vertex.
func (t *ssspTrace) child(parent uint64, s ssspSite) error {
	at := trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: ssspBaseCycles}
	return t.childOver(at, s.lowered, ssspChildBlock, nil, 1)
}

// childOver writes an sssp_relax_child launched from at over edges with
// the given outcomes, one a thread in CTAs of block threads; under
// code=dragonli its first CTAs of the run pay the child code's cold start
// (ssspChildColdCycles), as the first relaxation pays sssp_relax's, and
// each CTA what wait, where given, says its appends waited at the
// frontier's counter (ssspSolver.childWait). The launch record also
// carries what relaxing the edges in the parent's loop would cost, so a
// policy can choose, lanes lanes of the warp (this one among them)
// reaching the launch together.
func (t *ssspTrace) childOver(at trace.Parent, lowered []bool, block int, wait func(cta int) int64, lanes int) error {
	degree := len(lowered)
	grid := ceilDiv(degree, block)
	child := t.ids.declare("sssp_relax_child", dpLine(grid), dpLine(block), ssspChildRegs)
	launch := &trace.Launch{
		Kernel:       child.ID,
		Parent:       &at,
		Workload:     int64(degree),
		InlineCycles: t.inline(lowered, block, lanes),
	}
	if err := writeAll(t.out, child, launch); err != nil {
		return err
	}
	first := t.childCTAs == 0
	for c := 0; c < grid; c++ {
		var extra int64
		if t.dragonli {
			extra = ssspChildColdCycles(t.childCTAs, c, first)
		}
		if wait != nil {
			extra += wait(c)
		}
		t.childCTAs++
		if err := t.out.Write(ssspChildCTA(child.ID, c, block, lowered, extra)); err != nil {
			return err
		}
	}
	return nil
}

// inline is a launch site's inline_cycles for an sssp_relax_child over
// edges with the given outcomes in CTAs of block threads, lanes lanes of
// its warp launching together: the lane's loop over the child's threads
// by the lane-loop rule (laneLoopCycles) and, under code=dragonli, what
// the other lanes looping beside it add at the load/store unit
// (laneLoopPortCycles, the Reg loop's ssspRegLoopAccesses); or, with
// loop_cycles given, loop cycles an edge and the lowered edges' atomics
// (ssspLaneCycles).
func (t *ssspTrace) inline(lowered []bool, block, lanes int) int64 {
	if t.loopGiven {
		return ssspLaneCycles(len(lowered), ssspCount(lowered), t.loop)
	}
	c := laneLoopCycles(len(lowered), block, func(c int) int64 { return ssspChildCTA(0, c, block, lowered, 0).Cycles })
	if t.dragonli {
		c = min(c+laneLoopPortCycles(len(lowered), lanes, ssspRegLoopAccesses), trace.MaxCycles)
	}
	return c
}

// ssspChildCTA costs CTA cta, of block threads, of an sssp_relax_child
// over edges with the given outcomes, each warp holding edges adding
// extra: its cold start (ssspChildColdCycles; an idle warp reaches the
// ret in line 18 too, but ends before the busy ones, whose time is the
// CTA's) and what it waited at the frontier's counter.
func ssspChildCTA(kernel uint64, cta, block int, lowered []bool, extra int64) *trace.CTA {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(block, warpSize))}
	for w := range rec.WarpCycles {
		lo := min(cta*block+w*warpSize, len(lowered))
		edges := lowered[lo:min(lo+warpSize, len(lowered))]
		rec.WarpCycles[w] = ssspChildWarpCycles(len(edges), ssspCount(edges))
		if len(edges) > 0 {
			rec.WarpCycles[w] += extra
		}
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec
}

// ssspCount is the number of true flags.
func ssspCount(flags []bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}
