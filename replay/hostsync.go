package replay

import (
	"cmp"
	"slices"

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
// hostSync owns that state and nothing else: it never schedules an event
// or moves a thread; the host side (host.go) does, with what done
// returns. Its memory follows the operations in flight: an operation
// leaves its stream's queue once every operation before it in the stream
// has completed, and a stream with none live is forgotten.
type hostSync struct {
	seq     int64                    // host calls numbered so far
	live    map[*Kernel]liveOp       // host operations read and not complete
	streams map[uint64]*syncStream   // by trace stream: its live operations, its records not complete
	events  map[uint64]*eventLatch   // by event: its last record
	waits   map[uint64][]*eventLatch // by trace stream: the latches its next operation waits for
	blocked []*hostWait              // blocking calls issued and still waiting, in issue order
}

// liveOp is a live host operation's number and trace stream.
type liveOp struct {
	seq    int64
	stream uint64
}

// syncStream is one trace stream's live operations, by number, and its
// event records not yet complete, in program order.
type syncStream struct {
	// seqs are the numbers of the operations read on the stream and not
	// yet known complete with all before them: ascending, a completed
	// one negated until it reaches the front.
	seqs    []int64
	records []*eventLatch
}

// oldest is the number of the stream's oldest live operation, or
// noneLive.
func (s *syncStream) oldest() int64 {
	if s == nil || len(s.seqs) == 0 {
		return noneLive
	}
	return s.seqs[0]
}

// noneLive is the oldest live operation of a stream with none.
const noneLive = int64(1) << 62

// eventLatch is an event's record: it completes once its stream has no
// live operation numbered below seq.
type eventLatch struct {
	seq    int64
	stream uint64
	done   bool
	ops    []*Kernel // host operations at their stream's head waiting for it
}

// hostWait is a blocking call: a device, stream or event sync, or a copy
// that blocks. The host side plans and issues it like any call, and holds
// its thread from its issue until the wait ends.
type hostWait struct {
	op     trace.SyncOp // SyncDevice, SyncStream or SyncEvent; SyncStream for a copy
	copy   *Kernel      // the copy, for one that blocks
	stream uint64       // the trace stream of a stream sync or a copy
	event  uint64       // the event of an event sync
	latch  *eventLatch  // the record an event sync waits for (nil: none, it returns at once)
	seq    int64        // its place in program order
	thread int          // the host thread it holds
	call   int64        // when the thread reached it (replay cycles)
	ret    int64        // when it returned in the capture (replay cycles, after the launch base)
	slot   int32        // its event's slot while its issue is pending
	// last is the live operation that ended the wait, when one did (the
	// completion that released it), else nil: the sync returned at once.
	last *Kernel
}

// row is w's syncs row, returned at ret.
func (w *hostWait) row(ret int64) tables.Sync {
	r := tables.Sync{Seq: w.seq, Call: w.op.String(), Thread: int32(w.thread), CallCycle: w.call,
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

func newHostSync() hostSync {
	return hostSync{live: map[*Kernel]liveOp{}, streams: map[uint64]*syncStream{},
		events: map[uint64]*eventLatch{}, waits: map[uint64][]*eventLatch{}}
}

// next numbers the next host call in program order.
func (s *hostSync) next() int64 {
	s.seq++
	return s.seq
}

// add numbers host operation k, read on trace stream stream, and keeps it
// live until done; it returns the latches k must wait for at its stream's
// head (a stream wait read before it on the stream), or nil.
func (s *hostSync) add(k *Kernel, stream uint64) []*eventLatch {
	seq := s.next()
	s.live[k] = liveOp{seq: seq, stream: stream}
	st := s.streams[stream]
	if st == nil {
		st = &syncStream{}
		s.streams[stream] = st
	}
	st.seqs = append(st.seqs, seq)
	w := s.waits[stream]
	if w != nil {
		delete(s.waits, stream)
	}
	return w
}

// seqOf is live operation k's number.
func (s *hostSync) seqOf(k *Kernel) int64 { return s.live[k].seq }

// record is cudaEventRecord(event, stream), read in program order: the
// event's latch from now on, complete at once where the stream has no
// live operation before it.
func (s *hostSync) record(event, stream uint64) {
	l := &eventLatch{seq: s.next(), stream: stream}
	st := s.streams[stream]
	if st.oldest() > l.seq {
		l.done = true
	} else {
		st.records = append(st.records, l)
	}
	s.events[event] = l
}

// wait is cudaStreamWaitEvent(stream, event): stream's next operation
// waits for the event's last record, where it is not complete. An event
// never recorded orders nothing (CUDA: such an event is complete).
func (s *hostSync) wait(stream, event uint64) {
	s.next()
	if l := s.events[event]; l != nil && !l.done {
		s.waits[stream] = append(s.waits[stream], l)
	}
}

// latchOf is the event's last record, or nil.
func (s *hostSync) latchOf(event uint64) *eventLatch { return s.events[event] }

// pendingLatch is the first latch ops waits for that is not complete, or
// nil.
func pendingLatch(ls []*eventLatch) *eventLatch {
	for _, l := range ls {
		if !l.done {
			return l
		}
	}
	return nil
}

// met reports whether w's wait has ended.
func (s *hostSync) met(w *hostWait) bool {
	switch w.op {
	case trace.SyncDevice:
		for _, st := range s.streams {
			if st.oldest() < w.seq {
				return false
			}
		}
		return true
	case trace.SyncEvent:
		return w.latch == nil || w.latch.done
	}
	return s.streams[w.stream].oldest() > w.seq
}

// block keeps w, issued, until its wait ends.
func (s *hostSync) block(w *hostWait) { s.blocked = append(s.blocked, w) }

// waiting reports whether a blocking call is waiting.
func (s *hostSync) waiting() bool { return len(s.blocked) > 0 }

// done is host operation k complete. It returns the operations at their
// stream's head that waited for a record k completed (in program order of
// the records) and the blocking calls whose wait k ended (in issue order),
// each with k as its last.
func (s *hostSync) done(k *Kernel) (ops []*Kernel, woken []*hostWait) {
	op, ok := s.live[k]
	if !ok {
		return nil, nil
	}
	delete(s.live, k)
	st := s.streams[op.stream]
	// Completed numbers are negated in place: search by magnitude.
	i, _ := slices.BinarySearchFunc(st.seqs, op.seq, func(e, t int64) int { return cmp.Compare(max(e, -e), t) })
	st.seqs[i] = -op.seq
	n := 0
	for n < len(st.seqs) && st.seqs[n] < 0 {
		n++
	}
	st.seqs = st.seqs[n:]
	oldest := st.oldest()
	n = 0
	for n < len(st.records) && st.records[n].seq < oldest {
		l := st.records[n]
		l.done = true
		ops = append(ops, l.ops...)
		l.ops = nil
		st.records[n] = nil
		n++
	}
	st.records = st.records[n:]
	if len(st.seqs) == 0 && len(st.records) == 0 {
		delete(s.streams, op.stream)
	}
	if len(s.blocked) == 0 {
		return ops, nil
	}
	kept := s.blocked[:0]
	for _, w := range s.blocked {
		if s.met(w) {
			w.last = k
			woken = append(woken, w)
		} else {
			kept = append(kept, w)
		}
	}
	clear(s.blocked[len(kept):])
	s.blocked = kept
	return ops, woken
}
