package taskrun

import (
	"fmt"
	"math"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/model"
)

// Task is one narrow task as the host program spawns it: one thread block
// of Threads threads. Cycles are replay-GPU cycles.
type Task struct {
	ID uint64
	// Name is the task's kernel name, by which gemtc.smem_slowdown picks
	// the tasks it slows.
	Name    string
	Spawn   int64 // cycle the host program wants to spawn it (the trace's launch t)
	Threads int
	Warps   int   // ceil(Threads/32)
	Smem    int64 // shared-memory bytes, 0 = none
	// Sync says the task needs a thread-block barrier, so Pagoda gives it
	// a named barrier and starts its warps together. The caller decides
	// (a trace does not say; Smem > 0 && Warps > 1 is a fair guess).
	Sync       bool
	WarpCycles []int64 // len == Warps: each warp's execution time
	// HostCycles is host time the program spends on the task before
	// spawning it: the API calls that queue its input copies.
	HostCycles int64
	// CopyWait is host time the program waits for its synchronous copies
	// (io.memcpy=sync) to cross, beyond HostCycles. Pagoda's spawning
	// thread waits it (Fig. 1a's cudaMemcpy calls); GeMTC waits for its
	// input on the copy engine itself, so it ignores CopyWait.
	CopyWait int64
	// CopyIn is how long the task's input holds the copy engine to the
	// GPU. The copy is queued when the host has made the calls and the
	// task cannot be scheduled before it has arrived.
	CopyIn int64
	// Demand is each warp's demand on shared hardware per cycle of its
	// work alone (warp instructions and DRAM bytes), for the contention
	// model; zero runs the warps for their cycles whatever runs beside
	// them.
	Demand contention.Demand
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
	case t.HostCycles < 0 || t.CopyIn < 0 || t.CopyWait < 0:
		return bad("host cycles %d, copy cycles %d or copy wait %d negative", t.HostCycles, t.CopyIn, t.CopyWait)
	}
	for i, c := range t.WarpCycles {
		if c < 0 {
			return bad("warp %d runs for %d cycles, a negative time", i, c)
		}
	}
	return nil
}

// copyEngine is the copy engine to the GPU: one copy at a time, in the
// order the host queues them. Each copy is reported to l.
type copyEngine struct {
	free int64
	l    Listener
}

// move queues a copy of the given duration at cycle at and returns when it
// ends.
func (c *copyEngine) move(at, cycles int64) int64 {
	if cycles == 0 {
		return at
	}
	start := max(at, c.free)
	c.free = satAdd(start, cycles)
	c.l.InputCopied(start, c.free)
	return c.free
}
