package eventq

// A cycle's ties keep the heap small too. A replay's CTAs of one length,
// started together, end together: 1M CTAs of 5,000 cycles on 13 SMs end
// in waves of 208, each scheduled in one burst of pushes and popped in
// one burst at its cycle. In the heap, each of those pops sifts the last
// event down through four levels of equal cycles, comparing tie keys (263
// instructions an event). Filed in the ties run instead — a run
// (runs.go) of one cycle's events in tie-key order, whose head alone is
// in the heap — a wave costs a first-in first-out push and pop an event,
// and the heap holds one event for it.
//
// The ties run takes the events Push schedules for the cycle of its
// head, in order; it starts on a Push when it has none, so a replay
// without ties (each event its own cycle) pays a comparison a Push, and
// a run of one each time it starts. Events it does not take go into the
// heap as before, so the queue pops exactly what it would with one heap.

// tiesRun is the ties run's number in an entry heading it (1 + its index
// for a delay's run).
const tiesRun = maxRuns + 1

// ties is the ties run: the events behind its head, in one slice read
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
	q.push(x.heading(tiesRun))
}

// take removes the event behind the ties run's head, or reports the run
// idle (its head was its last event).
func (t *ties) take() (entry, bool) {
	if t.next == len(t.ev) {
		t.active, t.ev, t.next = false, t.ev[:0], 0
		return entry{}, false
	}
	t.next++
	return t.ev[t.next-1], true
}
