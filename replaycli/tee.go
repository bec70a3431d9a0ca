package replaycli

import (
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/timeline"
)

// tee sends a replay's rows to its table output and to the timeline. The
// timeline stays open for the next replay; runPlan closes it.
type tee struct {
	study.Output
	tl *timeline.Writer
}

func (t tee) Kernel(r tables.Kernel)       { t.Output.Kernel(r); t.tl.Kernel(r) }
func (t tee) CTA(r tables.CTA)             { t.Output.CTA(r); t.tl.CTA(r) }
func (t tee) Launch(r tables.Launch)       { t.Output.Launch(r); t.tl.Launch(r) }
func (t tee) Occupancy(r tables.Occupancy) { t.Output.Occupancy(r); t.tl.Occupancy(r) }
func (t tee) Page(r tables.Page)           { t.Output.Page(r); t.tl.Page(r) }
func (t tee) Stage(r tables.Stage)         { t.Output.Stage(r); t.tl.Stage(r) }
func (t tee) Begin(r tables.Run)           { t.Output.Begin(r); t.tl.Begin(r) }
func (t tee) Summary(r tables.Summary)     { t.Output.Summary(r); t.tl.Summary(r) }

// Sync sends a syncs row on (tee is a tables.SyncSink), to the output
// where it keeps them.
func (t tee) Sync(r tables.Sync) {
	if s, ok := t.Output.(tables.SyncSink); ok {
		s.Sync(r)
	}
	t.tl.Sync(r)
}

// discard is the output of a replay without --out.
type discard struct{}

func (discard) Kernel(tables.Kernel)       {}
func (discard) CTA(tables.CTA)             {}
func (discard) Launch(tables.Launch)       {}
func (discard) Occupancy(tables.Occupancy) {}
func (discard) Page(tables.Page)           {}
func (discard) Stage(tables.Stage)         {}
func (discard) Begin(tables.Run)           {}
func (discard) Summary(tables.Summary)     {}
func (discard) Close() error               { return nil }
func (discard) Abort()                     {}

// DiscardsRows tells the engine not to build the rows (tables.Discarder).
func (discard) DiscardsRows() bool { return true }
