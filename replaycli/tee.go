package replaycli

import (
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/timeline"
)

// tee sends a replay's rows to its table output and to the timeline. The
// timeline stays open for the next replay; runPlan closes it.
type tee struct {
	study.Output
	tl *timeline.Writer
}

func (t tee) Kernel(r results.Kernel)       { t.Output.Kernel(r); t.tl.Kernel(r) }
func (t tee) CTA(r results.CTA)             { t.Output.CTA(r); t.tl.CTA(r) }
func (t tee) Launch(r results.Launch)       { t.Output.Launch(r); t.tl.Launch(r) }
func (t tee) Occupancy(r results.Occupancy) { t.Output.Occupancy(r); t.tl.Occupancy(r) }
func (t tee) Page(r results.Page)           { t.Output.Page(r); t.tl.Page(r) }
func (t tee) Stage(r results.Stage)         { t.Output.Stage(r); t.tl.Stage(r) }
func (t tee) Begin(r results.Run)           { t.Output.Begin(r); t.tl.Begin(r) }
func (t tee) Summary(r results.Summary)     { t.Output.Summary(r); t.tl.Summary(r) }

// discard is the output of a replay without --out.
type discard struct{}

func (discard) Kernel(results.Kernel)       {}
func (discard) CTA(results.CTA)             {}
func (discard) Launch(results.Launch)       {}
func (discard) Occupancy(results.Occupancy) {}
func (discard) Page(results.Page)           {}
func (discard) Stage(results.Stage)         {}
func (discard) Begin(results.Run)           {}
func (discard) Summary(results.Summary)     {}
func (discard) Close() error                { return nil }
func (discard) Abort()                      {}

// DiscardsRows tells the engine not to build the rows (results.Discarder).
func (discard) DiscardsRows() bool { return true }
