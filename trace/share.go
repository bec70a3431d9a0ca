package trace

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// One decode and validation of a trace for several readers: the replays
// of one command over one trace (policies, sweep points) read the same
// records, in the same calls (Validator.Next, CTAs, PlainCTAs, Child:
// what the replay's tree reader asks is a function of the trace alone),
// so one Validator can answer them all. Share keeps the answers on a
// tape: the reader at its head makes the call on the shared Validator and
// appends the answer; the others copy it from the tape when they get
// there. A chunk of the tape is recycled once every reader has passed
// it, so while the readers run side by side the tape holds the distance
// between the first and the last of them.
//
// The tape is bounded in bytes (the budget), not by waiting: a reader at the
// head never waits for one behind it, which may itself be waiting for
// something else (a worker, a merge that takes replays' rows in plan order).
// When the tape would pass the budget, the readers still in its oldest chunk
// are let go: each, at its next call, opens the trace again and reads on
// with a Validator of its own, after the records it had read (Next, as many
// as the tape had given it), as it would have without the share. So does a
// reader whose call is not the one the tape holds at its place (a replay
// that stopped filing at an error, say). Memory is then the budget and each
// reader's own decode at most: bounded by the work in flight, not the trace.
//
// Readers let go before their first call (replays that had not started:
// more of them than workers) are not sent to read alone: they share a
// fresh tape of their own (next), opened by the first of them to start,
// on which the ones that start beside it read as on the first. With two
// workers, eight replays of a trace longer than the budget decode it
// four times, not seven.
//
// A Share in lockstep (Lockstep: its readers are replays that all run at
// once, however few threads run them) lets no reader go for its budget:
// the head waits for the readers of the oldest chunk to leave it, handing
// its thread on while it waits (its reader's pause and resume), so that
// the replays read the trace once whatever their number. A reader parked
// (Park: its replay waits for something else, such as a merge taking its
// rows) is not waited for: it is let go, as above.

// ShareBudget is the bytes a Share's tape holds at most (about) before
// it lets its slowest readers go.
const ShareBudget = 16 << 20

// shareChunk is how many calls a chunk of the tape holds.
var shareChunk = 1024 // a variable for the tests

// Share is a trace's decode and validation shared by n readers (Reader).
type Share struct {
	mu      sync.Mutex
	v       *Validator
	closer  io.Closer                             // v's source, where it is one
	reopen  func() (*Validator, io.Closer, error) // a Validator of a reader's own
	oldest  *tapeChunk
	head    *tapeChunk
	readers []*shareReader
	pool    []*tapeChunk
	bytes   int64 // held by the chunks from oldest to head
	budget  int64
	closed  bool
	kid     Child // where record reads a child
	index   *HostIndex
	// The readers let go before they started (fresh) and the Share they
	// read instead (next), opened when the first of them starts; seated
	// of them have taken their reader there.
	fresh, seated int
	next          *Share
	yields        int // grow's yields to the readers behind since it last grew
	// lockstep: the head waits for the oldest chunk's readers (moved
	// signals a reader's move) rather than letting them go.
	lockstep bool
	moved    sync.Cond
}

// tapeChunk is up to shareChunk answers, their records in arrays of
// their own (an answer names its ranges).
type tapeChunk struct {
	calls  []tapeCall
	ctas   []CTA
	plains []PlainCTA
	warps  []int64
	kids   []ChildHead // Child's answers, each Launch.Parent its own Parent
	next   *tapeChunk
}

// tapeCall is one call and its answer.
type tapeCall struct {
	op uint8
	ok bool // Child's result
	// whole: Child's answer is a child whose records all came with it
	// (at least one, Head().More false, no Err), which Kids takes: known
	// here, Kids reads no answer to tell (BFS --quick sweep8: 15
	// instructions a child a reader).
	whole bool
	// run is, for a whole answer, the chunk's first call of the run of
	// whole answers it is in, and the first's, where it ends (runFrom, endRun)
	run         uint32
	kernel, arg uint64 // CTAs' and PlainCTAs' kernel; PlainCTAs' first
	room, wroom int    // len(dst), len(warps)
	lo, hi      int    // the answer's records in ctas or plains
	// head is Child's answer, in kids: a chunk's kids are made at
	// their most and never move (addKid), so it is the answer's place,
	// where an index into kids had cost each reader a bound's test and
	// the array's load a child (Kids.Head).
	head *ChildHead
	// filed is what a reader offered the others of a child it answered
	// (Child.Offer), written only atomically while readers are in the
	// chunk: calls are made once a chunk at their most, never moved. In
	// the call, not an array of its own, it is found with head through
	// one index and one bound's test (Kids.Head, Kids.Filed).
	filed   unsafe.Pointer
	rec     Record // Next's record
	err     error
	records int64 // the shared Validator's record count after the call
}

