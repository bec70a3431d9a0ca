package accelsim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// ctaWork accumulates one thread block in the second pass: its warps'
// costs, the pages it touched and, per buffer, the hull of its real
// addresses against the hull of the corner threads' samples.
type ctaWork struct {
	opts  *Options
	geo   *geometry
	win   windows
	table *bufferTable
	shift uint

	warpCycles []float64
	// Barriers: each warp's time at its last barrier and how many it
	// passed, and for the k-th barrier the longest any warp took to reach
	// it from the (k-1)-th (see synced).
	lastBar    []float64
	bars       []int
	maxSeg     []float64
	phaseInsts []float64 // warp instructions issued between barrier k-1 and k, all warps
	release    []float64 // scratch for slowest
	insts      uint64
	sectors32  uint64    // global and local 32-byte sectors its warps moved
	now        float64   // the issuing warp's time before the current instruction
	bufs       []*ctaBuf // buffers touched by this CTA
	slot       []int32   // per buffer of the table, 1 + its index in bufs; 0 when untouched
	spare      []*ctaBuf // cleared entries for reuse
	cache      regionCache
	stamp      uint64 // numbers memory instructions, to mark the buffers each touched

	// scratch for one instruction's global lanes
	n       int
	lane    [32]uint8
	addr    [32]uint64
	touched []*ctaBuf
	sectors []uint64
}

// ctaBuf is what one CTA did to one buffer.
type ctaBuf struct {
	b             *buffer
	pages         map[uint64]pageUse
	lastPage      uint64
	lastUse       pageUse
	acc           access
	first         int64 // where its first touch lies in the CTA's run (positions)
	real, sampled span
	hasSample     bool
	stamp         uint64
}

func newCTAWork(opts *Options, h *kernelHeader, table *bufferTable) *ctaWork {
	return &ctaWork{
		opts:       opts,
		geo:        newGeometry(h.block),
		win:        windows{shared: h.shmemBase, local: h.localBase},
		table:      table,
		shift:      uint(bits.TrailingZeros64(uint64(opts.PageBytes))),
		warpCycles: make([]float64, h.warps()),
		lastBar:    make([]float64, h.warps()),
		bars:       make([]int, h.warps()),
		slot:       make([]int32, len(table.all)),
		cache:      regionCache{regionOf: table.index},
	}
}

// reset makes the work ready for the next CTA.
func (c *ctaWork) reset() {
	clear(c.warpCycles)
	clear(c.lastBar)
	clear(c.bars)
	c.maxSeg = c.maxSeg[:0]
	c.phaseInsts = c.phaseInsts[:0]
	c.insts, c.sectors32 = 0, 0
	for _, cb := range c.bufs {
		clear(cb.pages)
		c.slot[cb.b.id-1] = 0
		c.spare = append(c.spare, cb)
	}
	c.bufs = c.bufs[:0]
}

// inst accounts one instruction of a warp.
func (c *ctaWork) inst(warp int, in *inst) error {
	c.now = c.warpCycles[warp] // it issues once the warp's earlier ones are done
	c.insts++
	c.warpCycles[warp] += c.opts.CPI
	for len(c.phaseInsts) <= c.bars[warp] {
		c.phaseInsts = append(c.phaseInsts, 0)
	}
	c.phaseInsts[c.bars[warp]]++
	if isBarrier(in.opcode) {
		c.barrier(warp)
		return nil
	}
	if in.width == 0 || in.n == 0 {
		return nil
	}
	offChip, onChip, err := c.lanes(in)
	if err != nil {
		return err
	}
	switch {
	case offChip:
		c.warpCycles[warp] += (c.opts.GlobalLatency + float64(len(c.sectors)-1)*c.opts.SectorCycles) / c.opts.MemParallelism
		c.sectors32 += uint64(len(c.sectors))
	case onChip:
		c.warpCycles[warp] += c.opts.SharedLatency / c.opts.MemParallelism
	}
	if c.n > 0 {
		c.sample(warp, in)
	}
	return nil
}

