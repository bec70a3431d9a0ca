// Package eventq is the discrete-event clock the replay engine and the
// narrow-task runtimes share: a binary min-heap of events ordered by
// (cycle, sequence number), so events of one cycle fire in the order they
// were scheduled and a run is deterministic. Events are pointer-free
// values: scheduling one allocates nothing once the heap has grown, and
// the garbage collector never scans the heap — the engine schedules
// millions of them.
package eventq

// Event is one scheduled state change. Its meaning is its owner's: Kind
// says what happens, Ref names the thing it happens to through the owner's
// slot tables (a kernel, a CTA, a task), Aux is a second small integer
// some kinds need (a warp, an MTB, a worker).
type Event struct {
	At   int64
	seq  uint64
	Ref  int32
	Aux  int32
	Kind uint8
}

// Queue is the heap. The zero value is empty and ready.
type Queue struct {
	h   []Event
	seq uint64
}

// Len is the number of pending events.
func (q *Queue) Len() int { return len(q.h) }

// Peek is the earliest pending event's cycle; the queue must not be empty.
func (q *Queue) Peek() int64 { return q.h[0].At }

// Push schedules e after every event already scheduled for its cycle.
func (q *Queue) Push(e Event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	// Sift up by moving parents into the hole: one write per level.
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

// Pop removes and returns the earliest event; the queue must not be empty.
func (q *Queue) Pop() Event {
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
func (q *Queue) siftDown(x Event) {
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
func before(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}
