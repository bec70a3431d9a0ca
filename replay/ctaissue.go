package replay

// ctaIssue is the CTA issue rate (gpu.cta_issue_interval): an SM that
// takes a CTA at cycle t is held, fitting no CTA, until t+every. So when
// several SMs free up a few cycles apart, a kernel's next CTAs spread over
// them, one an SM a cycle, instead of all going to the first: GPGPU-Sim
// issues at most one CTA to a cluster a core cycle (simt_core_cluster::
// issue_block2core stops after one), and under -gpgpu_concurrent_kernel_sm
// 0 the first SM to drain would otherwise take a whole child kernel.
//
// Holds end in the order they began (each lasts every cycles), so they
// are a FIFO; the engine releases those due before it places (release)
// and, while kernels wait to place, wakes at the earliest hold's end
// (wakeAt). Cost: nothing with every = 0 (the presets); otherwise one
// FIFO entry a CTA and one wake-up a cycle in which CTAs were placed.
type ctaIssue struct {
	every int64
	held  []heldSM // holds in the order they end, from head on
	head  int
	woken int64 // the cycle of the last wake-up asked for
}

// heldSM is one SM's hold: it fits no CTA before until.
type heldSM struct {
	sm    int
	until int64
}

func newCTAIssue(every int64) ctaIssue { return ctaIssue{every: every, woken: -1} }

// limits reports whether an SM's CTAs are issued at a limited rate.
func (c *ctaIssue) limits() bool { return c.every > 0 }

// hold holds SM sm from now for the interval.
func (c *ctaIssue) hold(sm int, now int64) {
	if c.head == len(c.held) {
		c.held, c.head = c.held[:0], 0
	}
	c.held = append(c.held, heldSM{sm: sm, until: now + c.every})
}

// due returns the next SM whose hold has ended by now, removing it, or -1.
func (c *ctaIssue) due(now int64) int {
	if c.head == len(c.held) || c.held[c.head].until > now {
		return -1
	}
	h := c.held[c.head]
	c.head++
	return h.sm
}

// wakeAt returns the cycle of the earliest hold's end when no wake-up
// has been asked for it yet (ok), marking it asked.
func (c *ctaIssue) wakeAt() (at int64, ok bool) {
	if c.head == len(c.held) {
		return 0, false
	}
	at = c.held[c.head].until
	if at <= c.woken {
		return 0, false
	}
	c.woken = at
	return at, true
}
