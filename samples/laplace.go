package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "laplace",
		Doc:  "Jacobi iteration of the 2-D Laplace equation, one dependent 5-point-stencil kernel per sweep (CRCS LPC)",
		Params: []Param{
			{Name: "size", Default: "256", Doc: "the grid is size×size points (CRCS Table 2: 256)"},
			{Name: "iterations", Default: "10", Doc: "Jacobi sweeps, one kernel each (CRCS Table 2: 10)"},
			kernelCostParam("1", "uncalibrated: the paper states no stage shares for it"),
			seedParam,
		},
		run:   runLaplace,
		costs: pipelineCosts(cost("warp_cycles", &laplaceWarpCycles, "one warp's point update")),
	})
}

// Laplace's shape and cost, in 700 MHz GK110 cycles.
var (
	// laplaceWarpCycles is one warp's point update: four neighbour loads
	// (the row neighbours hit in L1), three adds and a multiply by 0.25,
	// and the boundary test, ~12 issue slots.
	laplaceWarpCycles int64 = 12
)

const (
	// laplaceTile is the CTA's tile edge: 16×16 threads, one point each,
	// the usual shape of a global-memory Jacobi kernel.
	laplaceTile = 16

	// laplaceRounds is a CTA's dependent memory phases: the neighbour
	// loads, then the store.
	laplaceRounds = 2

	// laplaceRegs is what nvcc gives so small a kernel.
	laplaceRegs = 16
)

// runLaplace writes a Jacobi solve: two grids the sweeps ping-pong between
// and one jacobi kernel per sweep, each point the mean of its four
// neighbours in the previous sweep's grid (boundary points copy their
// value, as fixed Dirichlet conditions). A tile reads one row and column
// beyond itself, so each sweep depends on neighbour tiles of the last.
func runLaplace(p Params, out trace.Sink) error {
	size, iters, seed, err := parseSquareIterations(p, laplaceTile)
	if err != nil {
		return err
	}
	g := grid2D{width: size, height: size, elem: 4}
	tiles := ceilDiv(size, laplaceTile)
	meta := p.Values()
	meta["kernels"] = strconv.Itoa(iters)
	meta["ctas"] = strconv.Itoa(iters * tiles * tiles)
	var heap deviceHeap
	u := pingPong(&heap, "u", g.bytes(), iters)
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:laplace", meta), u[0], u[1]); err != nil {
		return err
	}
	for it := range iters {
		src, dst := u[it%2], u[(it+1)%2]
		k, err := pl.kernel("jacobi", [3]uint32{uint32(tiles), uint32(tiles), 1}, [3]uint32{laplaceTile, laplaceTile, 1}, laplaceRegs, 0)
		if err != nil {
			return err
		}
		err = pl.tiles(k, size, size, laplaceTile, laplaceTile, laplaceRounds, laplaceTile*laplaceTile/warpSize*laplaceWarpCycles,
			func(x0, x1, y0, y1 int) []footprint {
				return []footprint{
					{buf: src, reads: g.cross(x0, x1, y0, y1, 1, 1)},
					{buf: dst, writes: g.rect(x0, x1, y0, y1)},
				}
			})
		if err != nil {
			return err
		}
	}
	return nil
}
