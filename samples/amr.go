package samples

import (
	"math"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "amr",
		Doc:  "adaptive mesh refinement: Dragon_li's AMR (code=dragonli, the papers' benchmark: one start cell (random in the source, 5041.13 in its every run), 32 sub-cells per refinement, a 1×32 child kernel per refining cell, nested; variant=flat: its level-by-level host loop) or the flame-front model (code=fronts)",
		Params: []Param{
			{Name: "code", Default: "dragonli", Doc: "dragonli: Jin Wang's Dragon_li AMR, the DTBL/SPAWN benchmark (amrdragonli.go); fronts: the flame-front model written before that source was found"},
			{Name: "start_cells", Default: "1", Doc: "code=dragonli: cells of the start grid (the source: 1)"},
			{Name: "start_value", Default: "5041.126", Doc: "code=dragonli: the start cells' value; the default is the one every run of the source starts from (it draws its cell as rand()/RAND_MAX·max_value and never seeds glibc's rand(), whose first value is 1804289383); random: each drawn uniformly in [0, max_value] from the seed"},
			{Name: "max_value", Default: "6000", Doc: "code=dragonli: the largest start value (maxGridValue)"},
			{Name: "refine_threshold", Default: "100", Doc: "code=dragonli: a cell whose value is at least this refines into 32 sub-cells (gridRefineThreshold)"},
			{Name: "max_level", Default: "4", Doc: "code=dragonli: levels examined for refinement, the start grid's included (maxRefineLevel)"},
			{Name: "max_cells", Default: "4194304", Doc: "code=dragonli: the grid buffers' size in cells; a grid that refines past it is an error, as the source's overflow (maxGridDataSize)"},
			{Name: "ctas", Default: "104", Doc: "code=dragonli: CTAs of the persistent host kernels (CTAS)"},
			{Name: "threads", Default: "256", Doc: "code=dragonli: threads per CTA of the persistent host kernels, a multiple of 32 (THREADS)"},
			{Name: "cells", Default: "32", Doc: "code=fronts: the coarse grid is cells×cells over the unit square"},
			{Name: "ratio", Default: "4", Doc: "code=fronts: a refined cell splits into ratio×ratio sub-cells; amr_refine CTAs are ratio×ratio threads"},
			{Name: "depth", Default: "3", Doc: "code=fronts: refinement levels below the coarse grid at most"},
			{Name: "fronts", Default: "3", Doc: "code=fronts: flame kernels, placed by the seed"},
			{Name: "steps", Default: "3", Doc: "code=fronts: time steps; the fronts grow each step and the mesh is refined again"},
			{Name: "tol", Default: "0.1", Doc: "code=fronts: a cell refines when the heat-release rate (peak 1) varies across it by more than this"},
			{Name: "site_threshold", Default: "16", Doc: "code=fronts: a refining cell with more sub-cells than this below it (all levels) is a launch site"},
			variantParam,
			seedParam,
		},
		run:   runAMR,
		mixes: amrMixes,
		costs: amrCosts,
		refit: amrRefit,
	})
}

// amrCodes are the amr generator's two models, each with the parameters
// only it reads; variant and seed are both's.
var amrCodes = map[string][]string{
	"dragonli": {"start_cells", "start_value", "max_value", "refine_threshold", "max_level", "max_cells", "ctas", "threads"},
	"fronts":   {"cells", "ratio", "depth", "fronts", "steps", "tol", "site_threshold"},
}

// runAMR writes the chosen code's trace, after refusing a parameter of the
// other code given a value other than its default (which that code would
// silently ignore).
func runAMR(p Params, out trace.Sink) error {
	code, err := p.Choice("code", "dragonli", "fronts")
	if err != nil {
		return err
	}
	for other, names := range amrCodes {
		if other == code {
			continue
		}
		for _, d := range p.gen.Params {
			if slices.Contains(names, d.Name) && p.vals[d.Name] != d.Default {
				return p.errorf(d.Name, p.vals[d.Name], "applies to code=%s only (this run has code=%s)", other, code)
			}
		}
	}
	if code == "fronts" {
		return runAMRFronts(p, out)
	}
	return runAMRDragonLi(p, out)
}

// amrMeta is the header meta of a code's trace: every parameter's value
// but those of the other code. code=fronts leaves out code too, so its
// traces are byte for byte those written before code=dragonli existed.
func amrMeta(p Params, code string) map[string]string {
	meta := variantMeta(p, p.Values())
	for other, names := range amrCodes {
		if other != code {
			for _, n := range names {
				delete(meta, n)
			}
		}
	}
	if code == "fronts" {
		delete(meta, "code")
	}
	return meta
}

// maxAMRCells bounds cells²·ratio^(2·depth), the cells evaluated if every
// cell refined to the deepest level, so no parameters can ask for an
// endless run.
const maxAMRCells = 1 << 32

