package replay

// The narrow-task component (Pagoda §4–6): under gemtc and pagoda the host
// kernels of a trace are tasks, handed to a software runtime on the GPU (a
// batch SuperKernel, a MasterKernel) instead of the hardware's kernel
// path. The runtimes themselves are package taskrun. This file owns the
// taskDriver, the component the engine creates when Policy.Tasks is set,
// and its wiring into the engine's one event loop: the runtime's next
// event is an evTasks event in the engine's queue; when it fires the
// runtime advances to it and the host hands it more tasks. The driver
// reads the tasks (taskread.go) and turns the runtime's reports into rows
// (taskrows.go). It never reads the engine's fields, nor the engine its:
// it schedules its events on the clock, and reports to the SMs and the
// recorder through their methods (taskLinks).

import (
	"fmt"

	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/taskrun"
	"github.com/gpureplay/gpureplay/trace"
)

// TaskRuntime builds the runtime a task policy runs host kernels on.
type TaskRuntime func(cfg model.Config, l taskrun.Listener) (taskrun.Runtime, error)

// taskDriver is the narrow-task component: the runtime, the host's side
// of feeding it, and the rows of the tasks in flight.
type taskDriver struct {
	taskLinks
	build  TaskRuntime
	policy string
	rt     taskrun.Runtime
	in     taskReader
	more   bool // the host holds a task not yet handed over
	closed bool // the runtime was told no more tasks come

	sink tables.Sink
	rows bool                 // the sink keeps rows
	live map[uint64]*blockRef // runtime tasks (threadblocks) submitted, not finished
	seq  uint64               // runtime task ids, in submit order
	d2h  channel              // the copy engine back to the host
	// copyLatency is each explicit copy's fixed cost on its engine
	// (io.copy_latency).
	copyLatency int64
	stage       [5]span // h2d, d2h: the copy engines in use; kernels: first launch to last end
	last        int64   // the last cycle a report reached: the run lasts until then
}

// taskLinks is what the task driver reaches outside itself: the clock
// its events go on, the SMs' occupancy, the run's totals, and the run's
// failure.
type taskLinks struct {
	clock *eventClock
	sms   *smArray
	out   *recorder
	fail  func(error)
}

// newTaskDriver is the component for a replay under a task policy; its
// runtime is built when the replay starts (startTasks).
func newTaskDriver(l taskLinks, opt *Options, sink tables.Sink, an Analysis) *taskDriver {
	cfg := opt.Config
	perByte := pcieCyclesPerByte(cfg.GPU.ClockMHz, cfg.IO.PCIeGBps)
	return &taskDriver{
		taskLinks:   l,
		build:       opt.Policy.Tasks,
		policy:      opt.Policy.Name,
		in:          newTaskReader(cfg, an),
		sink:        sink,
		rows:        !tables.Discards(sink),
		live:        map[uint64]*blockRef{},
		d2h:         channel{perByte: perByte},
		copyLatency: cfg.IO.CopyLatency,
	}
}

// startTasks starts a replay of a trace of tasks: the driver reads up to
// the first task and schedules the runtime's first event; the engine's
// loop does the rest. It returns what closes the trace.
func (e *engine) startTasks(open Opener) (func(), error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	closeAll := func() { closeSource(src) }
	if err := e.tasks.start(src); err != nil {
		closeAll()
		return nil, err
	}
	if e.tasks.schedule(e.tasks.step()); e.err != nil {
		closeAll()
		return nil, e.err
	}
	return closeAll, nil
}

// register routes the runtime's events to the driver: the runtime fires
// its events up to now, the host hands it tasks, and its next event is
// scheduled.
func (d *taskDriver) register(c *eventClock) {
	c.on(evTasks, func(eventq.Event) { d.schedule(d.advance(c.now())) })
}

// schedule schedules the runtime's next event at, if it has one (ok), or
// fails the run with err.
func (d *taskDriver) schedule(at int64, ok bool, err error) {
	if err != nil {
		d.fail(err)
		return
	}
	if ok {
		d.clock.at(at, evTasks)
	}
}

// start builds the runtime and reads the trace up to its first task.
func (d *taskDriver) start(src trace.Source) error {
	trace.SetReadOptions(src, trace.ReadOptions{Skip: []trace.Kind{trace.KindAccess, trace.KindPages}})
	rt, err := d.build(d.in.cfg, d)
	if err != nil {
		return &ModelError{Msg: fmt.Sprintf("%s: %v", d.policy, err)}
	}
	d.rt = rt
	d.more = true
	return d.in.start(trace.NewValidator(src))
}

// advance fires the runtime's events up to now, then steps the host.
func (d *taskDriver) advance(now int64) (int64, bool, error) {
	d.rt.Advance(now)
	return d.step()
}

// step is the host's work between two of the runtime's events: it submits
// tasks while the host has fewer than two in hand (taskrun.Runtime), says
// when the trace has no more, and returns the runtime's next event.
func (d *taskDriver) step() (int64, bool, error) {
	for d.more && d.rt.Waiting() < 2 {
		t, ok, err := d.in.next()
		if err != nil {
			return 0, false, err
		}
		if d.more = ok; ok {
			if err := d.submit(t); err != nil {
				return 0, false, err
			}
		}
	}
	if !d.more && !d.closed {
		d.rt.Close()
		d.closed = true
	}
	at, ok := d.rt.Next()
	return at, ok, nil
}

// submit hands a task's threadblocks over, noting what its rows need.
func (d *taskDriver) submit(t *pendingTask) error {
	row := &t.row
	for i := range t.blocks {
		b := &t.blocks[i]
		d.seq++
		b.ID = d.seq
		// Known before Submit: a runtime may report the task at once.
		d.live[b.ID] = &blockRef{row: row, cta: uint64(i), sm: -1}
		if err := d.rt.Submit(*b); err != nil {
			return &ModelError{Msg: fmt.Sprintf("kernel %d (%s), CTA %d: %v", row.id, row.name, i, err)}
		}
	}
	return nil
}

// stuck is the run's error once the loop has no event left: a deadlock
// when tasks are still in flight, else nil.
func (d *taskDriver) stuck() error {
	if waits := d.rt.Stuck(); waits != nil {
		return &DeadlockError{Cycle: d.last, Waits: waits}
	}
	return nil
}

// finish writes the stages table as the engine does without host I/O and
// returns the run's end.
func (d *taskDriver) finish() int64 {
	writeStages(d.sink, &d.stage, false)
	return d.last
}

// utilization fills in the contention model's utilizations over the run,
// when the runtime shares SMs under it.
func (d *taskDriver) utilization(s *Stats) {
	if u, ok := d.rt.(interface {
		Utilization(now, span int64) (float64, float64, bool)
	}); ok {
		s.IssueUtilization, s.DRAMUtilization, s.Contention = u.Utilization(s.MakespanCycles, s.MakespanCycles)
	}
}
