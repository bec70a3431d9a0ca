package replay

// The device runtime's launch path: the per-SM servers that serve
// cudaLaunchDevice calls (cdp.launch_servers) and the pool of pending
// launches (cdp.pending_limit). Every policy's device launches pass here
// through the site engine; the engine's side (what a launch does to
// kernels, the pool's events) is devlaunch.go. docs/model.md, "The device-runtime launch
// path", says what is modelled and why.

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
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
	hardware bool           // DTBL's launch hardware, not the device runtime
	row      *tables.Launch // a command's launches row, written when it arrives (record)
}

func newLaunchPath(cdp model.CDP, sms int) launchPath {
	return launchPath{cdp: cdp, free: make([]int64, sms*int(cdp.LaunchServers))}
}

// serve is a warp's cudaLaunchDevice call for x lanes on SM sm, made at
// cycle at (its parameter buffers ready), after creating a stream for them
// where create is set: it returns the cycle the call ends and its children
// reach the KMU, its per-warp latency and then its service later at the
// earliest. The call takes the SM's server that frees
// first (the lowest-numbered among equals) and holds it for launch_a·x;
// calls are served in the order their sites were decided. With no
// servers configured every call is served at once.
func (p *launchPath) serve(sm int, at, x int64, create bool) int64 {
	arrive := at + p.latency(create)
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

// paramCost is the cycles x lanes' parameter buffers take
// (cudaGetParameterBuffer).
func (p *launchPath) paramCost(x int64) int64 { return p.cdp.ParamCost(x) }

// service is a cudaLaunchDevice call's per-thread part for x lanes
// (cdp.launch_a·x), as a launch server would serve it.
func (p *launchPath) service(x int64) int64 { return p.cdp.LaunchService(x) }

// latency is a cudaLaunchDevice call's per-warp latency before its
// service, with the warp's stream creation where create is set
// (cdp.stream_create, charged where the trace creates a stream).
func (p *launchPath) latency(create bool) int64 { return p.cdp.LaunchLatency(create) }

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

// enter counts n device launches into the pool and returns how many are
// pending now.
func (p *launchPath) enter(n int64) int64 {
	p.pending += n
	return p.pending
}

// begun is a pending launch's kernel starting: it leaves the pool. It
// reports whether warps wait for room, which may now go on (slotWanted).
func (p *launchPath) begun() bool {
	p.pending--
	return p.waiting() > 0
}

// slotWanted reports whether waiting warps may be let through at an
// evLaunchSlot the caller schedules: one at a time is queued.
func (p *launchPath) slotWanted() bool {
	if p.slotEv {
		return false
	}
	p.slotEv = true
	return true
}

// slotFired is the evLaunchSlot event firing.
func (p *launchPath) slotFired() { p.slotEv = false }

// letThrough takes the oldest waiting warp, whether or not its launches
// fit (launchOverflow).
func (p *launchPath) letThrough() *launchWait {
	lw := p.waiters[p.waitAt]
	p.waiters[p.waitAt] = nil
	p.waitAt++
	return lw
}

// nextFitting takes the oldest waiting warp if its launches fit now, or
// returns nil.
func (p *launchPath) nextFitting() *launchWait {
	if p.waiting() == 0 || !p.fits(p.waiters[p.waitAt].cost.launched) {
		return nil
	}
	return p.letThrough()
}

// recycle keeps a let-through warp's wait for reuse, once its launches
// are made.
func (p *launchPath) recycle(lw *launchWait) {
	lw.c = nil
	p.spare = append(p.spare, lw)
	if p.waitAt == len(p.waiters) {
		p.waiters, p.waitAt = p.waiters[:0], 0
	}
}