// lanes sorts a memory instruction's active lanes by space: global lanes
// are recorded against their buffers and kept for sampling; global and
// local lanes (off chip) count their sectors; shared and constant ones are
// on chip.
func (c *ctaWork) lanes(in *inst) (offChip, onChip bool, err error) {
	sp, acc := classify(in.opcode)
	c.n, c.sectors, c.touched = 0, c.sectors[:0], c.touched[:0]
	c.stamp++
	for j := 0; j < in.n; j++ {
		a := in.addr[j]
		e := lastByte(a, in.width)
		lsp := sp
		if sp == spaceGeneric {
			lsp = c.win.where(a)
		}
		switch lsp {
		case spaceShared, spaceConstant:
			onChip = true
			continue
		case spaceGeneric:
			if err := c.global(a, e, acc); err != nil {
				return false, false, err
			}
			c.lane[c.n], c.addr[c.n] = in.lane[j], a
			c.n++
		}
		offChip = true
		c.addSectors(a, e)
	}
	return offChip, onChip, nil
}

// lastByte is the last byte of a width-byte access at a, saturating at the
// top of the address space.
func lastByte(a uint64, width uint32) uint64 {
	if a > math.MaxUint64-uint64(width-1) {
		return math.MaxUint64
	}
	return a + uint64(width-1)
}

// addSectors adds the 32-byte sectors of [a, e] to the instruction's set.
func (c *ctaWork) addSectors(a, e uint64) {
	for s := a >> 5; ; s++ {
		if n := len(c.sectors); n == 0 || c.sectors[n-1] != s && (n > 64 || !slices.Contains(c.sectors, s)) {
			c.sectors = append(c.sectors, s)
		}
		if s == e>>5 {
			return
		}
	}
}

// global records a global access to [a, e], splitting it at buffer edges.
func (c *ctaWork) global(a, e uint64, acc access) error {
	for {
		i, inside, hi := c.cache.find(a)
		if !inside {
			// The first pass made a buffer of every byte touched.
			return &Error{Msg: "address outside every buffer; was a kernel file changed during the conversion?"}
		}
		end := min(e, hi)
		cb := c.buf(i)
		cb.add(a, end, acc, c.shift, c.now)
		if cb.stamp != c.stamp {
			cb.stamp = c.stamp
			c.touched = append(c.touched, cb)
		}
		if end == e || end == math.MaxUint64 {
			return nil
		}
		a = end + 1
	}
}

// buf returns the CTA's entry for the i-th buffer of the table, making it
// on first use.
func (c *ctaWork) buf(i int) *ctaBuf {
	if k := c.slot[i]; k > 0 {
		return c.bufs[k-1]
	}
	var cb *ctaBuf
	if n := len(c.spare); n > 0 {
		cb, c.spare = c.spare[n-1], c.spare[:n-1]
		pages := cb.pages
		*cb = ctaBuf{pages: pages}
	} else {
		cb = &ctaBuf{pages: make(map[uint64]pageUse)}
	}
	cb.b = &c.table.all[i]
	cb.real = span{lo: math.MaxUint64}
	c.bufs = append(c.bufs, cb)
	c.slot[i] = int32(len(c.bufs))
	return cb
}

// add records an access to [a, e] inside the buffer by an instruction its
// warp issues at time now. A warp's times only grow, so a page is skipped
// when the page last added already has the access at no later a time.
func (cb *ctaBuf) add(a, e uint64, acc access, shift uint, now float64) {
	cb.acc |= acc
	cb.real.lo, cb.real.hi = min(cb.real.lo, a), max(cb.real.hi, e)
	for p := (a - cb.b.lo) >> shift; p <= (e-cb.b.lo)>>shift; p++ {
		if len(cb.pages) > 0 && p == cb.lastPage && cb.lastUse.acc&acc == acc && cb.lastUse.first <= now {
			continue
		}
		u, seen := cb.pages[p]
		if !seen || now < u.first {
			u.first = now
		}
		u.acc |= acc
		cb.pages[p] = u
		cb.lastPage, cb.lastUse = p, u
	}
}

// sample adds the corner threads' addresses for this instruction to the
// sampled hull of every buffer it touched.
func (c *ctaWork) sample(warp int, in *inst) {
	f, affine := fitAffine(c.n, &c.lane, &c.addr, c.geo.warp(warp), c.geo.vary)
	for _, k := range c.geo.corners {
		a, ok := uint64(0), false
		if k.warp == warp {
			a, ok = c.direct(k.lane)
		}
		if !ok && affine {
			a, ok = f.at(k.xyz)
		}
		if !ok {
			continue
		}
		e := lastByte(a, in.width)
		for _, cb := range c.touched {
			if !cb.hasSample {
				cb.sampled, cb.hasSample = span{a, e}, true
			} else {
				cb.sampled.lo, cb.sampled.hi = min(cb.sampled.lo, a), max(cb.sampled.hi, e)
			}
		}
	}
}

