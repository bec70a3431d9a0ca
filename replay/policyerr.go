package replay

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gpureplay/gpureplay/model"
)

// PolicyError is a policy's decision the engine cannot carry out: a CTA
// placed on an SM that does not exist or where Fits says it does not fit,
// a coalesce into a kernel that is not eligible or at a negative cost, an
// estimate that is not a finite number. It names the policy and the
// decision; the replay stops there (the replay command's exit status 2).
type PolicyError struct {
	Policy   string
	Decision string // "Place", "Decide"
	Msg      string
}

func (p *PolicyError) Error() string {
	return fmt.Sprintf("policy %s: %s: %s", p.Policy, p.Decision, p.Msg)
}

// PolicyFault marks PolicyError as the engine's own stop of a policy's
// decision (model.CatchPolicyPanic lets it through as it is).
func (*PolicyError) PolicyFault() {}

// refuse stops the replay at a policy's decision it cannot carry out. It
// panics: the policy called in (Dispatch.Place) and may loop on a call
// that does nothing, so the run is unwound to Run, which returns the
// error (recoverPolicy).
func (e *engine) refuse(decision, format string, a ...any) {
	panic(&PolicyError{Policy: e.opt.Policy.Name, Decision: decision, Msg: fmt.Sprintf(format, a...)})
}

// recoverPolicy, deferred in Run, returns a policy's panic (a
// *model.PolicyPanic, raised by the guards policies.New puts around a
// policy's hooks) or a decision the engine refused (*PolicyError) as the
// run's error; any other panic is the engine's own and goes on.
func recoverPolicy(err *error) {
	r := recover()
	if r == nil {
		return
	}
	switch p := r.(type) {
	case *model.PolicyPanic:
		*err = p
	case *PolicyError:
		*err = p
	default:
		panic(r)
	}
}

// checkVerdicts refuses verdicts the engine cannot carry out for site s:
// a decision it does not know, a coalesce into a kernel that is
// complete, not in the Kernel Distributor (not holding an entry, inKD:
// Site.KD is those kernels, and scanning it for every lane would double
// DTBL's own search) or of another name or block shape than the child
// (its CTAs would run as another kernel's), a negative or impossibly
// long search (under dtbl.match=function the block shape may differ: the
// group's CTAs then run with the target's block and resources, as the
// DTBL authors' simulator issues them, gpu-sim.cc:1937 taking the
// kernel's threads_per_cta), and estimates that are not finite numbers (the launches
// table would hold NaN or ±Inf).
func (se *siteEngine) checkVerdicts(s *Site, out []Verdict) error {
	for i := range out {
		v := &out[i]
		if v.Decision-Launch >= 2 && !se.coalesceOK(&s.Lanes[i], v) || !estimatesOK(v) {
			return se.verdictError(s, i, v)
		}
	}
	return nil
}

// verdictOK reports whether checkVerdicts finds nothing wrong with v, the
// verdict for lane l: its tests with no error built. A loop that built
// each lane's error-making closure and called notFinite three times cost
// BFS --quick some 150 instructions a verdict under DTBL, whose groups
// are checked once at their site and once at their command's arrival
// (siteEngine.match); with its tests in one call, SPAWN's took 72.
func (se *siteEngine) verdictOK(l *Lane, v *Verdict) bool {
	return (v.Decision-Launch < 2 || se.coalesceOK(l, v)) && estimatesOK(v)
}

// coalesceOK reports whether v, a verdict neither Launch nor Inline for
// lane l, is a coalesce the engine can carry out.
func (se *siteEngine) coalesceOK(l *Lane, v *Verdict) bool {
	t := v.Target
	return v.Decision == Coalesce && t != nil && t.state != kComplete && t.kernelRun != nil && t.inKD &&
		sameString(t.decl.Name, l.ChildName) && (se.anyShape || t.decl.Block == l.ChildBlock) &&
		uint64(v.SearchCycles) <= uint64(model.MaxCost)
}

// sameString is a == b, with no call where the two share their bytes, as
// the names a trace's reader interns do: a kernel's name and its child's
// lane's (BFS scale 16 under DTBL: a runtime.memequal call a group).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// estimatesOK reports whether v's estimates are each unset or a finite
// number (x-x is 0 for a finite x, NaN for NaN and ±Inf), and its queued
// CTAs unset or a count. Small enough to inline: the verdicts with no
// estimate (flat's, DTBL's) pass its four tests with no call.
func estimatesOK(v *Verdict) bool {
	return (v.EstChildCycles == nil || *v.EstChildCycles-*v.EstChildCycles == 0) &&
		(v.EstParentCycles == nil || *v.EstParentCycles-*v.EstParentCycles == 0) &&
		(v.ConcurrentCTAs == nil || *v.ConcurrentCTAs-*v.ConcurrentCTAs == 0) &&
		(v.QueuedCTAs == nil || *v.QueuedCTAs >= 0)
}

// verdictError is the error checkVerdicts returns for out[i], the verdict
// for s.Lanes[i], which verdictOK refused.
func (se *siteEngine) verdictError(s *Site, i int, v *Verdict) error {
	l := &s.Lanes[i]
	bad := func(format string, a ...any) error {
		return &PolicyError{Policy: se.policy, Decision: "Decide", Msg: fmt.Sprintf("site %d, lane %d (child kernel %d): ", s.ID, l.Lane, l.ChildKernel) + fmt.Sprintf(format, a...)}
	}
	switch v.Decision {
	case Launch, Inline:
	case Coalesce:
		t := v.Target
		switch {
		case t == nil:
			return bad("coalesce without a target kernel")
		case t.Complete():
			return bad("coalesce into kernel %d, which is complete", t.id)
		case t.kernelRun == nil || !t.inKD: // Site.KD is the kernels holding an entry now
			return bad("coalesce into kernel %d, which is not in the Kernel Distributor (Site.KD)", t.id)
		case t.Name() != l.ChildName || !se.anyShape && t.Block() != l.ChildBlock:
			return bad("coalesce into kernel %d (%s, block %v), not of the child's name and block shape (%s, %v)", t.id, t.Name(), t.Block(), l.ChildName, l.ChildBlock)
		case v.SearchCycles < 0 || v.SearchCycles > model.MaxCost:
			return bad("coalesce searching %d cycles; want 0 to %d", v.SearchCycles, int64(model.MaxCost))
		}
	default:
		return bad("decision %d is none of Launch, Inline and Coalesce", v.Decision)
	}
	switch {
	case notFinite(v.EstChildCycles):
		return bad("%s is %v; want a finite number", "EstChildCycles", *v.EstChildCycles)
	case notFinite(v.EstParentCycles):
		return bad("%s is %v; want a finite number", "EstParentCycles", *v.EstParentCycles)
	case notFinite(v.ConcurrentCTAs):
		return bad("%s is %v; want a finite number", "ConcurrentCTAs", *v.ConcurrentCTAs)
	case v.QueuedCTAs != nil && *v.QueuedCTAs < 0:
		return bad("QueuedCTAs is %d; want a count", *v.QueuedCTAs)
	}
	return &PolicyError{Policy: se.policy, Decision: "Decide", Msg: fmt.Sprintf("site %d, lane %d: a verdict the engine refused", s.ID, l.Lane)}
}

// notFinite reports whether a verdict's estimate is set and not a
// finite number.
func notFinite(p *float64) bool { return p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) }
