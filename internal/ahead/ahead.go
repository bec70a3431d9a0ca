// Package ahead keeps a producer a bounded number of buffers ahead of
// the one consumer that takes them in order: the replay's
// trace.Prefetcher (decoded records) and its launch-tree filer
// (replay/treeahead.go) both read ahead this way. The producer's loop
// (Run) runs on a goroutine the window's user starts: the Prefetcher
// starts its own; the filer's runs where the replay's caller puts it
// (replay.ReadAhead, package ingest), so the engine starts none.
//
// A buffer is the producer's until it is sent and the consumer's after;
// the consumer gives it back for reuse. At most depth+2 buffers exist (depth
// sent and waiting, one being filled, one being read), so the memory held
// stays bounded whatever the length of the stream. Where buffers differ
// widely in size (the tree filer's: a message may carry a host kernel's
// whole grid of CTA specs), Limit bounds the bytes waiting as well.
package ahead

import "sync/atomic"

// Window is one producer and the buffers between it and its consumer.
type Window[T any] struct {
	hungry atomic.Bool // the consumer has found no buffer waiting and waits for one
	full   chan *T
	free   chan *T // used buffers, for reuse
	stop   chan struct{}
	exited chan struct{}

	// With Limit: the bytes the sent buffers waiting hold, by size's
	// count, and a signal (one pending at most) that the consumer has
	// taken one.
	size   func(*T) int64
	limit  int64
	queued atomic.Int64
	taken  chan struct{}
}

// New is a window of depth buffers sent and waiting; Run is its
// producer's loop.
func New[T any](depth int) *Window[T] {
	return &Window[T]{
		full:   make(chan *T, depth),
		free:   make(chan *T, depth+2),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
}

// Limit bounds, besides their number, the bytes the buffers sent and
// waiting hold, as size counts them: the producer starts no buffer while
// they hold limit or more. So at most limit bytes wait, plus the buffer
// that crossed it, the one being filled and the one being read (a buffer
// stops counting when the consumer receives it, so a buffer larger than
// limit never stalls the producer for good). size must count the same
// for a buffer when it is sent and when it is received. Call it before Run.
func (w *Window[T]) Limit(limit int64, size func(*T) int64) {
	w.size, w.limit, w.taken = size, limit, make(chan struct{}, 1)
}

// Run is the producer's loop: it calls fill buffer after buffer until
// fill reports the buffer it filled is the last or Close stops it, then
// returns. fill gets a fresh buffer or a reused one as the consumer gave
// it back. Call it once, on a goroutine other than the consumer's (go
// w.Run(fill)): the window starts none itself, so its user says where its
// producer runs, and Close waits for Run to return.
func (w *Window[T]) Run(fill func(*T) (last bool)) {
	defer close(w.exited)
	for {
		if !w.room() {
			return
		}
		var b *T
		select {
		case b = <-w.free:
		default:
			b = new(T)
		}
		last := fill(b) // b is the consumer's once sent
		if w.size != nil {
			w.queued.Add(w.size(b))
		}
		select {
		case w.full <- b:
		case <-w.stop:
			return
		}
		if last {
			return
		}
	}
}

// room waits, with Limit, until the buffers waiting hold less than its
// bytes; false when Close stops it first.
func (w *Window[T]) room() bool {
	for w.size != nil && w.queued.Load() >= w.limit {
		select {
		case <-w.taken:
		case <-w.stop:
			return false
		}
	}
	return true
}

// Hungry reports, to the producer, whether the consumer waits for a
// buffer: one that holds anything is better sent now than full later.
func (w *Window[T]) Hungry() bool { return w.hungry.Load() }

// NotHungry tells the producer the consumer no longer waits (it has been
// answered).
func (w *Window[T]) NotHungry() { w.hungry.Store(false) }

// Receive returns the next buffer, telling the producer the consumer
// waits when none is ready.
func (w *Window[T]) Receive() *T {
	var b *T
	select {
	case b = <-w.full:
	default:
		w.hungry.Store(true)
		b = <-w.full
		w.hungry.Store(false) // b may have gone out full, before the producer saw it
	}
	if w.size != nil {
		w.queued.Add(-w.size(b))
		select {
		case w.taken <- struct{}{}:
		default: // a signal is pending already
		}
	}
	return b
}

// Recycle gives a buffer the consumer has done with back for reuse; it
// must hold nothing the consumer still uses.
func (w *Window[T]) Recycle(b *T) {
	select {
	case w.free <- b:
	default:
	}
}

// Close stops the producer and waits until its goroutine has ended; fill
// is not called again. Call it once.
func (w *Window[T]) Close() {
	close(w.stop)
	<-w.exited
}
