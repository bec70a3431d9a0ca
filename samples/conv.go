package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "conv",
		Doc:  "CUDA SDK convolutionSeparable: a 17-tap filter applied as a row pass then a column pass, repeated, each pass a dependent kernel (CRCS CONV)",
		Params: []Param{
			{Name: "size", Default: "512", Doc: "the image is size×size pixels, a multiple of 128 (CRCS Table 2: 512)"},
			{Name: "passes", Default: "3", Doc: "filter applications, a row and a column kernel each (CRCS Table 2: 6 kernels)"},
			kernelCostParam("1", "uncalibrated: the paper states no stage shares for it"),
			seedParam,
		},
		run:   runConv,
		costs: pipelineCosts(cost("pixel_warp_cycles", &convPixelWarpCycles, "one warp's output pixel")),
	})
}

// The SDK kernels' shape and cost, in 700 MHz GK110 cycles.
var (
	// convPixelWarpCycles is one warp's output pixel: 17 shared-memory
	// loads and 17 fused multiply-adds, ~34 issue slots.
	convPixelWarpCycles int64 = 2 * (2*convRadius + 1)
)

const (
	// convRadius is the filter's KERNEL_RADIUS: 17 taps.
	convRadius = 8

	// The row kernel: 16×4 threads, each computing 8 pixels 16 apart, so a
	// CTA covers 128×4 pixels and loads one 16-pixel halo step each side.
	convRowsX, convRowsY, convRowsSteps = 16, 4, 8

	// The column kernel: 16×8 threads, 8 pixels each down a column, so a
	// CTA covers 16×64 pixels and loads one 8-pixel halo step above and
	// below.
	convColsX, convColsY, convColsSteps = 16, 8, 8

	// convRounds is a pass's dependent memory phases: load the tile and
	// halo into shared memory, then store the results.
	convRounds = 2

	// convRegs is what nvcc gives the SDK kernels.
	convRegs = 20
)

// runConv writes the filter run: the input image, the intermediate the row
// pass writes, the output the column pass writes, then row and column
// kernels alternately. The row pass reads 16 pixels beyond its tile left and
// right, the column pass 8 rows above and below, so each kernel depends on
// neighbouring tiles of the pass before it — in the other direction.
func runConv(p Params, out trace.Sink) error {
	size, err := p.Int("size", 128, 8192)
	if err != nil {
		return err
	}
	if size%(convRowsX*convRowsSteps) != 0 {
		return p.errorf("size", strconv.Itoa(size), "want a multiple of %d, as the SDK kernels require", convRowsX*convRowsSteps)
	}
	passes, err := p.Int("passes", 1, 500)
	if err != nil {
		return err
	}
	seed, err := p.Uint64("seed")
	if err != nil {
		return err
	}
	g := grid2D{width: size, height: size, elem: 4}
	rowTile := [2]int{convRowsX * convRowsSteps, convRowsY}
	colTile := [2]int{convColsX, convColsY * convColsSteps}
	rowCTAs, colCTAs := size/rowTile[0]*(size/rowTile[1]), size/colTile[0]*(size/colTile[1])
	meta := p.Values()
	meta["kernels"] = strconv.Itoa(2 * passes)
	meta["ctas"] = strconv.Itoa(passes * (rowCTAs + colCTAs))
	var heap deviceHeap
	image := heap.alloc("image", g.bytes(), trace.RoleInput)
	tmp := heap.alloc("buffer", g.bytes(), trace.RoleTemp)
	dst := heap.alloc("output", g.bytes(), trace.RoleOutput)
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:conv", meta), image, tmp, dst); err != nil {
		return err
	}
	src := image
	for range passes {
		if err := convPass(pl, g, "convolutionRows", rowTile, [3]uint32{convRowsX, convRowsY, 1},
			convRowsSteps+2, convRowsX, 0, src, tmp); err != nil {
			return err
		}
		if err := convPass(pl, g, "convolutionColumns", colTile, [3]uint32{convColsX, convColsY, 1},
			convColsSteps+2, 0, convColsY, tmp, dst); err != nil {
			return err
		}
		src = dst
	}
	return nil
}

// convPass writes one pass: tiles of tile pixels, threads of block, each
// thread loading loads pixels into shared memory (its results and its
// share of the halo) and computing steps of them; the tile reads haloX
// pixels beyond itself left and right and haloY rows above and below.
func convPass(pl *pipeline, g grid2D, name string, tile [2]int, block [3]uint32, loads, haloX, haloY int, src, dst *trace.Buffer) error {
	threads := int(block[0] * block[1])
	smem := int64(threads * loads * 4)
	k, err := pl.kernel(name, [3]uint32{uint32(g.width / tile[0]), uint32(g.height / tile[1]), 1}, block, convRegs, smem)
	if err != nil {
		return err
	}
	steps := loads - 2
	compute := int64(threads/warpSize*steps) * convPixelWarpCycles
	return pl.tiles(k, g.width, g.height, tile[0], tile[1], convRounds, compute,
		func(x0, x1, y0, y1 int) []footprint {
			return []footprint{
				{buf: src, reads: g.rect(x0-haloX, x1+haloX, y0-haloY, y1+haloY)},
				{buf: dst, writes: g.rect(x0, x1, y0, y1)},
			}
		})
}
