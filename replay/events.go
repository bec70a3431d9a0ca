package replay

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evHostIssue eventKind = iota + 1 // the host issues its next launch
	evArrive                         // a kernel reaches the Kernel Management Unit
	evReady                          // a kernel finishes dispatch into the Kernel Distributor
	evSite                           // a warp reaches its next launch site
	evCTAEnd                         // a CTA finishes
)

// event is one scheduled state change. Events are values in a slice heap, so
// scheduling one allocates nothing.
type event struct {
	at   int64
	seq  uint64
	kind eventKind
	warp int32
	k    *Kernel
	c    *ctaRun
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
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = event{}
	q.h = q.h[:last]
	q.down(0)
	return top
}

func (q *eventQueue) down(i int) {
	n := len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
}

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
