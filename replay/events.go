package replay

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evHostIssue eventKind = iota + 1 // the host issues its next launch
	evArrive                         // a kernel reaches the Kernel Management Unit
	evReady                          // a kernel finishes dispatch into the Kernel Distributor
	evSite                           // a warp reaches its next launch site
	evCTAEnd                         // a CTA finishes
	evStart                          // a placed CTA starts after a delay
	evJoin                           // an aggregated group joins its kernel's pool
	evPageReady                      // a prelude page arrives on the GPU (CRCS)
	evCopyDone                       // an explicit host copy ends
)

// slotTable names objects by small integers so events can refer to them
// without holding pointers. An object holds a slot while an event names it.
type slotTable[T any] struct {
	items []*T
	free  []int32
}

func (t *slotTable[T]) put(x *T) int32 {
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.items[i] = x
		return i
	}
	t.items = append(t.items, x)
	return int32(len(t.items) - 1)
}

// take returns the object in slot i and frees the slot.
func (t *slotTable[T]) take(i int32) *T {
	x := t.items[i]
	t.items[i] = nil
	t.free = append(t.free, i)
	return x
}

// event is one scheduled state change. Events are pointer-free values in a
// slice heap: scheduling one allocates nothing, and moving them in the heap
// costs the garbage collector nothing. ref names the kernel (kernel events)
// or the CTA (CTA events) through the engine's slot tables.
type event struct {
	at   int64
	seq  uint64
	ref  int32
	warp int32
	kind eventKind
}

// eventQueue is a binary min-heap on (at, seq): the engine's clock. The
// sequence number makes the order of same-cycle events the order they were
// scheduled in, which keeps runs deterministic.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	// Sift up by moving parents into the hole: one write per level.
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(&e, &q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = e
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	x := q.h[last]
	q.h[last] = event{}
	q.h = q.h[:last]
	if last > 0 {
		q.siftDown(x)
	}
	return top
}

// siftDown places x, which replaces the root, by moving smaller children
// into the hole.
func (q *eventQueue) siftDown(x event) {
	h := q.h
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && before(&h[r], &h[l]) {
			m = r
		}
		if !before(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// before orders events by (cycle, sequence number).
func before(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
