package bounds

import (
	"github.com/gpureplay/gpureplay/internal/threadpool"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/taskrun"
)

// Critical-path floors of a task trace: the least makespan any hyperq or
// pagoda run of it can have, from each task's chain of dependent steps —
// its host thread's calls, its copy in, its run alone, its copy back — as
// the replay charges them. TaskWork's totals bound a run by its busiest
// resource, which is tight for long runs; a short run is a chain, and
// this bounds it. Both are computed as the driver reads the tasks
// (TaskBounds.TaskRead), for cmd/experiment's bounds (TaskWork.HyperQPath,
// TaskWork.PagodaPath).
//
// The host threads. Both runtimes hand a trace's work to
// lat.host_threads threads in trace order, and a thread does one piece
// of it at a time: under hyperq (replay/host.go) a run of consecutive calls on
// one stream stays on one thread and the next run takes the thread free
// first; under pagoda (taskrun/pagoda_host.go) an idle thread takes the
// next threadblock, at most the threads at once. Neither starts a piece
// earlier than the greedy schedule that gives every piece, in order, the
// thread free first, as soon as it is free, and holds it exactly the
// piece's cost (threadpool.Pool.Take). By induction over the pieces: under hyperq
// the threads' free times, sorted, are never below the greedy's, since
// both give the next piece their earliest thread and the replay starts
// it no earlier and holds it no shorter; under pagoda a threadblock
// starts after the one before it and when fewer than all the threads
// are busy, so no earlier than the latest of the threads-th latest ends
// before it, which are no earlier than the greedy's. Delays (a trace's
// t, reading ahead, copy-backs, flushes, the driver's refill) only make
// threads free later. Only what the replay charges for certain counts: a
// synchronous copy holds its thread for its own transfer
// (syncCopyWait), not until its stream reaches it.
//
// A hyperq task of Fig. 1a's shape — its copies in, its launch, its
// copies back, consecutive calls on the launch's stream, the next task
// on another — is one such piece. Its launch issues once the calls
// before it have; the kernel reaches its stream lat.host_issue +
// lat.host_launch later, runs after its copies in (each call's transfer
// after it has reached the stream), takes lat.kernel_dispatch in its
// Kernel Distributor entry and at least its longest warp alone; its
// copies back, each issued after the launch, start after it ends and
// move their bytes. A trace of another shape gets no hyperq floor (0).
//
// A pagoda threadblock is a piece costing its copy calls, its waits for
// the synchronous copies and its spawn (pagoda.spawn_cycles). Its entry
// is on the GPU when its spawn ends, its input when the copy engine has
// moved it after the calls; the scheduler warp reads the entry
// (pagoda.sched_cycles) and the warps run at least their time alone; the
// task's copy back follows its last threadblock. pagoda.spawn=pipelined
// adds what the lifecycle provably charges (docs/model.md, "Pagoda's
// spawn lifecycle"): no thread starts before the MasterKernel's launch
// call returns (lat.host_issue), no entry is read before it is resident
// (lat.host_launch + lat.kernel_dispatch later), the task spawned last
// is held until a flush re-copies its entry (pagoda.spawn_cycles), and
// the host's waitAll then copies the table back at least once
// (lat.host_launch).
type pathFloors struct {
	issue, launch, dispatch int64 // lat.host_issue, lat.host_launch, lat.kernel_dispatch
	spawn, sched            int64 // pagoda.spawn_cycles, pagoda.sched_cycles
	pipelined               bool
	resident                int64 // when the MasterKernel is resident at the earliest
	cfg                     model.Config

	hq, pg      threadpool.Pool
	hqEnd       int64  // the latest hyperq task's end so far, at the earliest
	pgEnd       int64  // the latest pagoda task's end so far, at the earliest
	lastSpawned int64  // the latest spawn's end, at the earliest
	blocks      int64  // threadblocks read
	tasks       int64  // tasks read
	fig1a       bool   // every task so far has Fig. 1a's shape
	stream      uint64 // the previous task's stream
}

