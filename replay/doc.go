// Package replay is the discrete-event engine of docs/design.md §3. It replays a
// trace on a model.Config GPU under a Policy and reports result rows to a
// results.Sink.
//
// The engine does no I/O of its own: it pulls records from trace.Sources an
// Opener hands it and pushes rows into a Sink, so it is a deterministic
// function of (trace, config, policy). Events are ordered by (cycle,
// sequence number), so equal inputs give identical rows.
//
// A trace is consumed in two passes that run side by side (package ingest
// opens them): one reads only host launch records, at the pace the
// simulated host issues them; the other reads the bodies of launch trees
// (CTAs, device launches) when their kernels reach the Kernel Distributor.
// The engine starts no goroutine: reading ahead of it on goroutines of
// their own is its caller's choice (Options.Ahead). Memory therefore grows with the
// kernels in flight, not with the length of the trace. Under a task policy
// (Policy.Tasks) one reader hands tasks to the narrow-task runtime as it
// takes them (tasks.go), driven by the same event loop.
package replay
