package replay

// The host I/O model of the CRCS paper (§3, §5.1): a prelude that reads the
// input buffers from storage one page at a time, interleaving the buffers
// page by page; each page's copy over PCIe (H2D); the kernels; each output
// page's copy back (D2H); and a postlude that writes the outputs to
// storage. How the stages overlap is the policy's IOMode.

import "github.com/gpureplay/gpureplay/tables"

// IOMode is how a policy overlaps the host stages with the kernels. It only
// matters when the configuration models host I/O (io.model=stages).
type IOMode uint8

const (
	// IOSerial runs the stages back to back: prelude, every H2D copy, the
	// kernels, every D2H copy, postlude (the non-overlapped baseline).
	IOSerial IOMode = iota
	// IOOverlapEnds is the CRCS paper's bound for the state of the art:
	// the first kernel overlaps the prelude, the postlude overlaps the last
	// kernel, copies cost nothing, and kernels are otherwise serialised.
	IOOverlapEnds
	// IOPaged launches every kernel before the prelude and gates each CTA
	// on its pages being ready and owned by its kernel (CRCS §4.1): pages
	// cross PCIe as the prelude reads them and go back as the last kernel
	// using them releases them.
	IOPaged
)

// channel is a device that moves one page at a time at a fixed rate
// (storage, one direction of PCIe). Times accumulate in float cycles and
// round per page, so long runs do not drift.
type channel struct {
	perByte float64 // cycles per byte
	free    float64 // when it can start the next page
}

// move transfers bytes starting no earlier than at; it returns the start
// and end cycles.
func (c *channel) move(at int64, bytes int64) (start, end int64) {
	return c.moveAfter(at, 0, bytes)
}

// moveAfter is move with a fixed cost of fixed cycles before the bytes
// (an explicit copy's io.copy_latency): the channel is busy from start
// to end, fixed + bytes · perByte.
func (c *channel) moveAfter(at, fixed, bytes int64) (start, end int64) {
	s := max(float64(at), c.free)
	c.free = s + float64(fixed) + float64(bytes)*c.perByte
	return roundCycle(s), roundCycle(c.free)
}

// roundCycle rounds a float cycle count to a whole cycle, saturating at
// maxSimCycle so that a rate slow enough to overflow int64 gives a time
// the engine refuses (checkHorizon) rather than a wrapped one.
func roundCycle(f float64) int64 {
	if !(f < maxSimCycle) {
		return maxSimCycle
	}
	return int64(f + 0.5)
}

// maxSimCycle is the latest cycle a replay may reach: 2^62, far beyond any
// trace's own times (trace.MaxCycles, 2^40) plus every modelled cost, and
// with room below int64's end for the sums of a few such times.
const maxSimCycle = 1 << 62

// checkHorizon is the error for a run whose clock reached maxSimCycle:
// some rate is too slow for the bytes it moves.
func checkHorizon(at int64) error {
	if at < maxSimCycle {
		return nil
	}
	return &ModelError{Msg: "simulated time passed 2^62 cycles: a bandwidth (io.ssd_mbps, io.pcie_gbps or gpu.dram_gbps) is too low for the bytes the trace moves"}
}

// pcieCyclesPerByte is one direction of PCIe in GPU cycles per byte: GB/s
// are decimal, so clock_mhz / (1000 · gbps).
func pcieCyclesPerByte(clockMHz, gbps float64) float64 { return clockMHz / (gbps * 1000) }

// span is a stage's first and last cycle; empty until something happens.
type span struct {
	start, end int64
	used       bool
}

// length is the span's cycles, zero when unused.
func (s *span) length() int64 {
	if !s.used {
		return 0
	}
	return s.end - s.start
}

func (s *span) cover(start, end int64) {
	if !s.used {
		s.start, s.end, s.used = start, end, true
		return
	}
	s.start, s.end = min(s.start, start), max(s.end, end)
}

// hostIO is the run's host stages. It is inert (on == false) when the
// configuration does not model I/O.
type hostIO struct {
	on   bool
	mode IOMode
	rows bool // the sink keeps page rows
	// perPage: every page moves and is reported alone (the page space is
	// at most maxPagedPages); otherwise a run of pages that are alike
	// crosses PCIe as one transfer (a run with no rows and no host
	// stages: checkPages refuses the others).
	perPage bool
	space   *pageSpace
	ssdIn   channel // the prelude's storage
	h2d     channel
	d2h     channel
	ssdOut  channel // the postlude's storage
	// copyLatency is an explicit copy's fixed cost on its copy engine
	// (io.copy_latency); the stages' page copies do not pay it.
	copyLatency int64
	prelude     preludeOrder

	stages                [5]span // prelude, h2d, kernels, d2h, postlude
	preludeEnd, kernelsAt int64   // when the prelude ends; when host launches may begin
	postAfterPrelude      int64   // postlude cycles on pages back after preludeEnd
	// IOOverlapEnds: the postlude starts with the last kernel.
	lastKernelStart int64
	postludeStarted bool
}

const (
	stPrelude = iota
	stH2D
	stKernels
	stD2H
	stPostlude
)

