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
