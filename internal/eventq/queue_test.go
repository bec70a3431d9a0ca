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

// tieRun pushes n events at cycle 7 (every third with PushOrdered) and n at
// cycle 3 under seed, and returns the Refs in the order they pop.
func tieRun(seed uint64, n int) []int32 {
	var q Queue
	q.SetTieSeed(seed)
	for i := 0; i < n; i++ {
		e := Event{At: 7, Ref: int32(i)}
		if i%3 == 0 {
			q.PushOrdered(e)
		} else {
			q.Push(e)
		}
		q.Push(Event{At: 3, Ref: int32(n + i)})
	}
	var got []int32
	for q.Len() > 0 {
		got = append(got, q.Pop().Ref)
	}
	return got
}

// A tie seed permutes the events of a cycle, the same way for the same
// seed and differently for another; cycles stay in order, and events pushed
// with PushOrdered keep their order and fire first in their cycle.
func TestTieSeed(t *testing.T) {
	const n = 60
	plain := tieRun(0, n)
	for i, r := range plain {
		want := int32(n + i)
		if i >= n {
			want = int32(i - n)
		}
		if r != want {
			t.Fatalf("seed 0: pop %d is %d, want %d (scheduling order)", i, r, want)
		}
	}
	a, b, c := tieRun(1, n), tieRun(1, n), tieRun(2, n)
	if !slices.Equal(a, b) {
		t.Fatal("seed 1 gave two orders")
	}
	if slices.Equal(a, c) || slices.Equal(a, plain) {
		t.Fatal("seeds 0, 1 and 2 do not give three orders")
	}
	for _, got := range [][]int32{a, c} {
		if s := slices.Sorted(slices.Values(got[:n])); s[0] != n || s[n-1] != 2*n-1 {
			t.Fatalf("cycle 3's events are not first: %v", got[:n])
		}
		for i := 0; i < n/3; i++ {
			if got[n+i] != int32(3*i) {
				t.Fatalf("ordered event %d fired at %d: %v", 3*i, n+i, got[n:])
			}
		}
		if slices.IsSorted(got[n+n/3:]) {
			t.Fatal("the permuted events kept their order")
		}
	}
}

// BenchmarkSteady pops and pushes events in a heap of about 150, the
// size BFS scale 20 under CDP keeps on average: each popped event
// schedules one a few hundred cycles on (a contention wake-up), and
// every other a device kernel's arrival or readiness in a delay's run,
// BFS's delays: its dispatch latency and 32 launch costs.
func BenchmarkSteady(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var q Queue
	for i := range 150 {
		q.Push(Event{At: rng.Int64N(500), Ref: int32(i)})
	}
	delays := []int64{283}
	for i := range int64(32) {
		delays = append(delays, 29096+1721*i)
	}
	b.ResetTimer()
	for i := range b.N {
		e := q.Pop()
		q.Push(Event{At: e.At + 1 + rng.Int64N(600), Ref: e.Ref})
		if i%2 == 0 {
			d := delays[0]
			if i%4 == 0 {
				d = delays[1+rng.IntN(32)]
			}
			q.PushDelayed(d, Event{At: e.At + d, Ref: e.Ref})
			q.Pop()
		}
	}
}

// refQueue is the queue's rule written out plainly: every pending event
// with its tie key, the least (cycle, key) popped first by a scan, keys
// given as Push, PushOrdered and PushDelayed give them (a sequence
// number, mixed under a tie seed for all but PushOrdered).
type refQueue struct {
	seed, seq uint64
	pending   []entry
}

func (r *refQueue) push(e Event, ordered bool) {
	r.seq++
	key := r.seq
	if r.seed != 0 && !ordered {
		key = mix(r.seed, r.seq) | permuted
	}
	r.pending = append(r.pending, entryOf(e, key))
}

func (r *refQueue) pop() Event {
	m := 0
	for i, x := range r.pending {
		if before(x, r.pending[m]) {
			m = i
		}
	}
	x := r.pending[m]
	r.pending = slices.Delete(r.pending, m, m+1)
	return x.event()
}

