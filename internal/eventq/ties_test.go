package eventq

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lockstep drives a Queue and a 4-ary heap without runs (heap_test.go)
// with the schedule ops spells, a byte an operation and the next as its
// argument, as a replay schedules: from a clock at the last event popped,
// events at that cycle (ties), a CTA's length or one of a few lengths on
// (many ties, far apart), anywhere in a window, at the end of time (a
// saturated cycle), through PushDelayed on one of a few delays, and now
// and then before the clock (a caller whose clock went back). It fails on
// the first pop, peek or length they disagree on, then pops both empty.
func lockstep(t *testing.T, tie uint64, ops []byte) {
	var q Queue
	var h heapQueue
	q.SetTieSeed(tie)
	h.SetTieSeed(tie)
	now := int64(0)
	ref := int32(0)
	pop := func(step int) {
		if q.Len() != h.Len() {
			t.Fatalf("step %d: %d pending, want %d", step, q.Len(), h.Len())
		}
		if h.Len() == 0 {
			return
		}
		if got, want := q.Peek(), h.Peek(); got != want {
			t.Fatalf("step %d: peek %d, want %d", step, got, want)
		}
		got, want := q.Pop(), h.Pop()
		if got != want {
			t.Fatalf("step %d: popped %+v, want %+v", step, got, want)
		}
		now = got.At
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], int64(ops[i+1])
		ref++
		e := Event{Ref: ref, Aux: int32(arg), Kind: op}
		delayed := false
		switch op % 16 {
		case 0, 1, 2, 3, 4, 5:
			pop(i)
			continue
		case 6: // the same cycle
			e.At = now
		case 7, 8: // one of a few CTA lengths: ties far ahead
			e.At = now + 5000 + 1000*(arg%3)
		case 9: // a window
			e.At = now + arg*arg
		case 10: // far: a long kernel, or one that reaches bit 40
			e.At = now + arg<<(arg%41)
		case 11: // the end of time, as a saturating add gives
			e.At = math.MaxInt64 - arg%2
		case 12, 13: // a device kernel's arrival or readiness
			delayed = true
			d := 283 + 1721*(arg%4)
			e.At = now + d
			q.PushDelayed(d, e)
			h.PushDelayed(d, e)
		case 14: // in order within its cycle, whatever the seed
			e.At = now + arg%4
			q.PushOrdered(e)
			h.PushOrdered(e)
			continue
		case 15: // before the clock
			e.At = now - 1 - arg%8
		}
		if !delayed {
			// An odd argument tries PushTie first, as the engine's plain
			// CTAs do: where it takes the event, it is as Push took it.
			if arg%2 == 0 || !q.PushTie(e) {
				q.Push(e)
			}
			h.Push(e)
		}
	}
	for q.Len() > 0 || h.Len() > 0 {
		pop(len(ops))
	}
}

// The queue pops exactly what the 4-ary heap alone popped, peeks the same
// cycles, under tie seeds too, over random schedules long and short.
func TestQueueMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for run := range 400 {
		ops := make([]byte, 2*(10+rng.IntN(5000)))
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		// Half the runs never schedule before the clock, as a replay.
		if run%2 == 0 {
			for i := 0; i < len(ops); i += 2 {
				if ops[i]%16 == 15 {
					ops[i] = 6
				}
			}
		}
		lockstep(t, uint64(run%4), ops)
	}
}

