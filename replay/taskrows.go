package replay

// The runtime's side of the narrow-task component: taskDriver as the
// taskrun.Listener. What a runtime reports of its threadblocks becomes
// the ctas and kernels tables' rows, the stages table's copy spans, and
// (through the engine's methods) the SMs' occupancy and the run's totals.
// It owns the rows of the tasks in flight; it never decides anything the
// runtime models.

import "github.com/gpureplay/gpureplay/tables"

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
	d.last = max(d.last, cycle)
	b := d.live[id]
	if b == nil || !d.sms.resident(sm, cycle, 1, 0) {
		return
	}
	b.start, b.sm = cycle, sm
	if b.row.start < 0 {
		b.row.start = cycle
	}
}

// TaskFinished implements taskrun.Listener: the threadblock's CTA row is
// written, and the task's kernel row with its last threadblock.
func (d *taskDriver) TaskFinished(id uint64, cycle int64) {
	d.last = max(d.last, cycle)
	b := d.live[id]
	if b == nil || b.sm < 0 {
		return
	}
	delete(d.live, id)
	d.sms.resident(b.sm, cycle, -1, 0)
	// Its stall is start − dispatch, as for a CTA of the hardware path
	// (docs/tables.md): the cycles from its spawn, its dispatch_cycle, to
	// a worker starting it. It was written as 0.
	stall := b.start - b.spawned
	d.out.cta(b.start, cycle, stall)
	row := b.row
	if d.rows {
		d.sink.CTA(tables.CTA{KernelID: row.id, CTA: b.cta, SM: int32(b.sm), DispatchCycle: b.spawned,
			StartCycle: b.start, EndCycle: cycle, StallCycles: stall, Name: row.name})
	}
	if row.left--; row.left > 0 {
		return
	}
	if row.out.Bytes > 0 {
		start, end := d.d2h.moveAfter(cycle, row.out.N*d.copyLatency, row.out.Bytes)
		d.stage[stD2H].cover(start, end)
		d.last = max(d.last, end)
	}
	wait := row.start - row.launch
	d.out.countKernel(wait)
	d.stage[stKernels].cover(row.launch, cycle)
	if d.rows {
		d.sink.Kernel(tables.Kernel{
			KernelID: row.id, Name: row.name, Origin: "host", Stream: row.stream, CTAs: int64(row.ctas),
			ThreadsPerCTA: row.threads, LaunchCycle: row.launch, ReadyCycle: row.ready, StartCycle: row.start,
			EndCycle: cycle, WaitCycles: wait,
		})
	}
}

// WarpsBusy implements taskrun.Listener.
func (d *taskDriver) WarpsBusy(sm int, cycle int64, delta int) {
	d.sms.resident(sm, cycle, 0, delta)
}

// Drained implements taskrun.Listener: the run lasts until the host knows
// every task has finished.
func (d *taskDriver) Drained(cycle int64) { d.last = max(d.last, cycle) }

// InputCopied implements taskrun.Listener.
func (d *taskDriver) InputCopied(start, end int64) { d.stage[stH2D].cover(start, end) }