func newPathFloors(cfg model.Config) *pathFloors {
	f := &pathFloors{
		issue: cfg.Lat.HostIssue, launch: cfg.Lat.HostLaunch, dispatch: cfg.Lat.KernelDispatch,
		spawn: cfg.Pagoda.SpawnCycles, sched: cfg.Pagoda.SchedCycles,
		pipelined: cfg.Pagoda.Spawn == "pipelined", fig1a: true,
		cfg: cfg,
	}
	from := int64(0)
	if f.pipelined {
		from = f.issue
		f.resident = f.issue + f.launch + f.dispatch
	}
	f.hq = threadpool.New(cfg.Lat.HostThreads, 0)
	f.pg = threadpool.New(cfg.Lat.HostThreads, from)
	return f
}

// task adds one task, read in trace order: its launch's stream, its
// copies each way and its threadblocks as the driver built them.
func (f *pathFloors) task(stream uint64, in, out replay.TaskCopies, blocks []taskrun.Task) {
	shaped := fig1a(in, stream) && fig1a(out, stream)
	if !shaped || (f.tasks > 0 && stream == f.stream) {
		f.fig1a = false
	}
	f.tasks++
	f.stream = stream
	outMove := f.move(out.N, out.Bytes)
	f.hyperq(in, out, outMove, blocks)
	f.pagoda(outMove, blocks)
}

// move is the least time from the whole-cycle arrival of n copies of
// bytes in all (at their stream, or their task's end) to the last one's
// end: an engine starts them no earlier, charges each io.copy_latency
// and rounds its float clock's end to a whole cycle.
func (f *pathFloors) move(n, bytes int64) int64 {
	return n*f.cfg.IO.CopyLatency + replay.CopyCycles(f.cfg, bytes)
}

// fig1a says a task's calls in one direction are Fig. 1a's for a task
// launched on stream: all on it, none out of order.
func fig1a(c replay.TaskCopies, stream uint64) bool {
	return !c.Apart && (c.N == 0 || c.Stream == stream)
}

// hyperq adds the task's chain under hyperq: its calls are one piece on
// one thread, each copy's wait its own transfer (TaskCopies.Wait).
func (f *pathFloors) hyperq(in, out replay.TaskCopies, outMove int64, blocks []taskrun.Task) {
	before := in.N*f.issue + in.Wait // the calls before the launch
	s := f.hq.Take(before + f.issue + out.N*f.issue + out.Wait)
	launch := s + before
	ready := launch + f.issue + f.launch
	if in.N > 0 {
		ready = max(ready, s+f.issue+f.launch+f.move(in.N, in.Bytes))
	}
	end := ready + f.dispatch + longest(blocks)
	if out.N > 0 {
		end = max(end, launch+2*f.issue+f.launch) + outMove
	}
	f.hqEnd = max(f.hqEnd, end)
}

// pagoda adds the task's threadblocks' chains under pagoda: the first
// carries the task's calls, waits and input (as the driver builds them).
func (f *pathFloors) pagoda(outMove int64, blocks []taskrun.Task) {
	var done int64
	for i := range blocks {
		b := &blocks[i]
		s := f.pg.Take(b.HostCycles + b.CopyWait + f.spawn)
		spawned := s + b.HostCycles + b.CopyWait + f.spawn
		f.lastSpawned = max(f.lastSpawned, spawned)
		visible := max(spawned, s+b.HostCycles+b.CopyIn, f.resident)
		done = max(done, visible+f.sched+longest(blocks[i:i+1]))
	}
	f.blocks += int64(len(blocks))
	f.pgEnd = max(f.pgEnd, done+outMove)
}

// longest is the longest warp of the threadblocks: their time alone.
func longest(blocks []taskrun.Task) int64 {
	var l int64
	for i := range blocks {
		for _, w := range blocks[i].WarpCycles {
			l = max(l, w)
		}
	}
	return l
}

// floors returns the two floors once every task is read: hyperq's is 0
// when a task was not of Fig. 1a's shape.
func (f *pathFloors) floors() (hyperq, pagoda int64) {
	pagoda = f.pgEnd
	if f.pipelined && f.blocks > 0 {
		pagoda = max(pagoda, f.lastSpawned+f.spawn+f.launch)
	}
	if f.fig1a {
		hyperq = f.hqEnd
	}
	return hyperq, pagoda
}
