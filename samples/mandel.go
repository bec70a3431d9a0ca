package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "mandel",
		Doc:  "Mandelbrot set by Mariani-Silver subdivision: a thread per tile; tiles whose border dwells differ launch a child over their interior (SPAWN Mandel); variant=flat: escape time, a thread per pixel",
		Params: []Param{
			{Name: "width", Default: "1024", Doc: "image width in pixels"},
			{Name: "height", Default: "1024", Doc: "image height in pixels"},
			{Name: "max_iter", Default: "256", Doc: "escape-time iteration limit: the dwell of a pixel in the set"},
			{Name: "region", Default: "full", Doc: "view of the plane: full (the whole set), seahorse or elephant (boundary zooms)"},
			{Name: "tile", Default: "16", Doc: "side in pixels of the tiles of the host-launched mandel_tile kernel, one thread each"},
			{Name: "depth", Default: "1", Doc: "launch nesting: the last level's children evaluate pixels, earlier ones subdivide into sub-tiles"},
			{Name: "subdiv", Default: "4", Doc: "a subdividing child splits its tile's interior into subdiv×subdiv sub-tiles, one thread each"},
			{Name: "block", Default: "64", Doc: "threads per mandel_tile CTA"},
			{Name: "site_threshold", Default: "64", Doc: "a non-uniform tile whose interior has more pixels than this is a launch site"},
			variantParam,
			{Name: "seed", Default: "1", Doc: "random seed: picks the sub-pixel offset of the sampling grid; the same seed gives the same trace"},
		},
		run:   runMandel,
		mixes: mandelMixes,
		costs: mandelCosts,
	})
}

// maxMandelPixels bounds width·height: the frame's dwells are held in
// memory, 4 bytes a pixel.
const maxMandelPixels = 1 << 24

// mandelConfig is the mandel generator's parameters, checked.
type mandelConfig struct {
	width, height, maxIter, tile, depth, subdiv, block, threshold int
	region                                                        mandelRegion
	seed                                                          uint64
	flat                                                          bool // variant=flat: escape time per pixel (runMandel)
}

