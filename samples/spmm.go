package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "spmm",
		Doc:  "sparse × dense matrix multiply, a parent thread per row of A; rows with many nonzeros launch a child with a thread per column of B (SPAWN MM); variant=flat: each row thread loops over its row",
		Params: []Param{
			{Name: "size", Default: "small", Doc: "preset shape: small (SPAWN MM-small) or large (MM-large); rows, cols and nnz_per_row override it"},
			{Name: "rows", Default: "0", Doc: "rows (and columns) of the sparse matrix A; 0 takes the size preset's"},
			{Name: "cols", Default: "0", Doc: "columns of the dense matrices B and C, one child thread each; 0 takes the size preset's"},
			{Name: "nnz_per_row", Default: "0", Doc: "mean nonzeros per row of A; 0 takes the size preset's"},
			{Name: "dist", Default: "powerlaw", Doc: "row-length distribution: powerlaw (skewed, as real sparse matrices) or uniform"},
			{Name: "alpha", Default: "2.5", Doc: "power-law exponent of the row lengths, smaller is more skewed (dist=powerlaw)"},
			{Name: "block", Default: "128", Doc: "threads per spmm_row CTA, one row of A each"},
			{Name: "site_threshold", Default: "32", Doc: "a row with more nonzeros than this is a launch site"},
			variantParam,
			seedParam,
		},
		run:   runSpMM,
		mixes: spmmMixes,
		costs: spmmCosts,
	})
}

// Bounds on the shape: the row lengths are held in memory (4 bytes a row),
// and a site's inline cost, nnz·cols·spmmInlineElemCycles, must fit an
// int64 with room to spare.
const (
	maxSpMMRows = 1 << 24
	maxSpMMCols = 1 << 16
)

// spmmConfig is the spmm generator's parameters, checked, with the size
// preset resolved.
type spmmConfig struct {
	spmmShape
	dist             string
	alpha            float64
	block, threshold int
	seed             uint64
	flat             bool // variant=flat: no row launches (runSpMM)
}

