// Package fifo is a first-in, first-out queue for queues that grow long:
// the replay's kernels waiting for a Kernel Distributor entry (BFS scale
// 20: tens of thousands) and the event queue's runs of delayed events.
//
// A queue in one slice moves what it holds whenever that slice is full:
// down to the front's room, or into a larger slice, which append grows by
// a quarter at a time once it is large, so a queue growing to n items
// copies several times n of them on its way. For a queue of pointers each
// one copied while the garbage collector marks takes a write barrier: the
// engine goroutine spent 1-2% of its time there (BFS scale 20 under CDP).
// A Queue instead holds its items in blocks of a fixed size chained in
// order: an item, once pushed, stays where it is until it is popped. The
// blocks it empties it keeps for reuse, as a slice keeps its room: a
// queue that grows and drains again and again (the engine's, at every
// level of a launch tree) would otherwise allocate its blocks each time
// (BFS scale 20: 1,181 blocks of up to 8 KiB, 1% of the engine's time).
package fifo

import "iter"

// blockLen is the number of items in a block: long enough that moving to
// the next block is rare, short enough that a queue that stays short (an
// event run of a few entries) holds little.
const blockLen = 256

// block is a run of a queue's items, chained to the next.
type block[T any] struct {
	items [blockLen]T
	next  *block[T]
}

// Queue is a FIFO of T. The zero value is empty and ready.
type Queue[T any] struct {
	head  *block[T] // the oldest items, from head.items[first]; nil when no block is held
	tail  *block[T] // the newest, up to tail.items[last-1]
	first int
	last  int
	n     int
	spare *block[T] // emptied blocks, chained, for the next ones needed
}

// Push queues v last.
func (q *Queue[T]) Push(v T) {
	if q.tail == nil || q.last == blockLen {
		q.addBlock()
	}
	q.tail.items[q.last] = v
	q.last++
	q.n++
}

// TryPush queues v last where the tail block has room for it, and
// reports whether it did: a Push that makes no call, for a caller whose
// common path should make none (the event queue's PushDelayed).
func (q *Queue[T]) TryPush(v T) bool {
	b, i := q.tail, uint(q.last)
	if b == nil || i >= blockLen {
		return false
	}
	b.items[i] = v
	q.last++
	q.n++
	return true
}

// addBlock chains an empty block after the tail: a spare one, or a new one.
func (q *Queue[T]) addBlock() {
	b := q.spare
	if b == nil {
		b = new(block[T])
	} else {
		q.spare, b.next = b.next, nil
	}
	if q.tail == nil {
		q.head, q.first = b, 0
	} else {
		q.tail.next = b
	}
	q.tail, q.last = b, 0
}

// Pop takes the oldest item; the queue must not be empty. It leaves the
// item in its place, which popped clears with the block's others when
// the block is left: a pointer popped stays alive until at most
// blockLen-1 more Pops. Clearing each place at its Pop made Pop too
// costly to inline (the inliner's cost 88, over its budget of 80; now
// 75), and the engine pops every device kernel's arrival and readiness
// from the event queue's runs and every kernel waiting for a Kernel
// Distributor entry from here: called, with the item copied out of the
// call, it cost BFS scale 16 under CDP 20 instructions a CTA more
// (callgrind: 4,831 → 4,811).
func (q *Queue[T]) Pop() T {
	v := q.head.items[q.first]
	q.first++
	q.n--
	if q.n == 0 || q.first == blockLen {
		q.popped()
	}
	return v
}

// popped follows a Pop that emptied the head block, or the queue: the
// block's popped items are cleared, so a pointer popped is not kept
// alive, and the block is unchained and kept with the spare ones (so Pop
// on an empty queue panics on the nil head).
func (q *Queue[T]) popped() {
	b := q.head
	clear(b.items[:q.first])
	q.head, q.first = b.next, 0
	b.next, q.spare = q.spare, b
	if q.head == nil {
		q.tail, q.last = nil, 0
	}
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return q.n }

// Front is the oldest item, which Pop takes next; ok is false when the
// queue is empty.
func (q *Queue[T]) Front() (v T, ok bool) {
	if q.n == 0 {
		return v, false
	}
	return q.head.items[q.first], true
}

// All yields the items queued, oldest first. The queue must not change
// during the iteration.
func (q *Queue[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		i, left := q.first, q.n
		for b := q.head; left > 0; b, i = b.next, 0 {
			for ; i < blockLen && left > 0; i, left = i+1, left-1 {
				if !yield(b.items[i]) {
					return
				}
			}
		}
	}
}
