package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "stencil3d",
		Doc:  "Parboil stencil: 7-point 3-D Jacobi stencil, each thread marching through the z-planes, one dependent kernel per sweep (CRCS STN)",
		Params: []Param{
			{Name: "nx", Default: "128", Doc: "grid points along x, a multiple of 64 (CRCS Table 2: 128)"},
			{Name: "ny", Default: "128", Doc: "grid points along y, a multiple of 4 (CRCS Table 2: 128)"},
			{Name: "nz", Default: "32", Doc: "grid points along z, the planes each thread marches through (CRCS Table 2: 32)"},
			{Name: "iterations", Default: "50", Doc: "sweeps, one kernel each (CRCS Table 2: 50)"},
			kernelCostParam("1", "uncalibrated: the paper states no stage shares for it"),
			seedParam,
		},
		run:   runStencil3D,
		costs: pipelineCosts(cost("plane_warp_cycles", &stnPlaneWarpCycles, "one warp's step to the next plane")),
	})
}

// Parboil's block2D_hybrid_coarsen_x shape and cost, in 700 MHz GK110
// cycles.
var (
	// stnPlaneWarpCycles is one warp's step to the next plane: for each of
	// its two points, the x and y neighbours from shared memory, the z
	// neighbours from registers, six adds and two multiplies, the store,
	// and the plane's __syncthreads: ~28 issue slots.
	stnPlaneWarpCycles int64 = 28
)

const (
	// stnBlockX, stnBlockY, stnCoarsen: 32×4 threads, each computing two
	// points along x, so a CTA owns a 64×4 column of the grid through all
	// z-planes.
	stnBlockX, stnBlockY, stnCoarsen = 32, 4, 2

	// stnRounds is what the plane loop cannot hide: the first two planes'
	// loads before the loop and the last store; later planes' loads are
	// prefetched a plane ahead.
	stnRounds = 3

	// stnBandwidthShare multiplies a CTA's DRAM share: a 128×128 grid
	// makes only 64 CTAs of 128 threads, one per SM of the 64, so each
	// has its SM's whole ~4.6 bytes per cycle rather than a quarter of it.
	stnBandwidthShare = 4

	// stnRegs is what nvcc gives the coarsened kernel.
	stnRegs = 32
)

// runStencil3D writes a Parboil stencil run: two grids the sweeps ping-pong
// between, then one block2D_hybrid_coarsen_x kernel per sweep. A thread
// walks z from the second plane to the second last, so a CTA's accesses
// are a small patch of every plane, one plane (nx·ny floats) apart: the
// profiler's range runs from the first patch to the last and takes in the
// whole grid between, while the pages it touches are one or two per plane.
// That over-coverage is the paper's explanation for STN's poor pipelining.
func runStencil3D(p Params, out trace.Sink) error {
	nx, err := p.Int("nx", stnBlockX*stnCoarsen, 4096)
	if err != nil {
		return err
	}
	if nx%(stnBlockX*stnCoarsen) != 0 {
		return p.errorf("nx", strconv.Itoa(nx), "want a multiple of %d, the CTA's width", stnBlockX*stnCoarsen)
	}
	ny, err := p.Int("ny", stnBlockY, 4096)
	if err != nil {
		return err
	}
	if ny%stnBlockY != 0 {
		return p.errorf("ny", strconv.Itoa(ny), "want a multiple of %d, the CTA's height", stnBlockY)
	}
	nz, err := p.Int("nz", 3, 1024)
	if err != nil {
		return err
	}
	iters, err := p.Int("iterations", 1, 1000)
	if err != nil {
		return err
	}
	seed, err := p.Uint64("seed")
	if err != nil {
		return err
	}
	if int64(nx)*int64(ny)*int64(nz) > 1<<28 {
		return p.errorf("nz", strconv.Itoa(nz), "nx×ny×nz must stay under 2^28 points")
	}
	gx, gy := nx/(stnBlockX*stnCoarsen), ny/stnBlockY
	meta := p.Values()
	meta["kernels"] = strconv.Itoa(iters)
	meta["ctas"] = strconv.Itoa(iters * gx * gy)
	v := volume{plane: grid2D{width: nx, height: ny, elem: 4}, depth: nz}
	var heap deviceHeap
	a := pingPong(&heap, "A", v.bytes(), iters)
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:stencil3d", meta), a[0], a[1]); err != nil {
		return err
	}
	block := [3]uint32{stnBlockX, stnBlockY, 1}
	smem := int64((stnBlockX*stnCoarsen + 2) * (stnBlockY + 2) * 4)
	compute := int64(nz-2) * stnBlockX * stnBlockY / warpSize * stnPlaneWarpCycles
	for it := range iters {
		src, dst := a[it%2], a[(it+1)%2]
		k, err := pl.kernel("block2D_hybrid_coarsen_x", [3]uint32{uint32(gx), uint32(gy), 1}, block, stnRegs, smem)
		if err != nil {
			return err
		}
		cta := 0
		for y0 := 0; y0 < ny; y0 += stnBlockY {
			for x0 := 0; x0 < nx; x0 += stnBlockX * stnCoarsen {
				fps := v.footprints(x0, x0+stnBlockX*stnCoarsen, y0, y0+stnBlockY, src, dst)
				bytes := footprintBytes(fps)
				cycles := ctaCycles(pl.rng, stnRounds, bytes/stnBandwidthShare, compute)
				if err := pl.cta(k, cta, cycles, streamDemand(bytes, compute), fps); err != nil {
					return err
				}
				cta++
			}
		}
	}
	return nil
}

// volume is a z-major 3-D grid: depth planes, each a row-major 2-D grid.
type volume struct {
	plane grid2D
	depth int
}

func (v volume) bytes() int64 { return v.plane.bytes() * int64(v.depth) }

// at shifts spans of one plane to plane z.
func (v volume) at(z int, ss []span) []span {
	off := uint64(z) * uint64(v.plane.bytes())
	out := make([]span, len(ss))
	for i, s := range ss {
		out[i] = span{s.lo + off, s.hi + off}
	}
	return out
}

// footprints is what the CTA owning columns [x0, x1) and rows [y0, y1)
// does in one sweep. For each plane z in 1..nz-2 a thread reads its point,
// the x and y neighbours (a cross with radius 1, clamped to the grid), and
// the same point of planes z-1 and z+1, and it writes its point unless it
// lies on the grid's boundary. The profiler evaluates the store's index at
// the corner threads and the loop's bounds, without the boundary test, so
// the written range runs from the CTA's patch of plane 1 to that of plane
// nz-2.
func (v volume) footprints(x0, x1, y0, y1 int, src, dst *trace.Buffer) []footprint {
	var reads, writes []span
	cross := v.plane.cross(x0, x1, y0, y1, 1, 1)
	tile := v.plane.rect(x0, x1, y0, y1)
	inner := v.plane.rect(max(x0, 1), min(x1, v.plane.width-1), max(y0, 1), min(y1, v.plane.height-1))
	for z := range v.depth {
		switch {
		case z == 0 || z == v.depth-1:
			reads = append(reads, v.at(z, tile)...) // only the z neighbour
		default:
			reads = append(reads, v.at(z, cross)...)
			writes = append(writes, v.at(z, inner)...)
		}
	}
	first, last := v.at(1, tile[:1]), v.at(v.depth-2, tile[len(tile)-1:])
	bound := span{first[0].lo, last[0].hi}
	return []footprint{
		{buf: src, reads: reads, sweep: true}, // a plane a step
		{buf: dst, writes: writes, bound: &bound, sweep: true},
	}
}
