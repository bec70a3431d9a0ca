package taskrun

import (
	"fmt"
	"math"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// GeMTC's events.
const (
	evCollect  kind = iota + 1 // the host has made task ref's copies and pushes it
	evEnqueued                 // the host's oldest chunk of pushed tasks reached the GPU queue
	evFlush                    // the host's buffer flusher wakes; ref is the push it follows
	evTaken                    // worker aux took task ref from the queue
	evChainEnd                 // a worker warp of worker aux finished its share of task ref
	evResult                   // worker aux put task ref's result in the result queue
)

// workerRegs is the register count assumed for a SuperKernel worker
// thread: Pagoda §6.1 caps every GPU version at 32 registers.
const workerRegs = 32

// GeMTC's host library, gemtc.cu and Queues/QueueJobs.cu of
// skrieder/gemtc (commit c313f84):
const (
	// pushChunk is inMax (gemtc.cu:130): gemtcPush (gemtc.cu:261–277)
	// buffers task descriptors on the host and sends the buffer to the
	// GPU queue with EnqueueJobBatch when it holds this many.
	pushChunk = 100
	// enqueueCopies is what one EnqueueJobBatch (QueueJobs.cu:83–144)
	// costs in synchronous copies: it reads the queue record back
	// (QueueJobs.cu:89), allocates device memory for the descriptors
	// with gemtcMalloc, whose size header is one copy to the GPU
	// (GemtcMalloc.cu:148), and copies the descriptors (:104), their
	// pointers (:117; two copies when the ring wraps, not modelled) and
	// the queue's Rear (:140) to the GPU.
	enqueueCopies = 5
	// flushIdleUS is bufferFlush's timeout (gemtc.cu:93–106): a thread
	// sends a partial buffer once no task has been pushed for 100 µs.
	flushIdleUS = 100
)

// GeMTC models the GeMTC baseline from its source (skrieder/gemtc) as
// Pagoda §6 runs it: a persistent SuperKernel whose warps take tasks from
// one lock-guarded queue, and a host that pushes a batch of gemtc.batch
// tasks and pushes no more until all of them have finished. See the
// package documentation for the modelling decisions.
type GeMTC struct {
	l   Listener
	q   eventq.Queue
	now int64

	size      int   // gemtc.batch
	syncCopy  int64 // one synchronous small copy: the call and its PCIe trip
	flushIdle int64 // bufferFlush's timeout in cycles
	resident  int64 // when the SuperKernel, launched at 0, is on the GPU
	dequeue   int64 // gemtc.dequeue_cycles: the task queue's lock, per take
	result    int64 // gemtc.result_cycles: the result queue's lock, per result
	qFree     int64 // when the task queue's lock is next free
	rFree     int64 // when the result queue's lock is next free
	sms       int
	workers   int
	wWarps    int // warps of one worker: 1 (gemtc.worker=warp) or a block's
	slow      map[string]float64

	// The host: one timeline, since every call GeMTC's host library makes
	// holds one of its mutexes (memcpyLock, DataMovement.cu:18;
	// enqueueLock, gemtc.cu:262).
	waiting  fifo    // submitted, not yet taken by the host
	hostFree int64   // when the host's last call ended
	hostBusy bool    // a copy or an enqueue is under way
	flushDue bool    // the flusher is waiting for the host to send the buffer
	buffer   []int32 // pushed into the host's buffer, not yet sent
	chunks   [][]int32
	pushes   int32 // pushes so far; a flusher wake-up names the push it follows
	pushed   int   // tasks of the current batch pushed
	left     int   // tasks of the current batch not finished
	closed   bool

	ready fifo // in the GPU's task queue, not yet taken
	idle  fifo // workers waiting for a task, longest-waiting first
	tasks slots[gtask]
	h2d   copyEngine
	share *workShare // the contention model, nil when off
}

// gtask is a task in flight.
type gtask struct {
	id     uint64
	spawn  int64
	host   int64 // host cycles of its copy calls
	copyIn int64 // cycles its input holds the H2D copy engine
	cycles []int64
	demand contention.Demand // per warp
	left   int32             // worker warps still running its warps
}

// NewGeMTC returns a GeMTC runtime for cfg that reports to l. It fails
// when cfg is invalid or no SuperKernel block of gemtc.threads threads (at
// 32 registers a thread) fits on an SM.
func NewGeMTC(cfg model.Config, l Listener) (*GeMTC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	threads := cfg.GeMTC.Threads
	fit, limit := 0, model.LimitThreads
	if threads <= int64(cfg.GPU.MaxThreadsPerSM) {
		fit, limit = cfg.GPU.CTAsPerSM(int(threads), workerRegs, 0)
	}
	if fit == 0 {
		return nil, fmt.Errorf("gemtc.threads is %d: no SuperKernel block of that size fits on an SM of gpu %s (%s limit)", threads, cfg.GPU.Name, limit)
	}
	slow, err := model.ParseSlowdowns(cfg.GeMTC.SmemSlowdown)
	if err != nil {
		return nil, err
	}
	l = orSilent(l)
	lat := cfg.Lat
	blockWarps := int((threads-1)/model.WarpSize + 1)
	g := &GeMTC{
		l:         l,
		h2d:       copyEngine{l: l},
		size:      int(min(cfg.GeMTC.Batch, 1<<30)),
		syncCopy:  satAdd(lat.HostIssue, lat.HostLaunch),
		flushIdle: int64(math.Round(flushIdleUS * cfg.GPU.ClockMHz)),
		resident:  satAdd(satAdd(lat.HostIssue, lat.HostLaunch), lat.KernelDispatch),
		hostFree:  lat.HostIssue, // the SuperKernel's launch call (gemtc.cu:193)
		dequeue:   cfg.GeMTC.DequeueCycles,
		result:    cfg.GeMTC.ResultCycles,
		sms:       cfg.GPU.SMs,
		workers:   fit * cfg.GPU.SMs,
		wWarps:    blockWarps,
		slow:      slow,
	}
	if cfg.GeMTC.Worker == "warp" {
		g.workers *= blockWarps
		g.wWarps = 1
	}
	for w := 0; w < g.workers; w++ {
		g.idle.push(int32(w))
	}
	g.share = newWorkShare(cfg, &g.q)
	return g, nil
}

// Submit queues t for the host. GeMTC has no shared memory or barrier
// support of its own: a task's Sync is ignored, and a task that uses
// shared memory runs gemtc.smem_slowdown's factor for its kernel name
// longer (the version rewritten without it, as Pagoda §6.2 ran GeMTC).
func (g *GeMTC) Submit(t Task) error {
	if err := checkTask(&t); err != nil {
		return err
	}
	i := g.tasks.alloc()
	s := g.tasks.at(i)
	*s = gtask{id: t.ID, spawn: t.Spawn, host: t.HostCycles, copyIn: t.CopyIn, cycles: append(s.cycles[:0], t.WarpCycles...), demand: t.Demand}
	if f := g.slow[t.Name]; t.Smem > 0 && f > 1 {
		for k, c := range s.cycles {
			s.cycles[k] = int64(math.Min(math.Round(float64(c)*f), model.MaxCost))
		}
	}
	g.waiting.push(i)
	g.hostStep()
	return nil
}

// Waiting counts submitted tasks the host has not taken.
func (g *GeMTC) Waiting() int { return g.waiting.len() }

// Next returns the cycle of the earliest pending event.
func (g *GeMTC) Next() (int64, bool) {
	if g.q.Len() == 0 {
		return 0, false
	}
	return g.q.Peek(), true
}

// Advance fires every event at a cycle <= now.
func (g *GeMTC) Advance(now int64) {
	for g.q.Len() > 0 && g.q.Peek() <= now {
		e := g.q.Pop()
		g.now = e.At
		switch kind(e.Kind) {
		case evCollect:
			g.pushedTask(e.Ref)
		case evEnqueued:
			g.enqueued()
		case evFlush:
			g.flushWake(e.Ref)
		case evTaken:
			g.run(e.Ref, int(e.Aux))
		case evChainEnd:
			g.chainEnd(e.Ref, int(e.Aux))
		case evResult:
			g.finished(e.Ref, int(e.Aux))
		case evShare:
			g.share.wake(g.now, e, func(i, w int32) { g.chainEnd(i, int(w)) })
		}
		g.share.settle(&g.q, g.now)
	}
	g.now = max(g.now, now)
}

// Close says no more tasks will come. The host's flusher sends a final
// partial buffer by itself, so nothing waits on Close.
func (g *GeMTC) Close() { g.closed = true }

// hostStep starts the host's next call when it is idle: the flusher's
// send if one is due, a full buffer's send, or the next task's copies
// while the batch has room.
func (g *GeMTC) hostStep() {
	switch {
	case g.hostBusy:
	case len(g.buffer) > 0 && (g.flushDue || len(g.buffer) == pushChunk):
		g.send()
	case g.waiting.len() > 0 && g.pushed < g.size:
		g.copyTask()
	}
}

// copyTask: the host makes the oldest waiting task's copy calls, no
// earlier than its Spawn, and waits for its input to cross: GeMTC's
// cudaSafeMemcpy (DataMovement.cu:14–28) synchronises the stream after
// every copy.
func (g *GeMTC) copyTask() {
	i := g.waiting.pop()
	t := g.tasks.at(i)
	start := max(t.spawn, g.hostFree, g.now)
	g.l.TaskIssued(t.id, start)
	done := g.h2d.move(satAdd(start, t.host), t.copyIn)
	g.hostBusy = true
	g.pushed++
	g.left++
	g.q.Push(eventq.Event{At: done, Kind: uint8(evCollect), Ref: i})
}

// pushedTask: task i goes into the host's buffer (gemtcPush: no copy);
// the flusher will send the buffer if nothing more is pushed for 100 µs.
func (g *GeMTC) pushedTask(i int32) {
	g.hostBusy, g.hostFree = false, g.now
	g.buffer = append(g.buffer, i)
	g.pushes++
	g.flushDue = false
	g.q.Push(eventq.Event{At: satAdd(g.now, g.flushIdle), Kind: uint8(evFlush), Ref: g.pushes})
	g.hostStep()
}

// flushWake: the flusher finds no push since the one it follows and sends
// the buffer as soon as the host's copy lock is free.
func (g *GeMTC) flushWake(push int32) {
	if push != g.pushes || len(g.buffer) == 0 {
		return
	}
	g.flushDue = true
	g.hostStep()
}

// send is EnqueueJobBatch: enqueueCopies synchronous copies, after which
// the buffer's tasks are in the GPU's task queue.
func (g *GeMTC) send() {
	g.chunks = append(g.chunks, g.buffer)
	g.buffer = nil
	g.flushDue = false
	g.hostBusy = true
	start := max(g.now, g.hostFree)
	g.q.Push(eventq.Event{At: satAdd(start, enqueueCopies*g.syncCopy), Kind: uint8(evEnqueued)})
}

// enqueued: the oldest chunk is in the task queue; idle workers take it.
func (g *GeMTC) enqueued() {
	g.hostBusy, g.hostFree = false, g.now
	chunk := g.chunks[0]
	g.chunks = g.chunks[1:]
	for _, i := range chunk {
		g.l.TaskSpawned(g.tasks.at(i).id, g.now)
		g.ready.push(i)
	}
	g.dispatch()
	g.hostStep()
}

// dispatch gives queued tasks to idle workers, longest-waiting first.
func (g *GeMTC) dispatch() {
	for g.ready.len() > 0 && g.idle.len() > 0 {
		g.take(g.ready.pop(), int(g.idle.pop()))
	}
}

// take: worker w takes task i from the queue under its lock
// (FrontAndDequeueJob, Queues/QueueJobs.cu:308–328: getLock's atomicCAS
// spin, QueueHelpers.cu:25–28), held gemtc.dequeue_cycles, one take at a
// time GPU-wide, and no earlier than the SuperKernel is resident.
func (g *GeMTC) take(i int32, w int) {
	at := satAdd(max(g.now, g.qFree, g.resident), g.dequeue)
	g.qFree = at
	if at == g.now {
		g.run(i, w)
		return
	}
	g.q.Push(eventq.Event{At: at, Kind: uint8(evTaken), Ref: i, Aux: int32(w)})
}

// run starts task i on worker w. Worker warp j runs the task's warps j,
// j+W, j+2W, … back to back (W = the worker's warps; with warp workers
// one warp runs them all: SuperKernel.cu:67 runs a task on the lanes of
// the warp that took it).
func (g *GeMTC) run(i int32, w int) {
	t := g.tasks.at(i)
	sm := w % g.sms
	g.l.TaskStarted(t.id, g.now, sm)
	chains := min(len(t.cycles), g.wWarps)
	for j := 0; j < chains; j++ {
		var d int64
		for k := j; k < len(t.cycles); k += g.wWarps {
			d = satAdd(d, t.cycles[k])
		}
		g.share.run(&g.q, g.now, sm, d, t.demand, evChainEnd, i, int32(w))
	}
	t.left = int32(chains)
	g.l.WarpsBusy(sm, g.now, chains)
}

// chainEnd: a worker warp finished its share of task i; the last one puts
// the result in the result queue under that queue's lock (EnqueueResult,
// Queues/QueueJobs.cu:330–349), gemtc.result_cycles, one at a time.
func (g *GeMTC) chainEnd(i int32, w int) {
	g.l.WarpsBusy(w%g.sms, g.now, -1)
	t := g.tasks.at(i)
	if t.left--; t.left > 0 {
		return
	}
	at := satAdd(max(g.now, g.rFree), g.result)
	g.rFree = at
	if at == g.now {
		g.finished(i, w)
		return
	}
	g.q.Push(eventq.Event{At: at, Kind: uint8(evResult), Ref: i, Aux: int32(w)})
}

// finished: task i's result is in the result queue and worker w goes back
// for another task. When the whole batch has finished, the host pushes
// the next one.
func (g *GeMTC) finished(i int32, w int) {
	g.l.TaskFinished(g.tasks.at(i).id, g.now)
	g.tasks.release(i)
	g.left--
	g.idle.push(int32(w))
	g.dispatch()
	if g.left == 0 && g.pushed == g.size {
		g.pushed = 0
		g.hostStep()
	}
}

// Stuck says why tasks in flight cannot proceed; nil when none is.
func (g *GeMTC) Stuck() []string {
	if g.tasks.live() == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d tasks in flight with no event left (%d waiting for the host, %d in its buffer, %d queued on the GPU, batch %d of %d pushed)",
		g.tasks.live(), g.waiting.len(), len(g.buffer), g.ready.len(), g.pushed, g.size)}
}
