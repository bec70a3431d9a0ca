package taskrun

import "github.com/gpureplay/gpureplay/internal/eventq"

// lifecycle is what pagoda.spawn=pipelined adds to Pagoda's host around the
// tasks themselves: the MasterKernel's launch before the first spawn,
// §4.2.1's pipelined entries, the flush of the last one and the host's
// waitAll at the end. With pagoda.spawn=direct it is inert.
//
// §4.1: "The MasterKernel continually executes on the GPU as a CUDA
// kernel", so the host launches it once before spawning: the launch call
// holds the host lat.host_issue, and the kernel is resident
// lat.host_launch + lat.kernel_dispatch later, as GeMTC's SuperKernel.
// No scheduler warp reads an entry before then.
//
// §4.2.1: "The launch of a task prompts a copy of its parameters to the
// GPU, as well as a pointer indicating which task had its parameters
// copied in the previous cudamemcopy transaction", so "TA gets scheduled
// only after TB is spawned" (Fig. 2b): a task is schedulable when the
// next spawn's entry has arrived (its own and its input too).
//
// §4.2.2: "If the CPU spawner thread observes no new tasks come in, it
// copies back the status of the last task, i.e. TB, and if it is (-1, 0),
// then sets it to (1, 1) and copies it to the GPU": a thread with nothing
// to spawn now (the queue empty, or its head not due yet) and no spawn
// under way flushes the held task with a copy-back (lat.host_launch) and
// an entry copy (pagoda.spawn_cycles). The paper gives no timeout, so the
// flush is immediate: the least it can cost. A copy-back that finds the
// table full (§4.2.2's lazy update) has shown the held task's status too,
// so the host then flushes it with the entry copy alone: otherwise a table
// whose only free-looking entry is the held task's would wait forever.
//
// Fig. 2b: "waitAll() call copied TaskTable from GPU to CPU": once every
// task is spawned and the trace is over, the host waits for all of them by
// copying the table back, back-to-back (lat.host_launch each); the run
// ends with the first copy-back that ends once the last task has finished
// (the copy-back convention of entryFreed), reported as Drained.
type lifecycle struct {
	pipelined bool
	hostFrom  int64 // when the MasterKernel's launch call returns
	resident  int64 // when the MasterKernel is on the GPU
	held      int32 // the last spawned task, not yet schedulable; -1 none
	flushing  bool  // a thread is flushing held
	closed    bool  // no more tasks will be submitted
	waiting   bool  // the host's waitAll has begun
	waitFrom  int64 // when it began
}

// newLifecycle is the lifecycle for pagoda.spawn: pipelined, with the
// launch's costs, or direct, inert.
func newLifecycle(pipelined bool, issue, launch, dispatch int64) lifecycle {
	l := lifecycle{pipelined: pipelined, held: -1}
	if pipelined {
		l.hostFrom = issue
		l.resident = satAdd(satAdd(issue, launch), dispatch)
	}
	return l
}

// spawnDone: task i's entry is on the GPU. Pipelined, it enables the task
// held before it and is held in turn; direct, it is schedulable itself.
func (p *Pagoda) spawnDone(i int32) {
	if !p.life.pipelined {
		p.enable(i)
		return
	}
	prev := p.life.held
	p.life.held = i
	if prev >= 0 {
		p.enable(prev)
	}
}

// enable makes task i schedulable once its input has arrived and the
// MasterKernel is resident.
func (p *Pagoda) enable(i int32) {
	at := max(p.tasks.at(i).arrives, p.life.resident)
	if at > p.now {
		p.q.Push(eventq.Event{At: at, Kind: uint8(evVisible), Ref: i})
		return
	}
	p.visible(i)
}

// flushDue says an idle host thread should flush the held task: no spawn
// is under way to enable it, and no task is due now.
func (p *Pagoda) flushDue() bool {
	l, h := &p.life, &p.host
	if l.held < 0 || l.flushing || h.spawns > 0 {
		return false
	}
	return h.queue.len() == 0 || p.tasks.at(h.queue.peek()).spawn > p.now
}

// flush starts a thread on the held task's flush: a status copy-back of
// cost cycles (none when one has just arrived) and the entry copy.
func (p *Pagoda) flush(cost int64) {
	p.life.flushing = true
	p.host.spawns++
	at := satAdd(satAdd(p.now, cost), p.spawn)
	p.q.Push(eventq.Event{At: at, Kind: uint8(evFlushed), Ref: p.life.held})
}

// flushed: task i's entry was rewritten on the GPU; unless a later spawn
// enabled it meanwhile, it is schedulable now.
func (p *Pagoda) flushed(i int32) {
	p.life.flushing = false
	p.host.spawns--
	if p.life.held == i {
		p.life.held = -1
		p.enable(i)
	}
	p.hostKick()
	p.startWaitAll()
}

// startWaitAll begins the host's waitAll once the trace is over and every
// task is spawned and schedulable.
func (p *Pagoda) startWaitAll() {
	l, h := &p.life, &p.host
	if !l.pipelined || l.waiting || !l.closed || l.held >= 0 || h.spawns > 0 || h.queue.len() > 0 {
		return
	}
	l.waiting, l.waitFrom = true, p.now
	p.drainIfDone()
}

// drainIfDone schedules the end of waitAll when no task is in flight: the
// first copy-back ending at or after now.
func (p *Pagoda) drainIfDone() {
	if !p.life.waiting || p.tasks.live() > 0 {
		return
	}
	p.q.Push(eventq.Event{At: p.copyBackAfter(p.life.waitFrom), Kind: uint8(evDrained)})
}

// copyBackAfter is when a host copying the table back-to-back from cycle
// from first sees the GPU's table as of now: the end of the first
// copy-back that ends at or after now (at least one); now itself with
// free copy-backs.
func (p *Pagoda) copyBackAfter(from int64) int64 {
	if p.copyBack <= 0 {
		return p.now
	}
	k := max(1, (p.now-from+p.copyBack-1)/p.copyBack)
	if k > (1<<63-1-from)/p.copyBack {
		return 1<<63 - 1
	}
	return from + k*p.copyBack
}
