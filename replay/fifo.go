package replay

// fifo is a first-in, first-out queue in one slice. Taking from the front
// of a slice by reslicing (q = q[1:]) strands the front's room: a queue
// that stays long, as the kernels waiting for a Kernel Distributor entry
// do in a launch-heavy trace (BFS scale 20: tens of thousands), then
// reallocates and copies itself every time it fills. A fifo reuses the
// front's room instead, moving what is queued down when its slice is full
// and at least half taken, and growing it only when it is not.
type fifo[T any] struct {
	items []T
	head  int // items[head:] are queued, oldest first
}

// push queues v last.
func (q *fifo[T]) push(v T) {
	if len(q.items) == cap(q.items) && q.head > 0 && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, v)
}

// pop takes the oldest item; the queue must not be empty.
func (q *fifo[T]) pop() T {
	v := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
}

// len is the number of items queued.
func (q *fifo[T]) len() int { return len(q.items) - q.head }

// queued is the items queued, oldest first, for reading only.
func (q *fifo[T]) queued() []T { return q.items[q.head:] }
