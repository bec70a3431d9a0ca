// Package eventq is the discrete-event clock the replay engine and the
// narrow-task runtimes share: a binary min-heap of events ordered by
// (cycle, sequence number), so events of one cycle fire in the order they
// were scheduled and a run is deterministic. A tie seed (SetTieSeed)
// replaces the order within a cycle by a permutation the seed fixes, so a
// caller can measure how much its results owe to that order. Events are pointer-free
// values: scheduling one allocates nothing once the heap has grown, and
// the garbage collector never scans the heap — the engine schedules
// millions of them. Delayed events wait in runs behind the heap (runs.go),
// and so do a cycle's ties (ties.go).
//
// The heap stays because the replay's heaps are small: 13 events on
// synthetic jittered CTAs with the contention model on (k20c's SMs'
// wake-ups), mostly 20 to 40 on BFS scale 16 under CDP once the runs hold
// the launches (a third of its pops over 99). Structures whose cost an event
// does not grow with the events pending cost more there than the heap's
// few levels (callgrind, 500K jittered CTAs, 585K events, 233
// instructions an event in the heap): a timing wheel of one-cycle
// buckets with far events in a heap, and a radix heap over cycles, 90
// more an event; the radix heap with 8-bit digits 140 more. A
// hierarchical timing wheel of 6-bit digits came nearest (slots that are
// lists linked through the entries, so an event moving down a level is
// relinked, not copied; the earliest cycle kept up to date, so Peek is a
// load; a slot of one cycle moved down whole): on the schedules of the
// replays below, recorded and replayed through the queue alone, 5% more
// an event than this queue on synthetic jittered CTAs, 23% more on 100K
// CTAs of one length (the ties run's case), 32% less on BFS scale 16
// under CDP; whole replays, both built without profile-guided inlining,
// +28, +58 and −55 instructions a CTA. Such a wheel cannot move its clock
// on a Peek: the engine peeks after each event, then schedules events
// earlier than the one it peeked at. The heap was
// costly where it held ties: 1M CTAs of one length end in waves of 208 in
// one cycle (380 instructions an event), which the ties run takes out of
// it. A list in (cycle, tie key) order while the events are few (tried, not kept: up to
// 32; the heap's last event put in place from the end, the first popped
// by moving the list's start) paid on BFS, whose new events mostly come
// last, but not on synth, whose SMs' wake-ups fall anywhere among the 13
// (an insert moved six events on average, 24 instructions each): with
// the heap taking over where inserts moved more than two events on
// average, --quick synth 1,835 → 1,846 instructions a CTA, bfs 4,705 →
// 4,684, uniform 959 → 965.
//
// The contention model's wake-ups, one an SM and moved as its rate
// changes, left superseded ones in the heap (synth: 15% of the events
// popped), which fired for nothing; Move now takes them out (its doc
// gives the cost). Timers that move in place in a structure of their
// own, a tournament tree over the SMs beside the heap, cost more than
// those stale events: a wake-up is then two passes up the tree (k20c's
// 13 SMs: four levels, some 20 instructions each), one when it fires and
// one when it is set anew, where here the hole its Pop leaves is filled
// by the next Push's one sift (synth with --quick: 2,451 → 2,513
// instructions a CTA). Move keeps that path: only a wake-up moved before
// it fires pays for its scan.
package eventq

import "math"

// Event is one scheduled state change. Its meaning is its owner's: Kind
// says what happens, Ref names the thing it happens to through the owner's
// slot tables (a kernel, a CTA, a task), Aux is a second small integer
// some kinds need (a warp, an MTB, a worker).
type Event struct {
	At   int64
	Ref  int32
	Aux  int32
	Kind uint8
}

// entry is an event as the queue holds it: with its tie key, and packed
// into four fields, the most the compiler keeps a struct in registers
// for. Events are copied at every level of a sift; a struct it keeps in
// memory is written field by field and read back whole, a pattern the
// processor cannot forward from its store buffer, and each such read
// stalled (BFS scale 20 under CDP pops 821K events).
type entry struct {
	At   int64
	seq  uint64 // the tie key: the order among events of one cycle
	refs uint64 // Ref, then Aux in the high half
	meta uint32 // Kind, then 1 + the run it heads (runs.go) in the heap, or 0
}

