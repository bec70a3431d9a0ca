package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "hotspot",
		Doc:  "Rodinia HotSpot: iterative 2-D thermal stencil over a chip's temperature and power grids, one dependent kernel per time step (CRCS HSP)",
		Params: []Param{
			{Name: "size", Default: "512", Doc: "the grid is size×size cells (CRCS Table 2: 512)"},
			{Name: "iterations", Default: "10", Doc: "time steps, one kernel each (CRCS Table 2: 10)"},
			kernelCostParam(hotspotKernelCost, "calibrated: CRCS §5.3, the kernels take 9.0% of the baseline with 5 kernels and 66% with 100"),
			seedParam,
		},
		run: runHotspot,
	})
}

// HotSpot's shape and cost, in 700 MHz GK110 cycles.
const (
	// hotspotTile is the CTA's tile edge: Rodinia's BLOCK_SIZE 16, one
	// thread per cell, 256 threads.
	hotspotTile = 16

	// hotspotWarpCycles is one warp's cell update once the tile is in
	// shared memory: five shared-memory loads, the power term and about a
	// dozen fused multiply-adds, ~24 issue slots.
	hotspotWarpCycles = 24

	// hotspotRounds is the dependent memory phases of a CTA: load the
	// temperature tile with its halo and the power tile, then store.
	hotspotRounds = 2

	// hotspotKernelCost is kernel_cost's default: with it the baseline's
	// kernels take 9.0% of the run with 5 iterations and 66.2% with 100
	// (io.model=stages on gk110-64), where CRCS §5.3 states "With 5 and
	// 100 kernels, the kernels took 9.0% and 66% of total runtime,
	// respectively, with the baseline". One factor fits both points: the
	// rest of the run (prelude, copies, postlude) does not depend on it.
	hotspotKernelCost = "4.9"

	// hotspotRegs is what nvcc gives calculate_temp; four 256-thread CTAs
	// fit an SM by threads before registers matter.
	hotspotRegs = 28
)

// runHotspot writes a HotSpot run: the power grid (input), two temperature
// grids the kernels ping-pong between, and one calculate_temp kernel per
// time step. Step i reads the temperature step i-1 wrote, with a one-cell
// halo, so each kernel depends on its neighbour tiles in the one before.
func runHotspot(p Params, out trace.Sink) error {
	size, iters, seed, err := parseSquareIterations(p, hotspotTile)
	if err != nil {
		return err
	}
	g := grid2D{width: size, height: size, elem: 4}
	tiles := ceilDiv(size, hotspotTile)
	meta := p.Values()
	meta["kernels"] = strconv.Itoa(iters)
	meta["ctas"] = strconv.Itoa(iters * tiles * tiles)
	var heap deviceHeap
	temp := pingPong(&heap, "temp", g.bytes(), iters)
	power := heap.alloc("power", g.bytes(), trace.RoleInput)
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:hotspot", meta), temp[0], temp[1], power); err != nil {
		return err
	}
	block := [3]uint32{hotspotTile, hotspotTile, 1}
	for it := range iters {
		src, dst := temp[it%2], temp[(it+1)%2]
		k, err := pl.kernel("calculate_temp", [3]uint32{uint32(tiles), uint32(tiles), 1}, block, hotspotRegs, 4*hotspotTile*hotspotTile*3)
		if err != nil {
			return err
		}
		err = pl.tiles(k, size, size, hotspotTile, hotspotTile, hotspotRounds, hotspotTile*hotspotTile/warpSize*hotspotWarpCycles,
			func(x0, x1, y0, y1 int) []footprint {
				return []footprint{
					{buf: src, reads: g.cross(x0, x1, y0, y1, 1, 1)},
					{buf: power, reads: g.rect(x0, x1, y0, y1)},
					{buf: dst, writes: g.rect(x0, x1, y0, y1)},
				}
			})
		if err != nil {
			return err
		}
	}
	return nil
}
