package replay

// The device runtime's launch path: the per-SM servers that serve
// cudaLaunchDevice calls (cdp.launch_servers) and the pool of pending
// launches (cdp.pending_limit). Every policy's device launches pass here
// through the site engine; docs/model.md, "The device-runtime launch
// path", says what is modelled and why.

import (
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
)

// launchPath holds the launch servers' state and the pending-launch pool.
type launchPath struct {
	cdp     model.CDP
	free    []int64 // per SM × server: the cycle the server is next free
	pending int64   // device launches made and not yet begun to execute
	waiters []*launchWait
	waitAt  int  // waiters[:waitAt] have been let through
	slotEv  bool // an evLaunchSlot event is queued
	spare   []*launchWait
}

// launchWait is a warp held at a site because the pending-launch pool
// is full: its site has been decided, and its launches wait for room.
type launchWait struct {
	c           *ctaRun
	w           int
	first, last int // the site's lanes in the CTA's sites
	since       int64
	cost        siteCost
	reqs        []launchReq
}

// launchReq is one lane's launch at a site.
type launchReq struct {
	lane     siteRec
	hardware bool            // DTBL's launch hardware, not the device runtime
	row      *results.Launch // a command's launches row, written when it arrives (record)
}

func newLaunchPath(cdp model.CDP, sms int) launchPath {
	return launchPath{cdp: cdp, free: make([]int64, sms*int(cdp.LaunchServers))}
}

// serve is a warp's cudaLaunchDevice call for x lanes on SM sm, made at
// cycle at (its parameter buffers ready): it returns the cycle the call
// ends and its children reach the KMU, its per-warp latency and then its
// service later at the earliest. The call takes the SM's server that frees
// first (the lowest-numbered among equals) and holds it for launch_a·x;
// calls are served in the order their sites were decided. With no
// servers configured every call is served at once.
func (p *launchPath) serve(sm int, at, x int64) int64 {
	arrive := at + p.cdp.LaunchLatency()
	service := p.cdp.LaunchService(x)
	n := int(p.cdp.LaunchServers)
	if n == 0 {
		return arrive + service
	}
	servers := p.free[sm*n : (sm+1)*n]
	best := 0
	for i, f := range servers {
		if f < servers[best] {
			best = i
		}
	}
	end := max(arrive, servers[best]) + service
	servers[best] = end
	return end
}

// admit reports whether x launches may enter the pending pool now: no
// warp is waiting ahead of them and they fit under the limit, or the
// pool is empty (a warp with more lanes than the limit launches alone
// rather than never).
func (p *launchPath) admit(x int64) bool {
	if p.cdp.PendingLimit == 0 {
		return true
	}
	if p.waitAt < len(p.waiters) {
		return false
	}
	return p.pending == 0 || p.pending+x <= p.cdp.PendingLimit
}

// fits reports whether the oldest waiting warp's launches may enter now.
func (p *launchPath) fits(x int64) bool {
	return p.pending == 0 || p.pending+x <= p.cdp.PendingLimit
}

// hold queues a warp whose launches do not fit, keeping a copy of them.
func (p *launchPath) hold(c *ctaRun, w, first, last int, since int64, cost siteCost, reqs []launchReq) {
	var lw *launchWait
	if n := len(p.spare); n > 0 {
		lw = p.spare[n-1]
		p.spare = p.spare[:n-1]
	} else {
		lw = new(launchWait)
	}
	*lw = launchWait{c: c, w: w, first: first, last: last, since: since, cost: cost,
		reqs: append(lw.reqs[:0], reqs...)}
	p.waiters = append(p.waiters, lw)
}

// waiting is the number of warps held for room in the pool.
func (p *launchPath) waiting() int { return len(p.waiters) - p.waitAt }

// launchPending counts a device launch into the pending pool.
func (e *engine) launchPending(child *Kernel) {
	child.pendingLaunch = true
	e.launch.pending++
	e.stats.PeakPending = max(e.stats.PeakPending, e.launch.pending)
}

// launchBegun is a pending launch's kernel starting its first CTA: it leaves
// the pool. Waiting warps are let through at an event of their own, so
// none resumes in the middle of a placement.
func (e *engine) launchBegun(k *Kernel) {
	if !k.pendingLaunch {
		return
	}
	k.pendingLaunch = false
	p := &e.launch
	p.pending--
	if p.waiting() > 0 && !p.slotEv {
		p.slotEv = true
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
	p := &e.launch
	lw := p.waiters[p.waitAt]
	p.waiters[p.waitAt] = nil
	p.waitAt++
	e.stats.LaunchOverflows++
	e.sites.release(lw)
	p.recycle(lw)
}

func (p *launchPath) recycle(lw *launchWait) {
	lw.c = nil
	p.spare = append(p.spare, lw)
	if p.waitAt == len(p.waiters) {
		p.waiters, p.waitAt = p.waiters[:0], 0
	}
}

// launchSlots lets waiting warps through, oldest first, while their
// launches fit.
func (e *engine) launchSlots() {
	p := &e.launch
	p.slotEv = false
	for p.waiting() > 0 {
		lw := p.waiters[p.waitAt]
		if !p.fits(lw.cost.launched) {
			break
		}
		p.waiters[p.waitAt] = nil
		p.waitAt++
		e.sites.release(lw)
		p.recycle(lw)
	}
}
