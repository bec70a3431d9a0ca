package replay

// Narrow-task runtimes (Pagoda §4–6): under gemtc and pagoda the host
// kernels of a trace are tasks, handed to a software runtime on the GPU
// (a batch SuperKernel, a MasterKernel) instead of the hardware's kernel
// path. The runtimes themselves are package taskrun; this file reads the
// tasks from the trace, drives the runtime, and turns what it reports
// into the kernels, ctas and occupancy tables.

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/taskrun"
	"github.com/gpureplay/gpureplay/trace"
)

// TaskRuntime builds the runtime a task policy runs host kernels on.
type TaskRuntime func(cfg model.Config, l taskrun.Listener) (taskrun.Runtime, error)

// runTasks replays a trace of tasks on the policy's task runtime.
func runTasks(open Opener, opt Options, sink results.Sink) (*Stats, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	defer closeSource(src)
	if s, ok := src.(interface{ Skip(...trace.Kind) }); ok {
		s.Skip(trace.KindAccess, trace.KindPages)
	}
	d := &taskDriver{
		cfg:   opt.Config,
		sink:  sink,
		src:   trace.NewValidator(src),
		decls: map[uint64]*trace.Kernel{},
		live:  map[uint64]*blockRef{},
		sms:   make([]sm, opt.Config.GPU.SMs),
		occ:   newOccupancy(opt.Config, sink),
		d2h:   channel{perByte: pcieCyclesPerByte(opt.Config.GPU.ClockMHz, opt.Config.IO.PCIeGBps)},
		an:    joinAnalyses(opt.Analyses),
	}
	for i := range d.sms {
		d.sms[i].id = i
	}
	rt, err := opt.Policy.Tasks(opt.Config, d)
	if err != nil {
		return nil, &ModelError{Msg: fmt.Sprintf("%s: %v", opt.Policy.Name, err)}
	}
	if err := d.run(rt, &opt); err != nil {
		return nil, err
	}
	st := d.finish()
	if u, ok := rt.(interface {
		Utilization(now, span int64) (float64, float64, bool)
	}); ok {
		st.IssueUtilization, st.DRAMUtilization, st.Contention = u.Utilization(st.MakespanCycles, st.MakespanCycles)
	}
	return st, nil
}

// taskDriver reads tasks, feeds the runtime, and records its reports.
type taskDriver struct {
	cfg  model.Config
	sink results.Sink
	src  trace.Source
	clk  clock

	decls map[uint64]*trace.Kernel // declared, not yet launched
	held  *trace.Launch            // the host launch the next task starts with
	cur   *taskRow                 // the task whose records are being read
	eof   bool

	in    TaskCopies           // copies to the GPU read since the last task, for the next one
	d2h   channel              // the copy engine back to the host
	stage [5]span              // h2d, d2h: the copy engines in use; kernels: first launch to last end
	live  map[uint64]*blockRef // runtime tasks (threadblocks) submitted, not finished
	seq   uint64               // runtime task ids, in submit order
	sms   []sm
	occ   occupancy
	now   int64
	stats Stats
	busy  busySpan
	an    Analysis // the analyses (Options.Analyses); nil for none
}

// taskRow is what the kernels table needs of a task in flight. A task's
// CTAs (threadblocks) run as separate runtime tasks; the row spans them.
type taskRow struct {
	id            uint64
	name          string
	stream        uint64
	ctas          uint64
	threads       int64
	left          uint64     // threadblocks not finished
	out           TaskCopies // copies back to the host after it
	launch, ready int64      // the first threadblock's (-1 before)
	start         int64
}

// blockRef is one threadblock of a task in flight.
type blockRef struct {
	row     *taskRow
	cta     uint64
	sm      int
	spawned int64
	start   int64
}

// run is the driver loop of taskrun.Runtime: submit while the host has
// fewer than two tasks in hand, then advance to the runtime's next event.
func (d *taskDriver) run(rt taskrun.Runtime, opt *Options) error {
	if err := d.readHeader(); err != nil {
		return err
	}
	more, closed := true, false
	for step := 0; ; step++ {
		for more && rt.Waiting() < 2 {
			t, ok, err := d.next()
			if err != nil {
				return err
			}
			if more = ok; ok {
				if err := d.submit(rt, t); err != nil {
					return err
				}
			}
		}
		if !more && !closed {
			rt.Close()
			closed = true
		}
		at, ok := rt.Next()
		if !ok {
			if waits := rt.Stuck(); waits != nil {
				return &DeadlockError{Cycle: d.now, Waits: waits}
			}
			return nil
		}
		rt.Advance(at)
		if step&0xffff == 0 {
			if err := opt.checkpoint(d.stats.CTAs, d.now); err != nil {
				return err
			}
		}
	}
}