var stageNames = [5]string{"prelude", "h2d", "kernels", "d2h", "postlude"}

// newHostIO sets up the stages for a run on a GPU clocked at clockMHz;
// rows: the sink keeps page rows; copyLatency: an explicit copy's fixed
// cost (cycles). Rates: MB/s and GB/s are decimal, so bytes·MHz/(MB/s)
// is cycles.
func newHostIO(on bool, mode IOMode, space *pageSpace, rows bool, clockMHz, ssdMBps, pcieGBps float64, copyLatency int64) *hostIO {
	io := &hostIO{on: on, mode: mode, rows: rows, space: space, perPage: space.pages <= maxPagedPages, copyLatency: copyLatency}
	io.ssdIn.perByte = clockMHz / ssdMBps
	io.ssdOut.perByte = io.ssdIn.perByte
	io.h2d.perByte = pcieCyclesPerByte(clockMHz, pcieGBps)
	io.d2h.perByte = io.h2d.perByte
	io.prelude = newPreludeOrder(space)
	return io
}

// modelled reports whether the configuration models the host stages
// (io.model=stages); otherwise only explicit copies use them.
func (io *hostIO) modelled() bool { return io.on }

// preludeOver reports whether the prelude has read every input page by
// now (always, when the stages are not modelled).
func (io *hostIO) preludeOver(now int64) bool { return !io.on || now >= io.preludeEnd }

// afterPrelude is how many cycles of [from, to) come after the prelude's
// end: 0 when the stages are not modelled.
func (io *hostIO) afterPrelude(from, to int64) int64 {
	if !io.on {
		return 0
	}
	return max(to-max(from, io.preludeEnd), 0)
}

// copy moves an explicit copy's bytes over its direction's copy engine
// (d2h, else h2d), starting no earlier than at; it returns the start and
// end cycles. The engine is held io.copy_latency before the bytes cross:
// a copy's fixed cost (setting up the DMA, the completion), which a
// real copy of a few bytes shows as about a microsecond on the GPU.
// The host stages' page copies (prelude, write-back) do not pay it: they
// are the CRCS paper's model (§5.1), a stream of pages at the PCIe rate
// with no per-page cost, and stay as the paper's evaluation has them.
func (io *hostIO) copy(d2h bool, at, bytes int64) (start, end int64) {
	ch, st := &io.h2d, stH2D
	if d2h {
		ch, st = &io.d2h, stD2H
	}
	start, end = ch.moveAfter(at, io.copyLatency, bytes)
	io.stages[st].cover(start, end)
	return start, end
}

// stageCycles are the run's totals of the stages: the prelude's, the
// kernels' and the postlude's lengths, and the postlude's cycles on pages
// back after the prelude's end.
func (io *hostIO) stageCycles() (prelude, kernels, postlude, postAfterPrelude int64) {
	return io.stages[stPrelude].length(), io.stages[stKernels].length(), io.stages[stPostlude].length(), io.postAfterPrelude
}

// plan computes what is known before the first launch: for IOSerial the
// whole prelude and H2D (emitting each page's ready row); for the other
// modes only where the prelude ends. It returns when host launches may be
// issued.
func (io *hostIO) plan(sink tables.Sink) {
	if !io.on {
		return
	}
	order := io.prelude // a copy: IOPaged walks io.prelude again page by page
	for p, ok := order.next(); ok; p, ok = order.next() {
		s, e := io.ssdIn.move(0, io.space.pageBytesOf(p))
		io.stages[stPrelude].cover(s, e)
		if io.mode == IOOverlapEnds {
			io.pageRow(sink, p, "ready", nil, e) // copies cost nothing
		}
	}
	io.preludeEnd = io.stages[stPrelude].end
	io.ssdIn.free = 0
	if io.mode != IOSerial {
		return
	}
	for p, ok := io.prelude.next(); ok; p, ok = io.prelude.next() {
		s, e := io.h2d.move(io.preludeEnd, io.space.pageBytesOf(p))
		io.stages[stH2D].cover(s, e)
		io.pageRow(sink, p, "ready", nil, e)
	}
	io.kernelsAt = max(io.preludeEnd, io.stages[stH2D].end)
}

// launchBase is the earliest cycle the index-th host launch may be issued:
// host code runs the launches after the prelude and the copies, except
// where the mode overlaps them.
func (io *hostIO) launchBase(index int) int64 {
	if !io.on {
		return 0
	}
	switch io.mode {
	case IOSerial:
		return io.kernelsAt
	case IOOverlapEnds:
		if index == 0 {
			return 0
		}
		return io.preludeEnd
	}
	return 0
}

// nextReady reads the next prelude page and copies it to the GPU (IOPaged):
// it returns the page and the cycle it becomes ready; none when the stages
// are not modelled.
func (io *hostIO) nextReady() (page int, at int64, ok bool) {
	if !io.on {
		return 0, 0, false
	}
	p, ok := io.prelude.next()
	if !ok {
		return 0, 0, false
	}
	n := io.space.pageBytesOf(p)
	_, readEnd := io.ssdIn.move(0, n)
	s, e := io.h2d.move(readEnd, n)
	io.stages[stH2D].cover(s, e)
	return p, e, true
}