const (
	opNext uint8 = iota
	opCTAs
	opPlain
	opChild
)

// callBytes is about what an answer holds besides its records.
const callBytes = int64(unsafe.Sizeof(tapeCall{}))

// NewShare shares v, read from closer's source (nil: none to close), among
// n readers (Reader(0) to Reader(n-1)). reopen opens the trace again, as
// v was opened, for a reader the tape lets go; budget is the tape's
// bound in bytes (0: ShareBudget). index is the trace's host index, or
// nil: the readers' host passes may read it (HostIndexOf a reader).
func NewShare(v *Validator, closer io.Closer, index *HostIndex, n int, budget int64, reopen func() (*Validator, io.Closer, error)) *Share {
	if budget <= 0 {
		budget = ShareBudget
	}
	s := &Share{v: v, closer: closer, index: index, reopen: reopen, budget: budget}
	s.moved.L = &s.mu
	s.head = s.chunk()
	s.oldest = s.head
	for range n {
		s.readers = append(s.readers, &shareReader{s: s, chunk: s.head})
	}
	return s
}

// Reader returns the i-th reader: a Validator whose calls the tape
// answers. Close it when done with it, so that the tape need not keep
// what it has not read.
func (s *Share) Reader(i int) *Validator {
	return &Validator{tape: s.readers[i], err: errTape}
}

// chunk returns an empty chunk, a recycled one where there is one.
func (s *Share) chunk() *tapeChunk {
	if n := len(s.pool); n > 0 {
		c := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return c
	}
	return &tapeChunk{calls: make([]tapeCall, 0, shareChunk)}
}

// size is about how many bytes c holds.
func (c *tapeChunk) size() int64 {
	return int64(cap(c.calls))*callBytes + int64(cap(c.ctas))*int64(unsafe.Sizeof(CTA{})) +
		int64(cap(c.plains))*int64(unsafe.Sizeof(PlainCTA{})) + int64(cap(c.warps))*8 +
		int64(cap(c.kids))*int64(unsafe.Sizeof(ChildHead{}))
}

func (c *tapeChunk) reset() {
	clear(c.calls) // records, errors and what readers filed: no reader is in c; and record takes a place as zero
	// kids not cleared: addKid writes each whole (clearing cost sweep8 11 instructions a CTA, E 1.6)
	c.calls, c.ctas, c.plains, c.warps, c.kids, c.next = c.calls[:0], c.ctas[:0], c.plains[:0], c.warps[:0], c.kids[:0], nil
}

// shareReader is one reader's place on the tape: chunk's calls[at], of
// which it knows known are there; snap is what it knows of chunk's
// arrays (their headers change as the head appends). A reader the tape
// has let go (gone) or that left it reads with own instead, after
// records records.
type shareReader struct {
	s       *Share
	chunk   *tapeChunk
	at      int
	snap    tapeChunk // chunk's arrays as of the last look, calls[:known]
	records int64
	gone    bool // let go by the tape: own takes over at the next call
	left    bool // closed
	started bool // has made a call
	fresh   bool // let go before it started: reads on s.next
	own     *Validator
	ownSrc  io.Closer
	err     error // sticky: reopening failed
	parked  bool  // waits elsewhere: a lockstep head lets it go
	// pause and resume hand the reader's thread on while it waits at a
	// lockstep head, and take it back (nil: nothing to hand on).
	pause, resume func()
	// The reader's own copies of Next's reused kinds.
	cta    CTA
	warps  []int64
	kernel Kernel
	launch Launch
	parent Parent
}

// call returns the tape's answer to the call op with these arguments at
// r's place, making it on the shared Validator where r is at the head,
// and moves r past it; or nil where r reads on its own now (r.own set,
// or r.err).
func (r *shareReader) call(op uint8, kernel, arg uint64, room, wroom int) (*tapeCall, *tapeChunk) {
	if r.own != nil || r.err != nil {
		return nil, nil
	}
	if r.at < len(r.snap.calls) {
		c := &r.snap.calls[r.at]
		if c.op == op && c.kernel == kernel && c.arg == arg && c.room == room && c.wroom == wroom {
			r.at++
			r.records = c.records
			return c, &r.snap
		}
	}
	return r.slow(op, kernel, arg, room, wroom)
}

