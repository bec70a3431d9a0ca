package taskrun

import (
	"fmt"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// GeMTC's events.
const (
	evCollect  kind = iota + 1 // the host took task ref into its next batch
	evBatch                    // the batch in flight reached the SuperKernel
	evChainEnd                 // a worker warp of worker aux finished its share of task ref
	evTaken                    // worker aux took task ref from the queue
)

// workerRegs is the register count assumed for a SuperKernel worker
// thread: Pagoda §6.1 caps every GPU version at 32 registers.
const workerRegs = 32

// GeMTC models the GeMTC baseline as Pagoda §6 runs it: the host gathers
// tasks into batches of gemtc.batch, sends a batch only after the previous
// one has wholly finished, and the SuperKernel's worker thread blocks of
// gemtc.threads threads take the batch's tasks in order, one task per
// worker at a time. See the package documentation for the modelling
// decisions.
type GeMTC struct {
	l       Listener
	q       eventq.Queue
	now     int64
	size    int   // gemtc.batch
	send    int64 // one batch's trip from the host to the workers
	push    int64 // the host's push of one task into the batch (one API call)
	dequeue int64 // gemtc.dequeue_cycles: one take from the queue
	qFree   int64 // when the queue can serve the next take
	warps   int   // warps of one worker
	sms     int
	workers int

	waiting    fifo    // submitted, no host thread has taken it
	threads    int     // lat.host_threads
	collecting int     // host threads pushing a task (evCollect pending)
	buffer     []int32 // the next batch, filling
	closed     bool
	batch      []int32 // the batch in flight (sent or running)
	taken      int     // tasks of the batch a worker has taken
	left       int     // tasks of the batch not finished
	sending    bool    // the batch is on its way
	tasks      slots[gtask]
	h2d        copyEngine
	inputs     int64      // when the filling batch's inputs are all on the GPU
	share      *workShare // the contention model, nil when off
}

// gtask is a task in flight.
type gtask struct {
	id      uint64
	spawn   int64
	host    int64 // host cycles before the push (copy calls)
	copyIn  int64 // cycles its input holds the H2D copy engine
	arrives int64 // when its input is on the GPU
	cycles  []int64
	demand  contention.Demand // per warp
	left    int32             // worker warps still running its warps
}

// NewGeMTC returns a GeMTC runtime for cfg that reports to l. It fails
// when cfg is invalid or no worker block of gemtc.threads threads (at 32
// registers a thread) fits on an SM.
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
		return nil, fmt.Errorf("gemtc.threads is %d: no SuperKernel worker block of that size fits on an SM of gpu %s (%s limit)", threads, cfg.GPU.Name, limit)
	}
	l = orSilent(l)
	g := &GeMTC{
		l:       l,
		h2d:     copyEngine{l: l},
		size:    int(min(cfg.GeMTC.Batch, 1<<30)),
		send:    satAdd(satAdd(cfg.Lat.HostIssue, cfg.Lat.HostLaunch), cfg.Lat.KernelDispatch),
		push:    cfg.Lat.HostIssue,
		dequeue: cfg.GeMTC.DequeueCycles,
		threads: int(cfg.Lat.HostThreads),
		warps:   int((threads-1)/model.WarpSize + 1),
		sms:     cfg.GPU.SMs,
		workers: fit * cfg.GPU.SMs,
	}
	g.share = newWorkShare(cfg, &g.q)
	return g, nil
}

// Submit queues t for the host. GeMTC has no shared memory or barrier
// support of its own: a task's Smem and Sync are ignored (it runs as if
// rewritten without them, as Pagoda §6.2 ran its GeMTC versions).
func (g *GeMTC) Submit(t Task) error {
	if err := checkTask(&t); err != nil {
		return err
	}
	i := g.tasks.alloc()
	s := g.tasks.at(i)
	*s = gtask{id: t.ID, spawn: t.Spawn, host: t.HostCycles, copyIn: t.CopyIn, cycles: append(s.cycles[:0], t.WarpCycles...), demand: t.Demand}
	g.waiting.push(i)
	g.collect()
	return nil
}

// Waiting counts submitted tasks no host thread has taken.
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
			g.collected(e.Ref)
		case evBatch:
			g.arrived()
		case evChainEnd:
			g.chainEnd(e.Ref, int(e.Aux))
		case evTaken:
			g.run(e.Ref, int(e.Aux))
		case evShare:
			g.share.wake(g.now, e, func(i, w int32) { g.chainEnd(i, int(w)) })
		}
		g.share.settle(&g.q, g.now)
	}
	g.now = max(g.now, now)
}

// Close lets the host send a final batch smaller than gemtc.batch once
// every submitted task is in it. Call it as soon as the last task is
// submitted: the partial batch is sent no earlier than the clock.
func (g *GeMTC) Close() {
	g.closed = true
	g.trySend()
}