func parseSpMM(p Params) (c spmmConfig, err error) {
	size, err := p.Choice("size", "small", "large")
	if err != nil {
		return c, err
	}
	c.spmmShape = spmmPresets[size]
	for _, f := range []struct {
		name string
		dst  *int
		hi   int
	}{
		{"rows", &c.rows, maxSpMMRows},
		{"cols", &c.cols, maxSpMMCols},
		{"nnz_per_row", &c.nnz, maxSpMMRows},
	} {
		v, err := p.Int(f.name, 0, f.hi)
		if err != nil {
			return c, err
		}
		if v != 0 {
			*f.dst = v
		}
	}
	if c.nnz > c.rows {
		return c, p.errorf("nnz_per_row", strconv.Itoa(c.nnz),
			"a row of the %d×%d matrix has at most %d nonzeros", c.rows, c.rows, c.rows)
	}
	if c.dist, err = p.Choice("dist", "powerlaw", "uniform"); err != nil {
		return c, err
	}
	if c.alpha, err = p.Float("alpha", 1.1, 10); err != nil {
		return c, err
	}
	if c.block, err = p.Int("block", 1, 1024); err != nil {
		return c, err
	}
	if c.threshold, err = p.Int("site_threshold", 0, 1<<30); err != nil {
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

// runSpMM draws A's row lengths and writes the trace of C = A·B: a header,
// the buffers, one host-launched spmm_row kernel with a thread per row of
// A, its CTAs, then in (cta, warp, lane) order the spmm_col child of each
// row longer than site_threshold. Only A's row lengths are drawn: in this
// cost model a row's work depends on how many nonzeros it has, not where
// they are. The kernels gather B through A's column indices, so they have
// no access records (irregular for CRCS).
//
// Launch-site times: an spmm_row thread holds one row of A and, once it
// has loaded the row's extent, launches or loops over its nonzeros, so a
// warp's launching lanes all reach their launch at spmmRowBaseCycles, one
// warp-level site (see the package doc).
//
// variant=flat is the original non-DP MM, which SPAWN's authors wrote
// (SPAWN §III-B): "In MM, each parent thread multiplies one row (or
// couples of rows) of the multiplicand matrix with an entire multiplier
// matrix. In the DP version, a parent thread launches a child kernel and
// each thread of that child kernel picks up one column". So spmm_row with
// a thread per row of A, each updating its whole C row for every nonzero:
// the DP code's `else` branch for every row, so no lane launches
// (site_threshold is ignored) and a warp waits for its longest row, all
// its lanes looping together. The arithmetic is the DP variant's (nnz·cols
// multiply-adds), costed as its looping rows are (spmmInlineElemCycles);
// a child does the same multiply-adds coalesced, at spmmColNnzCycles per
// nonzero per warp.
func runSpMM(p Params, out trace.Sink) error {
	cfg, err := parseSpMM(p)
	if err != nil {
		return err
	}
	t := &spmmTrace{
		out:  out,
		cfg:  cfg,
		rows: spmmRowLengths(newRand(cfg.seed), cfg.rows, cfg.nnz, cfg.dist, cfg.alpha),
	}
	if err := t.prologue(p); err != nil {
		return err
	}
	return t.multiply()
}

// spmmTrace writes one multiply's records, numbering kernels from 1 in the
// order they are written.
type spmmTrace struct {
	out    trace.Sink
	cfg    spmmConfig
	rows   []int32 // nonzeros of each row of A
	lastID uint64
}

// spmmSite is a row whose thread launches a child: its place in the parent
// grid and its number of nonzeros.
type spmmSite struct {
	cta, warp, lane int
	nnz             int
}

// prologue writes the header, whose meta records the parameters, the
// resolved shape and the totals of the trace, and the buffers an SpMM
// allocates: A in CSR form, B and C dense and row-major, all 4-byte words.
func (t *spmmTrace) prologue(p Params) error {
	nnz, longest, sites, ctas := 0, 0, 0, ceilDiv(t.cfg.rows, t.cfg.block)
	for _, n := range t.rows {
		nnz += int(n)
		longest = max(longest, int(n))
		if int(n) > t.cfg.threshold {
			sites++
			ctas += ceilDiv(t.cfg.cols, spmmColBlock)
		}
	}
	meta := variantMeta(p, p.Values())
	meta["rows"] = strconv.Itoa(t.cfg.rows)
	meta["cols"] = strconv.Itoa(t.cfg.cols)
	meta["nnz_per_row"] = strconv.Itoa(t.cfg.nnz)
	meta["nnz"] = strconv.Itoa(nnz)
	meta["max_row_nnz"] = strconv.Itoa(longest)
	meta["sites"] = strconv.Itoa(sites)
	meta["kernels"] = strconv.Itoa(1 + sites)
	meta["ctas"] = strconv.Itoa(ctas)
	var heap deviceHeap
	n, dense := int64(t.cfg.rows), int64(t.cfg.rows)*int64(t.cfg.cols)
	return writeAll(t.out,
		k20cHeader("gen:spmm", meta),
		heap.alloc("a_row_offsets", 4*(n+1), trace.RoleInput),
		heap.alloc("a_col_indices", 4*int64(nnz), trace.RoleInput),
		heap.alloc("a_values", 4*int64(nnz), trace.RoleInput),
		heap.alloc("b", 4*dense, trace.RoleInput),
		heap.alloc("c", 4*dense, trace.RoleOutput),
	)
}

// multiply writes the spmm_row kernel, its CTAs, then its children.
func (t *spmmTrace) multiply() error {
	block := t.cfg.block
	parent := t.kernel("spmm_row", ceilDiv(t.cfg.rows, block), block, spmmRowRegs)
	if err := writeAll(t.out, parent, &trace.Launch{Kernel: parent.ID}); err != nil {
		return err
	}
	return writeFamily(t.out, ceilDiv(t.cfg.rows, block),
		func(c int) (*trace.CTA, []spmmSite) {
			return t.rowCTA(parent.ID, c, t.rows[c*block:min((c+1)*block, t.cfg.rows)])
		},
		func(s spmmSite) error { return t.col(parent.ID, s) })
}

// rowCTA costs one spmm_row CTA whose threads hold rows of the given
// lengths (fewer than block in the last CTA) and finds its launch sites.
func (t *spmmTrace) rowCTA(kernel uint64, cta int, rows []int32) (*trace.CTA, []spmmSite) {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(t.cfg.block, warpSize))}
	var sites []spmmSite
	for w := range rec.WarpCycles {
		lanes := rows[min(w*warpSize, len(rows)):min((w+1)*warpSize, len(rows))]
		for lane, n := range lanes {
			if int(n) > t.cfg.threshold {
				sites = append(sites, spmmSite{cta: cta, warp: w, lane: lane, nnz: int(n)})
			}
		}
		rec.WarpCycles[w] = spmmRowWarpCycles(lanes, t.cfg.cols, t.cfg.threshold)
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	return rec, sites
}

// col writes a launch site's spmm_col child: one thread per column of B,
// each the dot product of the site's row with that column. The launch
// record carries the parent's loop count (the row's nonzeros) and what
// looping would cost, so a policy can inline instead (spmmColInline).
func (t *spmmTrace) col(parent uint64, s spmmSite) error {
	grid := ceilDiv(t.cfg.cols, spmmColBlock)
	child := t.kernel("spmm_col", grid, spmmColBlock, spmmColRegs)
	launch := &trace.Launch{
		Kernel:       child.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(s.cta), Warp: s.warp, Lane: s.lane, At: spmmRowBaseCycles},
		Workload:     int64(s.nnz),
		InlineCycles: spmmColInline(t.cfg.cols, s.nnz),
	}
	if err := writeAll(t.out, child, launch); err != nil {
		return err
	}
	for c := 0; c < grid; c++ {
		if err := t.out.Write(spmmColCTA(child.ID, c, t.cfg.cols, s.nnz)); err != nil {
			return err
		}
	}
	return nil
}

// spmmColInline is a site's inline_cycles for a row of nnz nonzeros: the
// lane's loop over its spmm_col child's threads, a column of cols each,
// by the lane-loop rule (laneLoopCycles).
func spmmColInline(cols, nnz int) int64 {
	return laneLoopCycles(cols, spmmColBlock, func(c int) int64 { return spmmColCTA(0, c, cols, nnz).Cycles })
}

// spmmColCTA costs CTA cta of an spmm_col child over cols columns for a row
// of nnz nonzeros.
func spmmColCTA(kernel uint64, cta, cols, nnz int) *trace.CTA {
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, spmmColBlock/warpSize)}
	for w := range rec.WarpCycles {
		active := min(max(cols-cta*spmmColBlock-w*warpSize, 0), warpSize)
		rec.WarpCycles[w] = spmmColWarpCycles(active, nnz)
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	return rec
}

// kernel declares the next kernel, with a 1-D grid and block.
func (t *spmmTrace) kernel(name string, grid, block, regs int) *trace.Kernel {
	t.lastID++
	return &trace.Kernel{
		ID:    t.lastID,
		Name:  name,
		Grid:  [3]uint32{uint32(grid), 1, 1},
		Block: [3]uint32{uint32(block), 1, 1},
		Regs:  regs,
	}
}
