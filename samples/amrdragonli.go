package samples

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// code=dragonli, the amr generator's default: the "Adaptive Mesh
// Refinement (AMR) Combustion Simulation" of the DTBL and SPAWN papers as
// its code stands in Jin Wang's (DTBL's first author) Dragon_li suite,
// github.com/gtcasl/dragon_li at 1397e03, dragon_li/amr/ and
// tests/testAmr.cu. The structure is modelled, not copied:
//
//   - Input (amrBase.h, setup): the start grid is ONE cell (activeGridSize
//     = 1) whose value, a temperature, is random in [0, maxGridValue]
//     (util/random.h: rand()/RAND_MAX·6000 in float; srand is commented
//     out, so glibc's first rand() makes it 5041.13 on every run). Here
//     each of start_cells cells is drawn the same way from the seed
//     (start_value pins it). The grid is two arrays of maxGridDataSize
//     (4M) entries: the cells' values, float, and their pointers, int
//     (-1 unprocessed, -2 processed, else the index of the first sub-cell).
//   - Refinement (amrRegDevice.h): a cell whose value is at least
//     gridRefineThreshold (100) refines into GRID_REFINE_SIZE = 32
//     sub-cells, a 4×4×2 block (GRID_REFINE_X, _Y = 4). computeEnergy
//     turns its temperature T into E = 4.6e-5·T² + 0.14816·T + 962.62;
//     sub-cell k at (x, y, z) in the block gets E' = (E − 962.62)/(x² + y²
//     + z² + 2) + 962.62 and the temperature solving E' with 0.1486 for
//     the linear coefficient (computeTemperature). Values fall with the
//     level, so the tree is finite: from 5041.13, levels 0–4 have 1, 32,
//     1,024, 24,192 and 95,840 cells, of which 1, 32, 756 and 2,995 (the
//     last level is not examined) refine. Both are computed here in
//     double, rounded to float at each of the source's float variables.
//   - Persistent CTAs (util/ctaWorkAssignment.h): the host kernels run
//     CTAS = 104 CTAs of THREADS = 256 threads (tests/testAmr.cu; 8 CTAs
//     on each of the K20c's 13 SMXs); CTA b takes cells [b·256, b·256 +
//     256), then strides by 104·256. Per chunk every thread looks at one
//     cell, the CTA sums its refining threads' 32s with prefixSumCta (a
//     barrier-per-step scan, util/primitive.h), thread 0 claims the total
//     with one atomicAdd (util/ctaOutputAssignment.h), every thread checks
//     the counter against maxGridDataSize, and each refining thread
//     computes its energy.
//   - Flat, AmrReg (amrReg.h, amrRegDevice.h; variant=flat): a host loop of
//     one amrRegRefineKernel per level, up to maxRefineLevel (4) of them,
//     each over the cells the previous one made, followed by
//     cudaDeviceSynchronize and a 4-byte copy of the counter; it stops
//     early when a level makes no cells. A refining thread writes its 32
//     sub-cells' values in a loop. The chunk loop also runs one empty pass
//     after a CTA's last chunk (the loop tests its bound before fetching
//     the next chunk), and a CTA with no chunk runs only that.
//   - CDP, AmrCdp (amrCdp.h, amrCdpDevice.h, amrCdpThread.h; variant=dp):
//     one host amrCdpRefineKernel over the start grid (CTAs without a
//     chunk exit at once), in which a refining thread, after its energy,
//     creates a stream and launches amrCdpThreadRefineKernel with
//     ceil(32/CDP_THREADS) = 1 CTA of CDP_THREADS = 32 threads over its
//     sub-cells. A child thread computes and stores its own cell's value,
//     then runs the same look, scan (over 32), claim, check and energy,
//     and launches its own child the same way, while the child's level
//     is below maxRefineLevel. So levels 1–3 are child kernels, one per
//     refining cell of levels 0–2; a refining cell of level 3 claims its
//     32 cells but no kernel computes them (AmrReg's last kernel does).
//     No launch threshold applies (CDP_THRESHOLD is unused by amr).
//   - Check (testAmr.cu -e): the cell count against AmrCpu's list, which
//     refines with no level bound (amrCpu.h:33-63), so at the default 4
//     levels the GPU's 121,089 cells meet 228,385 and the program prints
//     "Incorrect!" though both codes computed what they ask. GPGPU-Sim's
//     runs with the reference bounded (validation/gpgpusim/whatif,
//     dragonli-amr-cdp and -reg) verify; TestAMRLevelsCapture holds this
//     generator's tree to the CDP one, and TestAMRFitsCapture its
//     measured costs (amrdlcost.go) to both.
//
// Order: AmrReg places a level's sub-cells in the order its CTAs' atomics
// arrive, which the hardware decides; we take the cells' own order (a
// CTA's chunks in turn, CTAs in index order), the order AmrCpu's list
// builds. Not modelled: the setup's two memset kernels (one value; 4M
// pointers), identical in both codes and before refine(), which
// testAmr.cu does not time apart.
//
// How code=fronts (the model before this source was found) differs: a
// 32×32 coarse grid over flame fronts and three time steps instead of one
// random cell; refinement by the heat-release rate's variation, ratio 4
// (16 sub-cells), depth 3; one CTA per 4×4 tile; children of the host
// kernel's own function and shape (so DTBL groups join the host kernel,
// where here they can join only other children), launched only above a
// 16-sub-cell subtree; and a flat code whose thread refines its coarse
// cell's whole subtree in a loop, where AmrReg's refines one level, 32
// sub-cells, per kernel.
//
// Launch-site times: a host thread's launch comes at the end of its
// chunk's pass: the pass's start (every warp waiting at the scan's first
// barrier for the CTA's slowest warp, whose earlier passes' tails
// differ), the scan, claim and barrier, the overflow check and the
// energy. All of a warp's refining lanes launch there together (one
// warp-level site, as in the package doc), later passes' sites later. A
// child's single warp launches after its own value, look, scan, claim,
// check and energy. A site's workload is the cells its child's tree
// computes, and its inline_cycles what its lane would spend computing
// them itself as AmrReg's loop does, recursively, claiming and computing
// energy for each refining cell (amrDLGrid.work).

