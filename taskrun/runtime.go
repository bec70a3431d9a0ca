package taskrun

// Listener hears what a runtime does, in cycle order. The replay engine
// turns these calls into kernel rows (ready, start and end cycles) and
// occupancy samples.
//
// A nil Listener given to NewPagoda or NewGeMTC hears nothing.
type Listener interface {
	// TaskIssued: the host began handling the task — its spawn call
	// (Pagoda) or its push into the next batch (GeMTC) — no earlier than
	// the task's Spawn. This is the kernel's launch_cycle, from which task
	// latency is counted, as a HyperQ task's launch call begins when the
	// host thread issues it. Reported when the host finishes with the
	// task, so the cycle may be earlier than an event reported before it.
	TaskIssued(id uint64, cycle int64)
	// TaskSpawned: the host finished handing the task to the GPU — its
	// TaskTable entry is visible to the scheduler (Pagoda) or its batch
	// has reached the SuperKernel (GeMTC). This is the kernel's
	// ready_cycle.
	TaskSpawned(id uint64, cycle int64)
	// TaskStarted: the task's first warp began executing on SM sm.
	TaskStarted(id uint64, cycle int64, sm int)
	// TaskFinished: the task's last warp finished. The runtime keeps
	// nothing of the task afterwards.
	TaskFinished(id uint64, cycle int64)
	// WarpsBusy: the warps executing task work on SM sm changed by delta.
	// Runtime overheads (Pagoda's scheduler warps, idle worker warps)
	// are not counted.
	WarpsBusy(sm int, cycle int64, delta int)
	// InputCopied: a task's input held the copy engine to the GPU from
	// start to end, for the stages table's h2d span. Reported when the
	// copy is queued, so start may lie ahead of events reported later.
	InputCopied(start, end int64)
	// Drained: the host learned that every task has finished (Pagoda's
	// waitAll copy-back, pagoda.spawn=pipelined); the run lasts until then.
	Drained(cycle int64)
}

// Runtime is a narrow-task runtime driven by an outer event loop. The
// driver submits tasks in host order while Waiting() < 2, then advances
// the runtime to its next event; the runtime spawns submitted tasks itself
// (the host's spawning is an internal event), so memory stays bounded by
// the work in flight:
//
//	for {
//		for more && rt.Waiting() < 2 {
//			if err := rt.Submit(next()); err != nil { ... }
//			if !more { rt.Close() }
//		}
//		at, ok := rt.Next()
//		if !ok {
//			if waits := rt.Stuck(); waits != nil { deadlock }
//			break
//		}
//		rt.Advance(at)
//	}
type Runtime interface {
	// Submit hands over the next task in host order. Spawn cycles need
	// not be non-decreasing: the host handles tasks in submit order, each
	// no earlier than its Spawn. A task the runtime cannot run is
	// rejected with a *TaskError and leaves the runtime unchanged.
	Submit(t Task) error
	// Waiting is the number of submitted tasks the host has not yet
	// handed on (see each runtime for exactly when that is).
	Waiting() int
	// Next is the cycle of the earliest pending event; ok is false when
	// nothing is pending.
	Next() (cycle int64, ok bool)
	// Advance fires every event at a cycle <= now, in (cycle, sequence)
	// order, and moves the runtime's clock to now. Advance to Next()'s
	// cycle: a clock moved past it delays tasks submitted afterwards.
	Advance(now int64)
	// Close says no more tasks will be submitted.
	Close()
	// Stuck says what waits on what, one line per waiting party, when
	// tasks are in flight; nil when none is. A driver calls it when Next
	// reports nothing pending but submitted tasks have not finished.
	Stuck() []string
}

// silent is the Listener that hears nothing, used for a nil one.
type silent struct{}

func (silent) TaskIssued(uint64, int64)       {}
func (silent) TaskSpawned(uint64, int64)      {}
func (silent) TaskStarted(uint64, int64, int) {}
func (silent) TaskFinished(uint64, int64)     {}
func (silent) WarpsBusy(int, int64, int)      {}
func (silent) InputCopied(int64, int64)       {}
func (silent) Drained(int64)                  {}

// orSilent returns l, or a Listener that hears nothing if l is nil.
func orSilent(l Listener) Listener {
	if l == nil {
		return silent{}
	}
	return l
}
