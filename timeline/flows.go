package timeline

// flows keeps the arrows of a run whose two ends are not both written.
// Perfetto pairs a flow's end with a start it has already read, in time
// order and, at one time, in file order; rows arrive in order of their
// end, so a child kernel's row (the arrow's end) often comes before its
// parent CTA's (the start). An end that finds no start written is held
// until the start is, then written right after it.
type flows struct {
	next uint64 // the last id given, unique across the file

	// sites are launch sites waiting for their parent CTA's row, which
	// gives the lane their arrow starts on.
	sites map[ctaKey][]site
	// ended are the CTAs whose rows came at endedAt, the latest end
	// cycle: a DTBL group's launches row is written when its command
	// arrives, which can be in the cycle its parent CTA ended, after the
	// CTA's row (model.tie_seed orders such events), but never later.
	ended   map[ctaKey]span
	endedAt int64
	// toKernel and toGroup are the arrows, by id, waiting for the row of
	// the kernel they end at, or the first CTA of the coalesced group.
	toKernel map[uint64][]uint64
	toGroup  map[uint64][]uint64
	// fromKernel are the release arrows, by id, waiting for the row of
	// the host kernel they start at (its completion ended a blocking
	// call's wait: tables.Sync.LastKernel), and release marks every
	// release arrow not yet ended.
	fromKernel map[uint64][]uint64
	release    map[uint64]bool
	// hostEnded are the host kernels' running slices, by id, whose rows
	// came no more than lat.host_sync before the latest kernel row (a
	// call's row comes at its kernel's end plus lat.host_sync), oldest
	// first in hostOrder: the starts of release arrows whose call's row
	// comes after the kernel's.
	hostEnded map[uint64]span
	hostOrder []ended
	// state is each arrow with one end written or known.
	state map[uint64]flowState
}

// ended is a host kernel whose row came, at its end cycle.
type ended struct {
	kernel uint64
	cycle  int64
}

type ctaKey struct {
	kernel, cta uint64
}

// site is a launch site's arrow, at ns, waiting for its parent's lane.
type site struct {
	ns int64
	id uint64
}

// span is where a CTA's slice is: its lane and its time.
type span struct {
	pid, tid   int
	start, end int64 // ns
}

// flowState is an arrow whose start is written (started), whose start will
// never be (dropped: its parent CTA's slice was left out by the cap), or
// whose end waits for its start (end set).
type flowState struct {
	started, dropped bool
	end              *flowEnd
}

type flowEnd struct {
	pid, tid int
	ns       int64
}

func (f *flows) reset() {
	f.sites = map[ctaKey][]site{}
	f.ended, f.endedAt = map[ctaKey]span{}, -1
	f.toKernel = map[uint64][]uint64{}
	f.toGroup = map[uint64][]uint64{}
	f.fromKernel, f.release = map[uint64][]uint64{}, map[uint64]bool{}
	f.hostEnded, f.hostOrder = map[uint64]span{}, f.hostOrder[:0]
	f.state = map[uint64]flowState{}
}

// id gives a new arrow its id.
func (f *flows) id() uint64 {
	f.next++
	return f.next
}

// start writes an arrow's start at ns inside the slice s, and its end if
// that was waiting. A start binds to the slice enclosing it on its
// track, so it is kept strictly inside s: at s's end, the next slice of
// the lane may already have begun.
func (w *Writer) start(id uint64, s span, ns int64) {
	st := w.flows.state[id]
	if st.dropped {
		delete(w.flows.state, id)
		return
	}
	ns = min(max(ns, s.start), max(s.end-1, s.start))
	w.flow("s", id, s.pid, s.tid, ns)
	if st.end != nil {
		w.flow("f", id, st.end.pid, st.end.tid, st.end.ns)
		delete(w.flows.state, id)
		return
	}
	w.flows.state[id] = flowState{started: true}
}

// drop forgets an arrow one of whose ends will not be written (its slice
// was left out by the cap): a start alone draws nothing, and an end alone
// is not written.
func (w *Writer) drop(id uint64) {
	delete(w.flows.release, id)
	if st := w.flows.state[id]; st.started || st.end != nil {
		delete(w.flows.state, id)
		return
	}
	w.flows.state[id] = flowState{dropped: true}
}

// end writes the ends of the arrows ids at ns on a thread (inside the
// slice they end at), or holds each until its start is written.
func (w *Writer) end(ids []uint64, pid, tid int, ns int64) {
	for _, id := range ids {
		st := w.flows.state[id]
		switch {
		case st.started:
			w.flow("f", id, pid, tid, ns)
			delete(w.flows.state, id)
		case st.dropped:
			delete(w.flows.state, id)
		default:
			w.flows.state[id] = flowState{end: &flowEnd{pid, tid, ns}}
		}
	}
}
