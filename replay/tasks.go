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
		s.Skip(trace.KindAccess, trace.KindPages, trace.KindBuffer, trace.KindMemcpy)
	}
	d := &taskDriver{
		cfg:   opt.Config,
		sink:  sink,
		src:   trace.NewValidator(src),
		decls: map[uint64]*trace.Kernel{},
		live:  map[uint64]*taskRow{},
		sms:   make([]sm, opt.Config.GPU.SMs),
		occ:   newOccupancy(opt.Config, sink),
	}
	for i := range d.sms {
		d.sms[i].id = i
	}
	rt, err := opt.Policy.Tasks(opt.Config, d)
	if err != nil {
		return nil, &ModelError{Msg: fmt.Sprintf("%s: %v", opt.Policy.Name, err)}
	}
	if err := d.run(rt, opt.Progress); err != nil {
		return nil, err
	}
	return d.finish(), nil
}

// taskDriver reads tasks, feeds the runtime, and records its reports.
type taskDriver struct {
	cfg  model.Config
	sink results.Sink
	src  trace.Source
	clk  clock

	decls map[uint64]*trace.Kernel // declared, not yet launched
	held  *trace.Launch            // the host launch the next task starts with
	eof   bool

	live  map[uint64]*taskRow // tasks submitted, not finished
	sms   []sm
	occ   occupancy
	now   int64
	stats Stats
}

// taskRow is what the kernels table needs of a task in flight.
type taskRow struct {
	name            string
	stream          uint64
	ctas            uint64
	threads         int64
	launch, ready   int64
	start, dispatch int64
	sm              int
}

// run is the driver loop of taskrun.Runtime: submit while the host has
// fewer than two tasks in hand, then advance to the runtime's next event.
func (d *taskDriver) run(rt taskrun.Runtime, progress func(int64)) error {
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
		if step&0xffff == 0 && progress != nil {
			progress(d.stats.CTAs)
		}
	}
}

// submit hands a task over, noting what its kernel row needs.
func (d *taskDriver) submit(rt taskrun.Runtime, t *pendingTask) error {
	if err := rt.Submit(t.task); err != nil {
		return &ModelError{Msg: fmt.Sprintf("kernel %d (%s): %v", t.task.ID, t.row.name, err)}
	}
	d.live[t.task.ID] = &t.row
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
		d.clk = clock{ratio: d.cfg.GPU.ClockMHz / r.ClockMHz}
	case *trace.Kernel:
		d.decls[r.ID] = r
	case *trace.Launch:
		if !r.Host() {
			return nil, fmt.Errorf("device launch of kernel %d: task runtimes run host-launched tasks only", r.Kernel)
		}
		held := *r
		d.held = &held
	case *trace.CTA:
		return r, nil
	}
	return nil, nil
}

// pendingTask is a task read from the trace, not yet submitted.
type pendingTask struct {
	task taskrun.Task
	row  taskRow
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
	ctas, wpc := decl.CTAs(), warpsPerCTA(decl)
	if ctas*uint64(wpc) > maxTaskWarps {
		return nil, false, &ModelError{Msg: fmt.Sprintf("kernel %d (%s): %d CTAs of %d warps is too large for a task (at most %d warps)", decl.ID, decl.Name, ctas, wpc, maxTaskWarps)}
	}
	warps := int(ctas) * wpc
	threads := decl.Threads()
	if ctas > 1 {
		threads = warps * model.WarpSize
	}
	p := &pendingTask{
		task: taskrun.Task{ID: l.Kernel, Spawn: d.clk.scale(l.T), Threads: threads, Warps: warps,
			Smem: decl.Smem * int64(ctas), WarpCycles: make([]int64, warps)},
		row: taskRow{name: decl.Name, stream: l.Stream, ctas: ctas, threads: int64(decl.Threads())},
	}
	p.task.Sync = p.task.Smem > 0 && warps > 1
	for d.held == nil && !d.eof {
		c, err := d.read()
		if err != nil {
			return nil, false, err
		}
		if c != nil && c.Kernel == l.Kernel && c.CTA < ctas {
			d.fill(p.task.WarpCycles[int(c.CTA)*wpc:int(c.CTA+1)*wpc], c)
		}
	}
	return p, true, nil
}

// fill sets one CTA's warps' cycles.
func (d *taskDriver) fill(warps []int64, c *trace.CTA) {
	for w := range warps {
		cycles := c.Cycles
		if w < len(c.WarpCycles) {
			cycles = c.WarpCycles[w]
		}
		warps[w] = d.clk.scale(cycles)
	}
}

// The taskrun.Listener side: the runtime's reports become table rows.

// TaskIssued implements taskrun.Listener.
func (d *taskDriver) TaskIssued(id uint64, cycle int64) {
	if t := d.live[id]; t != nil {
		t.launch = cycle
	}
}

// TaskSpawned implements taskrun.Listener.
func (d *taskDriver) TaskSpawned(id uint64, cycle int64) {
	if t := d.live[id]; t != nil {
		t.ready = cycle
	}
}

// TaskStarted implements taskrun.Listener.
func (d *taskDriver) TaskStarted(id uint64, cycle int64, sm int) {
	d.now = max(d.now, cycle)
	t := d.live[id]
	if t == nil || sm < 0 || sm >= len(d.sms) {
		return
	}
	t.start, t.sm = cycle, sm
	s := &d.sms[sm]
	d.occ.change(s, cycle)
	s.ctas++
}

// TaskFinished implements taskrun.Listener: the task's rows are written.
func (d *taskDriver) TaskFinished(id uint64, cycle int64) {
	d.now = max(d.now, cycle)
	t := d.live[id]
	if t == nil {
		return
	}
	delete(d.live, id)
	s := &d.sms[t.sm]
	d.occ.change(s, cycle)
	s.ctas--
	d.stats.Kernels++
	d.stats.CTAs += int64(t.ctas)
	d.stats.WaitCycles += t.start - t.launch
	d.sink.Kernel(results.Kernel{
		KernelID: id, Name: t.name, Origin: "host", Stream: t.stream, CTAs: int64(t.ctas),
		ThreadsPerCTA: t.threads, LaunchCycle: t.launch, ReadyCycle: t.ready, StartCycle: t.start,
		EndCycle: cycle, WaitCycles: t.start - t.launch,
	})
	for c := uint64(0); c < t.ctas; c++ {
		d.sink.CTA(results.CTA{KernelID: id, CTA: c, SM: int32(t.sm), DispatchCycle: t.ready,
			StartCycle: t.start, EndCycle: cycle})
	}
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

// finish closes the occupancy accounts and the stages table.
func (d *taskDriver) finish() *Stats {
	end := d.now
	d.occ.close(d.sms, end)
	d.sink.Stage(results.Stage{Stage: "kernels", StartCycle: 0, EndCycle: end})
	s := d.stats
	s.MakespanCycles = end
	s.MakespanUS = float64(end) / d.cfg.GPU.ClockMHz
	if end > 0 {
		s.AvgOccupancy = d.occ.warpCycles / (float64(len(d.sms)*d.cfg.GPU.MaxWarpsPerSM()) * float64(end))
	}
	return &s
}
