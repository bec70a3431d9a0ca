package replay

import (
	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/internal/eventq"
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
	free    threadpool.Pool  // when each thread can call again
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
	return hostThreads{free: threadpool.New(n, 0), waiting: make([]int32, n), idle: int(n), last: -1, issued: map[uint64]int64{}}
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

// assign picks the thread for a call on stream that may issue no earlier
// than earliest (nor before now) and costs the thread cost cycles; it
// returns the issue cycle and the thread.
func (h *hostThreads) assign(stream uint64, earliest, now, cost int64) (int64, int) {
	j := h.last
	if j < 0 || stream != h.stream {
		j = h.free.First()
	}
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
	return at, j
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
	issued  []*Kernel   // host kernels issued, body not loaded yet (issue order)
	loaded  int         // host kernels whose bodies were loaded
	order   int32       // host launches read so far
	first   int64       // the first launch's issue (-1 before)
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
	h := hostSide{hostLinks: l, threads: newHostThreads(l.cfg.Lat.HostThreads), streams: newHostStreams(own), first: -1}
	if legacy {
		h.legacy = &legacyGate{}
	}
	return h
}

// register routes the host's events to it.
func (h *hostSide) register(c *eventClock) {
	c.on(evHostIssue, func(ev eventq.Event) { h.issue(c.kernelOf(ev)) })
	c.on(evCopyDone, func(ev eventq.Event) { h.copyDone(c.kernelOf(ev)) })
}

// reads gives the host side the trace's readers: the host operations,
// and the body cursor that loads the kernels they launch.
func (h *hostSide) reads(in *ingest.Streams, body *bodyCursor) { h.in, h.body = in, body }

// started gives the host side the host's I/O, planned when the replay
// starts.
func (h *hostSide) started(io *hostIO) { h.io = io }

// busy reports whether host work is left: a stream with a live
// operation, or a call read and not issued.
func (h *hostSide) busy() bool { return h.streams.busy() || h.threads.planned() }

// firstLaunch is the first host launch's issue cycle, -1 before one.
func (h *hostSide) firstLaunch() int64 { return h.first }

// privateStream gives device kernel k a fresh stream of its own.
func (h *hostSide) privateStream(k *Kernel) { h.streams.privateStream(k) }

// freshStream numbers a fresh private stream.
func (h *hostSide) freshStream() uint64 { return h.streams.fresh() }

// readHost reads host calls ahead until every host thread has one
// waiting (hostThreads), scheduling each call's issue.
func (h *hostSide) readHost() error {
	for h.threads.readMore() {
		if err := h.readNextHost(); err != nil {
			return err
		}
	}
	return nil
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
	var k *Kernel
	var stream uint64
	var t int64
	cost := h.cfg.Lat.HostIssue
	if m, ok := r.(*trace.Memcpy); ok {
		k, stream, t = newCopy(m), m.Stream, m.T
		cost += syncCopyWait(*h.cfg, m.Bytes)
	} else {
		l := r.(*trace.Launch)
		k = &Kernel{id: l.Kernel, host: true, stream: l.Stream, order: h.order, startCycle: -1, kernelRun: &kernelRun{}}
		if len(l.After) > 0 {
			k.rareParts().after = l.After
		}
		h.order++
		h.issued = append(h.issued, k)
		stream, t = l.Stream, l.T
	}
	earliest := base + h.body.scale(t)
	if h.an != nil {
		h.an.HostCall(k, earliest, cost)
	}
	at, j := h.threads.assign(stream, earliest, h.clock.now(), cost)
	k.thread = uint16(j)
	h.clock.kernel(at, evHostIssue, k)
	return nil
}

// issue is a host thread issuing a launch or a copy: the thread is busy
// for lat.host_issue and the call reaches the GPU lat.host_launch after
// that.
func (h *hostSide) issue(k *Kernel) {
	now := h.clock.now()
	k.launchCycle = now
	h.threads.issuedOn(int(k.thread))
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