// submit hands a task's threadblocks over, noting what its rows need.
func (d *taskDriver) submit(rt taskrun.Runtime, t *pendingTask) error {
	row := &t.row
	for i := range t.blocks {
		b := &t.blocks[i]
		d.seq++
		b.ID = d.seq
		// Known before Submit: a runtime may report the task at once.
		d.live[b.ID] = &blockRef{row: row, cta: uint64(i), sm: -1}
		if err := rt.Submit(*b); err != nil {
			return &ModelError{Msg: fmt.Sprintf("kernel %d (%s), CTA %d: %v", row.id, row.name, i, err)}
		}
	}
	return nil
}

// readHeader reads up to the first host launch.
func (d *taskDriver) readHeader() error {
	for d.held == nil && !d.eof {
		if _, err := d.read(); err != nil {
			return err
		}
	}
	return nil
}

// read files one record: declarations and the next host launch (held). It
// returns CTA records for the caller.
func (d *taskDriver) read() (*trace.CTA, error) {
	r, err := d.src.Next()
	if errors.Is(err, io.EOF) {
		d.eof = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	switch r := r.(type) {
	case *trace.Header:
		if d.clk, err = newClock(r.ClockMHz, d.cfg.GPU.ClockMHz); err != nil {
			return nil, err
		}
	case *trace.Kernel:
		d.decls[r.ID] = r
	case *trace.Launch:
		if !r.Host() {
			return nil, &ModelError{Msg: fmt.Sprintf("device launch of kernel %d: task runtimes run host-launched tasks only; replay this trace under a hardware policy (cdp, dtbl, spawn, hyperq, ...)", r.Kernel)}
		}
		held := *r
		d.held = &held
	case *trace.CTA:
		return r, nil
	case *trace.Memcpy:
		d.copy(r)
	}
	return nil, nil
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
	c.Wait += syncCopyWait(cfg, m.Bytes)
}

// copy files a memcpy record: a copy to the GPU is the next task's input, a
// copy back is the current task's output (a task's records run from its
// launch to the next launch).
func (d *taskDriver) copy(m *trace.Memcpy) {
	c := &d.in
	if m.Dir == trace.DirD2H {
		if d.cur == nil {
			return // a copy back before any task has nothing to wait for
		}
		c = &d.cur.out
		c.Apart = c.Apart || d.in.N > 0 // the host made the next task's call first
	}
	c.add(d.cfg, m)
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

// next reads the held host launch's task: its declaration and its CTAs'
// cycles, up to the next host launch. A task's warps are its CTAs' warps in
// order; it needs a barrier when it uses shared memory and has more than
// one warp (the rule the tasks generator follows).
func (d *taskDriver) next() (*pendingTask, bool, error) {
	l := d.held
	if l == nil {
		return nil, false, nil
	}
	d.held = nil
	decl := d.decls[l.Kernel]
	delete(d.decls, l.Kernel)
	if decl == nil {
		return nil, false, fmt.Errorf("launch of kernel %d: kernel not declared", l.Kernel)
	}
	ctas, wpc := decl.CTAs(), warpsPerCTA(decl.Threads())
	if ctas > maxTaskWarps || ctas*uint64(wpc) > maxTaskWarps {
		return nil, false, &ModelError{Msg: fmt.Sprintf("kernel %d (%s): %d CTAs of %d warps is too large for a task (at most %d warps)", decl.ID, decl.Name, ctas, wpc, maxTaskWarps)}
	}
	spawn := d.clk.scale(l.T)
	in := d.in
	d.in = TaskCopies{}
	p := &pendingTask{
		blocks: make([]taskrun.Task, ctas),
		row: taskRow{id: l.Kernel, name: decl.Name, stream: l.Stream, ctas: ctas, left: ctas,
			threads: int64(decl.Threads()), launch: -1, ready: -1, start: -1},
	}
	for i := range p.blocks {
		p.blocks[i] = taskrun.Task{Name: decl.Name, Spawn: spawn, Threads: decl.Threads(), Warps: wpc, Smem: decl.Smem,
			Sync: decl.Smem > 0 && wpc > 1, WarpCycles: make([]int64, wpc)}
	}
	d.cur = &p.row
	for d.held == nil && !d.eof {
		c, err := d.read()
		if err != nil {
			return nil, false, err
		}
		if c != nil && c.Kernel == l.Kernel && c.CTA < ctas {
			d.fill(&p.blocks[c.CTA], c)
		}
	}
	// The host makes every copy call of the task (lat.host_issue each) before
	// spawning it; its input must be on the GPU before it is scheduled.
	first := &p.blocks[0]
	first.HostCycles = (in.N + p.row.out.N) * d.cfg.Lat.HostIssue
	first.CopyWait = syncCopyWait(d.cfg, in.Bytes) + syncCopyWait(d.cfg, p.row.out.Bytes)
	first.CopyIn = roundCycle(float64(in.Bytes) * d.d2h.perByte) // both directions run at io.pcie_gbps
	if d.an != nil {
		d.an.TaskRead(l.Stream, in, p.row.out, p.blocks)
	}
	return p, true, nil
}

// fill sets one CTA's warps' cycles and their demand: the CTA's demand
// over its time alone (its longest warp), spread evenly over its warps, as
// for the engine's CTAs (shared.go).
func (d *taskDriver) fill(t *taskrun.Task, c *trace.CTA) {
	var alone int64
	for w := range t.WarpCycles {
		cycles := c.Cycles
		if w < len(c.WarpCycles) {
			cycles = c.WarpCycles[w]
		}
		t.WarpCycles[w] = d.clk.scale(cycles)
		alone = max(alone, t.WarpCycles[w])
	}
	if c.HasDemand() && alone > 0 {
		per := float64(alone) * float64(len(t.WarpCycles))
		t.Demand = contention.Demand{Issue: float64(c.Insts) / per, DRAM: float64(c.DRAMBytes) / per}
	}
}

// The taskrun.Listener side: the runtime's reports become table rows.

// TaskIssued implements taskrun.Listener.
func (d *taskDriver) TaskIssued(id uint64, cycle int64) {
	if b := d.live[id]; b != nil && b.row.launch < 0 {
		b.row.launch = cycle
	}
}

// TaskSpawned implements taskrun.Listener.
func (d *taskDriver) TaskSpawned(id uint64, cycle int64) {
	b := d.live[id]
	if b == nil {
		return
	}
	b.spawned = cycle
	if b.row.ready < 0 {
		b.row.ready = cycle
	}
}

// TaskStarted implements taskrun.Listener.
func (d *taskDriver) TaskStarted(id uint64, cycle int64, sm int) {
	d.now = max(d.now, cycle)
	b := d.live[id]
	if b == nil || sm < 0 || sm >= len(d.sms) {
		return
	}
	b.start, b.sm = cycle, sm
	if b.row.start < 0 {
		b.row.start = cycle
	}
	s := &d.sms[sm]
	d.occ.change(s, cycle)
	s.ctas++
}

// TaskFinished implements taskrun.Listener: the threadblock's CTA row is
// written, and the task's kernel row with its last threadblock.
func (d *taskDriver) TaskFinished(id uint64, cycle int64) {
	d.now = max(d.now, cycle)
	b := d.live[id]
	if b == nil || b.sm < 0 {
		return
	}
	delete(d.live, id)
	s := &d.sms[b.sm]
	d.occ.change(s, cycle)
	s.ctas--
	d.stats.CTAs++
	d.busy.cover(b.start, cycle)
	row := b.row
	d.sink.CTA(results.CTA{KernelID: row.id, CTA: b.cta, SM: int32(b.sm), DispatchCycle: b.spawned,
		StartCycle: b.start, EndCycle: cycle})
	if row.left--; row.left > 0 {
		return
	}
	if row.out.Bytes > 0 {
		start, end := d.d2h.move(cycle, row.out.Bytes)
		d.stage[stD2H].cover(start, end)
		d.now = max(d.now, end)
	}
	d.stats.Kernels++
	d.stats.WaitCycles += row.start - row.launch
	d.stage[stKernels].cover(row.launch, cycle)
	d.sink.Kernel(results.Kernel{
		KernelID: row.id, Name: row.name, Origin: "host", Stream: row.stream, CTAs: int64(row.ctas),
		ThreadsPerCTA: row.threads, LaunchCycle: row.launch, ReadyCycle: row.ready, StartCycle: row.start,
		EndCycle: cycle, WaitCycles: row.start - row.launch,
	})
}

// WarpsBusy implements taskrun.Listener.
func (d *taskDriver) WarpsBusy(sm int, cycle int64, delta int) {
	if sm < 0 || sm >= len(d.sms) {
		return
	}
	s := &d.sms[sm]
	d.occ.change(s, cycle)
	s.warps += delta
}

// Drained implements taskrun.Listener: the run lasts until the host knows
// every task has finished.
func (d *taskDriver) Drained(cycle int64) { d.now = max(d.now, cycle) }

// InputCopied implements taskrun.Listener.
func (d *taskDriver) InputCopied(start, end int64) { d.stage[stH2D].cover(start, end) }

// finish closes the occupancy accounts and writes the stages table as the
// engine does without host I/O.
func (d *taskDriver) finish() *Stats {
	end := d.now
	d.occ.close(d.sms, end)
	writeStages(d.sink, &d.stage, false)
	s := d.stats
	s.BusyCycles = d.busy.cycles()
	s.MakespanCycles = end
	s.MakespanUS = float64(end) / d.cfg.GPU.ClockMHz
	if end > 0 {
		s.AvgOccupancy = float64(d.occ.warpCycles) / (float64(len(d.sms)*d.cfg.GPU.MaxWarpsPerSM()) * float64(end))
	}
	return &s
}
