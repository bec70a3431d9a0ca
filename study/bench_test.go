package study

import (
	"testing"

	"github.com/gpureplay/gpureplay/tables"
)

// discard is the output of a replay that keeps no rows, as replay's
// without --out.
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
func (discard) DiscardsRows() bool         { return true }

// BenchmarkSetBFSPolicies runs BFS under four policies as one set, one
// decode for the four (replay --policy=cdp,flat,dtbl,spawn): each
// child's CTA table filed by one replay and offered to the others
// (replay's sharedTable), whose allocations -benchmem counts.
func BenchmarkSetBFSPolicies(b *testing.B) {
	bfs := genTrace(b, b.TempDir(), "bfs", "scale=12")
	plan := Expand(Spec{Traces: []string{bfs}, GPU: "k20c", Policies: []string{"cdp", "flat", "dtbl", "spawn"}})
	opt := Options{Jobs: 1, Open: func(Replay, string) (Output, error) { return discard{}, nil }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(plan, opt); err != nil {
			b.Fatal(err)
		}
	}
}
