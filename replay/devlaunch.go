package replay

// The engine's side of the device runtime: what a device launch, an
// aggregated group's arrival and the end of launched work do to kernels
// (the Kernel Distributor, completion), around the runtime's components:
// the site engine (sites.go), the launch path (launchpath.go) and the
// aggregated groups (group.go).

import "github.com/gpureplay/gpureplay/internal/eventq"

// launchChild starts the device kernel lane l of CTA c launches: it
// exists from the site's cycle, takes its place in its stream, and
// reaches the KMU when the API call returns.
func (e *engine) launchChild(c *ctaRun, l *siteRec, arrive int64) {
	owner := launcherOf(c)
	e.launchDevice(owner, l.child)
	if ordered(l.kind) {
		e.dstreams.enter(l.child, keyOf(owner, c.idx, l), e.streams.fresh)
	}
	e.scheduleKernel(arrive, evArrive, l.child)
}

// launchHardware starts a device kernel the way DTBL's launch hardware
// does for a group with no eligible kernel: the SMX scheduler gives it a
// Kernel Distributor entry at once, if one is free and no kernel is queued
// for one, so later groups can coalesce into it; its CTAs become ready when
// its parameter buffer is (readyAt). Otherwise it queues at the KMU like
// any device kernel.
func (e *engine) launchHardware(owner launcher, child *Kernel, readyAt int64) {
	e.launchDevice(owner, child)
	if e.kd.free() {
		e.streams.privateStream(child)
		e.enterKD(child, readyAt)
		return
	}
	e.scheduleKernel(readyAt, evArrive, child)
}

// launchDevice is a device kernel launched now by owner, which waits for
// it from now on: it enters the pending pool.
func (e *engine) launchDevice(owner launcher, child *Kernel) {
	e.launchPending(child)
	e.launchedBy(owner, child)
}

// launchedBy is child launched now by owner, which waits for it from now
// on.
func (e *engine) launchedBy(owner launcher, child *Kernel) {
	child.launchCycle = e.now
	child.owner = owner
	owner.adopt()
	e.stats.DeviceKernels++
}

// promote is kernel k's CTAs done under KLAP's kernel scope: the host
// launches the children they stored, one aggregated kernel per name,
// lat.host_issue + lat.host_launch from now, as a host launch reaches the
// KMU ("after the parent kernel finishes, the host launches the
// aggregated child": src/Transform/AG/Host.cpp). k completes after them,
// so its stream's next operation follows them. Not a device-runtime
// call: they take no room in the pending pool.
func (e *engine) promote(k *Kernel) {
	for _, child := range e.agg.promoted(k) {
		e.launchedBy(launcher{k: k}, child)
		e.scheduleKernel(e.now+e.cfg.Lat.HostIssue+e.cfg.Lat.HostLaunch, evArrive, child)
	}
}

// launchPending counts a device launch into the pending pool.
func (e *engine) launchPending(child *Kernel) {
	child.pendingLaunch = true
	e.stats.PeakPending = max(e.stats.PeakPending, e.launch.enter())
}

// launchBegun is a pending launch's kernel starting its first CTA: it leaves
// the pool. Waiting warps are let through at an event of their own, so
// none resumes in the middle of a placement.
func (e *engine) launchBegun(k *Kernel) {
	if !k.pendingLaunch {
		return
	}
	k.pendingLaunch = false
	if e.launch.begun() {
		e.q.Push(eventq.Event{At: e.now, Kind: uint8(evLaunchSlot)})
	}
}

// overflowWhenDry is the replay's queue run dry while warps wait for room
// in the pool: nothing could ever make room (the pending children need
// the SMs their waiting parents hold), so it schedules the overflow now
// and reports whether it did. Dry means every event has been popped:
// contention wake-ups superseded while queued (an SM's next finish moved
// earlier, then its warps stopped at held sites) do not fire, so they
// count as none; checking the queue's length after a cycle instead lets
// such a wake-up hide the stall, and the loop ended on it with the warps
// still held, a deadlock. The
// overflow is an event of its own so that the cycle it releases the warp
// in is settled (the placer, the contention model's rates) like any other.
func (e *engine) overflowWhenDry() bool {
	if e.launch.waiting() == 0 {
		return false
	}
	e.q.Push(eventq.Event{At: e.now, Kind: uint8(evOverflow)})
	return true
}

// launchOverflow is the oldest waiting warp's launches going to CUDA's
// virtualized pool, over the limit, as the real device runtime does when
// its pool is full ("if it is full, uses the virtualized pool"), where a
// stall would deadlock.
func (e *engine) launchOverflow() {
	lw := e.launch.letThrough()
	e.stats.LaunchOverflows++
	e.sites.release(lw, e.now)
	e.launch.recycle(lw)
}

// launchSlots lets waiting warps through, oldest first, while their
// launches fit.
func (e *engine) launchSlots() {
	e.launch.slotFired()
	for {
		lw := e.launch.nextFitting()
		if lw == nil {
			return
		}
		e.sites.release(lw, e.now)
		e.launch.recycle(lw)
	}
}

// arriveGroup is a group's launch command reaching the SMX scheduler.
// A group matched at its site joins its target; one sent by command is
// matched now, and with no eligible kernel is launched as a new device
// kernel (DTBL §4.2: "If none are found, the aggregated group is launched
// as a new device kernel"): it goes to the KMU and pays
// lat.kernel_dispatch like any kernel, with no cudaLaunchDevice call and
// no stream creation (DTBL Table 3 marks only those "CDP only").
func (e *engine) arriveGroup(g *group) {
	if g.target == nil {
		t := e.sites.match(g, e.now)
		e.groups.writeCommand(g, t)
		if t == nil {
			e.launchGroupKernel(g)
			return
		}
		if g.launched {
			e.stats.Launched--
		}
		e.groups.attach(g, t)
	}
	e.mark(e.groups.join(g))
}

// launchGroupKernel launches an unmatched group's child as a device
// kernel now; its launcher already waits for it.
func (e *engine) launchGroupKernel(g *group) {
	child := g.src
	e.launchPending(child)
	child.owner = g.owner
	e.stats.DeviceKernels++
	if !g.launched {
		e.stats.Launched++
	}
	e.arrive(child)
}

// mark puts a ready kernel with CTAs to place back into the FCFS list, in
// its original order.
func (e *engine) mark(k *Kernel) {
	if k.state != kReady || k.marked {
		return
	}
	k.marked = true
	e.kd.list(k)
}

// groupCTAsDone is a group's last CTA ending: its table entry frees and
// its target no longer waits for it.
func (e *engine) groupCTAsDone(g *group) {
	e.maybeComplete(e.groups.ctasDone(g))
	e.maybeGroupDone(g)
}

// maybeGroupDone completes a group whose CTAs and launched work are done,
// releasing whoever launched it.
func (e *engine) maybeGroupDone(g *group) {
	switch {
	case g.done < g.src.total:
	case g.kids == 0:
		e.release(g.owner)
	default:
		e.openTail(launcher{g: g}, g.kids)
	}
}

// release is a piece of launched work completing.
func (e *engine) release(l launcher) {
	if l.g != nil {
		l.g.kids--
		e.maybeGroupDone(l.g)
		return
	}
	l.k.kids--
	e.maybeComplete(l.k)
}
