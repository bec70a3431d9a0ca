package replay

// The device runtime: the launch path a device launch takes (the launch
// servers and the pending pool: launchpath.go), KLAP's aggregation at
// kernel scope (klap.go), and the engine's side of what a device launch,
// an aggregated group's arrival and the end of launched work do to
// kernels (the Kernel Distributor, completion), around the site engine
// (sites.go) and the aggregated groups (group.go).

import (
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// deviceRuntime is the device runtime's own state: the launch path, the
// aggregator (nil unless the policy aggregates), and its counts, summed
// into the run's totals at the end. It reaches the clock to schedule its
// events and the site engine to let held warps go on.
type deviceRuntime struct {
	noLifecycle
	clock      *eventClock
	launch     launchPath
	agg        *aggregator
	sites      *siteEngine
	hostLaunch int64 // lat.host_issue + lat.host_launch: a promoted child's way to the KMU

	deviceKernels int64 // device kernels launched (Stats.DeviceKernels)
	launched      int64 // groups launched as kernels less those matched at arrival (Stats.Launched, beside the sites')
	peakPending   int64 // Stats.PeakPending
	overflows     int64 // Stats.LaunchOverflows

	countdown *streamCountdown // GPGPU-Sim's stream manager (lat.stream_countdown > 0), else nil
}

// settle lets GPGPU-Sim's stream manager, where the run has one, see the
// Kernel Distributor at the end of the cycle: an idle GPU ends the first
// waiting head's countdown at once (countdown.go).
func (d *deviceRuntime) settle(kd *kernelDistributor) {
	if s := d.countdown; s != nil {
		s.settle(d.clock, kd)
	}
}

func newDeviceRuntime(c *eventClock, lat model.Latencies, costs model.CDP, sms int, scope Aggregation) deviceRuntime {
	d := deviceRuntime{clock: c, launch: newLaunchPath(costs, sms), hostLaunch: lat.HostIssue + lat.HostLaunch}
	if scope != AggregateNone {
		d.agg = newAggregator(scope)
	}
	return d
}

// links gives the runtime the site engine, built after it.
func (d *deviceRuntime) links(se *siteEngine) { d.sites = se }

// path is the launch path, for the site engine.
func (d *deviceRuntime) path() *launchPath { return &d.launch }

// aggregator is KLAP's aggregator, nil unless the policy aggregates.
func (d *deviceRuntime) aggregator() *aggregator { return d.agg }

// register routes the pool's events to the runtime.
func (d *deviceRuntime) register(c *eventClock) {
	c.on(evLaunchSlot, func(eventq.Event) { d.launchSlots() })
	c.on(evOverflow, func(eventq.Event) { d.launchOverflow() })
	c.on(evCountdown, func(ev eventq.Event) { d.countdown.fire(c, ev) })
}

// counts reports whether device kernel k (with those chained to it), at
// the head of its stream now, waits first for GPGPU-Sim's stream manager
// (countdown.go), which hands it to the Kernel Distributor later; if
// not, the caller queues it for an entry now.
func (d *deviceRuntime) counts(k *Kernel) bool {
	if d.countdown == nil {
		return false
	}
	d.countdown.join(d.clock, k)
	return true
}

// count adds the runtime's counts to s.
func (d *deviceRuntime) count(s *Stats) {
	s.DeviceKernels += d.deviceKernels
	s.Launched += d.launched
	s.PeakPending = max(s.PeakPending, d.peakPending)
	s.LaunchOverflows += d.overflows
}

// launchedBy is child launched now by owner, which waits for it from now
// on.
func (d *deviceRuntime) launchedBy(owner launcher, child *Kernel) {
	child.launchCycle = d.clock.now()
	child.setOwner(owner)
	d.adopted(owner, 1)
}

// kernelDrained is kernel k's CTAs done under KLAP's kernel scope: the
// host launches the children they stored, one aggregated kernel per name,
// lat.host_issue + lat.host_launch from now, as a host launch reaches the
// KMU ("after the parent kernel finishes, the host launches the
// aggregated child": src/Transform/AG/Host.cpp). k completes after them,
// so its stream's next operation follows them. Not a device-runtime
// call: they take no room in the pending pool.
func (d *deviceRuntime) kernelDrained(k *Kernel) {
	for _, child := range d.agg.promoted(k) {
		d.launchedBy(launcher{k: k}, child)
		d.clock.kernel(d.clock.now()+d.hostLaunch, evArrive, child)
	}
}

// launchPending counts a device launch into the pending pool.
func (d *deviceRuntime) launchPending(child *Kernel) {
	child.pendingLaunch = true
	d.pooled(1)
}

// launchBegun is a pending launch's kernel starting its first CTA: it leaves
// the pool. It reports whether warps wait for room in the pool, which the
// caller then lets go on (letWaitersOn). Their event apart, this is small
// enough to inline: under CDP every device kernel's first CTA called it
// (scripts/instructions.sh --quick: BFS 7 instructions a CTA fewer).
func (d *deviceRuntime) launchBegun(k *Kernel) bool {
	if !k.pendingLaunch {
		return false
	}
	k.pendingLaunch = false
	return d.launch.begun()
}

// overflowWhenDry is the replay's queue run dry while warps wait for room
// in the pool: nothing could ever make room (the pending children need
// the SMs their waiting parents hold), so it schedules the overflow now
// and reports whether it did. Dry means every event has been popped:
// contention wake-ups superseded while queued (an SM's next finish moved
// earlier, then its warps stopped at held sites) do not fire, so they
// count as none; checking the queue's length after a cycle instead lets
// such a wake-up hide the stall, and the loop ended on it with the warps
// still held, a deadlock. The overflow is an event of its own so that the
// cycle it releases the warp in is settled (the placer, the contention
// model's rates) like any other.
func (d *deviceRuntime) overflowWhenDry(now int64) bool {
	if d.launch.waiting() == 0 {
		return false
	}
	d.clock.at(now, evOverflow)
	return true
}

// launchOverflow is the oldest waiting warp's launches going to CUDA's
// virtualized pool, over the limit, as the real device runtime does when
// its pool is full ("if it is full, uses the virtualized pool"), where a
// stall would deadlock.
func (d *deviceRuntime) launchOverflow() {
	lw := d.launch.letThrough()
	d.overflows++
	d.sites.release(lw, d.clock.now())
	d.launch.recycle(lw)
}

// launchSlots lets waiting warps through, oldest first, while their
// launches fit.
func (d *deviceRuntime) launchSlots() {
	d.launch.slotFired()
	for {
		lw := d.launch.nextFitting()
		if lw == nil {
			return
		}
		d.sites.release(lw, d.clock.now())
		d.launch.recycle(lw)
	}
}

// launchChildren starts the device kernels the lanes of one site of CTA
// c launch: each exists from the site's cycle, takes its place in its
// stream, and reaches the KMU when the API call returns, at arrive, in
// lane order. One call a site, not a lane: through siteHost, an
// interface, a call each cost CDP's lanes (BFS scale 20 under CDP, some
// 13 a site) its dispatch, its frame and their launcher found again
// (scripts/instructions.sh: 6 instructions a CTA fewer).
//
// Under tie seed 0 the arrival events of a site's lanes, pushed one
// after another for one cycle, fire one after another with no event
// between them, so the first one's event carries them all, chained
// (Kernel.arriveNext), where an event each cost its push, its pop and
// its handler (67 instructions a CTA fewer). Under a seed, which places
// each event among the cycle's others, each keeps its own, and so does a
// kernel in an ordered device stream, which its stream may hold at its
// arrival: the others, chained, arrive (arriveDevice) and wait for an
// entry (kernelDistributor.take) as one.
func (e *engine) launchChildren(c *ctaRun, lanes []siteRec, arrive int64) {
	owner := launcherOf(c)
	var after *Kernel
	for i := range lanes {
		l, child := &lanes[i], lanes[i].child // held: made's and arriveNext's stores might change l.child
		e.dev.made(owner, child)
		switch {
		case ordered(l.kind):
			e.dstreams.enter(child, keyOf(owner, c.idx, l), e.host.freshStream)
			e.clock.arrival(arrive, child)
			after = nil // it arrives alone: its stream may hold it (arriveDevice)
			continue
		case after == nil || e.clock.seeded:
			e.clock.arrival(arrive, child)
		default:
			after.arriveNext = child
		}
		after = child
	}
	e.dev.launchedAll(owner, len(lanes))
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
		e.host.privateStream(child)
		e.enterKD(child, readyAt)
		return
	}
	e.clock.kernel(readyAt, evArrive, child)
}

