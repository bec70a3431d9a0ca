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
	w.Go(func(b *buf) bool {
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
	w.Go(func(b *buf) bool { return false })
	time.Sleep(time.Millisecond)
	w.Close()
}
