// Package ahead runs a producer on a goroutine of its own, a bounded
// number of buffers ahead of the one consumer that takes them in order:
// the replay's trace.Prefetcher (decoded records) and its launch-tree
// filer (replay/treeahead.go) both read ahead this way.
//
// A buffer is the producer's until it is sent and the consumer's after;
// the consumer gives it back for reuse. At most depth+2 buffers exist (depth
// sent and waiting, one being filled, one being read), so the memory held
// stays bounded whatever the length of the stream.
package ahead

import "sync/atomic"

// Window is one producer's goroutine and the buffers between it and its
// consumer.
type Window[T any] struct {
	hungry atomic.Bool // the consumer has found no buffer waiting and waits for one
	full   chan *T
	free   chan *T // used buffers, for reuse
	stop   chan struct{}
	exited chan struct{}
}

// New is a window of depth buffers sent and waiting; Go starts its
// producer.
func New[T any](depth int) *Window[T] {
	return &Window[T]{
		full:   make(chan *T, depth),
		free:   make(chan *T, depth+2),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
}

// Go runs fill on a goroutine of its own, buffer after buffer, until it
// reports the buffer it filled is the last or Close stops it. fill gets a
// fresh buffer or a reused one as the consumer gave it back. Call it once.
func (w *Window[T]) Go(fill func(*T) (last bool)) {
	go w.run(fill)
}

func (w *Window[T]) run(fill func(*T) bool) {
	defer close(w.exited)
	for {
		var b *T
		select {
		case b = <-w.free:
		default:
			b = new(T)
		}
		last := fill(b) // b is the consumer's once sent
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

// Hungry reports, to the producer, whether the consumer waits for a
// buffer: one that holds anything is better sent now than full later.
func (w *Window[T]) Hungry() bool { return w.hungry.Load() }

// NotHungry tells the producer the consumer no longer waits (it has been
// answered).
func (w *Window[T]) NotHungry() { w.hungry.Store(false) }

// Receive returns the next buffer, telling the producer the consumer
// waits when none is ready.
func (w *Window[T]) Receive() *T {
	select {
	case b := <-w.full:
		return b
	default:
	}
	w.hungry.Store(true)
	b := <-w.full
	w.hungry.Store(false) // b may have gone out full, before the producer saw it
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
