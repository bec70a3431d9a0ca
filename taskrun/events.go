package taskrun

// kind says what an event does when it fires. Each runtime has its own
// kinds; they share the queue type.
type kind uint8

// event is one scheduled state change. Events are pointer-free values in a
// slice heap, so scheduling one allocates nothing once the heap has grown
// and the garbage collector never scans it. ref names a task by its slot
// (see slots); aux is a second small integer (an MTB, an executor warp or
// a worker), meaning depends on the kind.
type event struct {
	at   int64
	seq  uint64
	ref  int32
	aux  int32
	kind kind
}

// eventQueue is a binary min-heap on (at, seq): a runtime's clock. The
// sequence number makes same-cycle events fire in the order they were
// scheduled, which keeps runs deterministic.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

// peek returns the earliest event's cycle; the queue must not be empty.
func (q *eventQueue) peek() int64 { return q.h[0].at }

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(&e, &q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = e
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	x := q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		q.siftDown(x)
	}
	return top
}

// siftDown places x, which replaces the root, by moving smaller children
// into the hole.
func (q *eventQueue) siftDown(x event) {
	h := q.h
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && before(&h[r], &h[l]) {
			m = r
		}
		if !before(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// before orders events by (cycle, sequence number).
func before(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// satAdd is a+b for a cycle a and a non-negative duration b, saturating at
// the largest cycle instead of wrapping, so absurd task times on a trace
// cannot reorder events.
func satAdd(a, b int64) int64 {
	const maxCycle = 1<<63 - 1
	if b > maxCycle-a {
		return maxCycle
	}
	return a + b
}