func parseMandel(p Params) (c mandelConfig, err error) {
	for _, f := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"width", &c.width, 1, maxMandelPixels},
		{"height", &c.height, 1, maxMandelPixels},
		{"max_iter", &c.maxIter, 1, 1 << 20},
		{"tile", &c.tile, 3, 1 << 14},
		{"depth", &c.depth, 1, 8},
		{"subdiv", &c.subdiv, 2, 32},
		{"block", &c.block, 1, 1024},
		{"site_threshold", &c.threshold, 0, 1 << 30},
	} {
		if *f.dst, err = p.Int(f.name, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if c.width*c.height > maxMandelPixels {
		return c, p.errorf("height", strconv.Itoa(c.height),
			"width·height must be at most 2^24 pixels; with width=%d, want at most %d", c.width, maxMandelPixels/c.width)
	}
	region, err := p.Choice("region", "full", "seahorse", "elephant")
	if err != nil {
		return c, err
	}
	c.region = mandelRegions[region]
	if c.flat, err = flatVariant(p); err != nil {
		return c, err
	}
	c.seed, err = p.Uint64("seed")
	return c, err
}

// runMandel renders the frame by Mariani-Silver and writes its trace: a
// header, the dwell buffer, the host-launched mandel_tile kernel with one
// thread per tile, its CTAs, then each launch site's child family depth
// first, in (cta, warp, lane) order: a child's CTAs, then its own
// children. The whole recursion is resolved first, since a site's inline
// cost is the cost of its whole subtree. Like the other DP generators',
// the kernels have no access records: CRCS treats them as irregular.
//
// Launch-site times: a tile thread walks its tile's border, the warp
// waiting for its longest walk, then branches on the result; the launching
// lanes' branch runs first, so all of a warp's sites are at the end of the
// border walk (mandelTileWarpCycles's at), one warp-level site (see the
// package doc).
//
// variant=flat is the non-DP code the DP Mandelbrot is measured against:
// the escape-time algorithm of Adinetz's "Adaptive Parallel Computation
// with CUDA Dynamic Parallelism" (NVIDIA Parallel Forall blog, 2014; its
// code, github.com/canonizer/mandelbrot-dyn, mandelbrot/mandelbrot.cu),
// whose mandelbrot_k has one thread per pixel, each running the dwell loop
// of its own pixel, launched as `dim3 bs(64, 4), grid(divup(w, bs.x),
// divup(h, bs.y))`. It evaluates every pixel, where Mariani-Silver
// evaluates only tile borders and non-uniform interiors and fills the
// rest: the work differs by design, that saving being the point of the DP
// algorithm (the header's evaluated_pixels says how much). The per-pixel
// cost is the mandel_pixels child's (mandelPixelsWarpCycles); tile, depth,
// subdiv, block and site_threshold are ignored.
func runMandel(p Params, out trace.Sink) error {
	cfg, err := parseMandel(p)
	if err != nil {
		return err
	}
	rng := newRand(cfg.seed)
	img := newMandelImage(cfg.width, cfg.height, cfg.maxIter, cfg.region, rng.Float64(), rng.Float64())
	t := &mandelTrace{out: out, cfg: cfg, img: img}
	if cfg.flat {
		return t.escapeTime(p)
	}
	s := &mandelSolver{img: img, depth: cfg.depth, subdiv: cfg.subdiv, threshold: cfg.threshold}
	tiles := s.tiles(cfg.tile)
	if err := t.prologue(p, tiles); err != nil {
		return err
	}
	k := t.kernel("mandel_tile", [3]uint32{uint32(ceilDiv(len(tiles), cfg.block)), 1, 1},
		[3]uint32{uint32(cfg.block), 1, 1}, mandelTileRegs)
	return t.tileKernel(k, &trace.Launch{Kernel: k.ID}, tiles)
}

// mandelTrace writes one frame's records, numbering kernels from 1 in the
// order they are written.
type mandelTrace struct {
	out    trace.Sink
	cfg    mandelConfig
	img    *mandelImage // the rendered frame: the dwells the children's CTAs are costed from
	lastID uint64
}

// mandelSite is a lane that launches its tile's nested work.
type mandelSite struct {
	at   trace.Parent
	tile *mandelTile
}

// prologue writes the header, whose meta records the parameters and what
// the recursion came to, and the one buffer the kernels share: the frame's
// dwells, 4 bytes a pixel, read back by the host.
func (t *mandelTrace) prologue(p Params, tiles []*mandelTile) error {
	var c mandelCount
	c.kernels, c.ctas = 1, ceilDiv(len(tiles), t.cfg.block)
	for _, tl := range tiles {
		c.add(tl)
	}
	meta := variantMeta(p, p.Values())
	meta["tiles"] = strconv.Itoa(len(tiles))
	meta["uniform_tiles"] = strconv.Itoa(c.uniform)
	return t.header(meta, c)
}

// header writes the header, with the totals c in its meta, and the one
// buffer the kernels share: the frame's dwells, 4 bytes a pixel, read
// back by the host.
func (t *mandelTrace) header(meta map[string]string, c mandelCount) error {
	meta["evaluated_pixels"] = strconv.Itoa(c.evaluated)
	meta["sites"] = strconv.Itoa(c.sites)
	meta["kernels"] = strconv.Itoa(c.kernels)
	meta["ctas"] = strconv.Itoa(c.ctas)
	var heap deviceHeap
	return writeAll(t.out,
		k20cHeader("gen:mandel", meta),
		heap.alloc("dwells", 4*int64(t.cfg.width)*int64(t.cfg.height), trace.RoleOutput),
	)
}

// escapeTime writes variant=flat's trace: the header, the dwell buffer,
// and one host-launched mandelbrot_k of mandelFlatBlockX×mandelFlatBlockY
// CTAs over the whole frame, a thread per pixel (runMandel).
func (t *mandelTrace) escapeTime(p Params) error {
	frame := mandelRect{w: t.cfg.width, h: t.cfg.height}
	k := t.kernel("mandelbrot_k",
		[3]uint32{uint32(ceilDiv(frame.w, mandelFlatBlockX)), uint32(ceilDiv(frame.h, mandelFlatBlockY)), 1},
		[3]uint32{mandelFlatBlockX, mandelFlatBlockY, 1}, mandelPixelsRegs)
	c := mandelCount{kernels: 1, ctas: int(k.CTAs()), evaluated: frame.pixels()}
	if err := t.header(variantMeta(p, p.Values()), c); err != nil {
		return err
	}
	if err := writeAll(t.out, k, &trace.Launch{Kernel: k.ID}); err != nil {
		return err
	}
	for cta := 0; cta < c.ctas; cta++ {
		rec := mandelPixelsCTA(k.ID, cta, int(k.Grid[0]), mandelFlatBlockX, mandelFlatBlockY, frame, t.img)
		if err := t.out.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

// mandelCount totals what the trace of a tile tree holds.
type mandelCount struct {
	kernels, ctas, sites int
	uniform, evaluated   int // uniform tiles, and pixels evaluated anywhere
}

// add counts tile tl and its subtree, which launches when tl is a site.
func (c *mandelCount) add(tl *mandelTile) {
	if tl == nil {
		return
	}
	c.evaluated += tl.border.pixels + tl.pixels.pixels
	if tl.uniform {
		c.uniform++
	}
	if tl.site {
		c.sites++
		c.kernels++
		if tl.subs != nil {
			c.ctas++
		} else {
			c.ctas += mandelPixelsGrid(tl.rect.interior())
		}
	}
	for _, st := range tl.subs {
		c.add(st)
	}
}

// tileKernel writes a kernel whose threads each resolve one tile (nil for
// an idle thread), with its launch, its CTAs, then its sites' children.
func (t *mandelTrace) tileKernel(k *trace.Kernel, launch *trace.Launch, lanes []*mandelTile) error {
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	threads := k.Threads()
	var sites []mandelSite
	for c := 0; c < int(k.CTAs()); c++ {
		rec := &trace.CTA{Kernel: k.ID, CTA: uint64(c), WarpCycles: make([]int64, ceilDiv(threads, warpSize))}
		for w := range rec.WarpCycles {
			first := c*threads + w*warpSize
			end := first + min(warpSize, threads-w*warpSize)
			warp := lanes[min(first, len(lanes)):min(end, len(lanes))]
			cycles, at := mandelTileWarpCycles(warp)
			for lane, tl := range warp {
				if tl != nil && tl.site {
					sites = append(sites, mandelSite{trace.Parent{Kernel: k.ID, CTA: uint64(c), Warp: w, Lane: lane, At: at}, tl})
				}
			}
			rec.WarpCycles[w] = cycles
			rec.Cycles = max(rec.Cycles, cycles)
		}
		if err := t.out.Write(rec); err != nil {
			return err
		}
	}
	for _, s := range sites {
		if err := t.child(s); err != nil {
			return err
		}
	}
	return nil
}

// child writes a site's child: a mandel_subtile kernel of one CTA, a
// thread per sub-tile, when the tile subdivides, or a mandel_pixels kernel
// over the interior's pixels at the last level. The launch record carries
// the interior's pixel count and what the tile's own thread would spend
// doing the nested work, so a policy can inline instead.
func (t *mandelTrace) child(s mandelSite) error {
	launch := &trace.Launch{Parent: &s.at, Workload: int64(s.tile.nested()), InlineCycles: s.tile.inline}
	if s.tile.subs != nil {
		n := uint32(t.cfg.subdiv)
		k := t.kernel("mandel_subtile", [3]uint32{1, 1, 1}, [3]uint32{n, n, 1}, mandelTileRegs)
		launch.Kernel = k.ID
		return t.tileKernel(k, launch, s.tile.subs)
	}
	in := s.tile.rect.interior()
	k := t.kernel("mandel_pixels",
		[3]uint32{uint32(ceilDiv(in.w, mandelPixelsBlock)), uint32(ceilDiv(in.h, mandelPixelsBlock)), 1},
		[3]uint32{mandelPixelsBlock, mandelPixelsBlock, 1}, mandelPixelsRegs)
	launch.Kernel = k.ID
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	for c := 0; c < int(k.CTAs()); c++ {
		if err := t.out.Write(mandelPixelsCTA(k.ID, c, int(k.Grid[0]), mandelPixelsBlock, mandelPixelsBlock, in, t.img)); err != nil {
			return err
		}
	}
	return nil
}

// mandelPixelsGrid is the number of CTAs of a mandel_pixels child over in.
func mandelPixelsGrid(in mandelRect) int {
	return ceilDiv(in.w, mandelPixelsBlock) * ceilDiv(in.h, mandelPixelsBlock)
}

// mandelPixelsCTA costs CTA cta of a kernel with a thread per pixel of the
// rectangle in (a mandel_pixels child, or variant=flat's mandelbrot_k), in
// bw×bh blocks on a grid gridX CTAs wide. Thread (tx, ty) of CTA (bx, by)
// evaluates pixel (in.x + bw·bx + tx, in.y + bh·by + ty); a warp is 32
// consecutive threads, x fastest (two rows of 16 in a mandel_pixels CTA,
// half a row of 64 in mandelbrot_k's), and waits for its slowest pixel.
// Threads past in's edge idle.
func mandelPixelsCTA(kernel uint64, cta, gridX, bw, bh int, in mandelRect, img *mandelImage) *trace.CTA {
	threads := bw * bh
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(cta), WarpCycles: make([]int64, ceilDiv(threads, warpSize))}
	x0, y0 := in.x+cta%gridX*bw, in.y+cta/gridX*bh
	for w := range rec.WarpCycles {
		active, longest := 0, 0
		for tid := w * warpSize; tid < min((w+1)*warpSize, threads); tid++ {
			x, y := x0+tid%bw, y0+tid/bw
			if x < in.x+in.w && y < in.y+in.h {
				active++
				longest = max(longest, img.evaluate(x, y))
			}
		}
		rec.WarpCycles[w] = mandelPixelsWarpCycles(active, longest)
		rec.Cycles = max(rec.Cycles, rec.WarpCycles[w])
	}
	return rec
}

// kernel declares the next kernel.
func (t *mandelTrace) kernel(name string, grid, block [3]uint32, regs int) *trace.Kernel {
	t.lastID++
	return &trace.Kernel{ID: t.lastID, Name: name, Grid: grid, Block: block, Regs: regs}
}
