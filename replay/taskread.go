package replay

// The host's side of the narrow-task component: reading a trace of tasks.
// A taskReader turns the trace's host launches, their declarations, their
// CTAs' cycles and the copies around them into taskrun.Tasks, one task at
// a time, in trace order. It owns the trace source and what it has read
// ahead (declarations, the next launch); it never submits a task or
// schedules anything (tasks.go does).

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/taskrun"
	"github.com/gpureplay/gpureplay/trace"
)

// taskReader reads tasks from a trace.
type taskReader struct {
	cfg model.Config
	an  Analysis
	src trace.Source
	clk clock

	decls map[uint64]*trace.Kernel // declared, not yet launched
	held  *trace.Launch            // the host launch the next task starts with
	cur   *taskRow                 // the task whose records are being read
	eof   bool
	in    TaskCopies // copies to the GPU read since the last task, for the next one
}

func newTaskReader(cfg model.Config, an Analysis) taskReader {
	return taskReader{cfg: cfg, an: an, decls: map[uint64]*trace.Kernel{}}
}

// pendingTask is a task read from the trace, not yet submitted: one
// runtime task per CTA (Pagoda's TaskTable entry counts threadblocks; each
// threadblock is placed, synchronised and given shared memory on its own).
type pendingTask struct {
	blocks []taskrun.Task
	row    taskRow
}

// maxTaskWarps bounds one task's warps: a task is a narrow grid, and the
// bound keeps a corrupt grid from allocating without limit.
const maxTaskWarps = 1 << 16

// start reads src up to the first host launch.
func (r *taskReader) start(src trace.Source) error {
	r.src = src
	for r.held == nil && !r.eof {
		if _, err := r.read(); err != nil {
			return err
		}
	}
	return nil
}

