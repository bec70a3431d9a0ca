package samples

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// The dependent-kernel pipelines (the CRCS paper's Table 2 workloads) share
// this file: a chain of host-launched kernels in one stream, each CTA
// described by what it costs and by the byte spans it reads and writes.
// From the spans come both memory records: the access range the CRCS
// pre-profiler would compute and the exact pages a full trace would show.

// gk110Header starts a pipeline trace: times in cycles of the 700 MHz core
// clock of the CRCS paper's GPGPU-Sim GPU (Table 1, the gk110-64 preset), so
// the cost constants read as that GPU's cycles.
func gk110Header(source string, meta map[string]string) *trace.Header {
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  700,
		PageBytes: trace.DefaultPageBytes,
		Source:    source,
		GPU:       "gk110-64",
		Meta:      meta,
	}
}

// span is a run of bytes [lo, hi], inclusive, of one buffer.
type span struct{ lo, hi uint64 }

// footprint is what one CTA does to one buffer: the spans it reads and the
// spans it writes, each exact (element by element, halos included). When
// the accesses sit under conditions the kernel evaluates per thread, bound
// is what the index functions give without them (the profiler samples both
// outcomes of a branch), already clipped to the buffer; otherwise nil.
//
// Where in the CTA's run each span is first touched (the records' at)
// follows the kernel's loop: a CTA spends ctaStartCycles on index
// arithmetic, then loads; reads of a footprint that is not swept are all
// touched as the loop starts (a tile load), its writes as the loop ends
// (the final stores, which take the store bytes' share of the run at
// ctaBytesPerCycle). A swept footprint is walked by the loop in span
// order: read span i of n is first touched at i/n of the loop, write span
// i at (i+1)/n (3MM's k loop over the right matrix's rows, PathFinder's
// wall rows, the 3-D stencil's planes).
type footprint struct {
	buf           *trace.Buffer
	reads, writes []span
	bound         *span
	sweep         bool
}

// Cost constants every pipeline shares, in 700 MHz GK110 cycles. Each
// generator adds its own per-element compute cost. The three below are
// invented; they are parameters of the pipelines whose costs are
// invented too (pipelineCosts: laplace, conv, stencil3d, bfs-levels),
// not of those fitted to GPGPU-Sim captures beside them (hotspot,
// pathfinder, 3mm), whose fits hold them at these values.
var (
	// ctaStartCycles is a CTA's fixed work before its first load: block and
	// thread index arithmetic, kernel parameter loads from constant memory.
	ctaStartCycles int64 = 60

	// dramLatencyCycles is one dependent global-memory round trip that
	// misses the caches, ~570 ns on a GK110-class part: the cost of each
	// phase of loads a kernel must wait for before computing (a tile load
	// into shared memory, a loop iteration's gather).
	dramLatencyCycles int64 = 400

	// ctaBytesPerCycle is the DRAM bandwidth one CTA gets: GK110's ~208 GB/s
	// is ~4.6 bytes per cycle per SM at 700 MHz, shared by the four to eight
	// CTAs these kernels keep resident per SM, so about one byte per cycle.
	ctaBytesPerCycle float64 = 1.0
)

const (
	// ctaJitter is the relative spread of CTA times around the model, drawn
	// per CTA from the seed: DRAM row-buffer and bank conflicts make equal
	// tiles finish at different times on real hardware.
	ctaJitter = 0.05
)

// ctaCycles is the model time of a CTA with rounds dependent memory phases
// moving bytes in all, plus compute cycles of arithmetic, jittered by rng.
func ctaCycles(rng *rand.Rand, rounds int, bytes int64, compute int64) int64 {
	return jitter(rng, float64(ctaStartCycles+int64(rounds)*dramLatencyCycles+compute)+float64(bytes)/ctaBytesPerCycle)
}

// ctaDemand is a pipeline CTA's demand (the trace's insts, dram_bytes);
// zero leaves it to the generator's kernel mixes (demand.go).
type ctaDemand struct{ insts, dram uint64 }

