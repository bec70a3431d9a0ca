package model

import "fmt"

// PolicyPanic is a policy's own code panicking: its New, a hook the
// engine calls (Decide, Place, MayStart, CTAStarted, CTAFinished,
// KernelArrived) or a declared Param's Check. It is recovered where the
// policy's code is called and reported as the policy's defect (the
// replay command's exit status 1), not as the user's input.
type PolicyPanic struct {
	Policy string // the policy's name
	Hook   string // what of it panicked: "New", "Decide", "Param k.x Check"
	Value  any    // what it panicked with
}

func (p *PolicyPanic) Error() string {
	return fmt.Sprintf("policy %s: %s panicked: %v", p.Policy, p.Hook, p.Value)
}

// CatchPolicyPanic, deferred around a call into a policy's code, turns a
// panic there into a panic with a *PolicyPanic naming policy and hook,
// for the caller's recover to tell from a panic of its own. A value that
// is already a *PolicyPanic, or one the engine raised on purpose to stop
// a policy's bad decision (it implements PolicyFault), goes on as it is.
func CatchPolicyPanic(policy, hook string) {
	r := recover()
	if r == nil {
		return
	}
	switch r.(type) {
	case *PolicyPanic, PolicyFault:
		panic(r)
	}
	panic(&PolicyPanic{Policy: policy, Hook: hook, Value: r})
}

// PolicyFault is implemented by the error a replay raises when a policy
// decided what the engine cannot carry out (replay.PolicyError).
type PolicyFault interface {
	error
	PolicyFault()
}