// writeBack copies an output page to the host and writes it to storage,
// starting at cycle at; it emits the page's d2h row.
func (io *hostIO) writeBack(sink tables.Sink, p int, kernel *uint64, at int64) {
	n := io.space.pageBytesOf(p)
	s, e := io.d2h.move(at, n)
	io.stages[stD2H].cover(s, e)
	io.pageRow(sink, p, "d2h", kernel, e)
	ws, we := io.ssdOut.move(e, n)
	io.stages[stPostlude].cover(ws, we)
	if e >= io.preludeEnd {
		io.postAfterPrelude += we - ws
	}
}

// writeBackRun writes back the n pages from lo, released together: one
// page at a time (writeBack), or, beyond maxPagedPages, as one transfer of
// their bytes.
func (io *hostIO) writeBackRun(sink tables.Sink, lo, n int, kernel *uint64, at int64) {
	if io.perPage {
		for p := lo; p < lo+n; p++ {
			io.writeBack(sink, p, kernel, at)
		}
		return
	}
	b := io.space.buffer(lo)
	bytes := min(int64(lo-b.first+n)*io.space.pageBytes, b.bytes) - int64(lo-b.first)*io.space.pageBytes
	s, e := io.d2h.move(at, bytes)
	io.stages[stD2H].cover(s, e)
	ws, we := io.ssdOut.move(e, bytes)
	io.stages[stPostlude].cover(ws, we)
	if e >= io.preludeEnd {
		io.postAfterPrelude += we - ws
	}
}

// kernelStarted notes a host kernel's first CTA: under IOOverlapEnds the
// postlude starts with the last kernel.
func (io *hostIO) kernelStarted(k *Kernel, last bool) {
	if io.on && io.mode == IOOverlapEnds && last && !io.postludeStarted {
		io.postludeStarted = true
		io.lastKernelStart = k.startCycle
	}
}

// finish closes the stages once the last kernel has completed at end and
// returns the run's end: for IOSerial the copies back and the postlude
// follow the kernels; for IOPaged pages never released by a kernel are
// written back now.
func (io *hostIO) finish(sink tables.Sink, kernelsStart, kernelsEnd, end int64) int64 {
	if kernelsStart >= 0 {
		io.stages[stKernels].cover(kernelsStart, kernelsEnd)
	}
	if !io.on {
		return end
	}
	switch io.mode {
	case IOSerial:
		io.writeBackAll(sink, end)
	case IOOverlapEnds:
		io.overlapPostlude(kernelsEnd)
	}
	for _, s := range io.stages {
		if s.used {
			end = max(end, s.end)
		}
	}
	return end
}

// writeBackAll is the serial D2H and postlude: every output page crosses
// PCIe, then the postlude writes them all.
func (io *hostIO) writeBackAll(sink tables.Sink, at int64) {
	s := io.space
	for i := range s.bufs {
		b := &s.bufs[i]
		if !b.writes() {
			continue
		}
		for p := b.first; p < b.first+b.pages; p++ {
			st, e := io.d2h.move(at, s.pageBytesOf(p))
			io.stages[stD2H].cover(st, e)
			io.pageRow(sink, p, "d2h", nil, e)
		}
	}
	from := max(at, io.stages[stD2H].end)
	for i := range s.bufs {
		if b := &s.bufs[i]; b.writes() {
			st, e := io.ssdOut.move(from, b.bytes)
			io.stages[stPostlude].cover(st, e)
		}
	}
}

// overlapPostlude writes every output byte starting with the last kernel.
func (io *hostIO) overlapPostlude(end int64) {
	from := end
	if io.postludeStarted {
		from = io.lastKernelStart
	}
	for i := range io.space.bufs {
		if b := &io.space.bufs[i]; b.writes() {
			st, e := io.ssdOut.move(from, b.bytes)
			io.stages[stPostlude].cover(st, e)
		}
	}
}

// emitStages writes the stages table: all five when I/O is modelled, the
// kernels stage alone otherwise.
func (io *hostIO) emitStages(sink tables.Sink) { writeStages(sink, &io.stages, io.on) }

// writeStages writes the stages table: every stage when all, else the
// kernels stage and those that explicit copies used.
func writeStages(sink tables.Sink, stages *[5]span, all bool) {
	for i, s := range stages {
		if !all && i != stKernels && !s.used {
			continue
		}
		sink.Stage(tables.Stage{Stage: stageNames[i], StartCycle: s.start, EndCycle: s.end})
	}
}

// pageRows emits the same event for the n pages from lo, when the sink
// keeps rows.
func (io *hostIO) pageRows(sink tables.Sink, lo, n int, event string, kernel *uint64, at int64) {
	if !io.rows {
		return
	}
	for p := lo; p < lo+n; p++ {
		io.pageRow(sink, p, event, kernel, at)
	}
}

func (io *hostIO) pageRow(sink tables.Sink, p int, event string, kernel *uint64, at int64) {
	b := io.space.buffer(p)
	sink.Page(tables.Page{Page: uint64(p - b.first), Buffer: b.id, Event: event, KernelID: kernel, Cycle: at})
}