// streamDemand is the demand of a tiled CTA of the cost model above: its
// compute term is already counted in warp issue slots (each generator's
// per-warp cost is "~N issue slots"), its footprint bytes come from DRAM,
// loaded and stored coalesced at 128 bytes a warp instruction.
func streamDemand(bytes, compute int64) ctaDemand {
	return ctaDemand{insts: uint64(compute + (bytes+warpStream-1)/warpStream), dram: uint64(bytes)}
}

// jitter spreads a modelled CTA time by up to ±ctaJitter, drawn from rng.
func jitter(rng *rand.Rand, cycles float64) int64 {
	return max(int64(cycles*(1+ctaJitter*(2*rng.Float64()-1))), 1)
}

// footprintBytes totals the bytes a CTA's footprints move.
func footprintBytes(fps []footprint) int64 {
	var n int64
	for _, f := range fps {
		for _, s := range f.reads {
			n += int64(s.hi - s.lo + 1)
		}
		for _, s := range f.writes {
			n += int64(s.hi - s.lo + 1)
		}
	}
	return n
}

// pipeline writes one chain of dependent kernels, numbering kernels from 1
// in the order they are written. Every kernel is host-launched at time 0
// into stream 0, so each depends on the one before it through the buffers.
type pipeline struct {
	out       trace.Sink
	rng       *rand.Rand
	pageBytes uint64
	noRanges  bool    // irregular kernels: the profiler computes no ranges
	cost      float64 // kernel_cost: the factor on every CTA's cycles and instructions
	lastID    uint64
}

// newPipeline starts a pipeline generator's chain with the run's seed and
// its kernel_cost parameter.
func newPipeline(out trace.Sink, p Params, seed uint64) (*pipeline, error) {
	cost, err := p.Float("kernel_cost", 0.01, 1000)
	if err != nil {
		return nil, err
	}
	return &pipeline{out: out, rng: newRand(seed), pageBytes: trace.DefaultPageBytes, cost: cost}, nil
}

// kernelCostParam is the pipelines' calibration knob: a factor on what
// each CTA costs (its cycles and its instructions; the bytes it moves are
// the data's and stay). The cost model above is built from first
// principles; the CRCS paper's GPGPU-Sim ran the same kernels at its own
// speed, and where the paper states a stage's share of the baseline's
// runtime (§5.3, Figure 11) the default is the factor that reproduces that
// share (docs/experiments.md, CRCS, "Calibration"). Elsewhere it is 1.
func kernelCostParam(def, why string) Param {
	return Param{Name: "kernel_cost", Default: def, Doc: "factor on each CTA's cycles and instructions (" + why + ")"}
}

// kernel declares and host-launches the next kernel in the chain.
func (p *pipeline) kernel(name string, grid, block [3]uint32, regs int, smem int64) (*trace.Kernel, error) {
	p.lastID++
	k := &trace.Kernel{ID: p.lastID, Name: name, Grid: grid, Block: block, Regs: regs, Smem: smem}
	return k, writeAll(p.out, k, &trace.Launch{Kernel: k.ID})
}

