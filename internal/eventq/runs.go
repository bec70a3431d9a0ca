package eventq

import "github.com/gpureplay/gpureplay/internal/fifo"

// Runs keep a launch-heavy replay's heap small. Most of its pending events
// are device kernels' arrivals at the Kernel Management Unit and their
// readiness after dispatch: BFS scale 20 under CDP has 24,000 events
// pending at once, nearly all of them such. Each is scheduled a delay
// after the current cycle that takes one of a few values (a dispatch
// latency, a launch's cost for so many lanes), and events scheduled the
// same delay after a clock that never goes back come in firing order.
// Filed in the run of its delay, an event waits in a first-in first-out
// list behind the run's head, and only the head is in the heap: the heap
// then holds the other events and one per run, and every Push and Pop
// sifts through a few levels instead of fifteen.
//
// A run changes no order: an event that would fire before its run's last
// (under a tie seed, two of one cycle may) goes into the heap as any
// other, so the queue pops exactly what it would with one heap.

// maxRuns bounds the runs a queue keeps (one per distinct delay, kept for
// the queue's life): past it, events go into the heap.
const maxRuns = 256

// run is one delay's events in firing order: the head in the heap (when
// active), the rest queued behind it, last the latest one's key.
type run struct {
	ev     fifo.Queue[entry]
	active bool
	last   entry
}

// PushDelayed schedules e as Push does, for a caller that schedules it
// delay cycles after its current cycle and whose cycle never goes back:
// such events of one delay fire in the order they are pushed, and wait in
// that delay's run.
//
// Most go behind the run found last (BFS scale 16 under CDP: 97% of its
// 29K delayed events), in order, with room in its tail block: that path
// makes no call (fifo's TryPush, not Push), so PushDelayed keeps nothing
// on the stack on its way. With the whole filing in one function, each
// event paid for the arguments that the calls on its rare paths (the
// delays map, a new block) needed spilled: callgrind, BFS scale 16, 80
// instructions an event to 71 (4,802 → 4,796 a CTA).
func (q *Queue) PushDelayed(delay int64, e Event) {
	l := q.last
	if l.run == 0 || l.delay != delay {
		q.pushRun(delay, e)
		return
	}
	x := entryOf(e, q.tie())
	ru := &q.runs[l.run-1]
	if ru.active && before(ru.last, x) && ru.ev.TryPush(x) {
		q.n++
		ru.last = x
		return
	}
	q.file(l.run-1, x)
}

// pushRun is PushDelayed for an event of a delay other than the one
// before: it files e in the run of its delay, made if it has none, or
// past maxRuns in the heap.
func (q *Queue) pushRun(delay int64, e Event) {
	r, ok := q.runOf(delay)
	if !ok {
		if len(q.runs) == maxRuns {
			q.Push(e)
			return
		}
		if q.delays == nil {
			q.delays = make(map[int64]int)
		}
		r = len(q.runs)
		q.delays[delay] = r
		q.runs = append(q.runs, run{})
		q.recent[recentSlot(delay)] = recentRun{delay: delay, run: r + 1}
	}
	q.file(r, entryOf(e, q.tie()))
}

// file puts x in run r: at its head if it is idle, behind its last event
// if it comes after it, and otherwise in the heap.
func (q *Queue) file(r int, x entry) {
	ru := &q.runs[r]
	switch {
	case !ru.active:
		ru.active, ru.last = true, x
		q.push(x.heading(uint32(r + 1)))
	case before(ru.last, x):
		q.n++
		ru.ev.Push(x)
		ru.last = x
	default:
		q.push(x) // out of the run's order: an event of the heap's
	}
}

// recentRun is a delay and its run (plus one: 0 is an empty slot).
type recentRun struct {
	delay int64
	run   int
}

// recentRuns is the size of the cache of runs in front of the delays
// map, a prime: see recentSlot.
const recentRuns = 61

// runOf is the run of delay, if it has one. A launch-heavy replay files
// an event in a run for every device kernel's arrival and readiness (BFS
// scale 20 under CDP: 330K, in 33 runs), so a small cache indexed by the
// delay's hash answers most before the map is asked; the run found there
// is the one PushDelayed asks first next time. Before PushDelayed asked
// it, runOf did, where the hash and its slot had cost the 97% of BFS
// scale 16's delayed events that go into the run of the one before some
// 20 instructions more (callgrind: 8 a CTA).
func (q *Queue) runOf(delay int64) (int, bool) {
	c := &q.recent[recentSlot(delay)]
	if c.run != 0 && c.delay == delay {
		q.last = *c
		return c.run - 1, true
	}
	r, ok := q.delays[delay]
	if ok {
		*c = recentRun{delay: delay, run: r + 1}
	}
	return r, ok
}

// recentSlot is delay's slot in the cache: the delay modulo a prime, as a
// replay's delays are often one cost plus a multiple of another (a launch
// of n lanes), which a prime spreads over every slot (BFS scale 20's 33
// delays take 33 slots; Fibonacci hashing put them in 14).
func recentSlot(delay int64) int {
	return int(uint64(delay) % recentRuns)
}
