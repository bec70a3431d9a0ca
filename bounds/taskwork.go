package bounds

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/taskrun"
)

// TaskBounds is an Analysis of a narrow-task trace run under a task
// runtime (gemtc, pagoda): what its tasks ask of any runtime, and their
// critical paths (critpath.go), both counted as the driver reads them
// (TaskRead). Under other policies it sees no task and stays zero.
type TaskBounds struct {
	replay.NoAnalysis
	perByte float64 // a copy engine's cycles a byte
	latency float64 // a copy's fixed cycles on its engine (io.copy_latency)
	work    TaskWork
	paths   *pathFloors
}

// NewTaskBounds is the task bounds of a run on cfg.
func NewTaskBounds(cfg model.Config) *TaskBounds {
	return &TaskBounds{perByte: replay.CopyCyclesPerByte(cfg), latency: float64(cfg.IO.CopyLatency), paths: newPathFloors(cfg)}
}

// engine is how long a direction's copies hold its copy engine.
func (b *TaskBounds) engine(c replay.TaskCopies) float64 {
	return float64(c.N)*b.latency + float64(c.Bytes)*b.perByte
}

// TaskRead adds one task.
func (b *TaskBounds) TaskRead(stream uint64, in, out replay.TaskCopies, blocks []taskrun.Task) {
	b.work.add(blocks, b.engine(in), b.engine(out))
	b.paths.task(stream, in, out, blocks)
}

// Result is the tasks' work and critical paths once every task is read.
func (b *TaskBounds) Result() TaskWork {
	w := b.work
	w.HyperQPath, w.PagodaPath = b.paths.floors()
	return w
}

// TaskWork is what a trace of narrow tasks asks of any runtime that runs
// it under gemtc or pagoda, summed as the driver reads the tasks: the
// host's calls and synchronous waits, each copy engine's transfers, and
// the warps' work alone with the demand the contention model charges for
// it. No schedule can do less, so each total over the resource's width
// (host threads, one engine, executor warps, issue slots, DRAM bandwidth)
// bounds a run's makespan from below (cmd/experiment, Pagoda's bounds).
type TaskWork struct {
	// Tasks counts the trace's tasks: under hyperq each is a kernel the
	// host launches with one call (lat.host_issue).
	Tasks int64
	// Blocks counts runtime tasks: one per threadblock of a task kernel,
	// each a TaskTable entry and a spawn under Pagoda.
	Blocks int64
	// HostCycles sums the tasks' copy calls (lat.host_issue each);
	// CopyWaitCycles the time a thread then waits for its synchronous
	// copies (io.memcpy=sync), each its own time on its engine
	// (io.copy_latency, its bytes at io.pcie_gbps).
	HostCycles, CopyWaitCycles int64
	// H2DCycles and D2HCycles are each copy engine's time: every
	// task's input, and every task's output, at io.pcie_gbps after each
	// copy's io.copy_latency.
	H2DCycles, D2HCycles float64
	// WarpCycles sums every warp's time alone; Insts and DRAMBytes are
	// its demand as the runtimes charge it (per-cycle demand × cycles).
	WarpCycles       int64
	Insts, DRAMBytes float64
	// TaskCycles sums each task's time alone, its longest warp: under
	// hyperq the least time its kernel holds a Kernel Distributor entry
	// once dispatched.
	TaskCycles int64
	// HyperQPath and PagodaPath are the critical-path floors
	// (critpath.go): the least makespan of any hyperq or pagoda run of
	// the trace under the run's configuration, from each task's chain of
	// host calls, copies and time alone. HyperQPath is 0 when a task's
	// calls are not Fig. 1a's (its copies in, launch and copies back on
	// one stream, the next task on another).
	HyperQPath, PagodaPath int64
}

// add counts one task's threadblocks: blocks[0] carries the task's host
// cycles and copy waits, as the driver builds them; in and out are its
// copies' transfer times.
func (w *TaskWork) add(blocks []taskrun.Task, in, out float64) {
	w.Blocks += int64(len(blocks))
	w.H2DCycles += in
	if len(blocks) > 0 {
		w.Tasks++
		w.HostCycles += blocks[0].HostCycles
		w.CopyWaitCycles += blocks[0].CopyWait
	}
	w.D2HCycles += out
	var longest int64
	for i := range blocks {
		var cycles int64
		for _, c := range blocks[i].WarpCycles {
			cycles += c
			longest = max(longest, c)
		}
		w.WarpCycles += cycles
		w.Insts += blocks[i].Demand.Issue * float64(cycles)
		w.DRAMBytes += blocks[i].Demand.DRAM * float64(cycles)
	}
	w.TaskCycles += longest
}
