package ingest

import (
	"io"

	"github.com/gpureplay/gpureplay/trace"
)

// Shared is the launch trees' bodies of one trace, decoded and validated
// once for several replays (trace.Share): replay i reads them through
// Bodies(i), passed to Open (replay.Options.Bodies), and each opens only
// its own host pass. The replays may run side by side or one after
// another; the tape between the first and the last is bounded
// (trace.ShareBudget), and a replay it leaves behind reads on alone, as
// it would without sharing, or, where it had not started, shares a fresh
// decode with the others so left. The rows are the same either way.
type Shared struct {
	share *trace.Share
}

// NewShared opens the trace's bodies, as Open opens them, for n replays;
// budget bounds the tape in bytes (0: trace.ShareBudget).
func NewShared(open func() (trace.Source, error), n int, budget int64) (*Shared, error) {
	reopen := func() (*trace.Validator, io.Closer, error) {
		v, c, _, err := openBodies(open)
		return v, c, err
	}
	v, c, index, err := openBodies(open)
	if err != nil {
		return nil, err
	}
	return &Shared{share: trace.NewShare(v, c, index, n, budget, reopen)}, nil
}

// Lockstep has the replays read the tape in lockstep, for a caller that
// runs them all at once: the tape lets none go for its budget, and a
// replay at its head waits for the ones behind instead, handing on its
// thread meanwhile (pause(i), resume(i); trace.Share.Lockstep). A replay
// that waits for something else says so (Park), and is let go. The
// replays then decode and validate the trace once, whatever its length.
// Call it before any replay reads.
func (s *Shared) Lockstep(pause, resume func(i int)) { s.share.Lockstep(pause, resume) }

// Park says that replay i waits for something else than the tape (on),
// or no longer (trace.Validator.Park).
func (s *Shared) Park(i int, on bool) { s.share.Reader(i).Park(on) }

// Bodies is replay i's reader of the shared bodies (i < n). Open closes
// it; a replay that never opens it closes it itself (Validator.Close), so
// that the tape need not keep what it will not read.
func (s *Shared) Bodies(i int) *trace.Validator { return s.share.Reader(i) }

// openBodies opens the bodies as Open does: every record, validated, read
// with reused records and, where the trace has a host index, checked
// against it, which it returns too: the replays' host passes read it
// (Open), with no open of their own.
func openBodies(open func() (trace.Source, error)) (*trace.Validator, io.Closer, *trace.HostIndex, error) {
	s := &Streams{}
	bodySrc, err := s.open(open)
	if err != nil {
		return nil, nil, nil, err
	}
	index, err := trace.HostIndexOf(bodySrc) // read from the file's end: the Reader stays where it is
	if err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	trace.SetReadOptions(bodySrc, trace.ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
	if index != nil {
		bodySrc = index.Check(bodySrc)
	}
	return trace.NewValidator(bodySrc), closers{s}, index, nil
}

// closers closes what a Streams opened.
type closers struct{ s *Streams }

func (c closers) Close() error {
	c.s.Close()
	return nil
}