// slow is call past what r knew of the tape: it looks again, under the
// lock, moves on to the next chunk, or makes the call at the head.
func (r *shareReader) slow(op uint8, kernel, arg uint64, room, wroom int) (*tapeCall, *tapeChunk) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r.started = true
	for !r.gone {
		r.look()
		if r.at < len(r.snap.calls) {
			c := &r.snap.calls[r.at]
			if c.op != op || c.kernel != kernel || c.arg != arg || c.room != room || c.wroom != wroom {
				break // not the call the tape holds: read on alone
			}
			r.at++
			r.records = c.records
			return c, &r.snap
		}
		if r.chunk.next != nil {
			r.chunk, r.at = r.chunk.next, 0
			s.recycle()
			if s.lockstep {
				s.moved.Broadcast()
			}
			continue
		}
		// At the head: make the call, or, where every other reader has
		// been let go or has left, read on with the shared Validator as
		// r's own, recording for nobody no more.
		if s.lone(r) {
			r.own, r.ownSrc = s.v, s.closer
			s.v, s.closer = nil, nil
			r.leave()
			return nil, nil
		}
		if len(r.chunk.calls) == shareChunk {
			s.grow(r)
			continue // r may have been let go
		}
		whole := s.record(op, kernel, arg, room, wroom)
		for i := 0; i < childBatch && s.childNext(r.chunk, whole); i++ {
			whole = s.record(opChild, 0, 0, 0, 0)
		}
		s.head.endRun() // where kidRun finds the run's end; the loop goes on
	}
	r.leave()
	if r.fresh {
		r.join()
	} else {
		r.goAlone()
	}
	return nil, nil
}

// lone reports whether r is the tape's last reader (under the lock):
// the others let go or closed. Then nobody reads what r would record;
// a tape recording on would cost r its copies for nothing, as when one
// worker runs a trace's replays one after another and the first passes
// the budget, which lets the others go before they start.
func (s *Share) lone(r *shareReader) bool {
	for _, o := range s.readers {
		if o != r && !o.gone && !o.left {
			return false
		}
	}
	return true
}

// look takes a fresh view of r's chunk (under the lock).
func (r *shareReader) look() {
	c := r.chunk
	r.snap.calls, r.snap.ctas, r.snap.plains = c.calls, c.ctas, c.plains // what r reads of it (the rest stays zero: its records' warps and its answers' heads hold their arrays)
}

// grow starts a new head chunk, letting the readers of the oldest go
// first where the tape would pass its budget. Before it lets a reader
// go, it yields its thread (runtime.Gosched) up to shareYields times,
// returning with no new chunk: where the readers outnumber the threads
// that run them (one thread, as scripts/instructions.sh counts, or more
// workers than cores), the one behind, or one whose worker has not yet
// run it, then runs and may leave the oldest chunk, and the replays go
// on sharing the decode. Yielding never waits: where the reader behind
// cannot run (it waits for a merge or for a worker, say), the head runs
// again at once, and after shareYields tries lets it go as before.
// In lockstep, r, the head, waits instead (wait) while a reader not
// parked is in the oldest chunk, and lets go only the parked.
func (s *Share) grow(r *shareReader) {
	if s.lockstep && s.bytes+s.head.size() > s.budget && s.oldest != s.head && s.awake(s.oldest) {
		s.wait(r)
		return
	}
	if !s.lockstep && s.bytes+s.head.size() > s.budget && s.oldest != s.head && s.yields < shareYields && s.readIn(s.oldest) {
		s.yields++
		s.mu.Unlock()
		runtime.Gosched()
		s.mu.Lock()
		return
	}
	s.yields = 0
	s.bytes += s.head.size()
	for s.bytes > s.budget && s.oldest != s.head && !(s.lockstep && s.awake(s.oldest)) {
		old := s.oldest
		for _, r := range s.readers {
			if !r.gone && !r.left && r.chunk == old {
				// Let go: r reads old no more but through its own
				// view (snap), and old, linked to the tape's later
				// chunks, is left to the collector.
				r.gone, r.chunk = true, nil
				if !r.started {
					r.fresh = true
					s.fresh++
				}
			}
		}
		s.bytes -= old.size()
		s.oldest = old.next // old is not recycled: a reader let go may still read its copy
	}
	c := s.chunk()
	s.head.next = c
	s.head = c
}

