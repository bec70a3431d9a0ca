package eventq

// A cycle's ties keep the heap small too. A replay's CTAs of one length,
// started together, end together: 1M CTAs of 5,000 cycles on 13 SMs end
// in waves of 208, each scheduled in one burst of pushes and popped in
// one burst at its cycle. In the heap, each of those pops sifts the last
// event down through the 4-ary heap's four levels of equal cycles,
// comparing tie keys (263 instructions an event). Filed in the ties run
// instead — a run (runs.go) of one cycle's events in tie-key order, whose
// head alone is in the heap — a wave costs a first-in first-out push and pop an event,
// and the heap holds one event for it.
//
// The ties run takes the events Push schedules for the cycle of its
// head, in order; it starts on a Push when it has none, so a replay
// without ties (each event its own cycle) pays a comparison a Push, and
// a run of one each time it starts. Events it does not take go into the
// heap as before, so the queue pops exactly what it would with one heap.
//
// Unlike a delay's run, the ties run keeps its head in its slice too, and
// the heap's entry for it stands for the head by its cycle and tie key:
// when the head fires, Pop reads it from the slice and the next event
// heads the run by a new tie key in the heap's entry (the cycle is the
// same), one field written where the whole entry was copied, and a sift
// only where the heap holds other events (uniform with --quick: 977 →
// 966 instructions a CTA; synth 1,872 → 1,874, whose runs are mostly of
// one event, each now written to the slice when it starts).

// tiesRun is the ties run's number in an entry heading it (1 + its index
// for a delay's run).
const tiesRun = maxRuns + 1

// ties is the ties run: its events, its head first, in one slice read
// from next on (a first-in first-out list emptied before it is filled
// again, the whole of one cycle's wave), and the last event it took.
type ties struct {
	ev     []entry
	next   int
	active bool
	last   entry
}

// startTies starts the ties run, idle, with x at its head: Push's path
// when the run is idle; when it is not, Push adds to it itself.
func (q *Queue) startTies(x entry) {
	t := &q.ties
	t.active, t.last = true, x
	if cap(t.ev) > 0 { // the slice is empty: an append cost 20 instructions more a start
		t.ev = t.ev[:1]
		t.ev[0] = x
	} else {
		t.ev = append(t.ev, x)
	}
	q.push(x.heading(tiesRun))
}

// PushTie is Push for an event of the ties run's cycle, where it joins
// the run under seed 0 with room in the run's slice: small enough for a
// caller to inline (Push is a call). Elsewhere it does nothing and
// reports false, for Push. It leaves the run's last as it was: its cycle
// is the event's, and its tie key, which only Push's test of a seed's
// keys reads, is never more than the event's under seed 0.
func (q *Queue) PushTie(e Event) bool {
	t := &q.ties
	if n := len(t.ev); e.At == t.last.At && q.seed == 0 && n < cap(t.ev) { // an idle run's last has no event's cycle (Pop)
		q.seq++
		q.n++
		t.ev = append(t.ev, entryOf(e, q.seq)) // t.last kept: only Push reads its tie key, under a seed (below)
		return true
	}
	return false
}

// TieNext reports whether the earliest event is the ties run's next
// after its head has popped (so its cycle is the last popped's), of
// kind, and not its last, and the heap holds nothing else: the next of a
// cycle's wave, which its owner takes (PopTie) in a loop of its own with
// no return to its event loop. Where it is not, Pop does the rest.
//
// The run is active where its slice holds more than its next (Pop
// empties it as the run goes idle), and its head is then the heap's only
// event, its root (an active run's head is in the heap, and a hole
// leaves no room for it there).
func (q *Queue) TieNext(kind uint8) bool {
	t := &q.ties
	i := t.next
	return i > 0 && i+1 < len(t.ev) && q.size == 1 && uint8(t.ev[i].meta) == kind
}

// PopTie pops the earliest event where TieNext has just reported it the
// ties run's next: what Pop would, with none of Pop's tests. The two are
// small enough to inline, where one function doing both was not.
func (q *Queue) PopTie() Event {
	t := &q.ties
	i := t.next
	q.n--
	t.next = i + 1
	q.h[0][1].seq = t.ev[i+1].seq // the next, of the same cycle, heads the run
	return t.ev[i].event()
}