// entryOf is e with tie key seq, heading no run.
func entryOf(e Event, seq uint64) entry {
	return entry{At: e.At, seq: seq, refs: uint64(uint32(e.Ref)) | uint64(uint32(e.Aux))<<32, meta: uint32(e.Kind)}
}

// event is the event x holds.
func (x entry) event() Event {
	return Event{At: x.At, Ref: int32(uint32(x.refs)), Aux: int32(uint32(x.refs >> 32)), Kind: uint8(x.meta)}
}

// run is 1 + the run x heads, or 0.
func (x entry) run() uint32 { return x.meta >> 8 }

// heading is x marked as the head of run r (1 + its index), or as heading
// none (0).
func (x entry) heading(r uint32) entry {
	x.meta = x.meta&0xff | r<<8
	return x
}

// pair is a node's two children: the heap is binary, its nodes numbered
// from 1 (the root) so that node k's children, 2k and 2k+1, are pair k,
// node k being element k&1 of pair k>>1 (pair 0's first is no node). A
// sift finds both children at one index, with no test that the second is
// there: the last node's sibling place, when it has none, holds vacant,
// which orders after every event (see siftDown for what this saved).
//
// A 4-ary heap, half the levels, did better on this package's
// benchmarks before the runs and the ties run (callgrind: BenchmarkSteady,
// a heap of about 150, 686 → 620 instructions an operation against a
// binary heap; BenchmarkSmall, about 35, 394 → 375), but with them the
// replays' heaps are small (synth: its 13 SMs' wake-ups) and a level of
// four children cost some 45 instructions, three comparisons to find the
// least and a fourth against the event sifted: binary, --quick, synth
// 1,835 → 1,813 instructions a CTA, bfs 4,705 → 4,663, uniform 959 →
// 956; ternary 1,823, 4,687 and 957.
type pair [2]entry

// vacant fills a place in a pair that holds no node: it is no event's
// (no event heads run 0xffffff) and orders after every one.
var vacant = entry{At: math.MaxInt64, seq: math.MaxUint64, meta: math.MaxUint32}

// Queue is the heap. The zero value is empty and ready.
type Queue struct {
	h      []pair // a min-heap of size nodes: the events in no run, and each run's head
	size   uint
	runs   []run
	ties   ties          // the ties run (ties.go)
	delays map[int64]int // the run of each delay (runs.go)
	recent [recentRuns]recentRun
	last   recentRun // the run PushDelayed found last (runs.go)
	n      int       // events pending, in the heap and behind the runs' heads
	seq    uint64
	seed   uint64 // 0: ties fire in scheduling order
	// hole is whether the root is the place of an event popped and not
	// yet refilled (see Pop).
	hole bool
}

// permuted is the top bit of a tie key: set on the keys of the events a
// seed permutes, unset on those that keep their scheduling order (all of
// them under seed 0), so under a seed the kept events of a cycle fire
// first.
const permuted = 1 << 63

// SetTieSeed makes events of one cycle scheduled with Push fire in an order
// fixed by seed (the same seed gives the same order) instead of the order
// they were scheduled in; seed 0, the zero value, keeps that order. Set it
// before the first Push.
func (q *Queue) SetTieSeed(seed uint64) { q.seed = seed }

// Len is the number of pending events.
func (q *Queue) Len() int { return q.n }

// Scheduled counts the events scheduled so far: every Push, PushDelayed,
// PushOrdered, PushTie, Move and Tie draws a tie key. Under seed 0, a caller
// that finds it unchanged since it scheduled an event knows that no event
// came after that one: another of the same cycle scheduled now would fire
// right after it, with none between, so the first may carry both.
func (q *Queue) Scheduled() uint64 { return q.seq }

// Seeded reports whether a tie seed orders the events of one cycle
// (SetTieSeed), so that the order they were scheduled in is not theirs.
func (q *Queue) Seeded() bool { return q.seed != 0 }

// Peek is the earliest pending event's cycle; the queue must not be empty.
// Over a hole it is the least of the root's children's, and the hole
// stays for a Push to fill: the engine peeks after each event it fires,
// before settling the cycle schedules the next.
func (q *Queue) Peek() int64 {
	if q.hole {
		return q.peekUnder()
	}
	return q.h[0][1].At
}

// peekUnder is the least cycle among the hole's children, of which there
// is at least one (the queue is not empty), the other vacant if none.
func (q *Queue) peekUnder() int64 {
	c := &q.h[1]
	return min(c[0].At, c[1].At)
}

