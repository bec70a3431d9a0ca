package fifo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQueue checks a Queue against a plain slice over random pushes and
// pops, and that a queue whose length stays bounded keeps its slice
// bounded too (the front's room is reused, not stranded).
func TestQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q Queue[int]
	var want []int
	most := 0
	for i := range 200000 {
		if len(want) < 1000 && (len(want) == 0 || r.IntN(2) == 0) {
			q.Push(i)
			want = append(want, i)
		} else {
			if got := q.Pop(); got != want[0] {
				t.Fatalf("step %d: pop %d, want %d", i, got, want[0])
			}
			want = want[1:]
		}
		most = max(most, len(want))
		if q.Len() != len(want) || !slices.Equal(q.Queued(), want) {
			t.Fatalf("step %d: queued %v, want %v", i, q.Queued(), want)
		}
	}
	if c := cap(q.items); c > 4*most {
		t.Errorf("slice of %d for at most %d queued", c, most)
	}
}