// checkAgainstRef drives a Queue and refQueue with the operations ops
// spells, a byte each (and the bytes after it as arguments): Push,
// PushOrdered, PushDelayed, Move and FillHole (where Fills allows it;
// counted in filled) from a clock that moves on (and sometimes back),
// and Pop, then pops both empty, and fails on the first event they
// disagree on.
func checkAgainstRef(t *testing.T, seed uint64, ops []byte, filled *int) {
	var q Queue
	q.SetTieSeed(seed)
	ref := refQueue{seed: seed}
	now := int64(0)
	ref32 := int32(0)
	arg := func(i int) int64 {
		if i < len(ops) {
			return int64(ops[i])
		}
		return 0
	}
	check := func(step int) {
		if q.Len() != len(ref.pending) {
			t.Fatalf("step %d: %d pending, want %d", step, q.Len(), len(ref.pending))
		}
		if q.Len() == 0 {
			return
		}
		want := ref.pop()
		// Peek on every other step only, so pops also follow pops and
		// pushes follow pops with nothing between (Pop leaves a hole).
		if step%2 == 0 && q.Peek() != want.At {
			t.Fatalf("step %d: peek %d, want %d", step, q.Peek(), want.At)
		}
		if got := q.Pop(); got != want {
			t.Fatalf("step %d: popped %+v, want %+v", step, got, want)
		}
	}
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		ref32++
		e := Event{Ref: ref32, Aux: int32(op), Kind: op}
		switch op % 10 {
		case 0, 1: // Push, a small delay: ties are common
			e.At = now + arg(i+1)%8
			q.Push(e)
			ref.push(e, false)
			i++
		case 2: // Push, far ahead
			e.At = now + arg(i+1)*arg(i+2)
			q.Push(e)
			ref.push(e, false)
			i += 2
		case 3:
			e.At = now + arg(i+1)%16
			q.PushOrdered(e)
			ref.push(e, true)
			i++
		case 4, 5: // one of a few delays, as device kernels' arrivals
			d := arg(i+1) % 5 * 3
			e.At = now + d
			q.PushDelayed(d, e)
			ref.push(e, false)
			i++
		case 6:
			check(i)
		case 7: // the clock moves: on mostly, back sometimes
			now += arg(i+1)%32 - 4
			i++
		case 8: // a pending event moves, or one no longer pending
			e.At = now + arg(i+1)%16
			old := Event{At: -1}
			if n := len(ref.pending); n > 0 && arg(i+2)%8 != 0 {
				old = ref.pending[int(arg(i+2))%n].event()
			}
			if q.Move(old, e) {
				k := slices.IndexFunc(ref.pending, func(x entry) bool { return x.event() == old })
				if k < 0 {
					t.Fatalf("step %d: moved %+v, which is not pending", i, old)
				}
				ref.pending = slices.Delete(ref.pending, k, k+1)
			}
			ref.push(e, false)
			i += 2
		case 9: // Push, or FillHole where Fills says Push would fill the hole
			e.At = now + arg(i+1)%8
			if q.Fills(e.At) {
				q.FillHole(e)
				*filled++
			} else {
				q.Push(e)
			}
			ref.push(e, false)
			i++
		}
	}
	for q.Len() > 0 || len(ref.pending) > 0 {
		check(len(ops))
	}
}

// The queue pops exactly what the (cycle, tie key) rule says, for random
// pushes, pops and tie seeds.
func TestQueueMatchesRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	filled := 0
	for run := range 300 {
		ops := make([]byte, 50+rng.IntN(3000))
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		checkAgainstRef(t, uint64(run%3), ops, &filled)
	}
	if filled == 0 {
		t.Errorf("no FillHole: Fills never reported a hole to fill")
	}
}

// FuzzQueueMatchesRule is TestQueueMatchesRule on the fuzzer's inputs.
func FuzzQueueMatchesRule(f *testing.F) {
	f.Add(uint8(0), []byte{0, 3, 1, 5, 4, 2, 6, 3, 1, 6, 7, 9, 6, 6})
	f.Add(uint8(1), []byte{8, 0, 8, 0, 16, 0, 6, 12, 1, 20, 2, 6, 6, 6})
	f.Fuzz(func(t *testing.T, seed uint8, ops []byte) {
		checkAgainstRef(t, uint64(seed%3), ops, new(int))
	})
}

// Timers moved while pending, as the contention model's wake-ups, are
// moved in the heap: none is left behind to pop, whether a hole waits
// at the root or not, and they come out in (cycle, tie key) order.
func TestMoveInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var q Queue
	const timers = 13
	at := make([]int64, timers)
	gen := make([]int32, timers)
	for i := range timers {
		at[i] = 1000 + int64(i)
		q.PushOrdered(Event{At: at[i], Ref: int32(i)}) // no ties run to head
	}
	now := int64(0)
	move := func(step, i, pending int) {
		old := Event{At: at[i], Ref: int32(i), Aux: gen[i]}
		at[i] = now + rng.Int64N(500)
		gen[i]++
		if !q.Move(old, Event{At: at[i], Ref: int32(i), Aux: gen[i]}) {
			t.Fatalf("step %d: %+v not moved", step, old)
		}
		if q.Len() != pending || q.heaped() != pending {
			t.Fatalf("step %d: %d pending, %d in the heap; want %d", step, q.Len(), q.heaped(), pending)
		}
	}
	for step := range 5000 {
		if step%3 != 0 {
			move(step, rng.IntN(timers), timers)
			continue
		}
		e := q.Pop()
		if e.At < now || e.At != at[e.Ref] || e.Aux != gen[e.Ref] {
			t.Fatalf("step %d: popped %+v at %d, pending %d/%d", step, e, now, at[e.Ref], gen[e.Ref])
		}
		now = e.At
		if i := rng.IntN(timers); i != int(e.Ref) {
			move(step, i, timers-1) // over the hole the pop left
		}
		at[e.Ref] = now + 1 + rng.Int64N(500)
		gen[e.Ref]++
		q.PushOrdered(Event{At: at[e.Ref], Ref: e.Ref, Aux: gen[e.Ref]})
	}
}

// BenchmarkSmall pops and pushes events in a heap of about 35, the size
// the synthetic 1M-CTA replay (contention on) keeps: each popped event
// schedules one a few thousand cycles on.
func BenchmarkSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	var q Queue
	for i := range 35 {
		q.Push(Event{At: rng.Int64N(3000), Ref: int32(i)})
	}
	b.ResetTimer()
	for range b.N {
		e := q.Pop()
		q.Push(Event{At: e.At + 1 + rng.Int64N(3000), Ref: e.Ref})
	}
}
