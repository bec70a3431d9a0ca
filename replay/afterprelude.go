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
	// cycles of their own runs left to do. WarpCycles, RegCycles and
	// SmemCycles weigh each CTA's time by what it holds of an SM's warps,
	// registers and shared memory, which an SM has only so much of.
	CTACycles                         int64
	WarpCycles, RegCycles, SmemCycles float64
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
	n := c.k.decl.need
	a.WarpCycles += float64(n.warps) * float64(run)
	a.RegCycles += float64(n.regs) * float64(run)
	a.SmemCycles += float64(n.smem) * float64(run)
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
