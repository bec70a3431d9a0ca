// Package bounds computes, beside a replay, the bounds the experiments
// compare runs against: the CDP floor (CDPFloor: no run that launches
// every lane through the device runtime ends before it), the SPAWN blind
// floor (BlindFloor: no run with a trace's blind launches ends before its
// launch servers have served them), the work after the CRCS prelude
// (AfterPrelude: what no overlap can hide behind it) and what a trace of
// narrow tasks asks of any runtime, with its critical paths (TaskBounds).
//
// Each is a replay.Analysis, attached through replay.Options.Analyses and
// fed only by the events the engine emits (host calls, stream heads, CTA
// starts, verdicts, blind calls, kernel completions) and by the
// configuration: it owns its own state, reads the engine only through the
// exported views of a Kernel and a CTAEvent, and never changes a run. A
// replay that attaches none pays nothing for them. cmd/experiment attaches
// all of them to every run (Attach); the golden cases' cdpfloor and blind
// tables print the floors.
package bounds

import "github.com/gpureplay/gpureplay/replay"

// Bounds are what a run's analyses found once it is over.
type Bounds struct {
	CDPFloor     int64            // CDPFloor.Cycles
	BlindFloor   int64            // BlindFloor.Cycles
	AfterPrelude AfterPreludeWork // AfterPrelude.Result
	Tasks        TaskWork         // TaskBounds.Result
}

// Attach adds every analysis of the package for a run of opt.Policy on
// opt.Config to opt's analyses; the function returned reads them from
// the run's Stats once it is over.
func Attach(opt *replay.Options) func(*replay.Stats) Bounds {
	cdp := NewCDPFloor(opt.Config, opt.Policy)
	blind := NewBlindFloor(opt.Config)
	after := &AfterPrelude{}
	tasks := NewTaskBounds(opt.Config)
	opt.Analyses = append(opt.Analyses, cdp, blind, after, tasks)
	return func(st *replay.Stats) Bounds {
		return Bounds{CDPFloor: cdp.Cycles(), BlindFloor: blind.Cycles(), AfterPrelude: after.Result(st), Tasks: tasks.Result()}
	}
}
