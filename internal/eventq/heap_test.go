package eventq

// oracleArity is the oracle's branching, the queue's before it was binary.
const oracleArity = 4

// heapQueue is the queue as it was before the ties run (ties.go): a 4-ary
// heap ordered by (cycle, tie key) whose Pop leaves the root a hole for
// the next push to fill, without runs — its PushDelayed is Push. It is the
// oracle the queue is tested against (ties_test.go).
type heapQueue struct {
	h    []entry
	n    int
	seq  uint64
	seed uint64
	hole bool
}

// Len is the number of pending events.
func (q *heapQueue) Len() int { return q.n }

// Peek is the earliest pending event's cycle; the queue must not be empty.
// Over a hole it is the least of the root's children's, and the hole
// stays for a Push to fill: the engine peeks after each event it fires,
// before settling the cycle schedules the next.
func (q *heapQueue) Peek() int64 {
	if q.hole {
		return q.peekUnder()
	}
	return q.h[0].At
}

// peekUnder is the least cycle among the hole's children: all four in
// the common case, unrolled (a loop over them cost some 50 instructions a
// peek, once an event the engine fires).
func (q *heapQueue) peekUnder() int64 {
	h := q.h
	if len(h) > oracleArity {
		k := h[1 : 1+oracleArity : 1+oracleArity]
		return min(min(k[0].At, k[1].At), min(k[2].At, k[3].At))
	}
	at := h[1].At
	for _, x := range h[2:] {
		at = min(at, x.At)
	}
	return at
}

// Push schedules e after every event already scheduled for its cycle, or,
// under a tie seed, at the place among them the seed and the scheduling
// order pick.
func (q *heapQueue) Push(e Event) {
	q.push(entryOf(e, q.tie()))
}

// tie is the next tie key Push gives. It returns the key alone, not the
// entry, so that it is inlined (Push: one call fewer an event).
func (q *heapQueue) tie() uint64 {
	q.seq++
	if q.seed != 0 {
		return mix(q.seed, q.seq) | permuted
	}
	return q.seq
}

// PushOrdered schedules e after every event already scheduled for its
// cycle with PushOrdered, whatever the tie seed: for events whose order
// within a cycle carries meaning (a program's calls). Under a tie seed they
// fire before the cycle's permuted events.
func (q *heapQueue) PushOrdered(e Event) {
	q.seq++
	q.push(entryOf(e, q.seq))
}

func (q *heapQueue) push(e entry) {
	q.n++
	if q.hole {
		q.hole = false
		q.siftDown(e)
		return
	}
	q.h = append(q.h, e)
	// Sift up by moving parents into the hole: one write per level.
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / oracleArity
		if !before(e, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// Pop removes and returns the earliest event; the queue must not be empty.
// Its place is left a hole, which the next Push fills with its event, sifted down from
// the root: the engine schedules an event after nearly every one it fires,
// and one sift down then does the work of a pop's and a push's sifts (the
// heap's order is the same either way: no two events share a key). Pop
// fills a hole left unfilled as a pop would, with the last event.
func (q *heapQueue) Pop() Event {
	if q.hole {
		q.fill()
	}
	q.n--
	top := q.h[0]
	q.hole = true
	return top.event()
}

// fill fills the hole at the root with the heap's last event.
func (q *heapQueue) fill() {
	q.hole = false
	last := len(q.h) - 1
	x := q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		q.siftDown(x)
	}
}

// siftDown places x, which replaces the root, by moving the least child
// into the hole while it is less than x.
func (q *heapQueue) siftDown(x entry) {
	h := q.h
	n := len(h)
	i := 0
	for {
		c := oracleArity*i + 1
		var m int
		switch {
		case c+oracleArity <= n: // all four children: the common case, unrolled
			k := h[c : c+oracleArity : c+oracleArity]
			a, b := 0, 2
			if before(k[1], k[0]) {
				a = 1
			}
			if before(k[3], k[2]) {
				b = 3
			}
			if before(k[b], k[a]) {
				a = b
			}
			m = c + a
		case c < n:
			m = c
			for j := c + 1; j < n; j++ {
				if before(h[j], h[m]) {
					m = j
				}
			}
		default:
			h[i] = x
			return
		}
		if !before(h[m], x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// SetTieSeed is Queue's.
func (q *heapQueue) SetTieSeed(seed uint64) { q.seed = seed }

// PushDelayed is Push: the heap has no runs.
func (q *heapQueue) PushDelayed(_ int64, e Event) { q.Push(e) }
