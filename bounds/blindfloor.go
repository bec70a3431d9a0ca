package bounds

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// The floor that a run's blind launches put under its makespan
// (BlindFloor.Cycles). A lane decided before any device-launched CTA
// has finished is decided with no measurement: SPAWN launches it
// ("if t_cta = 0 then Spawn child kernel", Algorithm 1 lines 2–3), and up
// to the first child CTA's end a SPAWN run is its CDP run, so which lanes
// those are, on which SM and when, is the same in every SPAWN run of a
// trace. Their cudaLaunchDevice calls must all be served by their SMs'
// launch servers (launchPath.serve), and the floor is the earliest the
// busiest of those servers can be done with them, plus what must follow
// the last of them (blindTail).

// blindLoad is one SM's blind runtime launches.
type blindLoad struct {
	first  int64 // the earliest cycle one of the calls reaches the servers
	lanes  int64 // the calls' lanes, summed
	widest int64 // the most lanes in one call
	roots  []*blindRoot
}

// BlindFloor is the floor's analysis: it gathers the blind launches per
// SM (BlindCall), and what follows them in their host kernels' streams
// (blindtail.go).
type BlindFloor struct {
	replay.NoAnalysis
	cdp model.CDP // the device-runtime costs, converted as the engine's (cfg.LaunchCosts)
	sms []blindLoad
	blindTail
}

// NewBlindFloor is the blind floor of a run on cfg.
func NewBlindFloor(cfg model.Config) *BlindFloor {
	return &BlindFloor{cdp: cfg.LaunchCosts(), sms: make([]blindLoad, cfg.GPU.SMs), blindTail: newBlindTail(cfg)}
}

// CTAStarted adds a host CTA of a watched stream to its kernel's load.
func (b *BlindFloor) CTAStarted(ev *replay.CTAEvent) { b.cta(ev) }

// KernelDone adds a watched stream's operation to its sum.
func (b *BlindFloor) KernelDone(k *replay.Kernel) { b.done(k) }

// BlindCall is a blind site's call for x runtime lanes of kernel k on SM
// sm reaching the launch path at cycle arrive at the earliest (a site
// held for room in the pending pool reaches it later, which only raises
// the floor).
func (b *BlindFloor) BlindCall(sm int, k *replay.Kernel, arrive, x int64) {
	l := &b.sms[sm]
	if l.lanes == 0 || arrive < l.first {
		l.first = arrive
	}
	l.lanes += x
	l.widest = max(l.widest, x)
	if r := b.root(k); len(l.roots) == 0 || l.roots[len(l.roots)-1] != r {
		l.roots = append(l.roots, r)
	}
}

// cycles is the floor: over SMs, the earliest cycle its servers can have
// served its blind calls, plus what must follow. A call holds one server
// for launch_a per lane, a warp's lanes together (launchPath.serve), and
// a server serves one call at a time, so of an SM's n servers the busiest
// carries at least ceil(lanes/n) of its blind lanes and at least its
// widest call, none of them begun before the SM's first call arrived.
// That server ends its last blind call no earlier than first +
// launch_a·load; the call's children reach the KMU then and take
// lat.kernel_dispatch before they can run, and its host kernel completes
// after them, then the operations behind it in its stream (blindTail):
// the least of that over the SM's calls' host kernels follows. With no
// servers configured every call is served at once: the widest call
// alone.
func (b *BlindFloor) Cycles() int64 {
	n := b.cdp.LaunchServers
	var floor int64
	for _, l := range b.sms {
		if l.lanes == 0 {
			continue
		}
		load := l.widest
		if n > 0 {
			load = max(load, (l.lanes+n-1)/n)
		}
		floor = max(floor, l.first+b.cdp.LaunchService(load)+b.dispatch+b.least(l.roots))
	}
	return floor
}
