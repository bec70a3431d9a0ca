package replay

// mechanism is an optional part of the model that takes part in the lives
// of CTAs and kernels: the CRCS page gate (pagegate.go), a policy's Gate,
// KLAP's aggregation at kernel scope (the device runtime). The engine's
// CTA and kernel paths call every mechanism the run has at the points
// below, in the order they were added, and name none of them; a run
// without one pays a test of the slice's length.
type mechanism interface {
	// placed is c placed on its SM: its spec is known.
	placed(c *ctaRun)
	// mayStart says whether placed CTA c may start at now; a CTA starts
	// only when every mechanism says yes (asked in order, the first no
	// ends the asking).
	mayStart(c *ctaRun, now int64) bool
	// ctaEnded is c ending at now, after its row and the observers,
	// before its record is reused.
	ctaEnded(c *ctaRun, now int64)
	// kernelReady is k arriving in the Kernel Distributor at now.
	kernelReady(k *Kernel, now int64)
	// kernelDrained is k's own CTAs and groups done: it has given its
	// Kernel Distributor entry back, and may still wait for children.
	kernelDrained(k *Kernel)
}

// noLifecycle is a mechanism that does nothing at every point: a
// mechanism embeds it and writes the points it takes part in.
type noLifecycle struct{}

func (noLifecycle) placed(*ctaRun)               {}
func (noLifecycle) mayStart(*ctaRun, int64) bool { return true }
func (noLifecycle) ctaEnded(*ctaRun, int64)      {}
func (noLifecycle) kernelReady(*Kernel, int64)   {}
func (noLifecycle) kernelDrained(*Kernel)        {}

// policyGate is a policy's Gate as a mechanism: it says whether a placed
// CTA may start.
type policyGate struct {
	noLifecycle
	g Gate
}

func newPolicyGate(g Gate) policyGate { return policyGate{g: g} }

func (p policyGate) mayStart(c *ctaRun, _ int64) bool { return p.g.MayStart(c.k, c.idx) }
