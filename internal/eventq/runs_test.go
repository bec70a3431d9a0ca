package eventq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// popOrder pushes n events onto q the way a replay schedules them — a clock
// that mostly moves on, events a delay after it, some through PushDelayed
// and some through Push or PushOrdered, pops interleaved — and returns the
// Refs in the order they pop. delayed false pushes every event with Push
// (or PushOrdered) instead, the reference.
func popOrder(seed, tie uint64, delays, n int, delayed bool) []int32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	var q Queue
	q.SetTieSeed(tie)
	var got []int32
	now := int64(0)
	for i := 0; i < n; i++ {
		switch rng.IntN(10) {
		case 0:
			now -= rng.Int64N(5) // a clock that goes back: PushDelayed must still order right
		default:
			now += rng.Int64N(3)
		}
		e := Event{Ref: int32(i)}
		switch k := rng.IntN(6); {
		case k < 3:
			d := int64(rng.IntN(delays)) * 7
			e.At = now + d
			if delayed {
				q.PushDelayed(d, e)
			} else {
				q.Push(e)
			}
		case k < 5:
			e.At = now + rng.Int64N(40)
			q.Push(e)
		default:
			e.At = now + rng.Int64N(40)
			q.PushOrdered(e)
		}
		for q.Len() > 0 && rng.IntN(3) == 0 {
			got = append(got, q.Pop().Ref)
		}
	}
	for q.Len() > 0 {
		got = append(got, q.Pop().Ref)
	}
	return got
}

// Events pushed with PushDelayed pop exactly as with Push, under tie seeds
// too, with few delays (every run long) and more than maxRuns of them
// (the rest in the heap).
func TestPushDelayedKeepsOrder(t *testing.T) {
	for _, delays := range []int{1, 3, 40, maxRuns + 50} {
		for tie := uint64(0); tie < 3; tie++ {
			for seed := uint64(1); seed <= 20; seed++ {
				want := popOrder(seed, tie, delays, 3000, false)
				got := popOrder(seed, tie, delays, 3000, true)
				if len(want) != 3000 || !slices.Equal(got, want) {
					t.Fatalf("delays %d, tie seed %d, seed %d: order differs from Push's (%d and %d events)", delays, tie, seed, len(got), len(want))
				}
			}
		}
	}
}

// A run keeps only its head in the heap: 10,000 events pending in one
// delay's run leave a heap of one.
func TestRunsKeepTheHeapSmall(t *testing.T) {
	var q Queue
	for i := 0; i < 10000; i++ {
		q.PushDelayed(500, Event{At: int64(i) + 500, Ref: int32(i)})
	}
	if q.Len() != 10000 || q.heaped() != 1 {
		t.Fatalf("%d events pending, %d in the heap; want 10000 and 1", q.Len(), q.heaped())
	}
	for i := 0; i < 10000; i++ {
		if e := q.Pop(); e.Ref != int32(i) {
			t.Fatalf("pop %d gave %d", i, e.Ref)
		}
	}
	if q.Len() != 0 || q.heaped() != 0 {
		t.Fatalf("%d left, heap %d", q.Len(), q.heaped())
	}
}

// heaped is the number of events in the heap, not counting a hole.
func (q *Queue) heaped() int {
	if q.hole {
		return int(q.size) - 1
	}
	return int(q.size)
}
