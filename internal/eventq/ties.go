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

// Fills reports whether Push would put an event of cycle at in the hole
// the last Pop left at the root: there is one, and the ties run is active
// for another cycle, so the event goes into the heap (push). FillHole
// then does what Push would, in one call where Push is a call and push
// another. The contention model's wake-ups take that way: an SM's
// wake-up fired in the cycle whose Settle asks for its next.
func (q *Queue) Fills(at int64) bool {
	t := &q.ties
	return q.hole && t.active && at != t.last.At
}

// FillHole is Push(e) where Fills(e.At) reports true, with nothing
// pushed or popped since it did: e with the next tie key, sifted down
// from the root (siftDown's loop, here rather than called).
func (q *Queue) FillHole(e Event) {
	var x entry
	x, q.n = entryOf(e, q.tie()), q.n+1 // the count's rise marks the inlined calls, where x := entryOf(...) left a NOP (own, bfs --quick 1,403.5 -> 1,402.6 a CTA)
	q.hole = false
	h := q.h
	at := &h[0][1]
	for k := uint(1); k < uint(len(h)); { // pair k holds k's children
		c := &h[k]
		y := &c[0]
		if k *= 2; c[1].precedes(y) {
			y, k = &c[1], k+1
		}
		if !before(*y, x) {
			break
		}
		*at = *y
		at = y
	}
	*at = x
}

// A Wave is the rest of a cycle's wave, which its owner fires in a loop
// of its own with no return to its event loop: the ties run's events
// after its head has popped, up to its last (excluded), while the heap
// holds nothing else, so exactly what Pop would give one after the other.
// Its owner reads them in order (At) and pops the first it has read
// together (PopWave), before it pushes or pops any other event. Read and
// popped so, with the index in its owner's register, a wave's event costs
// a load of its fields and a test of its kind, where a test of the run
// and a pop each (the heap's root given the next's tie key every time)
// cost some 30 instructions more (uniform, --quick).
type Wave []entry

// TieWave is the ties run's next events after its head has popped (so
// their cycle is the last popped's), at most max of them and never its
// last, where the heap holds nothing else; elsewhere it is empty, and
// Pop does the rest.
//
// The run is active where its slice holds more than its next (Pop
// empties it as the run goes idle), and its head is then the heap's only
// event, its root (an active run's head is in the heap, and a hole
// leaves no room for it there).
func (q *Queue) TieWave(max int) Wave {
	t := &q.ties
	i := t.next
	if i == 0 || i+1 >= len(t.ev) || q.size != 1 || max < 1 {
		return nil
	}
	return t.ev[i:min(len(t.ev)-1, i+max)]
}

// At is the wave's event i: its kind, Ref and Aux (its cycle is the
// wave's).
func (w Wave) At(i int) (kind uint8, ref, aux int32) {
	x := &w[i]
	return uint8(x.meta), int32(uint32(x.refs)), int32(uint32(x.refs >> 32))
}

// PopWave pops the first m events of the wave TieWave gave last (what as
// many Pops would) and returns m.
func (q *Queue) PopWave(m int) int {
	if m > 0 {
		t := &q.ties
		t.next += m
		q.n -= m
		q.h[0][1].seq = t.ev[t.next].seq // the next, of the same cycle, heads the run
	}
	return m
}