// cta writes CTA cta of kernel k: its cycle record with demand d, then for
// each buffer it touches the profiler's access range and the exact pages,
// one pages record for each point of the run where it first touches some.
func (p *pipeline) cta(k *trace.Kernel, cta int, cycles int64, d ctaDemand, fps []footprint) error {
	loop := newLoop(cycles, fps)
	if p.cost != 1 {
		cycles = max(int64(math.Round(float64(cycles)*p.cost)), 1)
		d.insts = uint64(math.Round(float64(d.insts) * p.cost))
	}
	if err := p.out.Write(&trace.CTA{Kernel: k.ID, CTA: uint64(cta), Cycles: cycles, Insts: d.insts, DRAMBytes: d.dram}); err != nil {
		return err
	}
	for _, f := range fps {
		touched := loop.pages(f, p.pageBytes, cycles)
		if !p.noRanges {
			r := profiledRange(k.ID, cta, f)
			r.At = touched[0].at
			if err := p.out.Write(r); err != nil {
				return err
			}
		}
		for _, t := range touched {
			rec := &trace.Pages{Kernel: k.ID, CTA: uint64(cta), Buffer: f.buf.ID, R: t.r, W: t.w, At: t.at}
			if err := p.out.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// loop is where a CTA's main loop runs, as fractions of its run: it
// starts after ctaStartCycles and ends where the final stores begin.
type loop struct{ start, end float64 }

func newLoop(cycles int64, fps []footprint) loop {
	var stores int64
	for _, f := range fps {
		if !f.sweep {
			for _, s := range f.writes {
				stores += int64(s.hi - s.lo + 1)
			}
		}
	}
	c := float64(max(cycles, 1))
	start := min(float64(ctaStartCycles)/c, 1)
	return loop{start: start, end: max(start, 1-float64(stores)/ctaBytesPerCycle/c)}
}

// pageTouch is the pages of one buffer a CTA first touches at one point.
type pageTouch struct {
	at   int64
	r, w []uint64
}

// pages groups f's pages by where the CTA first touches them (a page read
// and written counts at its first touch, in both lists), earliest first,
// at least one group.
func (l loop) pages(f footprint, pageBytes uint64, cycles int64) []pageTouch {
	first := map[uint64]float64{}
	mark := func(spans []span, frac func(i int) float64, into map[uint64]bool) {
		for i, s := range spans {
			at := frac(i)
			for pg := s.lo / pageBytes; pg <= s.hi/pageBytes; pg++ {
				if old, ok := first[pg]; !ok || at < old {
					first[pg] = at
				}
				into[pg] = true
			}
		}
	}
	reads, writes := map[uint64]bool{}, map[uint64]bool{}
	span := l.end - l.start
	readAt := func(int) float64 { return l.start }
	writeAt := func(int) float64 { return l.end }
	if f.sweep {
		readAt = func(i int) float64 { return l.start + span*float64(i)/float64(len(f.reads)) }
		writeAt = func(i int) float64 { return l.start + span*float64(i+1)/float64(len(f.writes)) }
	}
	mark(f.reads, readAt, reads)
	mark(f.writes, writeAt, writes)
	byAt := map[int64]*pageTouch{}
	for pg, frac := range first {
		at := min(int64(math.Round(frac*float64(cycles))), cycles)
		t := byAt[at]
		if t == nil {
			t = &pageTouch{at: at}
			byAt[at] = t
		}
		if reads[pg] {
			t.r = append(t.r, pg)
		}
		if writes[pg] {
			t.w = append(t.w, pg)
		}
	}
	out := make([]pageTouch, 0, max(len(byAt), 1))
	for _, t := range byAt {
		slices.Sort(t.r)
		slices.Sort(t.w)
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b pageTouch) int { return cmp.Compare(a.at, b.at) })
	if len(out) == 0 {
		out = append(out, pageTouch{})
	}
	return out
}

// profiledRange is what the CRCS pre-profiler computes for one array: it
// evaluates the kernel's affine index functions at the CTA's corner
// threads and loop bounds, so it sees the lowest and highest address and
// nothing in between — one range from the first byte to the last (or the
// footprint's bound, for conditional accesses), with mode rw when the CTA
// both reads and writes the array.
func profiledRange(kernel uint64, cta int, f footprint) *trace.Access {
	lo, hi := ^uint64(0), uint64(0)
	if f.bound != nil {
		lo, hi = f.bound.lo, f.bound.hi
	}
	for _, s := range append(slices.Clip(f.reads), f.writes...) {
		lo, hi = min(lo, s.lo), max(hi, s.hi)
	}
	mode := trace.ModeReadWrite
	switch {
	case len(f.writes) == 0:
		mode = trace.ModeRead
	case len(f.reads) == 0:
		mode = trace.ModeWrite
	}
	return &trace.Access{Kernel: kernel, CTA: uint64(cta), Buffer: f.buf.ID, Lo: lo, Hi: hi, Mode: mode}
}

// grid2D describes a row-major 2-D array of elem-byte elements, width
// elements to a row, and the tiles a kernel cuts it into.
type grid2D struct {
	width, height int
	elem          int
}

// rowSpan is the bytes of row y, columns [x0, x1), clipped to the array;
// ok is false when nothing is left.
func (g grid2D) rowSpan(y, x0, x1 int) (span, bool) {
	x0, x1 = max(x0, 0), min(x1, g.width)
	if y < 0 || y >= g.height || x0 >= x1 {
		return span{}, false
	}
	base := uint64(y) * uint64(g.width) * uint64(g.elem)
	return span{base + uint64(x0*g.elem), base + uint64(x1*g.elem) - 1}, true
}

// rect is the spans of rows [y0, y1), columns [x0, x1), clipped.
func (g grid2D) rect(x0, x1, y0, y1 int) []span {
	var ss []span
	for y := y0; y < y1; y++ {
		if s, ok := g.rowSpan(y, x0, x1); ok {
			ss = append(ss, s)
		}
	}
	return ss
}

// cross is the spans a 5-point stencil of radius rx horizontally and ry
// vertically reads around the tile [x0, x1) × [y0, y1): the tile widened
// by rx on its own rows, plus ry rows above and below at the tile's own
// width (the stencil has no diagonal taps, so no corners), clipped to the
// array as the kernels clamp their indices.
func (g grid2D) cross(x0, x1, y0, y1, rx, ry int) []span {
	var ss []span
	for y := y0 - ry; y < y1+ry; y++ {
		lo, hi := x0, x1
		if y >= y0 && y < y1 {
			lo, hi = x0-rx, x1+rx
		}
		if s, ok := g.rowSpan(y, lo, hi); ok {
			ss = append(ss, s)
		}
	}
	return ss
}

// bytes is the array's size.
func (g grid2D) bytes() int64 { return int64(g.width) * int64(g.height) * int64(g.elem) }

// tiles writes the CTAs of kernel k, which cuts a width×height domain into
// tw×th tiles, one CTA each in row-major order: fps gives a tile's
// footprints, and each CTA costs rounds memory phases, the bytes its
// footprints move and compute cycles of arithmetic.
func (p *pipeline) tiles(k *trace.Kernel, width, height, tw, th, rounds int, compute int64, fps func(x0, x1, y0, y1 int) []footprint) error {
	cta := 0
	for y0 := 0; y0 < height; y0 += th {
		for x0 := 0; x0 < width; x0 += tw {
			f := fps(x0, min(x0+tw, width), y0, min(y0+th, height))
			bytes := footprintBytes(f)
			if err := p.cta(k, cta, ctaCycles(p.rng, rounds, bytes, compute), streamDemand(bytes, compute), f); err != nil {
				return err
			}
			cta++
		}
	}
	return nil
}

// pingPong allocates the two arrays an iterative kernel alternates between:
// step i reads the first when i is even and writes the other. The host
// fills the first; after an even number of steps the answer is back in it.
func pingPong(heap *deviceHeap, name string, bytes int64, steps int) [2]*trace.Buffer {
	roleA, roleB := trace.RoleInput, trace.RoleOutput
	if steps%2 == 0 {
		roleA, roleB = trace.RoleInOut, trace.RoleTemp
	}
	return [2]*trace.Buffer{heap.alloc(name+"_a", bytes, roleA), heap.alloc(name+"_b", bytes, roleB)}
}

// parseSquareIterations reads the parameters of an iterative stencil over
// a square grid: its edge (at least one tile), the iteration count and the
// seed.
func parseSquareIterations(p Params, tile int) (size, iters int, seed uint64, err error) {
	if size, err = p.Int("size", tile, 8192); err != nil {
		return
	}
	if iters, err = p.Int("iterations", 1, 1000); err != nil {
		return
	}
	seed, err = p.Uint64("seed")
	return
}

// pipelineCosts are the shared pipeline constants as parameters of an
// invented pipeline generator. A generator's own dependent memory phases
// (its rounds) enter only as rounds × dramLatencyCycles, and stencil3d's
// bandwidth share only as a factor on ctaBytesPerCycle: each is one
// quantity with the shared constant, varied through it.
func pipelineCosts(own ...costConst) []costConst {
	return append([]costConst{
		cost("cta_start_cycles", &ctaStartCycles, "a CTA's fixed work before its first load"),
		cost("dram_latency_cycles", &dramLatencyCycles, "a dependent DRAM round trip (each of a CTA's memory phases)"),
		floatCost("bytes_per_cycle", &ctaBytesPerCycle, "DRAM bytes a cycle one CTA gets"),
	}, own...)
}
