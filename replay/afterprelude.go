package replay

// What a run does after the prelude ends (io.model=stages): the work no
// overlap can hide behind the prelude. In the as-soon-as-possible
// schedule (CRCS with a slot for every CTA, no contention, no costs) every
// CTA gets as far as its pages allow as early as they allow, so what is
// left after the prelude there is left after it in any schedule; with the
// GPU's throughput that bounds every scheduler (cmd/experiment, CRCS).

// AfterPrelude is a run's work after its prelude ended.
type AfterPrelude struct {
	// CTACycles is host kernels' CTA time after the prelude's end, less
	// the time they stood stopped at pages: under no contention, the
	// cycles of their own runs left to do. ByShape splits it by the
	// kernels' CTA shapes, whose occupancy says how many run at once.
	CTACycles int64
	ByShape   []ShapeCycles
	// Insts and DRAMBytes are that time's demand (each CTA's demand per
	// cycle alone times its cycles after the prelude).
	Insts, DRAMBytes float64
	// PostludeCycles is the postlude's work on pages that came back from
	// the GPU after the prelude's end.
	PostludeCycles int64
}

// countAfterPrelude adds a finished host CTA's time after the prelude.
func (e *engine) countAfterPrelude(c *ctaRun, spec *ctaSpec) {
	p := e.io.preludeEnd
	if !e.io.on || c.k.order < 0 || e.now <= p {
		return
	}
	run := e.now - max(c.start, p) - c.pausedAfter
	if run <= 0 {
		return
	}
	a := &e.stats.AfterPrelude
	a.CTACycles += run
	a.add(ShapeCycles{Threads: c.k.decl.Threads(), Regs: c.k.decl.Regs, Smem: c.k.decl.Smem}, run)
	a.Insts += float64(spec.issue) * float64(run)
	a.DRAMBytes += float64(spec.dram) * float64(run)
}

// pauseEnded accounts a stop at a page that ends now.
func (e *engine) pauseEnded(c *ctaRun) {
	c.paused += e.now - c.pausedAt
	c.stall += e.now - c.pausedAt
	if e.io.on {
		c.pausedAfter += max(e.now-max(c.pausedAt, e.io.preludeEnd), 0)
	}
}

// ShapeCycles is CTA time of one CTA shape (threads, registers per
// thread, shared memory).
type ShapeCycles struct {
	Threads, Regs int
	Smem          int64
	Cycles        int64
}

// add counts run cycles of CTAs of shape sh; a run has few shapes.
func (a *AfterPrelude) add(sh ShapeCycles, run int64) {
	for i := range a.ByShape {
		if s := &a.ByShape[i]; s.Threads == sh.Threads && s.Regs == sh.Regs && s.Smem == sh.Smem {
			s.Cycles += run
			return
		}
	}
	sh.Cycles = run
	a.ByShape = append(a.ByShape, sh)
}
