package samples

import (
	"math"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

func init() {
	register(&Generator{
		Name: "3mm",
		Doc:  "PolyBench 3MM: E=A×B, F=C×D, G=E×F, three dependent matrix-multiply kernels (CRCS 3MM)",
		Params: []Param{
			{Name: "size", Default: "256", Doc: "every matrix is size×size floats (CRCS Table 2: 256)"},
			kernelCostParam("1", "measured: the per-operation costs are fitted to GPGPU-Sim's mm3_kernel1 (docs/calibration.md)"),
			seedParam,
		},
		run: run3MM,
	})
}

// The PolyBench kernels' shape and cost, in 700 MHz GK110 cycles.
const (
	// mmBlockX, mmBlockY are PolyBench's DIM_THREAD_BLOCK_X/Y: one thread
	// per element of a 32×8 tile of the product.
	mmBlockX, mmBlockY = 32, 8

	// mmStepWarpCycles is one warp's trip through the inner product loop,
	// in issue slots: measured, 6.0 warp instructions a warp and k step
	// (GPGPU-Sim capture 3mm-256-k1-crcs: 12184 a CTA of 8 warps over 256
	// steps; 3mm-128: 6296 over 128): the loads, the fused multiply-add,
	// the store of E[i][j] and the loop branch.
	mmStepWarpCycles = 6

	// mmCacheReuse divides the bytes a CTA reads: the 1.5 MB L2 holds all
	// of a 256×256 multiply's operands, so a band comes from DRAM once and
	// reaches the other CTAs that read it from L2, about 4× faster.
	mmCacheReuse = 4

	// mmStepRounds is the exposed memory rounds (of dramLatencyCycles) a
	// k step costs, fitted to GPGPU-Sim's mm3_kernel1 at 256×256 on the
	// CRCS-shaped GPU (capture 3mm-256-k1-crcs, 253819 cycles at 700 MHz;
	// docs/calibration.md). PolyBench's loop stores E[i][j] every step and
	// the next step's loads, which may alias it, issue after the store, so
	// every step waits a memory round trip behind the FMA; 64 SMs' stores
	// and loads queueing at the memory partitions make a round ~2 trips.
	mmStepRounds = 2.2

	// mmRegs is what ptxas (CUDA 11.8, sm_35, -O2) gives mm3_kernel1.
	mmRegs = 24
)

// run3MM writes the three products. Each CTA computes a 32×8 tile of its
// product, reading the whole row band of the left matrix and the whole
// column band of the right one: G's CTAs depend on a band of E's CTAs and on
// every CTA of F, and E and F do not depend on each other at all.
func run3MM(p Params, out trace.Sink) error {
	n, err := p.Int("size", mmBlockX, 4096)
	if err != nil {
		return err
	}
	seed, err := p.Uint64("seed")
	if err != nil {
		return err
	}
	g := grid2D{width: n, height: n, elem: 4}
	gx, gy := ceilDiv(n, mmBlockX), ceilDiv(n, mmBlockY)
	meta := p.Values()
	meta["kernels"] = "3"
	meta["ctas"] = strconv.Itoa(3 * gx * gy)
	var heap deviceHeap
	var m [7]*trace.Buffer
	for i, name := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		role := trace.RoleInput
		switch name {
		case "E", "F":
			role = trace.RoleTemp
		case "G":
			role = trace.RoleOutput
		}
		m[i] = heap.alloc(name, g.bytes(), role)
	}
	pl, err := newPipeline(out, p, seed)
	if err != nil {
		return err
	}
	if err := writeAll(out, gk110Header("gen:3mm", meta), m[0], m[1], m[2], m[3], m[4], m[5], m[6]); err != nil {
		return err
	}
	for _, prod := range [][3]*trace.Buffer{{m[0], m[1], m[4]}, {m[2], m[3], m[5]}, {m[4], m[5], m[6]}} {
		if err := mmKernel(pl, g, prod[0], prod[1], prod[2]); err != nil {
			return err
		}
	}
	return nil
}

// mmKernel writes one product dst = left × right.
func mmKernel(pl *pipeline, g grid2D, left, right, dst *trace.Buffer) error {
	k, err := pl.kernel("mm_kernel", [3]uint32{uint32(ceilDiv(g.width, mmBlockX)), uint32(ceilDiv(g.height, mmBlockY)), 1},
		[3]uint32{mmBlockX, mmBlockY, 1}, mmRegs, 0)
	if err != nil {
		return err
	}
	cta := 0
	for y0 := 0; y0 < g.height; y0 += mmBlockY {
		for x0 := 0; x0 < g.width; x0 += mmBlockX {
			x1, y1 := min(x0+mmBlockX, g.width), min(y0+mmBlockY, g.height)
			fps := []footprint{
				{buf: left, reads: g.rect(0, g.width, y0, y1)},
				{buf: right, reads: g.rect(x0, x1, 0, g.height), sweep: true}, // row k at step k
				{buf: dst, writes: g.rect(x0, x1, y0, y1)},
			}
			compute := int64(g.width) * mmBlockX * mmBlockY / warpSize * mmStepWarpCycles
			// The bands come from DRAM once and from the L2 after (mmCacheReuse).
			bytes := footprintBytes(fps) / mmCacheReuse
			rounds := int(math.Round(float64(g.width) * mmStepRounds))
			if err := pl.cta(k, cta, ctaCycles(pl.rng, rounds, bytes, compute), streamDemand(bytes, compute), fps); err != nil {
				return err
			}
			cta++
		}
	}
	return nil
}