// read files one record: declarations and the next host launch (held). It
// returns CTA records for the caller.
func (r *taskReader) read() (*trace.CTA, error) {
	rec, err := r.src.Next()
	if errors.Is(err, io.EOF) {
		r.eof = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	switch rec := rec.(type) {
	case *trace.Header:
		if r.clk, err = newClock(rec.ClockMHz, r.cfg.GPU.ClockMHz); err != nil {
			return nil, err
		}
	case *trace.Kernel:
		r.decls[rec.ID] = rec
	case *trace.Launch:
		if !rec.Host() {
			return nil, &ModelError{Msg: fmt.Sprintf("device launch of kernel %d: task runtimes run host-launched tasks only; replay this trace under a hardware policy (cdp, dtbl, spawn, hyperq, ...)", rec.Kernel)}
		}
		held := *rec
		r.held = &held
	case *trace.CTA:
		return rec, nil
	case *trace.Memcpy:
		r.copy(rec)
	case *trace.Sync:
		if rec.Op.Blocks() {
			return nil, syncRefused(rec)
		}
	}
	return nil, nil
}

// syncRefused is the task runtimes' refusal of host call s, one that
// waits for the GPU.
func syncRefused(s *trace.Sync) error {
	return &ModelError{Msg: fmt.Sprintf("%s sync at t=%d: task runtimes run the host loop of Pagoda's Fig. 1a, whose only waits are its tasks' copies; replay a trace whose host synchronises under a hardware policy (hyperq, cdp, ...)", s.Op, s.T)}
}

// TasksRefuse is what the task runtimes (a Policy with Tasks) say of
// the trace whose host index is x before a replay reads a record of it:
// its first host call that waits for the GPU, refused as the replay
// would refuse it there (a *ModelError), where the index lists one. A
// command that replays the trace under several policies can then refuse
// the task runtimes' before any replay has run, where a replay's refusal
// at a sync late in the trace stopped the others and lost their rows.
// It gives nil for a nil index and for an index with no such call: the
// trace may still hold what the runtimes refuse (a device launch), which
// the replay finds.
func TasksRefuse(x *trace.HostIndex) error {
	if x == nil {
		return nil
	}
	src := x.Source()
	for {
		rec, err := src.Next()
		if err != nil {
			return nil // io.EOF: the index was checked whole when read
		}
		if s, ok := rec.(*trace.Sync); ok && s.Op.Blocks() {
			return syncRefused(s)
		}
	}
}

// TaskCopies is a task's explicit copies in one direction, as the
// narrow-task driver reads them (Analysis.TaskRead).
type TaskCopies struct {
	N     int64 // memcpy calls
	Bytes int64
	// Wait sums each call's synchronous wait (its own transfer under
	// io.memcpy=sync), as the engine's host threads charge them under
	// hyperq.
	Wait   int64
	Stream uint64 // the first call's stream
	// Apart says the calls are not Fig. 1a's: on more than one stream, or
	// a copy back read after the next task's copy in.
	Apart bool
	// blocking and blockingBytes are the calls of the N, and their
	// bytes, that block their caller (trace.Memcpy.Blocks).
	blocking, blockingBytes int64
}

// hold is how long the calls hold the spawning thread beyond their
// issue: a copy that blocks, its own time on the copy engine (copyTime),
// whatever io.memcpy; the others, what io.memcpy makes them wait
// (syncCopyWait).
func (c *TaskCopies) hold(cfg model.Config) int64 {
	return syncCopyWait(cfg, c.N-c.blocking, c.Bytes-c.blockingBytes) + copyTime(cfg, c.blocking, c.blockingBytes)
}

// add files one call of the direction.
func (c *TaskCopies) add(cfg model.Config, m *trace.Memcpy) {
	if c.N == 0 {
		c.Stream = m.Stream
	} else if m.Stream != c.Stream {
		c.Apart = true
	}
	c.N++
	c.Bytes += m.Bytes
	// A copy that blocks its caller (trace.Memcpy.Blocks) waits for its
	// own transfer, as every copy does under io.memcpy=sync: the task
	// runtimes' host plans its calls before their copies are queued.
	if m.Blocks() {
		c.blocking++
		c.blockingBytes += m.Bytes
		c.Wait += copyTime(cfg, 1, m.Bytes)
	} else {
		c.Wait += syncCopyWait(cfg, 1, m.Bytes)
	}
}

// copy files a memcpy record: a copy to the GPU is the next task's input, a
// copy back is the current task's output (a task's records run from its
// launch to the next launch).
func (r *taskReader) copy(m *trace.Memcpy) {
	c := &r.in
	if m.Dir == trace.DirD2H {
		if r.cur == nil {
			return // a copy back before any task has nothing to wait for
		}
		c = &r.cur.out
		c.Apart = c.Apart || r.in.N > 0 // the host made the next task's call first
	}
	c.add(r.cfg, m)
}

// next reads the held host launch's task: its declaration and its CTAs'
// cycles, up to the next host launch; false when the trace has no more.
// A task's warps are its CTAs' warps in order; it needs a barrier when it
// uses shared memory and has more than one warp (the rule the tasks
// generator follows).
func (r *taskReader) next() (*pendingTask, bool, error) {
	l := r.held
	if l == nil {
		return nil, false, nil
	}
	r.held = nil
	decl := r.decls[l.Kernel]
	delete(r.decls, l.Kernel)
	if decl == nil {
		return nil, false, fmt.Errorf("launch of kernel %d: kernel not declared", l.Kernel)
	}
	ctas, wpc := decl.CTAs(), warpsPerCTA(decl.Threads())
	if ctas > maxTaskWarps || ctas*uint64(wpc) > maxTaskWarps {
		return nil, false, &ModelError{Msg: fmt.Sprintf("kernel %d (%s): %d CTAs of %d warps is too large for a task (at most %d warps)", decl.ID, decl.Name, ctas, wpc, maxTaskWarps)}
	}
	spawn := r.clk.scale(l.T)
	in := r.in
	r.in = TaskCopies{}
	p := &pendingTask{
		blocks: make([]taskrun.Task, ctas),
		row: taskRow{id: l.Kernel, name: decl.Name, stream: l.Stream, ctas: ctas, left: ctas,
			threads: int64(decl.Threads()), launch: -1, ready: -1, start: -1},
	}
	for i := range p.blocks {
		p.blocks[i] = taskrun.Task{Name: decl.Name, Spawn: spawn, Threads: decl.Threads(), Warps: wpc, Smem: decl.Smem,
			Sync: decl.Smem > 0 && wpc > 1, WarpCycles: make([]int64, wpc)}
	}
	r.cur = &p.row
	for r.held == nil && !r.eof {
		c, err := r.read()
		if err != nil {
			return nil, false, err
		}
		if c != nil && c.Kernel == l.Kernel && c.CTA < ctas {
			r.fill(&p.blocks[c.CTA], c)
		}
	}
	// The host makes every copy call of the task (lat.host_issue each) before
	// spawning it; its input must be on the GPU before it is scheduled.
	first := &p.blocks[0]
	first.HostCycles = (in.N + p.row.out.N) * r.cfg.Lat.HostIssue
	first.CopyWait = in.hold(r.cfg) + p.row.out.hold(r.cfg)
	first.CopyIn = copyTime(r.cfg, in.N, in.Bytes) // both directions run at io.pcie_gbps
	if r.an != nil {
		r.an.TaskRead(l.Stream, in, p.row.out, p.blocks)
	}
	return p, true, nil
}

// fill sets one CTA's warps' cycles and their demand: the CTA's demand
// over its time alone (its longest warp), spread evenly over its warps, as
// for the engine's CTAs (shared.go).
func (r *taskReader) fill(t *taskrun.Task, c *trace.CTA) {
	var alone int64
	for w := range t.WarpCycles {
		cycles := c.Cycles
		if w < len(c.WarpCycles) {
			cycles = c.WarpCycles[w]
		}
		t.WarpCycles[w] = r.clk.scale(cycles)
		alone = max(alone, t.WarpCycles[w])
	}
	if c.HasDemand() && alone > 0 {
		per := float64(alone) * float64(len(t.WarpCycles))
		t.Demand = contention.Demand{Issue: float64(c.Insts) / per, DRAM: float64(c.DRAMBytes) / per}
	}
}
