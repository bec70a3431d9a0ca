package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// A policy from another module is code the replay cannot vouch for: a
// panic in it is recovered where the replay calls it and reported as
// "policy NAME: HOOK panicked: ..." (model.PolicyPanic), so the command
// exits 1 with its temporary files removed instead of dying with a Go
// panic. The built-in policies are not wrapped: their hooks are on the
// replay's hottest paths, and a panic in them is the replay's own bug.

// newPolicy calls i.New, recovering a panic as a *model.PolicyPanic, and
// guards the hooks of a policy from another module.
func newPolicy(i *Info, cfg model.Config) (q replay.Policy, err error) {
	defer func() {
		if r := recover(); r != nil {
			if pp, ok := r.(*model.PolicyPanic); ok {
				err = pp
				return
			}
			err = &model.PolicyPanic{Policy: i.Name, Hook: "New", Value: r}
		}
	}()
	q = i.New(cfg)
	if i.builtin {
		return q, nil
	}
	return guard(q, i.Name), nil
}

// guard wraps each hook of q in one that names the policy in a panic.
func guard(q replay.Policy, name string) replay.Policy {
	if q.Sites != nil {
		q.Sites = guardedSites{q.Sites, name}
	}
	if q.Placer != nil {
		q.Placer = guardedPlacer{q.Placer, name}
	}
	if q.Gate != nil {
		q.Gate = guardedGate{q.Gate, name}
	}
	if o, ok := q.Observer.(replay.ArrivalObserver); ok {
		q.Observer = guardedArrivals{guardedObserver{o, name}, o}
	} else if q.Observer != nil {
		q.Observer = guardedObserver{q.Observer, name}
	}
	return q
}

type guardedSites struct {
	p    replay.SiteDecider
	name string
}

func (g guardedSites) Decide(s *replay.Site, out []replay.Verdict) {
	defer model.CatchPolicyPanic(g.name, "Decide")
	g.p.Decide(s, out)
}

type guardedPlacer struct {
	p    replay.Placer
	name string
}

func (g guardedPlacer) Place(d *replay.Dispatch) {
	defer model.CatchPolicyPanic(g.name, "Place")
	g.p.Place(d)
}

type guardedGate struct {
	p    replay.Gate
	name string
}

func (g guardedGate) MayStart(k *replay.Kernel, cta uint64) bool {
	defer model.CatchPolicyPanic(g.name, "MayStart")
	return g.p.MayStart(k, cta)
}

type guardedObserver struct {
	p    replay.Observer
	name string
}

func (g guardedObserver) CTAStarted(ev *replay.CTAEvent) {
	defer model.CatchPolicyPanic(g.name, "CTAStarted")
	g.p.CTAStarted(ev)
}

func (g guardedObserver) CTAFinished(ev *replay.CTAEvent) {
	defer model.CatchPolicyPanic(g.name, "CTAFinished")
	g.p.CTAFinished(ev)
}

type guardedArrivals struct {
	guardedObserver
	a replay.ArrivalObserver
}

func (g guardedArrivals) KernelArrived(k *replay.Kernel, cycle int64) {
	defer model.CatchPolicyPanic(g.name, "KernelArrived")
	g.a.KernelArrived(k, cycle)
}

// guardCheck wraps a declared Param's Check so a panic in it names the
// policy (model.Config.Validate recovers it as a *model.PolicyPanic).
func guardCheck(p model.Param, policy string) model.Param {
	if check := p.Check; check != nil {
		p.Check = func(v any) string {
			defer model.CatchPolicyPanic(policy, "Param "+p.Name+" Check")
			return check(v)
		}
	}
	return p
}
