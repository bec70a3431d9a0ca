// Package ingest reads a trace ahead of the replay engine, on goroutines
// of its own, so that a single replay uses a second core.
//
// The engine (package replay) starts no goroutine: like etcd raft's
// RawNode it is a deterministic function of its trace, configuration and
// policy, stepped on its caller's goroutine, which makes it simple to
// test and to run many of at once. Reading the trace is the part of a
// replay worth overlapping with it (decoding, validating, filing launch
// trees: for a launch-heavy trace about half its time), and this package
// is where that happens: a caller that runs one replay at a time passes
// Ahead as replay.Options.Ahead; one that runs as many replays as it has
// cores passes nothing, and every replay reads on its own goroutine. The
// rows are the same either way.
package ingest

import "github.com/gpureplay/gpureplay/trace"

// Ahead reads ahead of the engine (replay.ReadAhead): the trace's records
// on a trace.Prefetcher's goroutine, each of the engine's readers on one
// of its own.
type Ahead struct{}

// Records returns a trace.Prefetcher over src: it decodes src's records
// on a goroutine of its own, a bounded window ahead of its consumer, and
// stops when closed.
func (Ahead) Records(src trace.Source) trace.Source { return trace.NewPrefetcher(src) }

// Go runs run on a goroutine of its own.
func (Ahead) Go(run func()) { go run() }
