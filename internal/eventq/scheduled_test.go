package eventq

import (
	"math/rand/v2"
	"testing"
)

// Where Scheduled has not changed since an event was pushed, and it is
// still pending, an event of its cycle pushed now pops right after it
// (under seed 0): what a caller that lets the first carry both relies on
// (the engine's chained aggregated groups). Pushes of every kind and
// pops interleave at random, over a clock that never goes back.
func TestScheduledFollows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q Queue
	var now int64
	ref := int32(0)
	type pushed struct {
		ev    Event
		after uint64 // Scheduled just after the push
	}
	var last *pushed
	follows := map[int32]int32{} // the event that must pop right after each
	pending := map[int32]bool{}
	popOrder := []int32{}
	info := map[int32]int64{} // each event's cycle
	for i := 0; i < 20000; i++ {
		before := q.Scheduled()
		ref++
		ev := Event{At: now + rng.Int64N(4), Ref: ref}
		switch op := rng.IntN(6); op {
		case 0:
			q.Push(ev)
		case 1:
			d := []int64{0, 2, 3}[rng.IntN(3)]
			ev.At = now + d
			q.PushDelayed(d, ev)
		case 2:
			q.PushOrdered(ev)
		case 3:
			if !q.PushTie(ev) {
				q.Push(ev)
			}
		case 4:
			q.Push(ev)
		case 5:
			ref--
			now += rng.Int64N(2)
			for q.Len() > 0 && q.Peek() <= now {
				e := q.Pop()
				popOrder = append(popOrder, e.Ref)
				delete(pending, e.Ref)
			}
			continue
		}
		if got := q.Scheduled(); got != before+1 {
			t.Fatalf("step %d: Scheduled went from %d to %d; want one more", i, before, got)
		}
		if last != nil && last.after == before && last.ev.At == ev.At && pending[last.ev.Ref] && last.ev.Ref != ev.Ref {
			follows[last.ev.Ref] = ev.Ref
		}
		pending[ev.Ref] = true
		info[ev.Ref] = ev.At
		last = &pushed{ev: ev, after: q.Scheduled()}
	}
	for q.Len() > 0 {
		popOrder = append(popOrder, q.Pop().Ref)
	}
	next := map[int32]int32{}
	for i := 0; i+1 < len(popOrder); i++ {
		next[popOrder[i]] = popOrder[i+1]
	}
	checked := 0
	for a, b := range follows {
		if next[a] != b {
			t.Errorf("event %d popped right after %d (cycle %d), where %d, pushed next for its cycle, should have", next[a], a, info[a], b)
		}
		checked++
	}
	if checked < 1000 {
		t.Errorf("only %d pairs checked", checked)
	}
	before := q.Scheduled()
	q.Push(Event{At: now + 5, Ref: 1})
	q.Move(Event{At: now + 5, Ref: 1}, Event{At: now + 6, Ref: 1}) // a new tie key
	if got := q.Scheduled(); got != before+2 {
		t.Errorf("a Push and a Move took Scheduled from %d to %d; want 2 more", before, got)
	}
	if q.Seeded() {
		t.Error("Seeded with no seed set")
	}
	q.SetTieSeed(9)
	if !q.Seeded() {
		t.Error("not Seeded after SetTieSeed(9)")
	}
}
