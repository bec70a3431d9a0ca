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
			kernelCostParam(HotspotStatedKernelCost, "calibrated: CRCS §5.3, the kernels take 9.0% of the baseline with 5 kernels and 66% with 100; "+
				HotspotMeasuredKernelCost+" gives GPGPU-Sim's measured CTA times (docs/calibration.md)"),
			seedParam,
		},
		run: runHotspot,
	})
}

// HotspotMeasuredKernelCost is the kernel_cost at which the generator's
// CTAs take what GPGPU-Sim measured for Rodinia's calculate_temp (capture
// hotspot-256 on the 14-SM Kepler Titan: 2632 cycles at 837 MHz, warm;
// docs/calibration.md): the serial sum of the cost model's memory rounds,
// bytes and issue slots overstates the measured CTA by about 2×, since
// its memory phases overlap. The CRCS experiments take it as their result
// of record and score the stated one (HotspotStatedKernelCost) beside it.
const HotspotMeasuredKernelCost = "0.49"

// HotspotStatedKernelCost is kernel_cost's default: with it the
// baseline's kernels take 9.0% of the run with 5 iterations and 66% with
// 100 (io.model=stages on gk110-64), where CRCS §5.3 states "With 5 and
// 100 kernels, the kernels took 9.0% and 66% of total runtime,
// respectively, with the baseline". One factor fits both points: the rest
// of the run (prelude, copies, postlude) does not depend on it. It is the
// paper's statement about its own runs; GPGPU-Sim's Kepler Titan runs the
// same CTAs 6.5× faster (HotspotMeasuredKernelCost, docs/calibration.md).
const HotspotStatedKernelCost = "3.2"

// HotSpot's shape and cost, in 700 MHz GK110 cycles.
const (
	// hotspotBlock is Rodinia's BLOCK_SIZE 16: 16×16 threads a CTA, each
	// loading one cell of the temperature tile with its halo.
	hotspotBlock = 16

	// hotspotTile is the cells a CTA computes at pyramid height 1:
	// BLOCK_SIZE less the one-cell halo each side, 14×14, so a 512×512
	// grid takes 37×37 CTAs (measured: capture hotspot-256 runs 19×19 =
	// 361 a kernel at 256, where a 16-cell tile gave 256).
	hotspotTile = hotspotBlock - 2

	// hotspotWarpCycles is one warp's time step, in issue slots: measured,
	// 160 warp instructions a warp (capture hotspot-256: 1285 a CTA of 8
	// warps: the index arithmetic, the halo loads and bounds tests, the
	// update).
	hotspotWarpCycles = 160

	// hotspotRounds is the dependent memory phases of a CTA: load the
	// temperature tile with its halo and the power tile, then store.
	hotspotRounds = 2

	// hotspotRegs is what ptxas (CUDA 11.8, sm_35, -O2) gives
	// calculate_temp; four 256-thread CTAs fit an SM by threads before
	// registers matter.
	hotspotRegs = 29
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
	block := [3]uint32{hotspotBlock, hotspotBlock, 1}
	for it := range iters {
		src, dst := temp[it%2], temp[(it+1)%2]
		k, err := pl.kernel("calculate_temp", [3]uint32{uint32(tiles), uint32(tiles), 1}, block, hotspotRegs, 4*hotspotBlock*hotspotBlock*3)
		if err != nil {
			return err
		}
		err = pl.tiles(k, size, size, hotspotTile, hotspotTile, hotspotRounds, hotspotBlock*hotspotBlock/warpSize*hotspotWarpCycles,
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
