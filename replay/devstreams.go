package replay

// Device streams: the streams device launches go into (trace.DeviceStream)
// and the order they put device kernels in. docs/model.md, "Device
// streams", says what is modelled and why.

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// streamsWhatIf is cdp.streams, parsed once: the stream kind every device
// launch is given, or traced (each keeps its record's).
type streamsWhatIf struct {
	traced bool
	kind   trace.DeviceStream
}

// parseStreamsWhatIf parses a validated cdp.streams; "" (a configuration
// built in code) is traced.
func parseStreamsWhatIf(s model.DeviceStreams) streamsWhatIf {
	switch s {
	case model.StreamsChild:
		return streamsWhatIf{kind: trace.OwnStream}
	case model.StreamsCTA:
		return streamsWhatIf{kind: trace.CTAStream}
	case model.StreamsTail:
		return streamsWhatIf{kind: trace.TailStream}
	case model.StreamsFireAndForget:
		return streamsWhatIf{kind: trace.FireAndForgetStream}
	}
	return streamsWhatIf{traced: true}
}

// of is the stream a device launch record's child goes into, and whether
// its lane creates a stream for it first. A what-if replaces both: "child"
// is a stream of each child's own, created by its warp as a trace that
// names no stream has it; the others need no creation.
func (w streamsWhatIf) of(l *trace.Launch) (trace.DeviceStream, bool) {
	if w.traced {
		return l.DeviceStream, l.CreatesStream
	}
	return w.kind, false
}

// createsStream reports whether a launching lane's warp calls
// cudaStreamCreateWithFlags for it (cdp.stream_create): a lane whose
// child has a stream of its own (created per warp, as before the trace
// said), or one the trace says creates its stream.
func (l *siteRec) createsStream() bool { return l.kind == trace.OwnStream || l.creates }

// ordered reports whether a kind of stream orders its kernels: a CTA's
// default, a created and the tail-launch stream, three consecutive kinds
// (TestOrderedKinds); a child's own and fire-and-forget order nothing.
func ordered(kind trace.DeviceStream) bool {
	return kind-trace.CTAStream <= trace.TailStream-trace.CTAStream // one test, not three (every device kernel's launch: launchChildren)
}

// deviceStreams holds the ordered device streams with kernels in them:
// which kernel heads each, which have reached the KMU, and whether a
// grid's tail stream is open. CUDA's rule (Programming Guide, dynamic
// parallelism, "Streams"): kernels launched into one stream run in
// order; a CTA's default stream is shared by the CTA's threads (SPAWN
// §II-B: "each parent CTA assigns the same SWQ ID to all its child
// kernels. As a result, all the child kernels launched from the same
// parent CTA execute sequentially"), and the streams a CTA creates are
// its own; a tail launch starts once the launching grid and its other
// work have completed, in order among the grid's tail launches.
//
// It owns that state and nothing else: the engine (devlaunch.go) starts a
// kernel it lets go, by queueing it for a Kernel Distributor entry. A kernel
// waiting behind another holds no entry, as a host stream's do not: it waits
// in its hardware work queue, whose head alone is dispatched (DTBL §2.2:
// "the Kernel Management Unit (KMU) manages multiple HWQs by inspecting and
// dispatching kernels at the head of the queue to the Kernel Distributor").
type deviceStreams struct {
	byKey   map[devStreamKey]*devStream
	streams int                    // len(byKey), for open: the map's length, a nil test and a load, was asked at each child's completion
	of      map[*Kernel]*devStream // the kernels in them
	spare   []*devStream
}

// devStreamKey names a stream: the CTA's (or the grid's, for a tail
// stream) and which of its streams.
type devStreamKey struct {
	grid uint64 // the launching grid: its kernel's id, or an aggregated group's
	cta  uint64 // the launching CTA in its grid or group; wholeGrid for a tail stream
	kind trace.DeviceStream
	id   uint64 // a created stream's id within its CTA
}

// wholeGrid is a tail stream's CTA in its key: one stream per grid.
const wholeGrid = ^uint64(0)

// devStream is one ordered device stream.
type devStream struct {
	key     devStreamKey
	id      uint64    // the replay's stream id, the kernels table's stream
	kernels []*Kernel // launched and not complete, in launch order: kernels[0] heads it
	arrived []bool    // kernels[i] has reached the KMU
	running bool      // the head has been let go
	open    bool      // a tail stream's grid has done all its other work
}

