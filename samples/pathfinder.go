package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "pathfinder",
		Doc:  "Rodinia PathFinder: dynamic programming down a grid, several rows per dependent kernel with a shrinking halo (CRCS PATH)",
		Params: []Param{
			{Name: "cols", Default: "100000", Doc: "grid columns (CRCS Table 2: 100K)"},
			{Name: "rows", Default: "100", Doc: "grid rows; the first is the starting cost (CRCS Table 2: 100)"},
			{Name: "pyramid", Default: "5", Doc: "rows each kernel advances, Rodinia's pyramid_height (CRCS Table 2: 5, so 20 kernels)"},
			kernelCostParam(pathKernelCost, "measured: GPGPU-Sim's dynproc_kernel CTAs (docs/calibration.md); CRCS §5.2's 95% prelude holds at it"),
			seedParam,
		},
		run: runPathfinder,
	})
}

// Rodinia's dynproc_kernel shape and cost, in 700 MHz GK110 cycles.
const (
	// pathBlock is Rodinia's BLOCK_SIZE: one thread per column of a
	// 256-column window, which shrinks by one column each side per row.
	pathBlock = 256

	// pathRowWarpCycles is one warp's step down one row, in issue slots:
	// measured, 44 warp instructions a warp a row (capture pathfinder-20k:
	// 1780 a CTA of 8 warps over 5 rows: the shared-memory loads of the row
	// above, the mins, the wall load and add, the range tests,
	// __syncthreads).
	pathRowWarpCycles = 44

	// pathKernelCost is kernel_cost's default: the factor at which the
	// generator's CTAs take what GPGPU-Sim measured for dynproc_kernel
	// (capture pathfinder-20k on the 14-SM Kepler Titan: 3943 cycles at
	// 837 MHz, warm; docs/calibration.md). The cost model's serial memory
	// rounds and bytes overstate the measured CTA 3.6×. CRCS §5.2 states
	// the prelude takes 95% of the baseline, which holds at any kernel
	// cost near this one: the kernels are under 1% of the run.
	pathKernelCost = "0.28"

	// pathRegs is what ptxas (CUDA 11.8, sm_35, -O2) gives dynproc_kernel.
	pathRegs = 14
)

// runPathfinder writes a PathFinder run: the wall (every row but the first,
// input), two cost rows the kernels ping-pong between (the first filled by
// the host with the grid's first row), then one dynproc_kernel per pyramid
// of rows. A CTA's window overlaps its neighbours' by pyramid columns each
// side, so each kernel depends on three CTAs of the one before.
func runPathfinder(p Params, out trace.Sink) error {
	cols, err := p.Int("cols", pathBlock, 10_000_000)
	if err != nil {
		return err
	}
	rows, err := p.Int("rows", 2, 100_000)
	if err != nil {
		return err
	}
	pyramid, err := p.Int("pyramid", 1, pathBlock/2-1)
	if err != nil {
		return err
	}
	seed, err := p.Uint64("seed")
	if err != nil {
		return err
	}
	if int64(cols)*int64(rows) > 1<<30 {
		return p.errorf("rows", strconv.Itoa(rows), "cols×rows must stay under 2^30 cells")
	}
	kernels := ceilDiv(rows-1, pyramid)
	blocks := ceilDiv(cols, pathBlock-2*pyramid)
	meta := p.Values()
	meta["kernels"] = strconv.Itoa(kernels)
	meta["ctas"] = strconv.Itoa(kernels * blocks)
	var heap deviceHeap
	wall := heap.alloc("wall", int64(rows-1)*int64(cols)*4, trace.RoleInput)
	result := pingPong(&heap, "result", int64(cols)*4, kernels)
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:pathfinder", meta), wall, result[0], result[1]); err != nil {
		return err
	}
	pf := pathGrid{walls: grid2D{width: cols, height: rows - 1, elem: 4}, pyramid: pyramid, wall: wall}
	for i := range kernels {
		start := i * pyramid
		iter := min(pyramid, rows-1-start)
		k, err := pl.kernel("dynproc_kernel", [3]uint32{uint32(blocks), 1, 1}, [3]uint32{pathBlock, 1, 1}, pathRegs, 2*pathBlock*4)
		if err != nil {
			return err
		}
		for bx := range blocks {
			fps := pf.footprints(bx, start, iter, result[i%2], result[(i+1)%2])
			rounds := 1 + iter + 1 // the row above, each wall row, the store
			compute := int64(iter) * pathBlock / warpSize * pathRowWarpCycles
			bytes := footprintBytes(fps)
			if err := pl.cta(k, bx, ctaCycles(pl.rng, rounds, bytes, compute), streamDemand(bytes, compute), fps); err != nil {
				return err
			}
		}
	}
	return nil
}

// pathGrid is one PathFinder problem's geometry.
type pathGrid struct {
	walls   grid2D // the wall's rows
	pyramid int
	wall    *trace.Buffer
}

// footprints follows dynproc_kernel for CTA bx advancing iter rows from
// row start. Thread tx holds column blkX+tx, where the windows step by the
// columns a CTA can finish (256 less the host's pyramid halo each side)
// but shrink by the kernel's own iter rows. It loads the cost row from src
// where the column exists; in step i it reads the wall where tx lies in
// [i+1, 254-i] and the column exists; at the end it writes the columns
// still in the window. The profiler samples both outcomes of those tests,
// so its bounds are the full 256-column window on every row, clipped.
func (pf pathGrid) footprints(bx, start, iter int, src, dst *trace.Buffer) []footprint {
	row := grid2D{width: pf.walls.width, height: 1, elem: 4}
	blkX := (pathBlock-2*pf.pyramid)*bx - pf.pyramid
	var wallReads []span
	for i := range iter {
		if s, ok := pf.walls.rowSpan(start+i, blkX+i+1, blkX+pathBlock-1-i); ok {
			wallReads = append(wallReads, s)
		}
	}
	wallBound := pf.wallBound(start, iter, blkX)
	srcReads := row.rect(blkX, blkX+pathBlock, 0, 1)
	window := row.rect(blkX, blkX+pathBlock, 0, 1)[0]
	return []footprint{
		{buf: src, reads: srcReads},
		{buf: pf.wall, reads: wallReads, bound: &wallBound, sweep: true}, // a row a step
		{buf: dst, writes: row.rect(blkX+iter, blkX+pathBlock-iter, 0, 1), bound: &window},
	}
}

// wallBound is the profiler's wall range for a window starting at column
// blkX: from its first column on row start to its last on the last row,
// clipped to the wall's allocation (a window past a row's end reaches
// into the next row, which the profiler cannot tell from the array).
func (pf pathGrid) wallBound(start, iter, blkX int) span {
	cols := int64(pf.walls.width)
	lo := max(int64(start)*cols+int64(blkX), 0)
	hi := min(int64(start+iter-1)*cols+int64(blkX+pathBlock-1), int64(pf.walls.height)*cols-1)
	return span{uint64(lo) * 4, uint64(hi)*4 + 3}
}
