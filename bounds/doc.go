// Package bounds computes, beside a replay, the floors the experiments
// compare runs against: the CDP floor (CDPFloor: no run that launches
// every lane through the device runtime ends before it) and the SPAWN
// blind floor (BlindFloor: no run with a trace's blind launches ends
// before its launch servers have served them).
//
// Each is a replay.Analysis, attached through replay.Options.Analyses and
// fed only by the events the engine emits (host calls, stream heads, CTA
// starts, verdicts, blind calls, kernel completions) and by the
// configuration: it owns its own state, reads the engine only through the
// exported views of a Kernel and a CTAEvent, and never changes a run. A
// replay that attaches none pays nothing for them. cmd/experiment attaches
// both to every run (Attach); the golden cases' cdpfloor and blind tables
// print them.
package bounds

import "github.com/gpureplay/gpureplay/replay"

// Floors are a run's floors once it is over.
type Floors struct {
	CDP   int64 // CDPFloor.Cycles
	Blind int64 // BlindFloor.Cycles
}

// Attach adds a CDP floor and a blind floor for a run of pol on cfg to
// opt's analyses; the function returned reads them once the run is over.
func Attach(opt *replay.Options) func() Floors {
	cdp := NewCDPFloor(opt.Config, opt.Policy)
	blind := NewBlindFloor(opt.Config)
	opt.Analyses = append(opt.Analyses, cdp, blind)
	return func() Floors { return Floors{CDP: cdp.Cycles(), Blind: blind.Cycles()} }
}