// launchDevice is a device kernel launched now by owner, which waits for
// it from now on: it enters the pending pool.
func (e *engine) launchDevice(owner launcher, child *Kernel) {
	e.dev.made(owner, child)
	e.dev.launchedAll(owner, 1)
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
		t := e.sites.match(g, e.clock.now())
		e.groups.writeCommand(g, t)
		if t == nil {
			e.launchGroupKernel(g)
			return
		}
		e.dev.matchedAtArrival(g)
		e.groups.attach(g, t)
	}
	// mark's test, here: its call, not inlined where the list's append
	// is, found the target listed for nearly every group (BFS scale 16
	// under DTBL: 13 instructions a group).
	if k := e.groups.join(g); k.state == kReady && !k.marked {
		e.mark(k)
	}
}

// matchedAtArrival is a group sent by command matched when it arrived: if
// its site counted it launched, it was not.
func (d *deviceRuntime) matchedAtArrival(g *group) {
	if g.launched {
		d.launched--
	}
}

// launchGroupKernel launches an unmatched group's child as a device
// kernel now; its launcher already waits for it.
func (e *engine) launchGroupKernel(g *group) {
	child := g.src
	e.dev.launchPending(child)
	child.setOwner(g.owner)
	e.dev.groupLaunched(g)
	e.arriveDevice(child, false)
}