// maxAMRTol bounds tol: a cell's indicator is at most the number of
// fronts (each contributes at most its ridge's unit height), so a larger
// tolerance could only mean "never refine".
const maxAMRTol = 1 << 10

// amrConfig is the amr generator's parameters, checked.
type amrConfig struct {
	cells, ratio, depth, fronts, steps, threshold int
	tol                                           float64
	seed                                          uint64
	flat                                          bool // variant=flat: no cell launches (runAMRFronts)
}

func parseAMR(p Params) (c amrConfig, err error) {
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"cells", &c.cells, 1, 1 << 16},
		{"ratio", &c.ratio, 2, 32},
		{"depth", &c.depth, 0, 16},
		{"fronts", &c.fronts, 0, 1 << 10},
		{"steps", &c.steps, 1, 1 << 10},
		{"site_threshold", &c.threshold, 0, 1 << 30},
	}
	for _, f := range ints {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if worst := float64(c.cells) * float64(c.cells) * math.Pow(float64(c.ratio), 2*float64(c.depth)); worst > maxAMRCells {
		return c, p.errorf("depth", strconv.Itoa(c.depth),
			"cells²·ratio^(2·depth) must be at most 2^32 (every cell refining); with cells=%d and ratio=%d, want depth at most %d",
			c.cells, c.ratio, amrMaxDepth(c.cells, c.ratio))
	}
	if c.tol, err = p.Float("tol", 0, maxAMRTol); err != nil {
		return c, err
	}
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	if c.flat {
		c.threshold = noSites
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// amrMaxDepth is the deepest depth maxAMRCells allows for cells and ratio
// (-1 if none: cells alone exceeds the bound, which the range of cells
// rules out).
func amrMaxDepth(cells, ratio int) int {
	d := -1
	for n := float64(cells) * float64(cells); n <= maxAMRCells; n *= float64(ratio * ratio) {
		d++
	}
	return d
}

// runAMRFronts (code=fronts, the model written before Dragon_li's source
// was found; amrdragonli.go lists how it differs) places the flames, then
// writes the simulation's trace: a header, the mesh's buffers, and per time step one host-launched amr_refine over
// the coarse grid, followed depth first by the amr_refine children its
// refining cells launch, and theirs. Every level runs the same kernel with
// the same block shape, as in the DTBL paper's AMR (its Figure 2a), where
// the aggregated groups coalesce with the host-launched kernel itself. The
// kernels follow the mesh's links, so they have no access records.
//
// Launch-site times: an amr_refine thread holds one cell; it evaluates
// the cell and claims its sub-cells like every refining lane, then
// launches or evaluates the sub-cells in a loop, so a warp's launching
// lanes all reach their launch at amrCellCycles + amrRefineCycles, one
// warp-level site (see the package doc).
//
// variant=flat is the original non-DP AMR, which the DTBL paper (§5.1)
// describes for all its benchmarks: "We refer to the original CUDA
// implementations as flat implementations since the nested algorithmic
// structure is flattened and effectively serialized within each thread",
// the DP versions changing neither "the data structures and algorithms of
// the original implementations". Its one amr_refine per step has a thread
// per coarse cell, as here, and a refining thread evaluates its cell's
// whole subtree in its own loop: the DP code's `else` branch for every
// cell, so no lane launches (site_threshold is ignored) and a warp waits
// for its deepest subtree, all its lanes looping together. The work is the
// DP variant's: the same cells are evaluated at the same amrCellCycles,
// only in the refining thread rather than in child CTAs.
func runAMRFronts(p Params, out trace.Sink) error {
	cfg, err := parseAMR(p)
	if err != nil {
		return err
	}
	t := &amrTrace{
		mesh:      amrMesh{fronts: amrFronts(newRand(cfg.seed), cfg.fronts), ratio: cfg.ratio, depth: cfg.depth, tol: cfg.tol},
		cells:     cfg.cells,
		steps:     cfg.steps,
		threshold: cfg.threshold,
	}
	perStep, total := t.subcells()
	return writeTallied(out, func(out trace.Sink) error { return t.records(out, perStep) }, func() *trace.Header {
		meta := amrMeta(p, "fronts")
		meta["subcells"] = strconv.Itoa(total)
		meta["pool_cells"] = strconv.Itoa(perStep)
		return k20cHeader("gen:amr", meta)
	})
}

// amrTrace writes one simulation's records.
type amrTrace struct {
	mesh                    amrMesh
	cells, steps, threshold int

	out trace.Sink
	ids dpKernels
}

// amrSite is a refining thread that launches a child: its place in the
// parent grid, its cell, and the sub-cells below it.
type amrSite struct {
	cta, warp, lane int
	cell            amrCell
	subtree         int
}

// subcells returns the most sub-cells any one step refines into (what the
// cell pool must hold) and the total over all steps.
func (t *amrTrace) subcells() (perStep, total int) {
	for s := 0; s < t.steps; s++ {
		t.mesh.step = s
		n := 0
		for j := 0; j < t.cells; j++ {
			for i := 0; i < t.cells; i++ {
				n += t.mesh.subtree(t.coarse(i, j))
			}
		}
		perStep = max(perStep, n)
		total += n
	}
	return perStep, total
}

// coarse is cell (i, j) of the coarse grid.
func (t *amrTrace) coarse(i, j int) amrCell {
	h := 1 / float64(t.cells)
	return amrCell{x: float64(i) * h, y: float64(j) * h, h: h}
}

// records writes the buffers and every step's kernels.
func (t *amrTrace) records(out trace.Sink, poolCells int) error {
	t.out, t.ids = out, dpKernels{}
	var heap deviceHeap
	err := writeAll(out,
		heap.alloc("coarse_cells", int64(t.cells*t.cells)*amrCellBytes, trace.RoleInOut),
		heap.alloc("cell_pool", int64(poolCells)*amrCellBytes, trace.RoleOutput),
		heap.alloc("pool_counter", 4, trace.RoleTemp),
	)
	for s := 0; s < t.steps && err == nil; s++ {
		t.mesh.step = s
		err = t.step()
	}
	return err
}

// step writes one time step: amr_refine over the coarse grid, in tiles of
// ratio×ratio cells, and its descendants.
func (t *amrTrace) step() error {
	r := t.mesh.ratio
	tiles := ceilDiv(t.cells, r)
	k := t.kernel([3]uint32{uint32(tiles), uint32(tiles), 1})
	if err := writeAll(t.out, k, &trace.Launch{Kernel: k.ID}); err != nil {
		return err
	}
	return t.body(k, func(cta, thread int) (amrCell, bool) {
		i := cta%tiles*r + thread%r
		j := cta/tiles*r + thread/r
		return t.coarse(i, j), i < t.cells && j < t.cells
	})
}

// kernel declares an amr_refine grid: the same function and block shape at
// every level.
func (t *amrTrace) kernel(grid [3]uint32) *trace.Kernel {
	r := uint32(t.mesh.ratio)
	k := t.ids.declare("amr_refine", grid, [3]uint32{r, r, 1}, amrRefineRegs)
	k.Smem = amrSmem(t.mesh.ratio)
	return k
}

// body writes kernel k's CTAs, whose threads own the cells cellAt gives
// (ok false for a thread past the mesh's edge), then its children.
func (t *amrTrace) body(k *trace.Kernel, cellAt func(cta, thread int) (amrCell, bool)) error {
	return writeFamily(t.out, int(k.CTAs()),
		func(c int) (*trace.CTA, []amrSite) { return t.refineCTA(k.ID, c, cellAt) },
		func(s amrSite) error { return t.child(k.ID, s) })
}

// refineCTA costs one amr_refine CTA and finds its launch sites: refining
// cells with more than site_threshold sub-cells below them.
func (t *amrTrace) refineCTA(kernel uint64, cta int, cellAt func(cta, thread int) (amrCell, bool)) (*trace.CTA, []amrSite) {
	threads := t.mesh.ratio * t.mesh.ratio
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(threads, warpSize))}
	var sites []amrSite
	for w := range rec.WarpCycles {
		longest := int64(0)
		for lane := 0; lane < warpSize && w*warpSize+lane < threads; lane++ {
			cell, ok := cellAt(cta, w*warpSize+lane)
			if !ok {
				continue
			}
			sub := t.mesh.subtree(cell)
			launch := sub > t.threshold
			if launch {
				sites = append(sites, amrSite{cta: cta, warp: w, lane: lane, cell: cell, subtree: sub})
			}
			longest = max(longest, amrLaneCycles(sub > 0, sub, launch))
		}
		if longest == 0 {
			longest = idleWarpCycles
		}
		rec.WarpCycles[w] = longest
	}
	rec.Cycles = dpWarpMax(rec.WarpCycles)
	return rec, sites
}

// child writes a launch site's amr_refine over its cell's sub-cells, one
// CTA of ratio×ratio threads, and then that kernel's own children.
func (t *amrTrace) child(parent uint64, s amrSite) error {
	k := t.kernel(dpLine(1))
	launch := &trace.Launch{
		Kernel:       k.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: amrCellCycles + amrRefineCycles},
		Workload:     int64(s.subtree),
		InlineCycles: amrInlineCycles(s.subtree),
	}
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	r := t.mesh.ratio
	return t.body(k, func(_, thread int) (amrCell, bool) {
		return s.cell.sub(thread%r, thread/r, r), true
	})
}
