package replay

// A CTA checked in access order (touch.go) runs in segments: from its
// start, or from the last pages it touched, to the next pages it touches,
// where the scoreboard checks them. If they pass it goes on at once; if
// not it stops there, holding its SM slot and demanding nothing of the
// shared hardware (a stalled warp issues nothing), until a page becomes
// ready or changes owner and the check passes. Its cycles stopped count
// as stall cycles. The warps of a CTA stop together: a CTA's touches are
// per CTA in the trace, so the segments are of the CTA's own time alone
// (its longest warp), and a CTA with launch sites is checked whole at its
// start instead.

// runSegment runs c from where it is to its next touch, or to its end
// when none is left. Under the contention model (for a CTA with demand)
// the segment is progress, not wall time.
func (e *engine) runSegment(c *ctaRun) {
	spec := c.spec()
	alone := spec.alone()
	at, more := spec.x.nextTouch()
	c.segment = more
	stop := alone
	if more {
		stop = min(max(at, c.pos), alone)
	}
	work := stop - c.pos
	c.pos = stop
	if e.sms.contention() != nil && (spec.issue > 0 || spec.dram > 0) {
		c.shared, c.alone = true, alone
		if work > 0 {
			e.startJob(c, -1, work, spec.demand())
			return
		}
	}
	kind := evCTAEnd
	if more {
		kind = evTouch
	}
	e.clock.cta(e.clock.now()+work, kind, c, 0)
}

// reachTouch is c at its next touch: it goes on if the pages pass, and
// stops there otherwise.
func (e *engine) reachTouch(c *ctaRun) {
	if e.pages.passesNextTouch(c) {
		e.runSegment(c)
		return
	}
	c.pausedAt = e.clock.now()
	e.ctas.pause(c)
}

// retryPaused resumes, in the order they stopped, every CTA stopped at a
// page whose check now passes.
func (e *engine) retryPaused() {
	e.ctas.retryPaused(func(c *ctaRun) bool {
		if !e.pages.passesNextTouch(c) {
			return false
		}
		e.pauseEnded(c)
		e.runSegment(c)
		return true
	})
}

// pauseEnded accounts a stop at a page that ends now: the CTA's stall,
// and of it the cycles after the prelude's end, which the run after the
// prelude does not count (CTAEvent.RunAfterPrelude).
func (e *engine) pauseEnded(c *ctaRun) {
	c.paused += e.clock.now() - c.pausedAt
	c.stall += e.clock.now() - c.pausedAt
	c.pausedAfter += e.io.afterPrelude(c.pausedAt, e.clock.now())
}
