package eventq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Events come out by cycle, and within a cycle in the order they were
// pushed, however they were interleaved.
func TestOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q Queue
	type key struct {
		at  int64
		ref int32
	}
	var want []key
	for i := 0; i < 2000; i++ {
		at := rng.Int64N(50)
		q.Push(Event{At: at, Ref: int32(i)})
		want = append(want, key{at, int32(i)})
	}
	slices.SortStableFunc(want, func(a, b key) int { return int(a.at - b.at) })
	for i, w := range want {
		if q.Peek() != w.at {
			t.Fatalf("event %d: peek %d, want %d", i, q.Peek(), w.at)
		}
		e := q.Pop()
		if e.At != w.at || e.Ref != w.ref {
			t.Fatalf("event %d: got (%d, %d), want (%d, %d)", i, e.At, e.Ref, w.at, w.ref)
		}
	}
	if q.Len() != 0 {
		t.Fatalf("%d events left", q.Len())
	}
}
