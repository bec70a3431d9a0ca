// Package ingest reads a trace into what the replay engine consumes: the
// host's operations and the launch trees' bodies as two streams over the
// same trace (Streams), read ahead of the engine on goroutines of its own
// where its caller asks (Ahead).
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
//
// Several replays of one trace (a command's policies and sweep points)
// decode and validate its bodies once (Shared, over trace.Share): each
// reads the answers of one Validator from a tape bounded in bytes, and
// one the tape leaves behind reads on with a Validator of its own.
//
// What a reader may leave out of the trace it says with trace.ReadOptions
// (the host pass skips all but host operations; the bodies' records are
// reused), never by asking a Source for methods it may lack.
package ingest
