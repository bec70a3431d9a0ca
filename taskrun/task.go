package taskrun

import (
	"fmt"
	"math"

	"github.com/gpureplay/gpureplay/model"
)

// Task is one narrow task as the host program spawns it: one thread block
// of Threads threads. Cycles are replay-GPU cycles.
type Task struct {
	ID      uint64
	Spawn   int64 // cycle the host program wants to spawn it (the trace's launch t)
	Threads int
	Warps   int   // ceil(Threads/32)
	Smem    int64 // shared-memory bytes, 0 = none
	// Sync says the task needs a thread-block barrier, so Pagoda gives it
	// a named barrier and starts its warps together. The caller decides
	// (a trace does not say; Smem > 0 && Warps > 1 is a fair guess).
	Sync       bool
	WarpCycles []int64 // len == Warps: each warp's execution time
}

// TaskError is a task a runtime cannot accept. Submit returns it and keeps
// its state as if the task had never been submitted, so the caller can
// report the task by ID (and its trace position) and stop.
type TaskError struct {
	ID     uint64
	Reason string
}

func (e *TaskError) Error() string { return fmt.Sprintf("task %d: %s", e.ID, e.Reason) }

// checkTask rejects a task no runtime could run: the shape rules every
// runtime shares.
func checkTask(t *Task) error {
	bad := func(format string, a ...any) error {
		return &TaskError{ID: t.ID, Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case t.Spawn < 0:
		return bad("spawn cycle %d is negative", t.Spawn)
	case t.Threads < 1:
		return bad("has %d threads; a task needs at least one", t.Threads)
	case t.Threads > math.MaxInt32:
		return bad("has %d threads, more than a runtime models", t.Threads)
	case t.Warps != (t.Threads-1)/model.WarpSize+1:
		return bad("has %d warps for %d threads; want %d", t.Warps, t.Threads, (t.Threads-1)/model.WarpSize+1)
	case len(t.WarpCycles) != t.Warps:
		return bad("has %d warp cycle counts for %d warps", len(t.WarpCycles), t.Warps)
	case t.Smem < 0:
		return bad("shared memory %d bytes is negative", t.Smem)
	}
	for i, c := range t.WarpCycles {
		if c < 0 {
			return bad("warp %d runs for %d cycles, a negative time", i, c)
		}
	}
	return nil
}
