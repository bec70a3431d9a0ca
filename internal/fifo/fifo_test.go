package fifo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQueue checks a Queue against a plain slice over random pushes (one,
// or a run of up to two blocks' worth; Push or TryPush) and pops whose queue length
// wanders across many blocks and back
// to empty: the order popped, Len, Front and All at every step; that a
// queue holds no more blocks than its items need; that only the head
// block keeps popped items, and a spare block none (they are pointers
// here, which would stay alive).
func TestQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q Queue[*int]
	var want []*int
	limit := 1
	for i := range 300000 {
		if i%20000 == 0 {
			limit = []int{1, 5 * blockLen, 3, 2*blockLen + 7, blockLen}[i/20000%5]
		}
		if len(want) < limit && (len(want) == 0 || r.IntN(2) == 0) {
			run := make([]*int, 1)
			if r.IntN(8) == 0 {
				run = make([]*int, r.IntN(2*blockLen+1))
			}
			for j := range run {
				run[j] = new(int)
				*run[j] = i
			}
			for _, v := range run {
				push(t, &q, v, r.IntN(2) == 0)
			}
			want = append(want, run...)
		} else if len(want) > 0 {
			got := q.Pop()
			if got != want[0] {
				t.Fatalf("step %d: pop %d, want %d", i, *got, *want[0])
			}
			want = want[1:]
		}
		if q.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", i, q.Len(), len(want))
		}
		front, ok := q.Front()
		if ok != (len(want) > 0) || ok && front != want[0] {
			t.Fatalf("step %d: Front %v %v, want %v", i, front, ok, want)
		}
		if i%97 == 0 {
			if got := slices.Collect(q.All()); !slices.Equal(got, want) {
				t.Fatalf("step %d: All %v, want %v", i, got, want)
			}
			checkBlocks(t, &q, i)
		}
	}
}

// push queues v with Push, or with TryPush where try is set, which must
// take it exactly where the tail block has room (then Push does).
func push(t *testing.T, q *Queue[*int], v *int, try bool) {
	t.Helper()
	if !try {
		q.Push(v)
		return
	}
	room := q.tail != nil && q.last < blockLen
	if q.TryPush(v) != room {
		t.Fatalf("TryPush with room %v reported otherwise", room)
	}
	if !room {
		q.Push(v)
	}
}

// checkBlocks checks that q's blocks are as few as its items need and
// hold nothing outside them but the head block's popped items (Pop leaves
// them until the block is left).
func checkBlocks(t *testing.T, q *Queue[*int], step int) {
	t.Helper()
	blocks, held := 0, 0
	for b := q.head; b != nil; b = b.next {
		blocks++
		for i, v := range b.items {
			if v == nil {
				continue
			}
			if b == q.head && i < q.first {
				continue
			}
			held++
			if b == q.tail && i >= q.last {
				t.Fatalf("step %d: block %d keeps item %d outside the queue", step, blocks, i)
			}
		}
	}
	if need := (q.first + q.n + blockLen - 1) / blockLen; blocks != need {
		t.Fatalf("step %d: %d blocks for %d items from %d", step, blocks, q.n, q.first)
	}
	if held != q.n {
		t.Fatalf("step %d: blocks hold %d items, %d queued", step, held, q.n)
	}
	for b := q.spare; b != nil; b = b.next {
		if slices.ContainsFunc(b.items[:], func(v *int) bool { return v != nil }) {
			t.Fatalf("step %d: a spare block is not empty", step)
		}
	}
}

// TestEmptyQueue checks the zero value and a queue emptied again.
func TestEmptyQueue(t *testing.T) {
	var q Queue[int]
	if _, ok := q.Front(); ok || q.Len() != 0 {
		t.Fatal("zero Queue not empty")
	}
	for range slices.Collect(q.All()) {
		t.Fatal("zero Queue yields an item")
	}
	q.Push(1)
	q.Pop()
	if _, ok := q.Front(); ok || q.Len() != 0 {
		t.Fatal("emptied Queue not empty")
	}
	defer func() {
		if recover() == nil {
			t.Error("Pop of an empty queue did not panic")
		}
	}()
	q.Pop()
}

// TestQueueReusesBlocks: a queue that grows and drains again allocates
// only the first time (the blocks it empties are kept), as a slice keeps
// its room. Fails when emptied blocks are dropped.
func TestQueueReusesBlocks(t *testing.T) {
	var q Queue[int]
	wave := func() {
		for i := range 5*blockLen + 3 {
			q.Push(i)
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}
	wave()
	if allocs := testing.AllocsPerRun(10, wave); allocs != 0 {
		t.Errorf("a wave as long as the first allocates %v times", allocs)
	}
}