// wait has r, at a lockstep head whose tape is full, wait for a reader
// of the oldest chunk to move (under the lock): r's thread is handed on
// meanwhile (pause), and taken back (resume) outside the lock, which the
// readers that take it need.
func (s *Share) wait(r *shareReader) {
	if r.pause != nil {
		r.pause()
	}
	s.moved.Wait()
	if r.resume != nil {
		s.mu.Unlock()
		r.resume()
		s.mu.Lock()
	}
}

// awake reports whether a reader not parked reads chunk c still, or will
// (under the lock): a lockstep head waits for it.
func (s *Share) awake(c *tapeChunk) bool {
	for _, r := range s.readers {
		if !r.gone && !r.left && !r.parked && r.chunk == c {
			return true
		}
	}
	return false
}

// Lockstep has the Share's readers read in lockstep (under the budget, the
// head waits for the readers behind rather than letting them go): the
// caller runs them all at once. pause(i) and resume(i), where not nil,
// are called by reader i's calls around such a wait, with no lock held by
// the Share at resume: they hand on the thread that runs the reader and
// take it back. Call it before any reader reads.
func (s *Share) Lockstep(pause, resume func(i int)) {
	s.lockstep = true
	for i, r := range s.readers {
		if pause != nil {
			r.pause = func() { pause(i) }
		}
		if resume != nil {
			r.resume = func() { resume(i) }
		}
	}
}

// Park marks a Share's reader as waiting for something else than the
// tape (on) or no longer (off): a lockstep head does not wait for a
// parked reader, and lets it go where the tape is full. For any other
// Validator it does nothing.
func (v *Validator) Park(on bool) {
	if v.tape == nil {
		return
	}
	s := v.tape.s
	s.mu.Lock()
	v.tape.parked = on
	if s.lockstep {
		s.moved.Broadcast()
	}
	s.mu.Unlock()
}

// shareYields is how many times grow yields its thread to the readers
// behind before it lets them go.
var shareYields = 256 // a test's to set (TestShareReadsAsAValidator)

// readIn reports whether a reader reads chunk c still, or will (under
// the lock).
func (s *Share) readIn(c *tapeChunk) bool {
	for _, r := range s.readers {
		if !r.gone && !r.left && r.chunk == c {
			return true
		}
	}
	return false
}

// recycle gives back the chunks no reader is in any more.
func (s *Share) recycle() {
	for s.oldest != s.head {
		for _, r := range s.readers {
			if !r.gone && !r.left && r.chunk == s.oldest {
				return
			}
		}
		c := s.oldest
		s.oldest = c.next
		s.bytes -= c.size()
		c.reset()
		s.pool = append(s.pool, c)
	}
}

// childNext reports whether the head chunk h has room for another call
// and its last answer is a child whose records all came with it (under
// the lock): then the call that comes next is Child again, and record
// makes it at once. A replay's tree reader files such a child with no
// other call, and asks Child for the next (replay's children); a child
// with no records, or more of them, or an error, it follows with Next
// or CTAs. So the head records a launch level's children in one pass
// under the lock, not one call of slow each (its lock, its look at the
// chunk and its deferred unlock: BFS --quick sweep8, some 260
// instructions a child). A reader whose call is not the one the tape
// holds reads on alone, as ever: a guess that is wrong costs time, not
// rows.
//
// A pass records at most childBatch more: the readers behind wait for
// the lock while it runs, which on a machine with a thread each they
// need as soon as they reach the head.
func (s *Share) childNext(h *tapeChunk, whole bool) bool {
	// whole is the answer a Child's, ok, with no error, with records and
	// no More, as record found it and returned it: the test of the call's
	// fields and of the head's that it took, a child, goes (BFS --quick
	// sweep8: the head's pass, some 20 instructions a child), and so does
	// the load of the answer again, and the tests that h is the head and
	// has an answer (record made one there): sweep8 3 a CTA fewer. The
	// comment keeps slow's lines, and its calls' places, where they were
	// (PGO keys record, inlined in slow below, by its line: see
	// docs/performance.md).
	return whole && len(h.calls) < shareChunk
}

// childBatch is how many children a head records after the one asked
// for, in one pass under the lock (childNext): its slow path's cost
// spread over as many, a pass some 100K instructions (BFS: a child
// decoded and recorded some 1,700).
const childBatch = 64

