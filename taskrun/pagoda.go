package taskrun

import (
	"fmt"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// The MasterKernel's fixed shape (Pagoda §4.1, §5.2): every MTB is a
// 1024-thread block compiled to 32 registers a thread, warp 0 schedules
// and the other 31 execute tasks, and PTX gives a block 16 named barriers.
const (
	mtbThreads    = 1024
	mtbRegs       = 32
	executorWarps = mtbThreads/model.WarpSize - 1
	namedBarriers = 16
)

// ExecutorWarps is the task warps one MTB runs at once (warps 1–31), for
// callers that bound a run from the work it asks (cmd/experiment).
const ExecutorWarps = executorWarps

// Pagoda's events.
const (
	evSpawned   kind = iota + 1 // the host finished spawning task ref
	evCopyBack                  // the host's TaskTable copy-back arrived
	evSchedDone                 // MTB aux's scheduler warp has read its task's entry
	evWarpEnd                   // a warp of task ref finished on executor warp aux
	evVisible                   // task ref's input copy arrived after its entry
	evFlushed                   // the host re-copied held task ref's entry (pipelined)
	evDrained                   // the host's waitAll copy-back saw every task done
)

// Pagoda models the Pagoda runtime (Pagoda §4–5): a host spawner filling a
// TaskTable mirrored on the GPU, and a persistent MasterKernel whose
// MTBs' scheduler warps place tasks' warps on executor warps. See the
// package documentation for the modelling decisions.
type Pagoda struct {
	l        Listener
	q        eventq.Queue
	now      int64
	spawn    int64 // pagoda.spawn_cycles
	h2d      copyEngine
	sched    int64 // pagoda.sched_cycles
	copyBack int64 // lat.host_launch: one TaskTable copy-back
	smem     int64 // pagoda.smem_per_mtb
	host     host
	life     lifecycle // pagoda.spawn's launch, pipeline, flush and waitAll
	mtbs     []mtb
	tasks    slots[ptask]
	share    *workShare // the contention model, nil when off
}

// ptask is a task in flight.
type ptask struct {
	id       uint64
	spawn    int64
	host     int64   // host cycles before its spawn (copy calls)
	wait     int64   // host cycles it then waits for synchronous copies
	copyIn   int64   // cycles its input holds the H2D copy engine
	issued   int64   // when the host began on it
	begun    bool    // issued is set
	arrives  int64   // when its input is on the GPU
	cycles   []int64 // per warp; a copy, so callers may reuse their slice
	demand   contention.Demand
	smem     int64
	warps    int32
	placed   int32  // warps given an executor warp
	left     int32  // warps not finished
	mtb      int32  // the TaskTable column, and so the MTB, it went to
	block    int32  // buddy node of its shared memory, 0 = none
	reserved uint32 // sync task: executor warps held until all are placed
	barrier  int8   // named barrier, -1 = none
	sync     bool
	started  bool
}

// NewPagoda returns a Pagoda runtime for cfg that reports to l. It fails
// when cfg is invalid or the MasterKernel — pagoda.mtbs_per_sm blocks of
// 1024 threads at 32 registers each, with pagoda.smem_per_mtb bytes of
// shared memory — would not be resident on one SM.
func NewPagoda(cfg model.Config, l Listener) (*Pagoda, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pc := cfg.Pagoda
	fit, limit := cfg.GPU.CTAsPerSM(mtbThreads, mtbRegs, pc.SmemPerMTB)
	if int64(fit) < pc.MTBsPerSM {
		return nil, fmt.Errorf("pagoda.mtbs_per_sm is %d but an SM of gpu %s holds %d MasterKernel blocks of %d threads, %d regs/thread and %d bytes (pagoda.smem_per_mtb): %s limit",
			pc.MTBsPerSM, cfg.GPU.Name, fit, mtbThreads, mtbRegs, pc.SmemPerMTB, limit)
	}
	l = orSilent(l)
	p := &Pagoda{
		l:        l,
		h2d:      copyEngine{l: l},
		spawn:    pc.SpawnCycles,
		sched:    pc.SchedCycles,
		copyBack: cfg.Lat.HostLaunch,
		smem:     pc.SmemPerMTB,
	}
	p.share = newWorkShare(cfg, &p.q)
	n := cfg.GPU.SMs * int(pc.MTBsPerSM)
	p.mtbs = make([]mtb, n)
	for i := range p.mtbs {
		p.mtbs[i] = newMTB(i%cfg.GPU.SMs, pc.SmemPerMTB)
	}
	// Rows beyond 2^24 a column change nothing a trace could show and
	// would overflow the host's count of free entries.
	p.host = newHost(n, int(min(pc.TableRows, 1<<24)), int(cfg.Lat.HostThreads))
	p.life = newLifecycle(pc.Spawn == "pipelined", cfg.Lat.HostIssue, cfg.Lat.HostLaunch, cfg.Lat.KernelDispatch)
	return p, nil
}

// Submit queues t for the host spawner. It rejects a task that could never
// be scheduled: a sync task with more warps than an MTB's 31 executor
// warps (they must all be placed at once), or one needing more shared
// memory than pagoda.smem_per_mtb.
func (p *Pagoda) Submit(t Task) error {
	if err := checkTask(&t); err != nil {
		return err
	}
	if t.Sync && t.Warps > executorWarps {
		return &TaskError{ID: t.ID, Reason: fmt.Sprintf("needs a barrier across %d warps; an MTB has %d executor warps", t.Warps, executorWarps)}
	}
	if t.Smem > p.smem {
		return &TaskError{ID: t.ID, Reason: fmt.Sprintf("needs %d bytes of shared memory; an MTB has %d (pagoda.smem_per_mtb)", t.Smem, p.smem)}
	}
	i := p.tasks.alloc()
	s := p.tasks.at(i)
	*s = ptask{
		id:      t.ID,
		spawn:   t.Spawn,
		host:    t.HostCycles,
		wait:    t.CopyWait,
		copyIn:  t.CopyIn,
		cycles:  append(s.cycles[:0], t.WarpCycles...),
		demand:  t.Demand,
		smem:    t.Smem,
		warps:   int32(t.Warps),
		left:    int32(t.Warps),
		barrier: -1,
		sync:    t.Sync,
	}
	p.host.queue.push(i)
	p.hostKick()
	return nil
}

// Waiting counts submitted tasks no host thread has begun spawning.
func (p *Pagoda) Waiting() int { return p.host.queue.len() }

// Next returns the cycle of the earliest pending event.
func (p *Pagoda) Next() (int64, bool) {
	if p.q.Len() == 0 {
		return 0, false
	}
	return p.q.Peek(), true
}

// Advance fires every event at a cycle <= now.
func (p *Pagoda) Advance(now int64) {
	for p.q.Len() > 0 && p.q.Peek() <= now {
		e := p.q.Pop()
		p.now = e.At
		switch kind(e.Kind) {
		case evSpawned:
			p.spawned(e.Ref)
		case evCopyBack:
			p.copiedBack()
		case evSchedDone:
			p.entryRead(e.Aux)
		case evWarpEnd:
			p.warpEnd(e.Ref, e.Aux)
		case evVisible:
			p.visible(e.Ref)
		case evFlushed:
			p.flushed(e.Ref)
		case evDrained:
			p.l.Drained(p.now)
		case evShare:
			p.share.wake(p.now, e, p.warpEnd)
		}
		p.share.settle(&p.q, p.now)
	}
	p.now = max(p.now, now)
}

// Close says the trace is over: with pagoda.spawn=pipelined the host then
// flushes the last task and waits for all (pagoda_spawn.go).
func (p *Pagoda) Close() {
	p.life.closed = true
	p.hostKick()
	p.startWaitAll()
}

// finish retires task i after its last warp: it releases the barrier,
// marks the shared memory for the scheduler's lazy free and frees the
// TaskTable entry (Algorithm 1, lines 35–42).
func (p *Pagoda) finish(i int32) {
	t := p.tasks.at(i)
	m := &p.mtbs[t.mtb]
	if t.barrier >= 0 {
		m.barriers |= 1 << t.barrier
	}
	if t.block != 0 {
		m.marked = append(m.marked, t.block)
	}
	p.l.TaskFinished(t.id, p.now)
	p.entryFreed(t.mtb)
	p.tasks.release(i)
	p.drainIfDone()
}