// Push schedules e after every event already scheduled for its cycle, or,
// under a tie seed, at the place among them the seed and the scheduling
// order pick.
func (q *Queue) Push(e Event) {
	x := entryOf(e, q.tie())
	t := &q.ties
	if !t.active {
		q.startTies(x)
		return
	}
	if x.At != t.last.At || x.seq < t.last.seq {
		q.push(x) // the ties run does not take it: the common case without ties
		return
	}
	q.n++
	t.ev = append(t.ev, x)
	t.last = x
}

// tie is the next tie key Push gives. It returns the key alone, not the
// entry, so that it is inlined (Push: one call fewer an event).
func (q *Queue) tie() uint64 {
	q.seq++
	if q.seed == 0 {
		return q.seq
	}
	return mixk.mix(q.seed, q.seq) | permuted // mix's constants loaded: see mixk
}

// PushOrdered schedules e after every event already scheduled for its
// cycle with PushOrdered, whatever the tie seed: for events whose order
// within a cycle carries meaning (a program's calls). Under a tie seed they
// fire before the cycle's permuted events.
func (q *Queue) PushOrdered(e Event) {
	q.seq++
	q.push(entryOf(e, q.seq))
}

// mix is SplitMix64's finaliser over the seed's stream: a bijection of n for
// one seed, so distinct events get distinct keys (up to the top bit).
func mix(seed, n uint64) uint64 {
	z := n + seed*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (q *Queue) push(e entry) {
	q.n++
	if q.hole {
		q.hole = false
		q.siftDown(1, e)
		return
	}
	k := q.grow()
	// Sift up by moving parents into the hole: one write per level.
	h := q.h
	at := &h[k>>1][k&1]
	for k > 1 {
		p := &h[k>>2][k>>1&1]
		if !before(e, *p) {
			break
		}
		*at = *p
		at, k = p, k>>1
	}
	*at = e
}

// Move schedules e as Push does (with the tie key Push would give it) in
// place of the pending event old, which is then no longer pending: a
// timer its owner moves before it fires, such as an SM's wake-up in the
// contention model when the SM's rate changes. old is found by a scan of
// the heap, so only where it waits there, heading no run; elsewhere (in a
// run, or not pending) it stays, for its owner to ignore when it fires,
// and e goes into the heap. Move reports whether old was taken out.
//
// A superseded event left pending costs more than the scan where the
// heap is small: it was pushed, is popped for nothing, and its pop leaves
// a hole the next Pop fills with the heap's last event, sifted down from
// the root (synth with --quick, contention on: 86K of 586K wake-ups were
// moved, some 400 instructions each, 250 of them that sift). In place, a
// move is a scan (about 120 instructions there) and a sift from old's
// place: synth 2,266 → 2,228 instructions a CTA. The scan gives up on a
// heap of more than maxMoveScan events, which bounds its cost where a
// launch-heavy replay's heap is deep (BFS scale 16 under CDP moves 1,400
// wake-ups for its 35K CTAs, in a heap of 35 events on average, 85 of
// them in one of more than 64).
func (q *Queue) Move(old, e Event) bool {
	x := entryOf(e, q.tie())
	if k := q.find(entryOf(old, 0)); k > 0 {
		q.replaceAt(k, x)
		return true
	}
	q.push(x)
	return false
}

// maxMoveScan is the most events in the heap Move scans for the event it
// replaces: synthetic jittered CTAs under the contention model keep about
// 14 there when a wake-up moves (k20c's 13 SMs' wake-ups), and Move finds
// it after 7 on average.
const maxMoveScan = 64

// find is the node in the heap of the event with o's cycle, kind and
// refs that heads no run, or 0; the hole, if any, is no event, and a
// vacant place matches no event (its kind and run are no event's).
func (q *Queue) find(o entry) uint {
	h := q.h
	if q.size > maxMoveScan || q.size == 0 {
		return 0
	}
	if !q.hole && h[0][1].is(o) {
		return 1
	}
	for j := 1; j < len(h); j++ {
		if c := &h[j]; c[0].is(o) {
			return uint(2 * j)
		} else if c[1].is(o) {
			return uint(2*j + 1)
		}
	}
	return 0
}

// replaceAt puts x in the place of the event at node k and sifts it up or
// down to its place; over a hole, no further up than the root's children.
func (q *Queue) replaceAt(k uint, x entry) {
	h := q.h
	j := k
	for j > 1 {
		p := j >> 1
		if p == 1 && q.hole || !before(x, h[p>>1][p&1]) {
			break
		}
		h[j>>1][j&1] = h[p>>1][p&1]
		j = p
	}
	if j < k {
		h[j>>1][j&1] = x // it moved up
		return
	}
	q.siftDown(k, x)
}

// Pop removes and returns the earliest event; the queue must not be empty.
// When it heads a run, the run's next event (which fires no earlier) takes
// its place at the root and sifts down from there (the ties run's, by its
// tie key alone: ties.go). Otherwise its place is
// left a hole, which the next Push fills with its event, sifted down from
// the root: the engine schedules an event after nearly every one it fires,
// and one sift down then does the work of a pop's and a push's sifts (the
// heap's order is the same either way: no two events share a key). Pop
// fills a hole left unfilled as a pop would, with the last event.
func (q *Queue) Pop() Event {
	if q.hole {
		q.fill()
	}
	q.n--
	top := q.h[0][1]
	if r := top.run(); r != 0 {
		if r == tiesRun { // the ties run's head (ties.go), inline: a call cost more than the rest
			t, h := &q.ties, q.h
			ev, i := t.ev, t.next+1 // in locals: the stores below might change them
			x := ev[i-1]
			if t.next = i; i < len(ev) {
				h[0][1].seq = ev[i].seq // the next, of the same cycle, heads the run
				if len(h) > 1 {
					q.siftDown(1, h[0][1])
				}
				return x.event()
			}
			t.active, t.ev, t.next = false, t.ev[:0], 0
			t.last.At = math.MinInt64 // no event's: PushTie's test of the cycle tests that the run is active
			q.hole = true
			return x.event()
		}
		if q.replaceRoot(r) {
			return top.event()
		}
	}
	q.hole = true
	return top.event()
}

// fill fills the hole at the root with the heap's last event.
func (q *Queue) fill() {
	q.hole = false
	k := q.size
	x := q.h[k>>1][k&1]
	q.shrink()
	if k > 1 {
		q.siftDown(1, x)
	}
}

// replaceRoot puts the event behind run r's head (1 + its index) in the
// head's place at the root, sifted down, or reports the run idle (its head
// was its last event). Where that event is the head's next key (next), it
// stays at the root with no sift: a run's events of one cycle are often
// scheduled one after the other (BFS scale 16 under CDP: half of its 30K
// run events; callgrind, --quick bfs: replaceRoot 61 → 51 instructions
// a CTA, the replay 3,422 → 3,410).
func (q *Queue) replaceRoot(r uint32) bool {
	ru := &q.runs[r-1]
	if ru.active = ru.ev.Len() > 0; !ru.active {
		return false
	} else if x := ru.ev.Pop().heading(r); !q.h[0][1].next(x) {
		q.siftDown(1, x)
	} else {
		q.h[0][1] = x
	}
	return true
}

// siftDown places x, which replaces the event at node k (the root, but
// for Move's), by moving the least child into the hole while it is less
// than x. Children in pairs (see pair), a level is one index and one
// test that there are children; with the children at 2i+1 and 2i+2 of
// one slice of events, a level also tested that the second was there
// and computed and checked each child's index, and the registers it
// needed spilled the sifted event's fields (--quick, instructions a CTA:
// synth 1,500 → 1,483, its pushes' 121 → 107; bfs 3,619 → 3,619;
// uniform 780 → 781). The least child is kept by pointer from the
// comparison that chose it: taken again as c[k&1], its address was
// recomputed and its key reloaded (synth 5 a CTA more, bfs 12).
func (q *Queue) siftDown(k uint, x entry) {
	h := q.h
	at := &h[k>>1][k&1]
	for k < uint(len(h)) { // pair k holds k's children
		c := &h[k]
		y := &c[0]
		if k *= 2; c[1].precedes(y) {
			y, k = &c[1], k+1
		}
		if !before(*y, x) {
			break
		}
		*at = *y
		at = y
	}
	*at = x
}

// before orders events by (cycle, tie key). It is one condition, which a
// sift branches on directly: an if on the cycles returning one comparison
// or the other made each result a byte to test, 59 instructions more an
// operation on BenchmarkSteady (745 against 686), 34 on BenchmarkSmall.
func before(a, b entry) bool {
	return a.At < b.At || a.At == b.At && a.seq < b.seq
}

// grow adds a node to the heap and returns its number, its place left to
// the caller: the first of a new pair (the second vacant), or the second
// of the last.
func (q *Queue) grow() uint {
	q.size++
	k := q.size
	if k>>1 == uint(len(q.h)) {
		q.h = append(q.h, pair{})
		q.h[k>>1][1].vacate()
	}
	return k
}

// shrink removes the heap's last node, its place left vacant.
func (q *Queue) shrink() {
	k := q.size
	q.size--
	if k&1 == 0 {
		q.h = q.h[:k>>1]
		return
	}
	q.h[k>>1][1] = vacant
}

// is reports whether x is the event o, by its cycle, kind and refs.
func (x *entry) is(o entry) bool {
	return x.refs == o.refs && x.At == o.At && x.meta == o.meta
}

// next reports whether x's key is the one right after e's: the same cycle,
// the next tie key. No event can order between them, so x put in e's
// place at the root needs no sift.
func (e *entry) next(x entry) bool {
	return x.seq == e.seq+1 && x.At == e.At
}

// precedes is before(*a, *b), read through the pointers: siftDown
// compares a pair's children with it. Compared as values, before(c[1],
// *y), both children's tie keys were loaded ahead of the comparison of
// their cycles, which mostly decides, two loads a level and the
// registers they held (callgrind: full-size BFS 2,718 → 2,711
// instructions a CTA; --quick synth 1,390 → 1,381, bfs 3,345 → 3,339,
// uniform 734 → 734).
func (a *entry) precedes(b *entry) bool {
	return a.At < b.At || a.At == b.At && a.seq < b.seq
}

// mixk holds mix's constants, for tie's mix (mixConsts.mix, the same
// arithmetic), in a variable that nothing writes: tie is inlined into
// every Push, FillHole and Move, and mix with it, whose constants, as
// constants, took registers where the loops those are inlined in run
// under seed 0 (Settle's last loop set two of them again after each
// wake-up it asked for: bfs --quick 2,504 → 2,501 instructions a CTA,
// out of line). Loaded, mix needs no call of its own (mixed, as it was),
// across which the event's fields, where Push, FillHole and Move are
// inlined, were kept on the stack at every wake-up asked for (the SM,
// its generation, cycle and kind, stored by Settle; the tests' queues
// use mix itself): --quick bfs 2,396 → 2,391 instructions a CTA, sweep8's
// E 1,372 → 1,368, synth 890 → 889; the replay's and model's own, by file,
// bfs 1,415.8 → 1,411.9 a CTA, E 1,239.7 → 1,235.9.
var mixk = mixConsts{0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb}

type mixConsts struct{ a, b, c uint64 }

func (k *mixConsts) mix(seed, n uint64) uint64 {
	z := n + seed*k.a
	z = (z ^ z>>30) * k.b
	z = (z ^ z>>27) * k.c
	return z ^ z>>31
}

// Tie draws the tie key the next Push would give an event, for one its
// caller schedules later with PushTied: a caller that keeps events of its
// own in firing order, as a run does, and hands the queue only the first
// of them, each the next as the one before fires (the replay's device
// kernels' readiness after dispatch). Keys it draws count in Scheduled.
func (q *Queue) Tie() uint64 { return q.tie() }

// PushTied schedules an event of kind at at, naming ref (its Aux 0), with
// tie key t, drawn from Tie: it fires where it would have had it been
// pushed when t was drawn. Its arguments, not an Event, so that it is
// inlined.
func (q *Queue) PushTied(at int64, kind uint8, ref int32, t uint64) {
	q.push(entry{At: at, seq: t, refs: uint64(uint32(ref)), meta: uint32(kind)})
}

// vacate makes x vacant where it is, for grow: its cycle, tie key and
// kind alone, what orders and matches an entry (precedes, is), each
// stored as a constant, where vacant's copy loaded and stored its four
// fields (the replay's and model's own instructions, exact from run to
// run: full-size BFS 1.37 a CTA fewer, --quick bfs 0.97, synth 2.31,
// sweep8's E 0.84; uniform as it was). shrink keeps vacant's copy: its
// inlined vacate moved the engine loop's registers (BFS 0.7 more).
func (x *entry) vacate() { x.At, x.seq, x.meta = math.MaxInt64, math.MaxUint64, math.MaxUint32 }
