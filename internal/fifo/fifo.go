// Package fifo is a first-in, first-out queue in one slice, for queues
// that stay long: the replay's kernels waiting for a Kernel Distributor
// entry (BFS scale 20: tens of thousands) and the event queue's runs of
// delayed events.
//
// Taking from the front of a slice by reslicing (q = q[1:]) strands the
// front's room: a queue that stays long then reallocates and copies
// itself every time it fills. A Queue reuses the front's room instead,
// moving what is queued down when its slice is full and at least half
// taken, and growing it only when it is not, so it holds at most about
// twice its longest length.
package fifo

// Queue is a FIFO of T. The zero value is empty and ready.
type Queue[T any] struct {
	items []T
	head  int // items[head:] are queued, oldest first
}

// Push queues v last.
func (q *Queue[T]) Push(v T) {
	if len(q.items) == cap(q.items) && q.head > 0 && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, v)
}

// Pop takes the oldest item; the queue must not be empty.
func (q *Queue[T]) Pop() T {
	v := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.items) - q.head }

// Queued is the items queued, oldest first, for reading only.
func (q *Queue[T]) Queued() []T { return q.items[q.head:] }
