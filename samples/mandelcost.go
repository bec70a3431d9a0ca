package samples

// The mandel cost model, in K20c core cycles (the trace's clock_mhz, 706),
// modelled rather than measured. Mandelbrot is compute bound: what matters
// is the escape-time loop, charged per iteration from the real dwells, and
// the few memory operations around it.
var (
	// mandelIterCycles is one iteration of z ← z² + c in fp32: zr², zi²
	// (independent), then 2·zr·zi + ci and zr² − zi² + cr, a chain of three
	// dependent FMUL/FFMA at GK110's ~9-cycle latency, plus the |z|² test
	// and branch.
	mandelIterCycles int64 = 30

	// mandelPixelCycles is a pixel's cost outside its loop: turn (x, y)
	// into c (two int-to-float conversions and two FFMA), set up the loop,
	// and store the dwell (a store is not waited for).
	mandelPixelCycles int64 = 40

	// mandelTileBaseCycles is what a tile's thread spends before its
	// border: compute the tile's rectangle from its index (a few integer
	// multiplies and mins) and set up the border walk. A launching lane
	// reaches its site after the border, so this is part of its at.
	mandelTileBaseCycles int64 = 60

	// mandelFillPixelCycles is one pixel of a uniform tile's fill: the
	// lane writes the interior row by row with 16-byte vector stores, four
	// dwells per store issued every ~8 cycles, never waited for. This is
	// what makes the fill cheap next to evaluating the pixels.
	mandelFillPixelCycles int64 = 2

	// mandelPixelIndexCycles is what a mandel_pixels child thread adds
	// to mandelPixelCycles outside its loop: its pixel from blockIdx and
	// threadIdx (mandelPixelThreadCycles).
	mandelPixelIndexCycles int64 = 20

	// mandelIdleWarpCycles is a warp with nothing to do (past the last
	// tile, an empty sub-tile, or past a child's pixels): compute its index,
	// compare, exit.
	mandelIdleWarpCycles int64 = 20
)

// mandelPixelsBlock is the mandel_pixels child's CTA shape, 16×16 threads
// over a 16×16 patch of pixels: the 2-D blocks image kernels use, and the
// 256 threads of the CUDA DP Mandelbrot's per-pixel kernel.
const mandelPixelsBlock = 16

// mandelFlatBlockX and mandelFlatBlockY are the CTA shape of variant=flat's
// escape-time mandelbrot_k, 64×4 threads, a pixel each: the `dim3 bs(64,
// 4)` of Adinetz's per-pixel code (runMandel).
const (
	mandelFlatBlockX = 64
	mandelFlatBlockY = 4
)

// Register counts, typical of what nvcc gives these loops; they matter
// only through occupancy, and none limits it here.
const (
	mandelTileRegs   = 32
	mandelPixelsRegs = 24
)

// mandelBorderCycles is what a tile's thread spends evaluating its border.
func mandelBorderCycles(t *mandelTile) int64 {
	return mandelTileBaseCycles + mandelEvalCycles(t.border)
}

// mandelEvalCycles is the cost of evaluating pixels one after another.
func mandelEvalCycles(w mandelWork) int64 {
	return int64(w.pixels)*mandelPixelCycles + w.iters*mandelIterCycles
}

// mandelFillCycles is the cost of filling a uniform tile's interior.
func mandelFillCycles(t *mandelTile) int64 {
	return int64(t.rect.interior().pixels()) * mandelFillPixelCycles
}

// mandelSerialCycles is the whole cost of resolving tile t in one thread,
// nested work included: its part of a parent's inline cost.
func mandelSerialCycles(t *mandelTile) int64 {
	if t.uniform {
		return mandelBorderCycles(t) + mandelFillCycles(t)
	}
	return mandelBorderCycles(t) + t.inline
}

// mandelTileWarpCycles is the time of a warp of tile threads (nil lanes are
// idle), excluding launch-site work, and the cycle its launching lanes
// reach their site. The lanes walk their borders in step and the warp
// waits for the longest; then the branches diverge and run one after
// another: the launching lanes first (the site is at the end of the border
// walk), then the uniform lanes fill, then the non-uniform lanes at or
// below the threshold evaluate their nested work inline, the warp waiting
// for its longest lane in each branch.
func mandelTileWarpCycles(lanes []*mandelTile) (cycles, at int64) {
	var border, fill, inline int64
	for _, t := range lanes {
		if t == nil {
			continue
		}
		border = max(border, mandelBorderCycles(t))
		switch {
		case t.uniform:
			fill = max(fill, mandelFillCycles(t))
		case !t.site:
			inline = max(inline, t.inline)
		}
	}
	if border == 0 {
		return mandelIdleWarpCycles, 0
	}
	return border + fill + inline, border
}

// mandelPixelsWarpCycles is the time of a mandel_pixels warp whose active
// lanes evaluate pixels with the given longest dwell: SIMT, so the warp
// iterates until its slowest pixel escapes.
func mandelPixelsWarpCycles(active, longestDwell int) int64 {
	if active == 0 {
		return mandelIdleWarpCycles
	}
	return mandelPixelThreadCycles() + int64(longestDwell)*mandelIterCycles
}

// mandelPixelThreadCycles is an mandel_pixels child thread's cost outside
// its loop: its pixel from blockIdx and threadIdx plus mandelPixelCycles.
func mandelPixelThreadCycles() int64 { return mandelPixelIndexCycles + mandelPixelCycles }

// mandelCosts are the mandel cost model's constants, all invented, which
// its parameters set.
var mandelCosts = []costConst{
	cost("iter_cycles", &mandelIterCycles, "one iteration of z ← z² + c"),
	cost("pixel_cycles", &mandelPixelCycles, "a pixel outside its loop"),
	cost("tile_base_cycles", &mandelTileBaseCycles, "a tile's thread before its border"),
	cost("fill_pixel_cycles", &mandelFillPixelCycles, "one pixel of a uniform tile's fill"),
	cost("pixel_index_cycles", &mandelPixelIndexCycles, "a mandel_pixels thread's pixel index"),
	cost("idle_warp_cycles", &mandelIdleWarpCycles, "a warp with nothing to do"),
}