// record makes the call on the shared Validator and appends its answer
// to the head chunk (under the lock), and reports whether it is whole. The answer is built in its place
// in the chunk, not copied there, a place past the calls' length zero.
func (s *Share) record(op uint8, kernel, arg uint64, room, wroom int) (whole bool) {
	h := s.head
	h.calls = h.calls[:len(h.calls)+1]
	c := &h.calls[len(h.calls)-1]
	c.op, c.kernel, c.arg, c.room, c.wroom = op, kernel, arg, room, wroom // (zeroed whole again, sweep8 E 0.2 a CTA more)
	v := s.v
	switch op {
	case opNext:
		rec, err := v.Next()
		c.rec, c.err = owned(rec), err
	case opCTAs:
		lo, wlo := len(h.ctas), len(h.warps)
		h.ctas = growCTAs(h.ctas, room)
		h.warps = growWarps(h.warps, wroom)
		n, err := v.CTAs(kernel, h.ctas[lo:lo+room], h.warps[wlo:wlo+wroom])
		h.ctas = h.ctas[:lo+n]
		h.warps = h.warps[:wlo+usedWarps(h.ctas[lo:])]
		c.lo, c.hi, c.err = lo, lo+n, err
	case opPlain:
		lo := len(h.plains)
		if cap(h.plains)-lo < room {
			h.plains = append(h.plains[:lo:lo], make([]PlainCTA, room)...)
		}
		h.plains = h.plains[:lo+room]
		n := v.PlainCTAs(kernel, arg, h.plains[lo:lo+room])
		h.plains = h.plains[:lo+n]
		c.lo, c.hi = lo, lo+n
	case opChild:
		kid := &s.kid
		if c.ok = v.Child(kid); c.ok {
			c.head = h.addKid(kid.Head()) // the copy addKid returns, not found again in kids: shareReader.slow 7 instructions a child fewer
			c.lo, c.hi = h.addRecords(kid.Records())
			if whole = c.lo < c.hi && !kid.Head().More && kid.Head().Err == nil; whole {
				c.run, c.whole = h.runFrom(len(h.calls)-1), true
			}
		}
	}
	c.records = v.record
	return whole
}

// addKid appends a copy of a Child's answer to c's, and returns it. Its Launch.Parent
// points at its own Parent, on the tape: where the append moved the
// answers to a larger array, every one there is pointed at its own again
// (the ones handed out already stay as they were, in the old array, which
// nothing writes again).
func (c *tapeChunk) addKid(h *ChildHead) *ChildHead {
	if c.kids == nil {
		// A chunk holds at most shareChunk answers: made once at
		// their most, the kids never move (BFS --quick sweep8: the
		// growth and re-pointing cost some 2M instructions).
		c.kids = make([]ChildHead, 0, shareChunk)
	}
	n := len(c.kids)
	if n == cap(c.kids) {
		c.kids = append(c.kids, *h)
		for i := range c.kids {
			c.kids[i].Launch.Parent = &c.kids[i].Parent
		}
		return &c.kids[n]
	}
	c.kids = c.kids[:n+1]
	k := &c.kids[n]
	*k = *h // one typed copy, moved in blocks where no GC runs: field by field cost sweep8 25 instructions a child more
	// (shareReader.slow's self cost 365K fewer: scripts/instructions.sh --quick sweep8 E 1,386 -> 1,382)
	k.Launch.Parent = &k.Parent
	return k
}

// addRecords appends a copy of a Child's records to c's ctas, and their
// warp_cycles to c's warps, each record's pointing at its own copy; it
// returns where they are in ctas. Each record is copied field by field
// with its few warp cycles (BFS: two or so) in a loop, in one pass: an
// append of the records (a typed copy, its write barriers' tests) and a
// pass more appending each record's warp cycles (a call of memmove each)
// cost BFS --quick's four policies some 150 instructions a child more.
// A recycled chunk's ctas are not cleared (reset): every record's
// WarpCycles is written.
func (c *tapeChunk) addRecords(cs []CTA) (lo, hi int) {
	lo, hi = len(c.ctas), len(c.ctas)+len(cs)
	c.ctas = slices.Grow(c.ctas, len(cs))[:hi]
	dst, ws := c.ctas[lo:hi][:len(cs)], c.warps // [:len(cs)], and sw and w of one length: no bounds tests (sweep8 6 a CTA fewer)
	for i := range cs {
		s, d := &cs[i], &dst[i]
		d.Kernel, d.CTA, d.Cycles, d.Insts, d.DRAMBytes = s.Kernel, s.CTA, s.Cycles, s.Insts, s.DRAMBytes
		sw := s.WarpCycles
		if len(sw) == 0 {
			d.WarpCycles = nil
			continue
		}
		at := len(ws)
		ws = slices.Grow(ws, len(sw))[:at+len(sw)]
		w := ws[at : at+len(sw) : at+len(sw)]
		for j, x := range sw {
			w[j] = x
		}
		d.WarpCycles = w
	}
	c.warps = ws
	return lo, hi
}

