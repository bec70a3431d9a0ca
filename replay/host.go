package replay

import (
	"github.com/gpureplay/gpureplay/internal/threadpool"
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

// readHost reads host calls ahead until every host thread has one
// waiting (hostThreads), scheduling each call's issue.
func (e *engine) readHost() error {
	for e.hosts.readMore() {
		if err := e.readNextHost(); err != nil {
			return err
		}
	}
	return nil
}

// readNextHost fetches the next host operation and schedules its issue.
func (e *engine) readNextHost() error {
	r, err := e.host.NextHost()
	if err != nil || r == nil {
		e.hosts.ended()
		return err
	}
	// A call may issue no earlier than its t, counted from the launch
	// base of the host kernels issued so far (see hostIO.launchBase).
	base := e.io.launchBase(int(e.hostOrder))
	var k *Kernel
	var stream uint64
	var t int64
	cost := e.cfg.Lat.HostIssue
	if m, ok := r.(*trace.Memcpy); ok {
		k, stream, t = newCopy(m), m.Stream, m.T
		cost += e.copyWait(m.Bytes)
	} else {
		l := r.(*trace.Launch)
		k = &Kernel{id: l.Kernel, host: true, stream: l.Stream, order: e.hostOrder, startCycle: -1, kernelRun: &kernelRun{}}
		if len(l.After) > 0 {
			k.rareParts().after = l.After
		}
		e.hostOrder++
		e.hostKernel = append(e.hostKernel, k)
		stream, t = l.Stream, l.T
	}
	earliest := base + e.body.scale(t)
	if e.an != nil {
		e.an.HostCall(k, earliest, cost)
	}
	at, j := e.hosts.assign(stream, earliest, e.now, cost)
	k.thread = uint16(j)
	e.scheduleKernel(at, evHostIssue, k)
	return nil
}

// issue is a host thread issuing a launch or a copy: the thread is busy
// for lat.host_issue and the call reaches the GPU lat.host_launch after
// that.
func (e *engine) issue(k *Kernel) {
	k.launchCycle = e.now
	e.hosts.issuedOn(int(k.thread))
	if k.copyOp() == nil {
		if e.firstLaunch < 0 {
			e.firstLaunch = e.now
		}
		e.streams.issued(k)
	}
	e.scheduleKernel(e.now+e.cfg.Lat.HostIssue+e.cfg.Lat.HostLaunch, evArrive, k)
	if err := e.readHost(); err != nil {
		e.fail(err)
	}
}

// arrive puts a kernel that reached the KMU behind its stream's head.
func (e *engine) arrive(k *Kernel) {
	if !k.host {
		e.arriveDevice(k)
		return
	}
	if e.legacy != nil && !e.legacy.admit(k) {
		return
	}
	e.enterStream(k)
}

// enterStream puts a host operation behind its stream's head.
func (e *engine) enterStream(k *Kernel) {
	if !e.streams.enter(k) {
		return
	}
	if e.an != nil {
		e.an.StreamHead(k, nil)
	}
	e.headOfStream(k)
}

// arriveDevice is arrive for a device kernel: on a private stream of its
// own, with no copy to start and nothing `after`, it goes straight to wait
// for a Kernel Distributor entry. It only writes to k: the kernel was
// launched tens of thousands of cycles ago and is out of the cache, and
// under CDP another kernel, long waiting, takes the free entry (BFS scale
// 20: tens of thousands wait), so reading k here would only wait for it.
func (e *engine) arriveDevice(k *Kernel) {
	if e.arrivals != nil {
		e.arrivals.KernelArrived(k, e.now)
	}
	if k.inDevStream {
		if e.dstreams.arrive(k) {
			e.awaitKD(k)
		}
		return
	}
	e.streams.privateStream(k)
	e.awaitKD(k)
}

// headOfStream is a kernel whose stream lets it run; it still waits for its
// `after` kernels, then for a Kernel Distributor entry.
func (e *engine) headOfStream(k *Kernel) {
	if k.copyOp() != nil {
		e.startCopy(k)
		return
	}
	if id, blocked := e.streams.blockedBy(k); blocked {
		k.state = kWaiting
		e.streams.waitFor(id, k)
		return
	}
	e.awaitKD(k)
}

// awaitKD queues k for a Kernel Distributor entry and hands out the free
// ones.
func (e *engine) awaitKD(k *Kernel) {
	k.state = kWaiting
	e.kd.wait(k)
	e.fillKD()
}

// hostByIndex returns the i-th host kernel issued, for the body cursor to
// match segments with; bodies are loaded in issue order, so the slice is
// trimmed as it goes.
func (e *engine) hostByIndex(i int) *Kernel {
	j := i - e.hostLoaded
	if j < 0 || j >= len(e.hostKernel) {
		return nil
	}
	k := e.hostKernel[j]
	if j == 0 {
		e.hostKernel[0] = nil
		e.hostKernel = e.hostKernel[1:]
		e.hostLoaded++
	}
	return k
}

// lastHostKernel reports whether k is the trace's last host kernel, as far
// as the host has read: only once it has read every call.
func (e *engine) lastHostKernel(k *Kernel) bool {
	return e.hosts.allRead() && k.order == e.hostOrder-1
}

// hostKernels is the number of host kernels in the trace when the CRCS
// scoreboard knows it (from its pass over the trace), otherwise the number
// read so far.
func (e *engine) hostKernels() int {
	if e.sb != nil {
		return e.sb.hostKernels()
	}
	return int(e.hostOrder)
}

// nextInStream lets the operation behind host operation k, complete, in
// its stream go.
func (e *engine) nextInStream(k *Kernel) {
	head, idle := e.streams.next(k)
	if head == nil {
		if idle && e.an != nil {
			e.an.StreamIdle(k)
		}
		return
	}
	if e.an != nil {
		e.an.StreamHead(head, k)
	}
	e.headOfStream(head)
}
