package ahead

import (
	"testing"
	"time"
)

type buf struct{ vals []int }

// Buffers come out in the order they were filled, and a producer that runs
// far ahead of a slow consumer fills at most depth+2 distinct buffers.
func TestWindowInOrderAndBounded(t *testing.T) {
	const depth, n = 3, 200
	w := New[buf](depth)
	seen := map[*buf]bool{} // the producer's alone until Close
	next := 0
	go w.Run(func(b *buf) bool {
		seen[b] = true
		b.vals = append(b.vals[:0], next, next+1)
		next += 2
		return next >= n
	})
	want := 0
	for want < n {
		b := w.Receive()
		for _, v := range b.vals {
			if v != want {
				t.Fatalf("got %d, want %d", v, want)
			}
			want++
		}
		if want%50 == 0 {
			time.Sleep(time.Millisecond) // let the producer fill the window
		}
		w.Recycle(b)
	}
	w.Close()
	if len(seen) > depth+2 {
		t.Errorf("the producer filled %d distinct buffers, want at most %d", len(seen), depth+2)
	}
}

// Close stops a producer that would run forever, even with the window full.
func TestWindowCloseStops(t *testing.T) {
	w := New[buf](2)
	go w.Run(func(b *buf) bool { return false })
	time.Sleep(time.Millisecond)
	w.Close()
}

// With Limit, a producer far ahead of a slow consumer keeps at most the
// limit waiting plus the buffer that crossed it, whatever the number of
// buffers allows, and a buffer larger than the limit alone does not stall
// it.
func TestWindowByteLimit(t *testing.T) {
	const depth, limit, n = 100, 1000, 300
	w := New[buf](depth)
	size := func(b *buf) int64 { return int64(b.vals[1]) }
	var queued, peak int64 // the consumer's view: sent and not yet received
	sent := make(chan int64, n)
	w.Limit(limit, size)
	next := 0
	go w.Run(func(b *buf) bool {
		// Sizes 100, but every 50th buffer is 5000 bytes.
		s := 100
		if next%50 == 0 {
			s = 5000
		}
		b.vals = append(b.vals[:0], next, s)
		next++
		sent <- int64(s)
		return next >= n
	})
	for i := range n {
		if i%10 == 0 {
			time.Sleep(time.Millisecond) // let the producer fill the window
		}
		for {
			select {
			case s := <-sent:
				queued += s
				continue
			default:
			}
			break
		}
		peak = max(peak, queued)
		b := w.Receive()
		if b.vals[0] != i {
			t.Fatalf("got buffer %d, want %d", b.vals[0], i)
		}
		queued -= size(b)
		w.Recycle(b)
	}
	w.Close()
	// Waiting: under limit, plus the one that crossed it (up to 5000),
	// plus the one filled meanwhile and counted on send (up to 5000).
	if bound := int64(limit + 2*5000); peak > bound {
		t.Errorf("%d bytes waited at once, want at most %d", peak, bound)
	}
	if peak < limit {
		t.Errorf("at most %d bytes waited: the producer never reached the limit, the test shows nothing", peak)
	}
}
