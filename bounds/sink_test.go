package bounds_test

import "github.com/gpureplay/gpureplay/results"

// discard is a results.Sink that keeps nothing but has the engine build
// every row, as a sink that keeps them would.
type discard struct{}

func (discard) Kernel(results.Kernel)       {}
func (discard) CTA(results.CTA)             {}
func (discard) Launch(results.Launch)       {}
func (discard) Occupancy(results.Occupancy) {}
func (discard) Page(results.Page)           {}
func (discard) Stage(results.Stage)         {}