// direct returns the address of a lane of the instruction's warp, if it is
// an active global lane.
func (c *ctaWork) direct(lane int) (uint64, bool) {
	for j := 0; j < c.n; j++ {
		if int(c.lane[j]) == lane {
			return c.addr[j], true
		}
	}
	return 0, false
}

// barrier records that warp reached its next CTA barrier, at its own
// time so far.
func (c *ctaWork) barrier(warp int) {
	k := c.bars[warp]
	if k == len(c.maxSeg) {
		c.maxSeg = append(c.maxSeg, 0)
	}
	c.maxSeg[k] = max(c.maxSeg[k], c.warpCycles[warp]-c.lastBar[warp])
	c.lastBar[warp] = c.warpCycles[warp]
	c.bars[warp]++
}

// slowest is when the CTA's last warp ends, its warps held at each
// barrier (__syncthreads) until every warp that reaches it has. Between
// two barriers the warps share the SM's issue width as they do over a
// whole CTA without barriers (cycles), so the k-th barrier releases at
// the (k-1)-th's release plus the longer of the longest any warp took
// between the two and the instructions all warps issued between them
// over the issue width; a warp ends its own time after its last barrier
// later, and the instructions after the last barrier take their share of
// the width too. A warp that exits before a barrier does not hold it, as
// on the hardware. Without barriers it is the slowest warp's own time
// (cycles then bounds it by the issue width, as before).
//
// The trace lists a CTA's warps one after another, so the warps' own
// times are all the pass has when it reads an instruction; positions
// (positions.go) place a first touch at its warp's own time scaled to
// the CTA's cycles, which is never later than the synchronised time
// scaled the same way.
func (c *ctaWork) slowest() float64 {
	nb := len(c.maxSeg)
	c.release = append(c.release[:0], 0)
	for k, seg := range c.maxSeg {
		c.release = append(c.release, c.release[k]+max(seg, c.phaseInsts[k]/c.opts.IssueWidth))
	}
	slowest := 0.0
	if nb > 0 && len(c.phaseInsts) > nb {
		slowest = c.release[nb] + c.phaseInsts[nb]/c.opts.IssueWidth
	}
	for w, t := range c.warpCycles {
		if b := c.bars[w]; b > 0 {
			t = c.release[b] + t - c.lastBar[w]
		}
		slowest = max(slowest, t)
	}
	return slowest
}

// cycles is the CTA's time under the cost model.
func (c *ctaWork) cycles() int64 {
	t := math.Ceil(max(c.slowest(), float64(c.insts)/c.opts.IssueWidth))
	if t >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(t)
}

// demand is the CTA's demand for the contention model: the warp
// instructions its trace lists, and 32 bytes for every global or local
// sector its instructions touched. There is no cache model: every such
// sector is DRAM traffic (docs/model.md), an upper bound for kernels that
// reuse data through the L1 or L2.
func (c *ctaWork) demand() (insts, dramBytes uint64) {
	return c.insts, 32 * c.sectors32
}

// regular reports whether every real address lies in the sampled hulls.
func (c *ctaWork) regular() bool {
	for _, cb := range c.bufs {
		if !cb.hasSample || cb.real.lo < cb.sampled.lo || cb.real.hi > cb.sampled.hi {
			return false
		}
	}
	return true
}

// sortBufs orders the touched buffers by id, for deterministic output.
func (c *ctaWork) sortBufs() {
	slices.SortFunc(c.bufs, func(a, b *ctaBuf) int { return cmp.Compare(a.b.id, b.b.id) })
}

// access is the buffer's access record for the CTA: the sampled hull,
// clipped to the buffer as the profiler ignores bounds past the allocation,
// at the CTA's first touch of the buffer (set by records).
func (cb *ctaBuf) access(kernel, cta uint64) trace.Access {
	mode := trace.ModeRead
	switch cb.acc {
	case accWrite:
		mode = trace.ModeWrite
	case accBoth:
		mode = trace.ModeReadWrite
	}
	lo, hi := max(cb.sampled.lo, cb.b.lo), min(cb.sampled.hi, cb.b.hi)
	return trace.Access{Kernel: kernel, CTA: cta, Buffer: cb.b.id, Lo: lo - cb.b.lo, Hi: hi - cb.b.lo, Mode: mode, At: cb.first}
}