// groupLaunched counts an unmatched group's child launched as a device
// kernel.
func (d *deviceRuntime) groupLaunched(g *group) {
	d.deviceKernels++
	if !g.launched {
		d.launched++
	}
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

// release is a piece of launched work completing. A kernel left with
// other pieces, out of the Kernel Distributor, while no device stream is
// open (whose tail might open), gives drained nothing to do: under CDP
// most releases, a parent whose other children still run, and a call
// of drained for each cost BFS --quick 9 instructions a CTA.
func (e *engine) release(l launcher) {
	if l.g != nil {
		l.g.kids--
		e.maybeGroupDone(l.g)
		return
	}
	if l.k.childDone() || e.dstreams.open() {
		e.maybeComplete(l.k)
	}
}

// letWaitersOn lets warps waiting for room in the pool go on, at an
// evLaunchSlot of their own so that none resumes in the middle of a
// placement; one at a time is queued.
func (d *deviceRuntime) letWaitersOn() {
	if d.launch.slotWanted() {
		d.clock.at(d.clock.now(), evLaunchSlot)
	}
}

// made is child launched now by owner, into the pending pool;
// launchedAll counts it, with the others of its site. A site's lanes
// (BFS scale 20 under CDP: some 13) were counted one by one, into the
// pool, their launcher's children and the run's device kernels, with the
// pool's peak compared at each (scripts/instructions.sh: 4 instructions
// a CTA fewer).
func (d *deviceRuntime) made(owner launcher, child *Kernel) {
	child.pendingLaunch = true
	child.launchCycle = d.clock.now()
	child.setOwner(owner)
}

// launchedAll counts n device kernels launched now by owner (made), which
// waits for them from now on, into the pending pool.
func (d *deviceRuntime) launchedAll(owner launcher, n int) {
	d.pooled(int64(n))
	d.adopted(owner, n)
}

// pooled counts n launches into the pending pool, and its peak.
func (d *deviceRuntime) pooled(n int64) {
	d.peakPending = max(d.peakPending, d.launch.enter(n))
}

// adopted counts n device kernels launched by owner, which waits for
// them from now on.
func (d *deviceRuntime) adopted(owner launcher, n int) {
	owner.adopt(n)
	d.deviceKernels += int64(n)
}

// counting reports whether the runtime holds a stream countdown, whose
// settle swapPlain cannot skip.
func (d *deviceRuntime) counting() bool { return d.countdown != nil }
