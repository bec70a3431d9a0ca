package ingest

import (
	"errors"
	"io"

	"github.com/gpureplay/gpureplay/trace"
)

// Streams is a trace opened as the replay engine reads it: twice, so that
// the host's operations and the launch trees' bodies are read each at its
// own pace, and the memory a replay holds follows the kernels in flight,
// not the length of the trace (docs/design.md §3).
//
// The host operations (host launches, explicit copies and syncs, NextHost) come
// from the trace's host index where it has one (trace.HostIndexOf), else
// from a pass over the stream that skips everything else
// (trace.ReadOptions). The bodies (Bodies) are every record, validated,
// read with reused records (the engine copies what it keeps) and, where
// the host operations come from the index, checked against it.
type Streams struct {
	host   trace.Source
	eof    bool // host has ended
	bodies trace.Source
	closes []io.Closer // what Close closes, last first
}

// Open opens the trace twice with open. records, when not nil, reads the
// host pass ahead on a goroutine of its own (Ahead.Records): without an
// index the pass decodes the whole trace to skip the bodies, time the
// engine would otherwise spend between two host launches. Sources that
// are io.Closers are closed by Close.
//
// bodies, when not nil, is a trace.Share's reader: the bodies come from
// it, decoded and validated once for all the Share's readers (Shared),
// and Open opens only the host pass.
func Open(open func() (trace.Source, error), records func(trace.Source) trace.Source, bodies *trace.Validator) (*Streams, error) {
	s := &Streams{}
	if bodies != nil {
		if err := s.shared(open, records, bodies); err != nil {
			return nil, err
		}
		return s, nil
	}
	hostSrc, err := s.open(open)
	if err != nil {
		return nil, err
	}
	bodySrc, err := s.open(open)
	if err != nil {
		s.Close()
		return nil, err
	}
	// Only the bodies are validated: the host pass reads the same records
	// first, but every launch it yields is validated by the bodies' read
	// before the kernel can reach the Kernel Distributor, so checking
	// twice would only cost time. Decoding errors surface on either.
	index, err := trace.HostIndexOf(hostSrc) // nil: the host pass skims the stream
	if err != nil {
		s.Close()
		return nil, err
	}
	// The engine copies what it keeps of the bodies, and a Prefetcher has
	// its Reader decode launch, cta and kernel records into its batches'
	// own storage (trace/slab.go), or copies them there.
	trace.SetReadOptions(bodySrc, trace.ReadOptions{ReuseRecords: true, ReuseWarpCycles: true})
	s.host, s.bodies = hostSrc, bodySrc
	switch {
	case index != nil:
		// The host operations come from the index, a second copy of the
		// stream's: the bodies' read holds each of the stream's against
		// it before validating it. A replay that completes has read the
		// bodies to the trace's end (the last host kernel's segment ends
		// only there), so every one is held, copies after the last
		// launch too.
		s.host, s.bodies = index.Source(), index.Check(bodySrc)
	case records != nil:
		skimHost(hostSrc)
		s.host = records(hostSrc)
		s.closeLater(s.host)
	default:
		skimHost(hostSrc)
	}
	s.bodies = trace.NewValidator(s.bodies)
	return s, nil
}

// shared opens the host pass beside bodies, a Share's reader: the host
// operations come from the trace's host index, which the Share read
// (and its read of the bodies is checked against), else from a pass of
// its own over the stream.
func (s *Streams) shared(open func() (trace.Source, error), records func(trace.Source) trace.Source, bodies *trace.Validator) error {
	s.closeLater(bodies)
	s.bodies = bodies
	if index, _ := trace.HostIndexOf(bodies); index != nil {
		s.host = index.Source()
		return nil
	}
	hostSrc, err := s.open(open)
	if err != nil {
		s.Close()
		return err
	}
	skimHost(hostSrc)
	s.host = hostSrc
	if records != nil {
		s.host = records(hostSrc)
		s.closeLater(s.host)
	}
	return nil
}

// open opens a source and has Close close it.
func (s *Streams) open(open func() (trace.Source, error)) (trace.Source, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	s.closeLater(src)
	return src, nil
}

func (s *Streams) closeLater(src trace.Source) {
	if c, ok := src.(io.Closer); ok {
		s.closes = append(s.closes, c)
	}
}

// skimHost has a trace reader pass over every record but host launches,
// copies and syncs without building them.
func skimHost(src trace.Source) {
	trace.SetReadOptions(src, trace.ReadOptions{
		Skip:               []trace.Kind{trace.KindCTA, trace.KindKernel, trace.KindAccess, trace.KindPages, trace.KindBuffer},
		SkipDeviceLaunches: true,
	})
}

// NextHost returns the next host operation, a host launch (*trace.Launch),
// an explicit copy (*trace.Memcpy) or a synchronisation call
// (*trace.Sync), in program order, or nil at the end of the trace. The engine calls it one operation
// ahead of the simulated host, so the host pass reads no further than
// the host has issued (with records, its source decodes a bounded window
// further on another goroutine; the operations still come one at a time).
func (s *Streams) NextHost() (trace.Record, error) {
	for !s.eof {
		r, err := s.host.Next()
		if errors.Is(err, io.EOF) {
			s.eof = true
			break
		}
		if err != nil {
			return nil, err
		}
		switch r := r.(type) {
		case *trace.Launch:
			if r.Host() {
				return r, nil
			}
		case *trace.Memcpy, *trace.Sync:
			return r, nil
		}
	}
	return nil, nil
}

// Bodies is every record of the trace in order, validated, for the
// launch trees' bodies. Its launch, cta and kernel records may be reused
// by the next call (trace.ReadOptions.ReuseRecords). A reader ahead of it
// (Ahead.Records) is the caller's to close before Close.
func (s *Streams) Bodies() trace.Source { return s.bodies }

// Close closes what Open opened, the host pass's reader ahead first.
func (s *Streams) Close() {
	for i := len(s.closes) - 1; i >= 0; i-- {
		s.closes[i].Close()
	}
	s.closes = nil
}