// The warp_cycles of the records CTAs reads into the tape point into the
// chunk's warps, whose array may move as the chunk grows (the records
// handed out keep the old one, which nothing writes again); the chunk's
// warps grow by what the records hold (usedWarps).
func growCTAs(s []CTA, room int) []CTA {
	if cap(s)-len(s) < room {
		s = append(s[:len(s):len(s)], make([]CTA, room)...)[:len(s)]
	}
	return s[:len(s)+room]
}

func growWarps(s []int64, room int) []int64 {
	if cap(s)-len(s) < room {
		s = append(s[:len(s):len(s)], make([]int64, room)...)[:len(s)]
	}
	return s[:len(s)+room]
}

// owned is rec in storage of its own where the Validator's source may
// reuse it (a launch, cta or kernel record), else rec.
func owned(rec Record) Record {
	switch r := rec.(type) {
	case *CTA:
		c := *r
		c.WarpCycles = append([]int64(nil), r.WarpCycles...)
		return &c
	case *Kernel:
		k := *r
		return &k
	case *Launch:
		l := *r
		if r.Parent != nil {
			p := *r.Parent
			l.Parent = &p
		}
		l.After = append([]uint64(nil), r.After...)
		return &l
	}
	return rec
}

// leave takes r off the tape (under the lock), and lets go of its
// chunk: a chunk dropped for the budget links to the tape's later ones,
// which r would keep from the collector. The records of the last answer
// stay valid: they hold their array themselves.
//
// The last reader to leave the tape (the others let go or gone before)
// drops its chunks and the pool: the Share stays reachable while its
// readers read on elsewhere, the ones let go before they started on the
// next Share, and a tape per Share of a chain would be memory by the
// number of replays rather than by those in flight.
func (r *shareReader) leave() {
	r.left = true
	r.s.recycle()
	if r.s.lockstep {
		r.s.moved.Broadcast()
	}
	r.chunk, r.snap = nil, tapeChunk{}
	s := r.s
	for _, o := range s.readers {
		if !o.gone && !o.left {
			return
		}
	}
	s.pool, s.head, s.bytes = nil, &tapeChunk{}, 0
	s.oldest = s.head
}

// goAlone has r read on with a Validator of its own, past the records
// the tape gave it (outside the lock: it reads them again).
func (r *shareReader) goAlone() {
	r.s.mu.Unlock()
	defer r.s.mu.Lock()
	v, c, err := r.s.reopen()
	if err != nil {
		r.err = err
		return
	}
	r.own, r.ownSrc = v, c
	for v.record < r.records {
		if _, err := v.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("trace ended at record %d, where it had %d records before", v.record, r.records)
			}
			r.err = err
			return
		}
	}
	if v.record != r.records {
		r.err = fmt.Errorf("trace read again: %d records where the shared read had %d", v.record, r.records)
	}
}

// join has r, let go before it started, read on the Share of the
// readers so let go (under the lock), opening it where r is the first
// of them to start: r's calls go to its reader there (own).
func (r *shareReader) join() {
	s := r.s
	if s.next == nil {
		v, c, err := s.reopen()
		if err != nil {
			r.err = err
			return
		}
		s.next = NewShare(v, c, s.index, s.fresh, s.budget, s.reopen)
	}
	v := s.next.Reader(s.seated)
	s.seated++
	r.own, r.ownSrc = v, v
}

// next is Validator.Next on the tape.
func (r *shareReader) next() (Record, error) {
	c, _ := r.call(opNext, 0, 0, 0, 0)
	if c == nil {
		return r.alone().Next()
	}
	if c.err != nil {
		return nil, c.err
	}
	// Copies of the reused kinds: each reader may change its own.
	switch rec := c.rec.(type) {
	case *CTA:
		r.cta = *rec
		r.warps = append(r.warps[:0], rec.WarpCycles...)
		r.cta.WarpCycles = r.warps[:len(rec.WarpCycles):len(rec.WarpCycles)]
		if len(rec.WarpCycles) == 0 {
			r.cta.WarpCycles = nil
		}
		return &r.cta, nil
	case *Kernel:
		r.kernel = *rec
		return &r.kernel, nil
	case *Launch:
		r.launch = *rec
		if rec.Parent != nil {
			r.parent = *rec.Parent
			r.launch.Parent = &r.parent
		}
		return &r.launch, nil
	}
	return c.rec, nil
}