// collect starts idle host threads on the oldest waiting tasks, each at
// its Spawn cycle but never before the thread is free, while the next
// batch has room and no batch is in flight: GeMTC spawns no new tasks
// until the previous batch has wholly finished (Pagoda §6.6).
func (g *GeMTC) collect() {
	for g.collecting < g.threads && g.waiting.len() > 0 && len(g.buffer)+g.collecting < g.size && !g.sending && len(g.batch) == 0 {
		i := g.waiting.pop()
		t := g.tasks.at(i)
		g.collecting++
		start := max(t.spawn, g.now)
		g.l.TaskIssued(t.id, start)
		g.q.Push(eventq.Event{At: satAdd(satAdd(start, t.host), g.push), Kind: uint8(evCollect), Ref: i})
	}
}

// collected: a host thread has made task i's copy calls and pushed it into
// the filling batch; its input crosses PCIe from now.
func (g *GeMTC) collected(i int32) {
	t := g.tasks.at(i)
	t.arrives = g.h2d.move(g.now, t.copyIn)
	g.inputs = max(g.inputs, t.arrives)
	g.collecting--
	g.buffer = append(g.buffer, i)
	g.trySend()
	g.collect()
}

// trySend sends the filling batch when it is full (or final) and no batch
// is in flight: GeMTC runs one batch at a time.
func (g *GeMTC) trySend() {
	if g.sending || len(g.batch) > 0 || len(g.buffer) == 0 {
		return
	}
	final := g.closed && g.waiting.len() == 0 && g.collecting == 0
	if len(g.buffer) < g.size && !final {
		return
	}
	g.batch, g.buffer = g.buffer, g.batch[:0]
	g.taken, g.left = 0, len(g.batch)
	g.sending = true
	g.q.Push(eventq.Event{At: satAdd(max(g.now, g.inputs), g.send), Kind: uint8(evBatch)}) // after the batch's inputs
	g.collect()
}

// arrived: the batch is on the GPU; every worker takes a task.
func (g *GeMTC) arrived() {
	g.sending = false
	for _, i := range g.batch {
		g.l.TaskSpawned(g.tasks.at(i).id, g.now)
	}
	for w := 0; w < g.workers && g.taken < len(g.batch); w++ {
		g.take(w)
	}
}

// take gives worker w the batch's next task. Takes go through GeMTC's one
// queue one at a time, gemtc.dequeue_cycles each, in the order workers
// ask.
func (g *GeMTC) take(w int) {
	i := g.batch[g.taken]
	g.taken++
	if g.dequeue == 0 {
		g.run(i, w)
		return
	}
	g.qFree = satAdd(max(g.now, g.qFree), g.dequeue)
	g.q.Push(eventq.Event{At: g.qFree, Kind: uint8(evTaken), Ref: i, Aux: int32(w)})
}

// run starts task i on worker w. Worker warp j runs the task's warps j,
// j+W, j+2W, … back to back (W = the worker's warps).
func (g *GeMTC) run(i int32, w int) {
	t := g.tasks.at(i)
	sm := w % g.sms
	g.l.TaskStarted(t.id, g.now, sm)
	chains := min(len(t.cycles), g.warps)
	for j := 0; j < chains; j++ {
		var d int64
		for k := j; k < len(t.cycles); k += g.warps {
			d = satAdd(d, t.cycles[k])
		}
		g.share.run(&g.q, g.now, sm, d, t.demand, evChainEnd, i, int32(w))
	}
	t.left = int32(chains)
	g.l.WarpsBusy(sm, g.now, chains)
}

func (g *GeMTC) chainEnd(i int32, w int) {
	g.l.WarpsBusy(w%g.sms, g.now, -1)
	t := g.tasks.at(i)
	t.left--
	if t.left > 0 {
		return
	}
	g.l.TaskFinished(t.id, g.now)
	g.tasks.release(i)
	g.left--
	if g.taken < len(g.batch) {
		g.take(w)
		return
	}
	if g.left == 0 {
		g.batch = g.batch[:0]
		g.trySend()
		g.collect()
	}
}

// Stuck says why tasks in flight cannot proceed; nil when none is.
func (g *GeMTC) Stuck() []string {
	if g.tasks.live() == 0 {
		return nil
	}
	var w []string
	if n := len(g.buffer); n > 0 && len(g.batch) == 0 && !g.sending {
		w = append(w, fmt.Sprintf("host: a batch of %d tasks waits for %d more tasks or Close (gemtc.batch %d)", n, g.size-n, g.size))
	}
	if len(g.batch) > 0 && !g.sending {
		w = append(w, fmt.Sprintf("SuperKernel: %d tasks of the running batch unfinished", g.left))
	}
	if n := g.waiting.len(); n > 0 {
		w = append(w, fmt.Sprintf("host: %d tasks wait to join a batch", n))
	}
	if len(w) == 0 {
		w = []string{fmt.Sprintf("%d tasks in flight with no event left", g.tasks.live())}
	}
	return w
}
