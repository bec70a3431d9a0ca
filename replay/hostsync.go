package replay

import (
	"errors"
	"math"

	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// The host's synchronisation (`sync` records, and copies that block): what
// a blocking call waits for, decided during the replay from what the
// replayed GPU holds then, never frozen at import (docs/model.md, "The
// host waits").
//
// Every host operation (a launch or a copy) is numbered in program order
// when it is read, and stays live, under its trace stream, until it
// completes. A blocking call numbered s then waits for
//
//   - a device sync: every live operation numbered below s, on any stream
//     (cudaDeviceSynchronize: "Blocks until the device has completed all
//     preceding requested tasks");
//   - a stream sync on stream S: the live operations of S numbered below s
//     (cudaStreamSynchronize: "Blocks until stream has completed all
//     operations");
//   - an event sync: its event's last record (cudaEventSynchronize: "Waits
//     until the completion of all work currently captured in event");
//   - a copy that blocks (trace.Memcpy.Blocks): the copy itself, and so
//     what is ahead of it in its stream.
//
// An event record numbered r on stream S is a latch that opens once S has
// no live operation numbered below r (cudaEventRecord: "the event
// completes when all work ... captured by the call has completed"); a
// stream wait on S2 makes S2's next operation wait for the latch
// (cudaStreamWaitEvent: "Makes all future work submitted to stream wait
// for all work captured in event"). What an operation waits for is
// decided by the numbers, so a policy that adds or removes kernels (a
// child launched or inlined, a group coalesced) changes when a wait ends,
// never which operations it waits for: a host kernel completes with its
// children under every policy.
//
// The bookkeeping is counts, not lists: when a call is read, every host
// operation live then was read before it, so what it waits for is the
// operations live then (on every stream, or on its stream), and each
// completion of an operation numbered below it counts one down. An
// operation's number is Kernel.seq; its trace stream is Kernel.stream,
// except under policies that give each task group a stream of its own,
// where the trace's is kept apart (hostSync.grouped).
//
// hostSync owns that state and nothing else: it never schedules an event
// or moves a thread; the host side (host.go) does, with what done
// returns. Its memory follows the operations in flight: streams with
// nothing live and no record pending are forgotten as they pile up
// (forget).
type hostSync struct {
	seq     int32                    // host calls numbered so far
	live    int                      // host operations read and not complete
	streams map[uint64]*syncStream   // by trace stream; idle ones are dropped as they pile up (forget)
	spare   []*syncStream            // forgotten streams' records, for reuse (empty: nothing live or pending)
	events  map[uint64]*eventLatch   // by event: its last record
	waits   map[uint64][]*eventLatch // by trace stream: the latches its next operation waits for
	counted []*hostWait              // blocking calls read whose wait has not ended, in program order
	grouped map[*Kernel]uint64       // a live operation's trace stream, where its stream is its task group's (own)
}

// syncStream is one trace stream's live operations and its event records
// not yet complete, in program order.
type syncStream struct {
	live    int
	records []*eventLatch
}

// eventLatch is an event's record: it completes once the operations live
// on its stream when it was read have.
type eventLatch struct {
	seq    int32
	stream uint64
	left   int       // operations still to complete
	ops    []*Kernel // host operations at their stream's head waiting for it
}

// done reports whether the record has completed.
func (l *eventLatch) done() bool { return l.left == 0 }

// hostWait is a blocking call: a device, stream or event sync, or a copy
// that blocks. The host side plans and issues it like any call, and holds
// its thread from its issue until the wait ends.
type hostWait struct {
	op     trace.SyncOp // SyncDevice, SyncStream or SyncEvent; SyncStream for a copy
	copy   *Kernel      // the copy, for one that blocks
	stream uint64       // the trace stream of a stream sync or a copy
	event  uint64       // the event of an event sync
	latch  *eventLatch  // the record an event sync waits for (nil: none, it returns at once)
	seq    int32        // its place in program order (a copy's: the copy's)
	left   int          // operations still to complete (device and stream syncs, copies)
	issued bool         // its thread has reached it
	thread int          // the host thread it holds
	call   int64        // when the thread reached it (replay cycles)
	ret    int64        // when it returned in the capture (replay cycles, after the launch base)
	// last is the host operation whose completion ended the wait, nil
	// where it ended before the call.
	last *Kernel
}

// ended reports whether w's wait has ended.
func (w *hostWait) ended() bool {
	if w.op == trace.SyncEvent {
		return w.latch == nil || w.latch.done()
	}
	return w.left == 0
}

// counts reports whether operation seq on trace stream stream is one w
// waits for.
func (w *hostWait) counts(seq int32, stream uint64) bool {
	switch {
	case w.op == trace.SyncEvent:
		return false
	case w.copy != nil:
		return stream == w.stream && seq <= w.seq
	case w.op == trace.SyncStream:
		return stream == w.stream && seq < w.seq
	}
	return seq < w.seq
}

// row is w's syncs row, returned at ret.
func (w *hostWait) row(ret int64) tables.Sync {
	r := tables.Sync{Seq: int64(w.seq), Call: w.op.String(), Thread: int32(w.thread), CallCycle: w.call,
		ReturnCycle: ret, CapturedReturn: w.ret}
	stream := int64(w.stream)
	switch {
	case w.copy != nil:
		r.Call, r.Stream = "memcpy", &stream
	case w.op == trace.SyncStream:
		r.Stream = &stream
	case w.op == trace.SyncEvent:
		event := int64(w.event)
		r.Event = &event
		if w.latch != nil {
			s := int64(w.latch.stream)
			r.Stream = &s
		}
	}
	if w.last != nil && !w.last.isCopy() {
		id := w.last.id
		r.LastKernel = &id
	}
	return r
}

func newHostSync(own bool) hostSync {
	h := hostSync{streams: map[uint64]*syncStream{}, events: map[uint64]*eventLatch{}, waits: map[uint64][]*eventLatch{}}
	if own {
		h.grouped = map[*Kernel]uint64{}
	}
	return h
}

// errTooManyCalls: host calls are numbered in an int32, as host
// launches are (Kernel.order).
var errTooManyCalls = errors.New("trace: more than 2^31-1 host calls")

// next numbers the next host call in program order.
func (s *hostSync) next() (int32, error) {
	if s.seq == math.MaxInt32 {
		return 0, errTooManyCalls
	}
	s.seq++
	return s.seq, nil
}

// stream is trace stream id's record, made where it has none.
func (s *hostSync) stream(id uint64) *syncStream {
	st := s.streams[id]
	if st == nil {
		if n := len(s.spare); n > 0 {
			st, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			st = &syncStream{}
		}
		s.streams[id] = st
	}
	return st
}

// forget drops the records of streams with nothing live or pending once
// they outnumber those in use: a stream is kept between its operations
// (a loop on one stream, the common case, neither deletes nor makes one
// each time), and the map stays bounded by the streams in flight.
func (s *hostSync) forget() {
	if len(s.streams) <= 2*s.live+64 {
		return
	}
	for id, st := range s.streams {
		if st.live == 0 && len(st.records) == 0 {
			delete(s.streams, id)
			s.spare = append(s.spare, st)
		}
	}
}

// add numbers host operation k, read on trace stream stream, and keeps it
// live until done; it returns the latches k must wait for at its stream's
// head (a stream wait read before it on the stream), or nil.
func (s *hostSync) add(k *Kernel, stream uint64) ([]*eventLatch, error) {
	seq, err := s.next()
	if err != nil {
		return nil, err
	}
	k.seq = seq
	s.live++
	s.stream(stream).live++
	if s.grouped != nil {
		s.grouped[k] = stream
	}
	if len(s.waits) == 0 { // most traces: no stream waits a call's lookup
		return nil, nil
	}
	w := s.waits[stream]
	if w != nil {
		delete(s.waits, stream)
	}
	return w, nil
}

// record is cudaEventRecord(event, stream), read in program order: the
// event's latch from now on, complete once what is live on the stream now
// has completed.
func (s *hostSync) record(event, stream uint64) error {
	seq, err := s.next()
	if err != nil {
		return err
	}
	l := &eventLatch{seq: seq, stream: stream}
	if st := s.streams[stream]; st != nil && st.live > 0 {
		l.left = st.live
		st.records = append(st.records, l)
	}
	s.events[event] = l
	return nil
}

// wait is cudaStreamWaitEvent(stream, event): stream's next operation
// waits for the event's last record, where it is not complete. An event
// never recorded orders nothing (CUDA: such an event is complete).
func (s *hostSync) wait(stream, event uint64) error {
	if _, err := s.next(); err != nil {
		return err
	}
	if l := s.events[event]; l != nil && !l.done() {
		s.waits[stream] = append(s.waits[stream], l)
	}
	return nil
}

// blocking numbers w, a blocking sync just read (a copy's: read with its
// copy), and counts what it waits for: the operations live now, on every
// stream or on its own.
func (s *hostSync) blocking(w *hostWait) error {
	switch {
	case w.copy != nil:
		w.seq = w.copy.seq
		w.left = s.streams[w.stream].live
	case w.op == trace.SyncEvent:
		seq, err := s.next()
		if err != nil {
			return err
		}
		w.seq, w.latch = seq, s.events[w.event]
		return nil
	default:
		seq, err := s.next()
		if err != nil {
			return err
		}
		w.seq, w.left = seq, s.live
		if w.op == trace.SyncStream {
			w.left = 0
			if st := s.streams[w.stream]; st != nil {
				w.left = st.live
			}
		}
	}
	if w.left > 0 {
		s.counted = append(s.counted, w)
	}
	return nil
}

// latchOf is the event's last record, or nil.
func (s *hostSync) latchOf(event uint64) *eventLatch { return s.events[event] }

// pendingLatch is the first of ls not complete, or nil.
func pendingLatch(ls []*eventLatch) *eventLatch {
	for _, l := range ls {
		if !l.done() {
			return l
		}
	}
	return nil
}

// issue is w reached by its thread: it reports whether its wait has
// ended already; if not, done returns it when it does.
func (s *hostSync) issue(w *hostWait) bool {
	w.issued = true
	if w.op == trace.SyncEvent && !w.ended() {
		s.counted = append(s.counted, w)
	}
	return w.ended()
}

// waiting reports whether a blocking call's wait has not ended.
func (s *hostSync) waiting() bool { return len(s.counted) > 0 }

// done is host operation k complete. It returns the operations at their
// stream's head that waited for a record k completed (in program order of
// the records) and the blocking calls, reached by their threads, whose
// wait k ended (in program order), each with k as its last.
func (s *hostSync) done(k *Kernel) (ops []*Kernel, woken []*hostWait) {
	id := k.stream
	if s.grouped != nil {
		id = s.grouped[k]
		delete(s.grouped, k)
	}
	st := s.streams[id]
	if st == nil {
		return nil, nil // not a host operation the host read (a task runtime's)
	}
	s.live--
	st.live--
	n := 0
	for _, l := range st.records {
		if k.seq < l.seq {
			if l.left--; l.left == 0 {
				ops = append(ops, l.ops...)
				l.ops = nil
				continue
			}
		}
		st.records[n] = l
		n++
	}
	clear(st.records[n:])
	st.records = st.records[:n]
	s.forget()
	if len(s.counted) == 0 {
		return ops, nil
	}
	kept := s.counted[:0]
	for _, w := range s.counted {
		if w.counts(k.seq, id) {
			w.left--
		}
		if !w.ended() {
			kept = append(kept, w)
			continue
		}
		if w.issued {
			w.last = k
			woken = append(woken, w)
		}
	}
	clear(s.counted[len(kept):])
	s.counted = kept
	return ops, woken
}