// alone is the Validator r reads with on its own, or one that returns
// r's error where it could not open one.
func (r *shareReader) alone() *Validator {
	if r.own == nil {
		return &Validator{err: r.err}
	}
	return r.own
}

// ctas is Validator.CTAs on the tape.
func (r *shareReader) ctas(kernel uint64, dst []CTA, warps []int64) (int, error) {
	c, ch := r.call(opCTAs, kernel, 0, len(dst), len(warps))
	if c == nil {
		return r.alone().CTAs(kernel, dst, warps)
	}
	return copyCTAs(dst, warps, ch.ctas[c.lo:c.hi]), c.err
}

// copyCTAs copies cs into dst, their warp_cycles into warps one after
// another, and returns their number.
func copyCTAs(dst []CTA, warps []int64, cs []CTA) int {
	used := 0
	for i := range cs {
		d := &dst[i]
		*d = cs[i]
		if w := cs[i].WarpCycles; len(w) > 0 {
			n := copy(warps[used:], w)
			d.WarpCycles = warps[used : used+n : used+n]
			used += n
		}
	}
	return len(cs)
}

// plainCTAs is Validator.PlainCTAs on the tape.
func (r *shareReader) plainCTAs(kernel, first uint64, dst []PlainCTA) int {
	c, ch := r.call(opPlain, kernel, first, len(dst), 0)
	if c == nil {
		return r.alone().PlainCTAs(kernel, first, dst)
	}
	return copy(dst, ch.plains[c.lo:c.hi])
}

// child is Validator.Child on the tape. Where r's view of its chunk
// holds the answer it is taken with no call of call: Child's arguments
// are none, so the tape's call there is Child's where its op is (a
// reader that reads alone, or whose Share could not open, has an empty
// view: leave clears it).
func (r *shareReader) child(kid *Child) bool {
	at := r.at
	if at >= len(r.snap.calls) || r.snap.calls[at].op != opChild {
		return r.childSlow(kid)
	}
	c := &r.snap.calls[at]
	r.at, r.records = at+1, c.records
	if !c.ok {
		return false
	}
	// The answer and the records stay on the tape, read by every reader
	// in place: r is in their chunk, which is not recycled before r's
	// next call, when they are no longer valid.
	ch := &r.snap
	kid.head, kid.slot = c.head, &c.filed
	kid.shared = ch.ctas[c.lo:c.hi:c.hi]
	if c.lo == c.hi {
		kid.shared = kid.room[:0]
	}
	return true
}

// kidRun is Validator.Kids on the tape: the answers in r's view of its
// chunk, with no look at the tape's head (the head records a launch
// level's children in one pass: childNext).
func (r *shareReader) kidRun(k *Kids) bool {
	if r.own != nil || r.err != nil {
		return false
	}
	ch := &r.snap
	from, calls := r.at, r.snap.calls
	if from >= len(calls) || !calls[from].whole {
		return false
	}
	at := wholeEnd(calls, from) // its end stored, where each child was tested, then galloped
	// (a launching CTA's some 100: 8 instructions a child a reader)
	records := ch.calls[at-1].records
	k.read = int(records - r.records) // each call's records: the shared Validator's count after it
	r.at, r.records = at, records
	k.calls, k.ctas = ch.calls[from:at:at], ch.ctas
	return true
}

// childSlow is child past r's view of the tape: through call, which
// looks again or reads alone.
func (r *shareReader) childSlow(kid *Child) bool {
	c, ch := r.call(opChild, 0, 0, 0, 0)
	if c == nil {
		kid.shared = nil
		return r.alone().Child(kid)
	}
	if !c.ok {
		return false
	}
	kid.head, kid.slot = c.head, &c.filed
	kid.shared = ch.ctas[c.lo:c.hi:c.hi]
	if c.lo == c.hi {
		kid.shared = kid.room[:0]
	}
	return true
}

// close takes r off the tape, and closes its own source where it has
// one; the last reader to leave closes the shared one.
func (r *shareReader) close() error {
	s := r.s
	s.mu.Lock()
	if !r.left {
		r.leave()
	}
	if r.fresh && r.own == nil && r.err == nil {
		// Let go before it started, and closed before it started: its
		// seat on the next Share is given up.
		r.err = errClosed
		if s.next == nil {
			s.fresh--
		} else {
			s.next.readers[s.seated].close()
			s.seated++
		}
	}
	last := !s.closed
	for _, o := range s.readers {
		last = last && o.left
	}
	closer := s.closer
	if last {
		// Nothing reads the tape again: what it decoded with goes now,
		// not with the Share, which its owner may hold to the end of a
		// run of many replays (a study's pieces).
		s.closed = true
		s.v, s.closer, s.index, s.reopen = nil, nil, nil, nil
	}
	own := r.ownSrc
	r.own, r.ownSrc = nil, nil // a reader reading on alone: its decode goes with it
	if r.err == nil {
		r.err = errClosed
	}
	s.mu.Unlock()
	if own != nil {
		own.Close()
	}
	if last && closer != nil {
		return closer.Close()
	}
	return nil
}