// FuzzQueueMatchesHeap is TestQueueMatchesHeap on the fuzzer's inputs.
func FuzzQueueMatchesHeap(f *testing.F) {
	f.Add(uint8(0), []byte{6, 0, 7, 1, 7, 2, 0, 0, 12, 3, 6, 9, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(1), []byte{7, 0, 7, 0, 7, 0, 14, 2, 15, 3, 0, 0, 11, 1, 9, 40, 0, 0})
	f.Fuzz(func(t *testing.T, tie uint8, ops []byte) {
		lockstep(t, uint64(tie%4), ops)
	})
}

// A cycle's ties keep the heap small: 10,000 CTAs of one length started
// together leave a heap of one, and come out in order.
func TestTiesKeepTheHeapSmall(t *testing.T) {
	var q Queue
	for i := range 10000 {
		q.Push(Event{At: 5000, Ref: int32(i)})
	}
	if q.Len() != 10000 || q.heaped() != 1 {
		t.Fatalf("%d events pending, %d in the heap; want 10000 and 1", q.Len(), q.heaped())
	}
	for i := range 10000 {
		if e := q.Pop(); e.Ref != int32(i) {
			t.Fatalf("pop %d gave %d", i, e.Ref)
		}
	}
	if q.Len() != 0 || q.heaped() != 0 {
		t.Fatalf("%d left, heap %d", q.Len(), q.heaped())
	}
}

// PushTie takes an event only where it joins the active ties run with
// room to spare, under seed 0: not into an idle run (not even at the
// cycle of the run's last event), not under a seed, not where the run's
// slice is full.
func TestPushTieTakesOnlyTies(t *testing.T) {
	var q Queue
	if q.PushTie(Event{At: 0}) {
		t.Fatal("an empty queue took a tie")
	}
	q.Push(Event{At: 5, Ref: 1})
	q.Push(Event{At: 5, Ref: 2})
	if q.PushTie(Event{At: 6, Ref: 3}) {
		t.Fatal("PushTie took an event of another cycle")
	}
	for len(q.ties.ev) < cap(q.ties.ev) {
		if !q.PushTie(Event{At: 5, Ref: 4}) {
			t.Fatalf("PushTie refused a tie with room (%d of %d)", len(q.ties.ev), cap(q.ties.ev))
		}
	}
	if q.PushTie(Event{At: 5, Ref: 5}) {
		t.Fatal("PushTie took a tie into a full slice")
	}
	for q.Len() > 0 {
		q.Pop()
	}
	if q.PushTie(Event{At: 5, Ref: 6}) {
		t.Fatal("PushTie took a tie of an idle run's last cycle")
	}
	var s Queue
	s.SetTieSeed(3)
	s.Push(Event{At: 5, Ref: 1})
	s.Push(Event{At: 5, Ref: 2})
	if s.PushTie(Event{At: 5, Ref: 3}) {
		t.Fatal("PushTie took a tie under a seed")
	}
}

// A wave gives what Pop would, where TieWave gives one: over random
// schedules of waves (ties) and other events of two kinds, with pops now
// through a wave of at most a few events read while they are of one kind
// or the other and popped with PopWave (else Pop), the queue gives the
// 4-ary heap's order. Fails where a wave's event is not the earliest,
// where a wave is longer than asked, or where PopWave leaves
// the run or the heap out of order; and where no wave is ever read.
func TestWaveMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	took := 0
	for run := range 200 {
		var q Queue
		var h heapQueue
		now := int64(0)
		for i := range 2000 {
			if rng.IntN(3) == 0 && h.Len() > 0 {
				kind, most := uint8(1+rng.IntN(2)), 1+rng.IntN(4)
				w := q.TieWave(most)
				if len(w) > most {
					t.Fatalf("run %d step %d: a wave of %d, asked at most %d", run, i, len(w), most)
				}
				n := 0
				for ; n < len(w); n++ {
					k, ref, aux := w.At(n)
					if k != kind {
						break
					}
					want := h.Pop()
					if got := (Event{At: want.At, Ref: ref, Aux: aux, Kind: k}); got != want {
						t.Fatalf("run %d step %d: wave's event %d of kind %d: %+v, want %+v", run, i, n, kind, got, want)
					}
				}
				if got := q.PopWave(n); got != n || q.Len() != h.Len() {
					t.Fatalf("run %d step %d: PopWave popped %d, Next gave %d; %d pending, want %d", run, i, got, n, q.Len(), h.Len())
				}
				if took += n; n > 0 {
					continue
				}
				got := q.Pop()
				if want := h.Pop(); got != want {
					t.Fatalf("run %d step %d: popped %+v, want %+v", run, i, got, want)
				}
				now = got.At
				continue
			}
			e := Event{At: now + int64(rng.IntN(3))*1000, Ref: int32(i), Kind: uint8(1 + rng.IntN(2))}
			q.Push(e)
			h.Push(e)
		}
		for h.Len() > 0 {
			if got, want := q.Pop(), h.Pop(); got != want {
				t.Fatalf("run %d: popped %+v, want %+v", run, got, want)
			}
		}
	}
	if took == 0 {
		t.Fatal("no wave was read")
	}
}