func newDeviceStreams() deviceStreams {
	return deviceStreams{byKey: map[devStreamKey]*devStream{}, of: map[*Kernel]*devStream{}}
}

// keyOf is the stream a launch by lane l of CTA cta of grid owner goes
// into.
func keyOf(owner launcher, cta uint64, l *siteRec) devStreamKey {
	k := devStreamKey{grid: owner.id(), cta: cta, kind: l.kind}
	switch l.kind {
	case trace.TailStream:
		k.cta = wholeGrid
	case trace.CreatedStream:
		k.id = l.stream
	}
	return k
}

// enter puts device kernel k, launched now, at the back of stream key,
// numbering a stream new to it with fresh; k takes the stream's id.
func (d *deviceStreams) enter(k *Kernel, key devStreamKey, fresh func() uint64) {
	s := d.byKey[key]
	if s == nil {
		s = d.newStream()
		s.key, s.id = key, fresh()
		d.byKey[key], d.streams = s, d.streams+1
	}
	s.kernels = append(s.kernels, k)
	s.arrived = append(s.arrived, false)
	d.of[k] = s
	k.stream = s.id
	k.inDevStream = true
}

func (d *deviceStreams) newStream() *devStream {
	if n := len(d.spare); n > 0 {
		s := d.spare[n-1]
		d.spare = d.spare[:n-1]
		return s
	}
	return new(devStream)
}

// arrive is kernel k of a stream reaching the KMU: it reports whether k
// may run now (it heads its stream, and a tail stream is open).
func (d *deviceStreams) arrive(k *Kernel) bool {
	s := d.of[k]
	for i, q := range s.kernels {
		if q == k {
			s.arrived[i] = true
			break
		}
	}
	return s.letGo() == k
}

// letGo is the stream's head, if it may run now and has not been let go:
// it has arrived, and a tail stream is open.
func (s *devStream) letGo() *Kernel {
	if s.running || len(s.kernels) == 0 || !s.arrived[0] || s.key.kind == trace.TailStream && !s.open {
		return nil
	}
	s.running = true
	return s.kernels[0]
}

// done is kernel k, its stream's head, complete: it returns the kernel
// that may run now behind it, or nil.
func (d *deviceStreams) done(k *Kernel) *Kernel {
	s := d.of[k]
	delete(d.of, k)
	k.inDevStream = false
	s.kernels[0] = nil
	s.kernels, s.arrived = s.kernels[1:], s.arrived[1:]
	if s.running = false; len(s.kernels) == 0 {
		delete(d.byKey, s.key)
		d.streams--
		*s = devStream{kernels: s.kernels[:0], arrived: s.arrived[:0]}
		d.spare = append(d.spare, s)
		return nil
	}
	return s.letGo()
}

// open reports whether any device stream is open.
func (d *deviceStreams) open() bool { return d.streams > 0 }

// openTail is grid owner's own work done (its CTAs, and the groups joined
// to it) with kids pieces of launched work not complete: when those are
// its tail launches alone, its tail stream opens, and the kernel that may
// run now is returned, or nil.
//
// Small enough to inline, apart from tailOf: a grid with launched work
// left asks at each piece's completion (BFS: nearly every child's), and
// mostly no device stream is open at all, where the call cost BFS
// --quick 5 instructions a CTA.
func (d *deviceStreams) openTail(owner launcher, kids int) *Kernel {
	if !d.open() {
		return nil
	}
	return d.tailOf(owner, kids)
}

// tailOf is openTail where some device stream is open.
func (d *deviceStreams) tailOf(owner launcher, kids int) *Kernel {
	s := d.byKey[devStreamKey{grid: owner.id(), cta: wholeGrid, kind: trace.TailStream}]
	if s == nil || kids != len(s.kernels) {
		return nil
	}
	s.open = true
	return s.letGo()
}

// own is of for a launch into a stream of the child's own that creates
// none, as every launch trace.Validator.Child reads is (a Share's Kids):
// siblings takes it once for a run of them, where of, a child, cost each
// replay of BFS --quick sweep8 some 8 instructions a child.
func (w streamsWhatIf) own() trace.DeviceStream {
	if w.traced {
		return trace.OwnStream
	}
	return w.kind
}