// errClosed is the error of a Share's reader read after it was closed
// where it had been let go before it started.
var errClosed = errors.New("trace: a shared read's reader read after it was closed")

// errTape is a Share reader's Validator's err: every call takes the
// branch of an error, which asks the tape (tapeNext and the others).
var errTape = errors.New("trace: a shared read's reader")

// OnTape reports whether v is a Share's reader (Share.Reader), which
// Kids answers.
func (v *Validator) OnTape() bool { return v.tape != nil }

// tapeNext is Next where v.err is set: the tape's answer for a Share's
// reader, else v.err.
func (v *Validator) tapeNext() (Record, error) {
	if v.tape == nil {
		return nil, v.err
	}
	return v.tape.next()
}

// tapeCTAs is CTAs where it reads no run itself: the tape's answer for a
// Share's reader, else none.
func (v *Validator) tapeCTAs(kernel uint64, dst []CTA, warps []int64) (int, error) {
	if v.tape == nil {
		return 0, nil
	}
	return v.tape.ctas(kernel, dst, warps)
}

// tapePlain is PlainCTAs where it reads none itself: the tape's answer
// for a Share's reader, else none.
func (v *Validator) tapePlain(kernel, first uint64, dst []PlainCTA) int {
	if v.tape == nil {
		return 0
	}
	return v.tape.plainCTAs(kernel, first, dst)
}

// tapeChild is Child where it reads none itself: the tape's answer for a
// Share's reader, else none.
func (v *Validator) tapeChild(c *Child) bool {
	if v.tape == nil {
		return false
	}
	return v.tape.child(c)
}

// HostIndex is, for a Share's reader, the trace's host index its Share
// was given (nil: none); for any other Validator, nil. HostIndexOf asks
// it, as it asks a file.
func (v *Validator) HostIndex() (*HostIndex, error) {
	if v.tape == nil {
		return nil, nil
	}
	return v.tape.s.index, nil
}

// Close takes a Share's reader off the tape (the last to leave closes
// the shared source); for any other Validator it does nothing.
func (v *Validator) Close() error {
	if v.tape == nil {
		return nil
	}
	return v.tape.close()
}

// runFrom is the first call of the run of whole answers that the whole
// answer calls[n] ends so far (record).
func (c *tapeChunk) runFrom(n int) uint32 {
	if n > 0 && c.calls[n-1].whole {
		return c.calls[n-1].run & runFromMask
	}
	return uint32(n)
}

// runFromMask is the bits of a tapeCall's run that are its run's first
// call (a chunk holds fewer calls, shareChunk); the 16 above them are,
// in that first call, the run's end (endRun, wholeEnd): in one word,
// read and written atomically, an answer takes no more room.
const runFromMask = 1<<16 - 1

// endRun stores the end so far of the run of whole answers that c's
// last answer is in or, where that one is not whole, ends, in the run's
// first call (slow, after a pass of the head's: a pass's answers are
// whole but its first, or its last, which ends the pass).
func (c *tapeChunk) endRun() {
	n := len(c.calls)
	if n > 0 && !c.calls[n-1].whole {
		n--
	}
	if n > 0 && c.calls[n-1].whole {
		from := c.calls[n-1].run & runFromMask
		atomic.StoreUint32(&c.calls[from].run, from|uint32(n)<<16)
	}
}

// wholeEnd is the end of the run of whole answers calls[i], a whole one,
// is in: the end its first call holds (endRun), or len(calls) where
// calls, a reader's view, ends before it. The end is stored once a pass
// of the head's, where each reader had galloped (gallop.End) or scanned
// to find it: scripts/instructions.sh --quick sweep8 E 1,382 -> 1,381
// (gallop.End and its tests' self cost 2.4 a CTA of E fewer).
func wholeEnd(calls []tapeCall, i int) int {
	from := atomic.LoadUint32(&calls[i].run) & runFromMask
	return min(int(atomic.LoadUint32(&calls[from].run)>>16), len(calls))
}
