package replay

import (
	"math"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/internal/slots"
	"github.com/gpureplay/gpureplay/internal/threadpool"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// The host side of a replay: host threads issuing launches and copies
// (each stream's in trace order), streams that run their kernels in order,
// and `after` dependencies.

// hostThreads are the host threads that make API calls
// (lat.host_threads): each call holds one thread for lat.host_issue.
// Consecutive calls on one stream stay on one thread (a task's copies and
// its launch are one thread's work, in order); a call on another stream
// goes to the thread free first, the lowest-numbered on a tie. A stream's
// calls issue in trace order, so they reach the GPU in order; calls on
// different streams need not. The engine reads calls ahead until every
// thread has one planned and not yet issued (threads run their calls
// concurrently, so a thread must not wait for another's calls to be read:
// with Fig. 1a's tasks, one thread's next task is read only past the
// other thread's launch and copies), at most hostReadAhead calls a thread,
// so memory stays bounded by the threads.
type hostThreads struct {
	free    threadpool.Pool  // when each thread can call again; blocked while a blocking call waits
	shift   []int64          // each thread's calls move by its last blocking call's return, replayed minus captured
	waiting []int32          // each thread's calls planned, not yet issued
	idle    int              // threads with no call waiting
	last    int              // the previous call's thread, -1 before the first
	stream  uint64           // the previous call's stream
	issued  map[uint64]int64 // a stream's latest call, while it may be ahead of the clock
	pending int              // calls read and scheduled, not yet issued
	eof     bool             // the trace has no more host calls
}

// hostReadAhead bounds the calls read ahead per host thread: enough for a
// task's copies and launch on one thread (Fig. 1a's loop body, a handful
// of calls) while the others wait for their next task to be read.
const hostReadAhead = 16

func newHostThreads(n int64) hostThreads {
	n = max(n, 1)
	return hostThreads{free: threadpool.New(n, 0), shift: make([]int64, n), waiting: make([]int32, n), idle: int(n), last: -1, issued: map[uint64]int64{}}
}

// blocked is a thread's free cycle while a blocking call holds it: the
// thread free first is then another, where one is not blocked.
const blocked = math.MaxInt64

// pick is the thread a call on stream goes to: the previous call's
// thread for the same stream, else the thread free first.
func (h *hostThreads) pick(stream uint64) int {
	if h.last < 0 || stream != h.stream {
		return h.free.First()
	}
	return h.last
}

// shiftOf is thread j's shift: its calls' captured t move by it.
func (h *hostThreads) shiftOf(j int) int64 { return h.shift[j] }

// lastStream is the previous call's stream: a call on it stays on the
// previous call's thread.
func (h *hostThreads) lastStream() uint64 { return h.stream }

// isBlocked reports whether a blocking call holds thread j.
func (h *hostThreads) isBlocked(j int) bool { return h.free[j] == blocked }

// block holds thread j from its call's issue until unblock.
func (h *hostThreads) block(j int) { h.free[j] = blocked }

// unblock frees thread j at ret, the blocking call's return, its later
// calls moving by shift (the return, replayed minus captured).
func (h *hostThreads) unblock(j int, ret, shift int64) {
	h.free[j], h.shift[j] = ret, shift
}

// readMore reports whether the engine should read another host call: a
// thread has none waiting, and the read-ahead bound leaves room.
func (h *hostThreads) readMore() bool {
	return !h.eof && h.idle > 0 && h.pending < hostReadAhead*len(h.free)
}

// ended notes that the trace has no more host calls.
func (h *hostThreads) ended() { h.eof = true }

// allRead reports whether every host call in the trace has been read.
func (h *hostThreads) allRead() bool { return h.eof }

// planned reports whether calls read and scheduled have not issued yet.
func (h *hostThreads) planned() bool { return h.pending > 0 }

// issuedOn notes that a call planned on thread j has issued.
func (h *hostThreads) issuedOn(j int) {
	h.pending--
	if h.waiting[j]--; h.waiting[j] == 0 {
		h.idle++
	}
}

// assign gives thread j (pick's, not blocked) a call on stream that may
// issue no earlier than earliest (nor before now) and costs the thread
// cost cycles; it returns the issue cycle.
func (h *hostThreads) assign(j int, stream uint64, earliest, now, cost int64) int64 {
	at := max(earliest, now, h.free[j])
	if prev, ok := h.issued[stream]; ok {
		at = max(at, prev)
	}
	h.free[j] = at + cost
	h.last, h.stream = j, stream
	h.pending++
	if h.waiting[j] == 0 {
		h.idle--
	}
	h.waiting[j]++
	h.remember(stream, at, now)
	return at
}

// remember notes a stream's latest call. A call at or before now orders
// nothing (later calls issue after now anyway), so such entries are
// dropped once the map outgrows the calls that can be pending.
func (h *hostThreads) remember(stream uint64, at, now int64) {
	h.issued[stream] = at
	if len(h.issued) <= (hostReadAhead+4)*len(h.free) {
		return
	}
	for s, t := range h.issued {
		if t <= now {
			delete(h.issued, s)
		}
	}
}

// hostSide is the host: its threads making API calls, its streams
// (with task groups and `after` waits), the legacy stream's barrier, and
// the host kernels issued whose bodies the body cursor has still to load.
type hostSide struct {
	hostLinks
	in      *ingest.Streams // the host operations, one ahead of the simulated host (NextHost)
	threads hostThreads
	streams hostStreams
	legacy  *legacyGate // copies on the legacy default stream (io.memcpy=legacy), else nil
	sync    hostSync    // what blocking calls and stream waits wait for (hostsync.go)
	held    hostCall    // a call read whose thread a blocking call holds (its call set): reading stops there
	// owner is, by stream, the thread of the last blocking call on it
	// (a device sync's: the previous call's stream), until the stream's
	// next call is planned: that call goes to the same thread, so a
	// stream's calls after a sync wait for it and move with it.
	owner  map[uint64]int
	waits  slots.Table[*hostWait]
	issued []*Kernel // host kernels issued, body not loaded yet (issue order)
	loaded int       // host kernels whose bodies were loaded
	order  int32     // host launches read so far
	first  int64     // the first launch's issue (-1 before)
}

// hostLinks is what the host side reaches outside itself.
type hostLinks struct {
	clock *eventClock
	eng   hostEngine
	cfg   *model.Config
	an    Analysis  // told of host calls and stream heads; nil for none
	out   *recorder // a copy's span counts as busy
	io    *hostIO   // set when the replay starts: launch bases, copies
	body  *bodyCursor
}

// hostEngine is what the host side needs of the engine: a kernel at the
// head of its stream waits for a Kernel Distributor entry; a failure ends
// the run.
type hostEngine interface {
	awaitKD(k *Kernel)
	fail(err error)
}

func newHostSide(own, legacy bool, l hostLinks) hostSide {
	h := hostSide{hostLinks: l, threads: newHostThreads(l.cfg.Lat.HostThreads), streams: newHostStreams(own), sync: newHostSync(own), owner: map[uint64]int{}, first: -1}
	if legacy {
		h.legacy = &legacyGate{}
	}
	return h
}

// register routes the host's events to it.
func (h *hostSide) register(c *eventClock) {
	c.on(evHostIssue, func(ev eventq.Event) { h.issue(c.kernelOf(ev)) })
	c.on(evCopyDone, func(ev eventq.Event) { h.copyDone(c.kernelOf(ev)) })
	c.on(evSync, func(ev eventq.Event) { h.syncIssue(h.waits.Take(ev.Ref)) })
}

// reads gives the host side the trace's readers: the host operations,
// and the body cursor that loads the kernels they launch.
func (h *hostSide) reads(in *ingest.Streams, body *bodyCursor) { h.in, h.body = in, body }

// started gives the host side the host's I/O, planned when the replay
// starts.
func (h *hostSide) started(io *hostIO) { h.io = io }

// busy reports whether host work is left: a stream with a live
// operation, a call read and not issued, or a blocking call waiting.
func (h *hostSide) busy() bool {
	return h.streams.busy() || h.threads.planned() || h.sync.waiting() || h.held.isSet()
}

// firstLaunch is the first host launch's issue cycle, -1 before one.
func (h *hostSide) firstLaunch() int64 { return h.first }

// privateStream gives device kernel k a fresh stream of its own.
func (h *hostSide) privateStream(k *Kernel) { h.streams.privateStream(k) }

// freshStream numbers a fresh private stream.
func (h *hostSide) freshStream() uint64 { return h.streams.fresh() }

// readHost reads host calls ahead until every host thread has one
// waiting (hostThreads), scheduling each call's issue, or until a call's
// thread is held by a blocking call (the host's read-ahead stops at a
// sync it cannot pass, so memory stays bounded by the calls in flight).
func (h *hostSide) readHost() error {
	for !h.held.isSet() && h.threads.readMore() {
		if err := h.readNextHost(); err != nil {
			return err
		}
	}
	return nil
}

// hostCall is a host call read and not yet given a thread: a launch or a
// copy (k), or a blocking sync (w).
type hostCall struct {
	k        *Kernel
	w        *hostWait
	stream   uint64 // the stream that picks its thread
	earliest int64  // its t after the launch base, in replay cycles
	cost     int64  // what it holds its thread for
}

// isSet reports whether c holds a call.
func (c *hostCall) isSet() bool { return c.k != nil || c.w != nil }

// blocks reports whether c holds its thread until its wait ends: a
// blocking sync, or a copy that blocks.
func (c *hostCall) blocks() bool {
	return c.w != nil || c.k.copyOp() != nil && c.k.copyOp().wait != nil
}

// readNextHost fetches the next host operation and schedules its issue.
func (h *hostSide) readNextHost() error {
	r, err := h.in.NextHost()
	if err != nil || r == nil {
		h.threads.ended()
		return err
	}
	// A call may issue no earlier than its t, counted from the launch
	// base of the host kernels issued so far (see hostIO.launchBase).
	base := h.io.launchBase(int(h.order))
	c := hostCall{cost: h.cfg.Lat.HostIssue}
	switch r := r.(type) {
	case *trace.Memcpy:
		k := newCopy(r)
		c.k, c.stream, c.earliest = k, r.Stream, base+h.body.scale(r.T)
		if err := h.added(k, r.Stream); err != nil {
			return err
		}
		if r.Blocks() {
			w := &hostWait{op: trace.SyncStream, copy: k, stream: r.Stream, ret: base + h.body.scale(r.Returned())}
			k.copyOp().wait = w
			if err := h.sync.blocking(w); err != nil {
				return err
			}
		} else {
			c.cost += syncCopyWait(*h.cfg, 1, r.Bytes)
		}
	case *trace.Launch:
		k := &Kernel{id: r.Kernel, host: true, stream: r.Stream, kernelRun: &kernelRun{startCycle: -1, order: h.order}}
		if len(r.After) > 0 {
			k.rareParts().after = r.After
		}
		h.order++
		h.issued = append(h.issued, k)
		c.k, c.stream, c.earliest = k, r.Stream, base+h.body.scale(r.T)
		if err := h.added(k, r.Stream); err != nil {
			return err
		}
	case *trace.Sync:
		switch r.Op {
		case trace.EventRecord:
			return h.sync.record(r.Event, r.Stream)
		case trace.StreamWait:
			return h.sync.wait(r.Stream, r.Event)
		}
		w := &hostWait{op: r.Op, stream: r.Stream, event: r.Event, ret: base + h.body.scale(r.Returned())}
		if err := h.sync.blocking(w); err != nil {
			return err
		}
		// A device sync stays on the previous call's thread; a stream
		// or event sync goes with its stream's calls.
		c.w, c.stream, c.earliest, c.cost = w, h.threads.lastStream(), base+h.body.scale(r.T), 0
		switch {
		case r.Op == trace.SyncStream:
			c.stream = r.Stream
		case r.Op == trace.SyncEvent && w.latch != nil:
			c.stream = w.latch.stream
		}
	default:
		return nil
	}
	h.plan(c)
	return nil
}

// added numbers host operation k, read on stream, for the host's
// synchronisation; it waits, at its stream's head, for the event records
// a stream wait read before it named.
func (h *hostSide) added(k *Kernel, stream uint64) error {
	ls, err := h.sync.add(k, stream)
	if len(ls) > 0 {
		k.rareParts().latches = ls
	}
	return err
}

// plan gives call c its thread and schedules its issue, or holds it
// while a blocking call holds the thread it goes to: the thread of the
// last blocking call on its stream, else hostThreads.pick's.
func (h *hostSide) plan(c hostCall) {
	j, owned := 0, false
	if len(h.owner) > 0 { // no blocking call yet, none to look up
		j, owned = h.owner[c.stream]
	}
	if !owned {
		j = h.threads.pick(c.stream)
	}
	if h.threads.isBlocked(j) {
		h.held = c
		return
	}
	if owned {
		delete(h.owner, c.stream)
	}
	earliest := c.earliest + h.threads.shiftOf(j)
	if c.k != nil && h.an != nil {
		h.an.HostCall(c.k, earliest, c.cost)
	}
	at := h.threads.assign(j, c.stream, earliest, h.clock.now(), c.cost)
	if c.blocks() {
		h.threads.block(j)
		h.owner[c.stream] = j
	}
	if c.w != nil {
		c.w.thread = j
		h.clock.q.PushOrdered(eventq.Event{At: at, Kind: uint8(evSync), Ref: h.waits.Put(c.w)})
		return
	}
	c.k.thread = uint16(j)
	h.clock.kernel(at, evHostIssue, c.k)
}

// syncIssue is a host thread reaching blocking sync w: it returns at
// once where what it waits for has completed, else when it does.
func (h *hostSide) syncIssue(w *hostWait) {
	now := h.clock.now()
	w.call = now
	h.threads.issuedOn(w.thread)
	if h.sync.issue(w) {
		h.syncReturn(w)
	}
	if err := h.readHost(); err != nil {
		h.eng.fail(err)
	}
}

// syncReturn is blocking call w's wait ended now: its thread is free
// lat.host_sync later (a copy's, no earlier than the call's own
// lat.host_issue), and the host's later calls on it move by the return,
// replayed minus captured. The call read and held behind it is planned.
func (h *hostSide) syncReturn(w *hostWait) {
	end := h.clock.now()
	if w.copy != nil {
		end = max(end, w.call+h.cfg.Lat.HostIssue)
	}
	ret := end + h.cfg.Lat.HostSync
	h.threads.unblock(w.thread, ret, ret-w.ret)
	h.out.hostSync(w.row(ret))
	if c := h.held; c.isSet() {
		h.held = hostCall{}
		h.plan(c)
	}
}

// opDone is host operation k complete: stream heads that waited for an
// event it completed go on, and blocking calls it released return.
func (h *hostSide) opDone(k *Kernel) {
	ops, woken := h.sync.done(k)
	for _, op := range ops {
		h.headOfStream(op)
	}
	for _, w := range woken {
		h.syncReturn(w)
	}
	if len(woken) > 0 {
		if err := h.readHost(); err != nil {
			h.eng.fail(err)
		}
	}
}

// issue is a host thread issuing a launch or a copy: the thread is busy
// for lat.host_issue and the call reaches the GPU lat.host_launch after
// that.
func (h *hostSide) issue(k *Kernel) {
	now := h.clock.now()
	k.launchCycle = now
	h.threads.issuedOn(int(k.thread))
	if c := k.copyOp(); c != nil && c.wait != nil {
		c.wait.call = now
		h.sync.issue(c.wait) // a copy's wait ends with the copy, after its issue
	}
	if k.copyOp() == nil {
		if h.first < 0 {
			h.first = now
		}
		h.streams.issued(k)
	}
	h.clock.kernel(now+h.cfg.Lat.HostIssue+h.cfg.Lat.HostLaunch, evArrive, k)
	if err := h.readHost(); err != nil {
		h.eng.fail(err)
	}
}

// arrive puts a host operation that reached the KMU behind its stream's
// head.
func (h *hostSide) arrive(k *Kernel) {
	if h.legacy != nil && !h.legacy.admit(k) {
		return
	}
	h.enterStream(k)
}

// enterStream puts a host operation behind its stream's head.
func (h *hostSide) enterStream(k *Kernel) {
	if !h.streams.enter(k) {
		return
	}
	if h.an != nil {
		h.an.StreamHead(k, nil)
	}
	h.headOfStream(k)
}

// headOfStream is a kernel whose stream lets it run; it still waits for its
// `after` kernels, then for a Kernel Distributor entry.
func (h *hostSide) headOfStream(k *Kernel) {
	if l := pendingLatch(k.latches()); l != nil {
		k.state = kWaiting
		l.ops = append(l.ops, k)
		return
	}
	if k.copyOp() != nil {
		h.startCopy(k)
		return
	}
	if id, blocked := h.streams.blockedBy(k); blocked {
		k.state = kWaiting
		h.streams.waitFor(id, k)
		return
	}
	h.eng.awaitKD(k)
}

// kernelDone is host kernel k complete: what waits on it goes on (its
// stream's next operation, the legacy stream's barrier, kernels `after`
// it).
func (h *hostSide) kernelDone(k *Kernel) {
	waiters := h.streams.completed(k)
	h.nextInStream(k)
	if h.legacy != nil {
		if b := h.legacy.kernelDone(); b != nil {
			h.enterStream(b)
		}
	}
	for _, w := range waiters {
		h.headOfStream(w)
	}
	h.opDone(k)
}

// byIndex returns the i-th host kernel issued, for the body cursor to
// match segments with; bodies are loaded in issue order, so the slice is
// trimmed as it goes.
func (h *hostSide) byIndex(i int) *Kernel {
	j := i - h.loaded
	if j < 0 || j >= len(h.issued) {
		return nil
	}
	k := h.issued[j]
	if j == 0 {
		h.issued[0] = nil
		h.issued = h.issued[1:]
		h.loaded++
	}
	return k
}

// lastKernel reports whether k is the trace's last host kernel, as far
// as the host has read: only once it has read every call.
func (h *hostSide) lastKernel(k *Kernel) bool {
	return h.threads.allRead() && k.order == h.order-1
}

// kernelsRead is the number of host kernels read so far.
func (h *hostSide) kernelsRead() int { return int(h.order) }

// nextInStream lets the operation behind host operation k, complete, in
// its stream go.
func (h *hostSide) nextInStream(k *Kernel) {
	head, idle := h.streams.next(k)
	if head == nil {
		if idle && h.an != nil {
			h.an.StreamIdle(k)
		}
		return
	}
	if h.an != nil {
		h.an.StreamHead(head, k)
	}
	h.headOfStream(head)
}