// Dragon_li's fixed settings (tests/testAmr.cu, amr/settings.h).
const (
	amrDLRefine       = 32 // GRID_REFINE_SIZE: sub-cells of a refining cell
	amrDLRefineX      = 4  // GRID_REFINE_X
	amrDLRefineY      = 4  // GRID_REFINE_Y; z = 32/(4·4) = 2
	amrDLChildThreads = 32 // CDP_THREADS = 1 << CDP_THREADS_BITS (5)
)

// maxAMRDLCells bounds max_cells: the grid's values are held in memory.
const maxAMRDLCells = 1 << 24

// amrDLConfig is code=dragonli's parameters, checked.
type amrDLConfig struct {
	startCells, maxLevel, maxCells, ctas, threads int
	start, maxValue, threshold                    float32
	random                                        bool // start_value=random
	seed                                          uint64
	flat                                          bool
}

func parseAMRDragonLi(p Params) (c amrDLConfig, err error) {
	ints := []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"start_cells", &c.startCells, 1, maxAMRDLCells},
		{"max_level", &c.maxLevel, 1, 16},
		{"max_cells", &c.maxCells, 1, maxAMRDLCells},
		{"ctas", &c.ctas, 1, 1 << 16},
		{"threads", &c.threads, warpSize, 1024},
	}
	for _, f := range ints {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if c.threads%warpSize != 0 {
		return c, p.errorf("threads", strconv.Itoa(c.threads), "want a multiple of %d", warpSize)
	}
	if c.startCells > c.maxCells {
		return c, p.errorf("start_cells", strconv.Itoa(c.startCells), "more than max_cells=%d", c.maxCells)
	}
	var v float64
	if v, err = p.Float("max_value", 0, 1e9); err != nil {
		return c, err
	}
	c.maxValue = float32(v)
	if v, err = p.Float("refine_threshold", 0, 1e9); err != nil {
		return c, err
	}
	c.threshold = float32(v)
	c.random = p.vals["start_value"] == "random"
	if !c.random {
		if v, err = p.Float("start_value", 0, float64(c.maxValue)); err != nil {
			return c, err
		}
		c.start = float32(v)
	}
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// startValues are the start grid's values: drawn as util/random.h draws
// them (a uniform fraction times max_value, in float), or start_value.
func (c amrDLConfig) startValues() []float32 {
	vs := make([]float32, c.startCells)
	rng := newRand(c.seed)
	for i := range vs {
		vs[i] = c.start
		if c.random {
			vs[i] = float32(rng.Float64()) * c.maxValue
		}
	}
	return vs
}

// amrDLEnergy is computeEnergy: the cell's energy from its temperature.
// The products are converted explicitly so no platform fuses them into
// one rounding.
func amrDLEnergy(t float32) float32 {
	x := float64(t)
	return float32(float64(4.6*x*x)/100000.0 + float64(0.14816*x) + 962.62)
}

// amrDLTemperature is computeTemperature: sub-cell k's temperature from
// its parent's energy, falling with k's distance from the block's corner.
func amrDLTemperature(energy float32, k int) float32 {
	z := k / (amrDLRefineX * amrDLRefineY)
	y := k % (amrDLRefineX * amrDLRefineY) / amrDLRefineX
	x := k % amrDLRefineX
	d2 := float64(x*x + y*y + z*z)
	refined := float32((float64(energy)-962.62)/(d2+2.0) + 962.62)
	const b float64 = 0.1486 // typed: b*b rounds as the source's double product
	disc := float64(b*b) - float64(4*4.6*(962.62-float64(refined)))/100000
	return float32((-b + math.Sqrt(disc)) / 2 / 4.6 * 100000)
}

// amrDLGrid is the refined grid, level by level in allocation order.
type amrDLGrid struct {
	values [][]float32 // values[l]: the cells of level l < max_level
	// first[l][i] is the index in level l+1 of cell i's first sub-cell,
	// -1 if it does not refine.
	first [][]int32
	cells []int // cells of levels 0..max_level (the last only allocated)
	// work[l][i] is what cell i's child kernel does, where it launches one.
	work [][]amrDLWork
}

// amrDLWork is a child kernel's tree as one lane's loop: the cells it
// computes and the cycles they take.
type amrDLWork struct {
	cells, cycles int64
}

// refines reports whether cell i of level l refines.
func (g *amrDLGrid) refines(l, i int) bool {
	return g.first[l][i] >= 0
}

// buildAMRDLGrid refines the start grid as the source does, level by
// level. ok is false where the grid outgrows maxCells (the source's
// overflow; total is then the cells it had claimed when it stopped).
func buildAMRDLGrid(start []float32, threshold float32, maxLevel, maxCells int) (g *amrDLGrid, total int, ok bool) {
	g = &amrDLGrid{cells: []int{len(start)}}
	total = len(start)
	cur := start
	for l := 0; l < maxLevel; l++ {
		first := make([]int32, len(cur))
		var next []float32
		n := 0
		for i, v := range cur {
			first[i] = -1
			if v < threshold {
				continue
			}
			if total += amrDLRefine; total > maxCells {
				return nil, total, false
			}
			first[i] = int32(n)
			n += amrDLRefine
			if l+1 < maxLevel {
				e := amrDLEnergy(v)
				for k := range amrDLRefine {
					next = append(next, amrDLTemperature(e, k))
				}
			}
		}
		g.values = append(g.values, cur)
		g.first = append(g.first, first)
		g.cells = append(g.cells, n)
		cur = next
	}
	g.childWork()
	return g, total, true
}

// childWork fills g.work bottom up: a child kernel over a refining cell's
// 32 sub-cells computes each one's value, and for each that refines
// claims its cells, computes its energy and, above the last level, runs
// its child's tree.
func (g *amrDLGrid) childWork() {
	levels := len(g.values)
	g.work = make([][]amrDLWork, levels)
	for l := levels - 2; l >= 0; l-- {
		g.work[l] = make([]amrDLWork, len(g.values[l]))
		for i := range g.values[l] {
			if !g.refines(l, i) {
				continue
			}
			w := amrDLWork{cells: amrDLRefine, cycles: amrDLRefine * amrDLTempCycles}
			for j := int(g.first[l][i]); j < int(g.first[l][i])+amrDLRefine; j++ {
				if !g.refines(l+1, j) {
					continue
				}
				w.cycles += amrDLClaimCycles + amrDLEnergyCycles
				if l+2 < levels {
					w.cells += g.work[l+1][j].cells
					w.cycles += g.work[l+1][j].cycles
				}
			}
			g.work[l][i] = w
		}
	}
}

// runAMRDragonLi builds the grid and writes code=dragonli's trace: the
// grid's buffers, then AmrReg's kernels (variant=flat) or AmrCdp's host
// kernel and, depth first after its CTAs, its children.
func runAMRDragonLi(p Params, out trace.Sink) error {
	cfg, err := parseAMRDragonLi(p)
	if err != nil {
		return err
	}
	start := cfg.startValues()
	g, total, ok := buildAMRDLGrid(start, cfg.threshold, cfg.maxLevel, cfg.maxCells)
	if !ok {
		return p.errorf("max_cells", strconv.Itoa(cfg.maxCells),
			"the grid refines past it (%d cells claimed when it overflowed; the source stops with \"Grid Data Size overflow\")", total)
	}
	t := &amrDLTrace{cfg: cfg, g: g}
	return writeTallied(out, t.records, func() *trace.Header {
		meta := amrMeta(p, "dragonli")
		meta["level_cells"] = amrDLJoin(g.cells)
		refining := make([]int, len(g.values))
		for l := range g.values {
			for i := range g.values[l] {
				if g.refines(l, i) {
					refining[l]++
				}
			}
		}
		meta["refining"] = amrDLJoin(refining)
		meta["grid_cells"] = strconv.Itoa(total)
		meta["first_start_value"] = strconv.FormatFloat(float64(start[0]), 'g', -1, 32)
		return k20cHeader("gen:amr", meta)
	})
}

// amrDLJoin writes counts as a comma-separated list.
func amrDLJoin(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// amrDLTrace writes one code=dragonli run's records.
type amrDLTrace struct {
	cfg     amrDLConfig
	g       *amrDLGrid
	out     trace.Sink
	ids     dpKernels
	counter uint64 // the output counter's buffer, copied back after each host kernel
}

// records writes the buffers and the kernels.
func (t *amrDLTrace) records(out trace.Sink) error {
	t.out, t.ids = out, dpKernels{}
	var heap deviceHeap
	cells := int64(t.cfg.maxCells)
	data := heap.alloc("grid_data", cells*4, trace.RoleOutput)
	pointers := heap.alloc("grid_pointer", cells*4, trace.RoleOutput)
	counter := heap.alloc("output_offset", 4, trace.RoleTemp)
	err := writeAll(out, data, pointers, counter)
	if err != nil {
		return err
	}
	t.counter = counter.ID
	if t.cfg.flat {
		return t.reg()
	}
	return t.cdp()
}

// hostKernel declares and launches one persistent host kernel.
func (t *amrDLTrace) hostKernel(name string) (*trace.Kernel, error) {
	k := t.ids.declare(name, dpLine(t.cfg.ctas), dpLine(t.cfg.threads), amrDLRegs)
	k.Smem = amrDLSmem(t.cfg.threads)
	return k, writeAll(t.out, k, &trace.Launch{Kernel: k.ID})
}

// copyCounter is the host's read of the output counter after a kernel
// (ctaOutputAssignment.getGlobalSize, a 4-byte cudaMemcpy).
func (t *amrDLTrace) copyCounter() error {
	return t.out.Write(&trace.Memcpy{Dir: trace.DirD2H, Buffer: t.counter, Bytes: 4})
}

// reg writes AmrReg::refine: one amr_reg_refine per level while levels
// remain and the last one made cells.
func (t *amrDLTrace) reg() error {
	for l := 0; l < t.cfg.maxLevel && t.g.cells[l] > 0; l++ {
		k, err := t.hostKernel("amr_reg_refine")
		if err != nil {
			return err
		}
		for b := 0; b < t.cfg.ctas; b++ {
			rec, _ := t.persistentCTA(k.ID, b, l)
			if err := t.out.Write(rec); err != nil {
				return err
			}
		}
		if err := t.copyCounter(); err != nil {
			return err
		}
	}
	return nil
}

// cdp writes AmrCdp::refine: amr_cdp_refine over the start grid, its
// children depth first after its CTAs, and the counter's copy.
func (t *amrDLTrace) cdp() error {
	k, err := t.hostKernel("amr_cdp_refine")
	if err != nil {
		return err
	}
	err = writeFamily(t.out, t.cfg.ctas,
		func(b int) (*trace.CTA, []amrDLSite) { return t.persistentCTA(k.ID, b, 0) },
		func(s amrDLSite) error { return t.child(k.ID, s) })
	if err != nil {
		return err
	}
	return t.copyCounter()
}

// amrDLSite is a refining lane that launches a child over its cell's
// sub-cells: its place in the parent, the cycle it launches at, and its
// cell (cell of level).
type amrDLSite struct {
	cta, warp, lane int
	at              int64
	level, cell     int
}

// persistentCTA costs CTA b of a host kernel over level l's cells, pass
// by pass (amrDLCTA.pass), and returns its launch sites (none in AmrReg).
func (t *amrDLTrace) persistentCTA(kernel uint64, b, l int) (*trace.CTA, []amrDLSite) {
	c := &amrDLCTA{ends: make([]int64, t.cfg.threads/warpSize), threads: t.cfg.threads}
	n, chunk := t.g.cells[l], t.cfg.threads
	var sites []amrDLSite
	off := b * chunk
	for ; off < n; off += t.cfg.ctas * chunk {
		sites = append(sites, t.pass(c, l, off, min(off+chunk, n), 0)...)
	}
	switch {
	case t.cfg.flat:
		t.pass(c, l, n, n, 0) // AmrReg's empty pass at the end
	case off == b*chunk: // AmrCdp skips a CTA without a chunk
		for w := range c.ends {
			c.ends[w] = idleWarpCycles
		}
	}
	for i := range sites {
		sites[i].cta = b
	}
	return c.record(kernel, b), sites
}

// child writes site s's amr_cdp_thread_refine over its cell's sub-cells
// (one CTA, one warp) and then, depth first, that kernel's own children.
func (t *amrDLTrace) child(parent uint64, s amrDLSite) error {
	k := t.ids.declare("amr_cdp_thread_refine", dpLine(1), dpLine(amrDLChildThreads), amrDLRegs)
	k.Smem = amrDLSmem(amrDLChildThreads)
	w := t.g.work[s.level][s.cell]
	launch := &trace.Launch{
		Kernel:       k.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: s.at},
		Workload:     w.cells,
		InlineCycles: w.cycles,
	}
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	c := &amrDLCTA{ends: make([]int64, 1), threads: amrDLChildThreads}
	lo := int(t.g.first[s.level][s.cell])
	sites := t.pass(c, s.level+1, lo, lo+amrDLRefine, amrDLTempCycles)
	if err := t.out.Write(c.record(k.ID, 0)); err != nil {
		return err
	}
	for _, sub := range sites {
		if err := t.child(k.ID, sub); err != nil {
			return err
		}
	}
	return nil
}

// amrDLCTA is one CTA's warps as its passes advance them: ends[w] is
// where warp w has got to.
type amrDLCTA struct {
	ends    []int64
	threads int
}

// pass runs one pass of c over level l's cells [lo, hi), a thread a cell
// from c's first thread (lo == hi: AmrReg's empty pass): each warp with a
// cell spends before (a child's own value) and its look, then waits at
// the scan's first barrier for the CTA's slowest warp; the scan, the
// claim (if a cell refines) and the barrier after it; then each warp's
// overflow check and, if a lane refines, the energy and either AmrReg's
// loop over 32 sub-cells or, in AmrCdp above the last level, the launch.
// It returns the launch sites, one per refining lane.
func (t *amrDLTrace) pass(c *amrDLCTA, l, lo, hi int, before int64) []amrDLSite {
	warps := len(c.ends)
	refines := make([]bool, warps)
	claims := false
	start := int64(0)
	for w := range warps {
		pre := int64(0)
		for i := lo + w*warpSize; i < min(lo+(w+1)*warpSize, hi); i++ {
			pre = before + amrDLLoadCycles
			if t.g.refines(l, i) {
				refines[w], claims = true, true
			}
		}
		start = max(start, c.ends[w]+pre)
	}
	released := start + amrDLScanCycles(c.threads) + amrDLBarrierCycles
	if claims {
		released += amrDLClaimCycles
	}
	launches := !t.cfg.flat && l+1 < t.cfg.maxLevel
	var sites []amrDLSite
	for w := range warps {
		c.ends[w] = released + amrDLOverflowCycles
		if !refines[w] {
			continue
		}
		c.ends[w] += amrDLEnergyCycles
		if t.cfg.flat {
			c.ends[w] += amrDLRefine * amrDLTempCycles
		}
		for i := lo + w*warpSize; launches && i < min(lo+(w+1)*warpSize, hi); i++ {
			if t.g.refines(l, i) {
				sites = append(sites, amrDLSite{warp: w, lane: i - lo - w*warpSize, at: c.ends[w], level: l, cell: i})
			}
		}
	}
	return sites
}

// record is c's cta record.
func (c *amrDLCTA) record(kernel uint64, cta int) *trace.CTA {
	return &trace.CTA{Kernel: kernel, CTA: uint64(cta), Cycles: dpWarpMax(c.ends), WarpCycles: c.ends}
}
