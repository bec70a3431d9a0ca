package replay

// Decision is what one launching lane does at a launch site.
type Decision uint8

// The decisions the engine knows how to carry out.
const (
	// Launch starts the child as a device kernel through the CUDA Dynamic
	// Parallelism path: API cost on the warp, then the KMU.
	Launch Decision = iota + 1
	// Inline has the parent lane do the child's work itself; the warp stalls
	// for its longest inlining lane (SIMT).
	Inline
	// Coalesce makes the child an aggregated group of Verdict.Target, an
	// eligible kernel in the Kernel Distributor (DTBL): its CTAs join the
	// target's pool instead of launching a kernel.
	Coalesce
)

func (d Decision) String() string {
	switch d {
	case Launch:
		return "launch"
	case Inline:
		return "inline"
	case Coalesce:
		return "coalesce"
	}
	return "invalid"
}

// outcome is what a lane carried out under decision d did, in the words
// of the summary's counters (launched, inlined, coalesced): the launches
// table's outcome column.
func (d Decision) outcome() string {
	switch d {
	case Launch:
		return "launched"
	case Inline:
		return "inlined"
	case Coalesce:
		return "coalesced"
	}
	return "invalid"
}

// aggregatedOutcome is the launches table's outcome of a lane whose
// launch went into an aggregated kernel (KLAP, Policy.Aggregate): the
// summary counts it among the launched.
const aggregatedOutcome = "aggregated"

// Lane is one lane reaching a launch site, as a policy sees it. Cycles are
// already in replay-GPU cycles.
type Lane struct {
	Lane         int
	ChildKernel  uint64
	ChildName    string
	ChildBlock   [3]uint32
	ChildCTAs    uint64
	Workload     int64
	InlineCycles int64
	// CreatesStream: launched, the lane creates its child's stream first
	// (docs/model.md, "Device streams"), so its warp pays
	// cdp.stream_create.
	CreatesStream bool
}

// Site is a warp reaching a launch statement: every lane of the warp that
// launches there, together, because a SIMT warp executes the call once for
// all its active lanes.
type Site struct {
	ID           uint64
	Cycle        int64
	ParentKernel uint64
	ParentCTA    uint64
	Warp         int
	Lanes        []Lane
	// KD is the Kernel Distributor's kernels in entry order, for policies
	// that look for a kernel to coalesce into. Read-only. Empty for
	// LaunchAll, which never reads it: under it the entries' order is not
	// kept (kd.go).
	KD []*Kernel
}

// Verdict is a policy's answer for one lane. The estimates are optional and
// land in the launches table so a controller's reasoning can be audited.
type Verdict struct {
	Decision     Decision
	Target       *Kernel // for Coalesce: the eligible kernel
	SearchCycles int64   // for Coalesce: Kernel Distributor entries searched
	// Hardware marks a Launch made by the launch hardware rather than the
	// device runtime (DTBL's fallback for a group with no eligible kernel):
	// no cudaLaunchDevice call and no stream creation, the kernel goes to
	// the KMU as soon as its parameter buffer is ready.
	Hardware        bool
	EstChildCycles  *float64
	EstParentCycles *float64
	// QueuedCTAs and ConcurrentCTAs are a controller's view when it
	// decided (SPAWN's n and n_con), for the launches table.
	QueuedCTAs     *int64
	ConcurrentCTAs *float64
}

// SiteDecider is the launch-site decision point: CDP launches everything,
// flat inlines everything, threshold and SPAWN choose per lane.
type SiteDecider interface {
	// Decide fills out[i] with the verdict for s.Lanes[i]. out has exactly
	// len(s.Lanes) entries, each the zero Verdict; s and out are only
	// valid during the call.
	Decide(s *Site, out []Verdict)
}

// Placer is the CTA-placement decision point: which kernel's CTAs go to
// which SM, and when. It is called whenever placement might make progress
// (a kernel became ready, a CTA finished, a stalled CTA started).
type Placer interface {
	Place(d *Dispatch)
}

// Gate is the "may this CTA run yet" decision point. A CTA placed on an SM
// whose gate says no stays resident and stalls (its stall cycles are
// reported) until a later check says yes. The engine re-asks after every
// cycle in which anything changed.
type Gate interface {
	MayStart(k *Kernel, cta uint64) bool
}

// Observer is told of the progress a policy's decisions depend on (SPAWN's
// child-CTA statistics, CRCS's reference counts). Calls happen at the cycle
// of the change, before the engine re-asks the gate and the placer. The
// event is only valid during the call.
type Observer interface {
	CTAStarted(ev *CTAEvent)
	CTAFinished(ev *CTAEvent)
}

// ArrivalObserver is an Observer also told when a device-launched kernel
// reaches the KMU, its launch overhead paid: SPAWN's queuing system counts
// child CTAs from there ("CCQS tracks the child kernel CTAs only *after*
// they are pushed into GMU", SPAWN §IV-A).
type ArrivalObserver interface {
	Observer
	KernelArrived(k *Kernel, cycle int64)
}

// CTAEvent is a CTA starting or finishing.
type CTAEvent struct {
	Kernel *Kernel // the kernel it runs in (for a coalesced group, the target)
	CTA    uint64  // its index in its kernel, or in its group
	Group  bool    // it belongs to an aggregated group
	SM     int
	Cycle  int64 // now
	Start  int64 // when it began executing
	run    *ctaRun
	io     *hostIO // the host stages (RunAfterPrelude)
}

// WarpTimes calls fn with each warp's execution time, launch-site work
// included. Only for a finished CTA. Under the contention model a warp
// without sites runs as part of one job with the CTA's other such warps,
// and its time is the job's run scaled to its own cycles (the job's mean
// rate); a warp with sites has its own end.
func (ev *CTAEvent) WarpTimes(fn func(cycles int64)) {
	c := ev.run
	if len(c.warps) > 0 {
		for _, w := range c.warps {
			fn(w.end - c.start)
		}
		return
	}
	spec := c.spec()
	n := int(c.k.decl.need.warps)
	if spec.warps == nil {
		// Every warp's own time is the CTA's (warpCycles), so is every
		// one's share of the job: worked out once, not once a warp (BFS
		// --quick under SPAWN: some 40 instructions a child CTA).
		t := spec.cycles
		if c.shared {
			t = scaleTime(ev.Cycle-c.start-c.paused, t, c.alone)
		}
		for range n {
			fn(t)
		}
		return
	}
	for w := range n {
		if !c.shared {
			fn(warpCycles(spec, w))
			continue
		}
		fn(scaleTime(ev.Cycle-c.start-c.paused, warpCycles(spec, w), c.alone))
	}
}

// WarpTimeSum is the sum of the times WarpTimes gives and their count,
// the CTA's warps, with no call a warp: a CTA whose warps all take its
// own cycles (most of BFS's children) is one product. SPAWN's t_warp
// averages them, and a call through WarpTimes's func a warp cost BFS
// scale 16 some 110 instructions a finished child CTA.
func (ev *CTAEvent) WarpTimeSum() (sum, warps int64) {
	c := ev.run
	if len(c.warps) > 0 {
		for _, w := range c.warps {
			sum += w.end - c.start
		}
		return sum, int64(len(c.warps))
	}
	spec := c.spec()
	n := int64(c.k.decl.need.warps)
	if spec.warps == nil {
		t := spec.cycles
		if c.shared {
			t = scaleTime(ev.Cycle-c.start-c.paused, t, c.alone)
		}
		return n * t, n
	}
	for w := range int(n) {
		if !c.shared {
			sum += warpCycles(spec, w)
			continue
		}
		sum += scaleTime(ev.Cycle-c.start-c.paused, warpCycles(spec, w), c.alone)
	}
	return sum, n
}

// Policy is a scheduling mechanism: a name plus the decision points it
// overrides. A nil hook keeps the baseline hardware behaviour (CDP launch at
// every site, FCFS round-robin placement, CTAs start as soon as placed).
type Policy struct {
	Name     string
	Sites    SiteDecider
	Placer   Placer
	Gate     Gate
	Observer Observer

	// IO is how the host stages overlap the kernels (when the
	// configuration models host I/O). IOPaged also turns on the CRCS
	// scoreboard: page reference counts gate every host kernel's CTAs.
	IO IOMode
	// OwnStreams runs every host kernel on a stream of its own, so stream
	// order never holds one back (HyperQ tasks; CRCS, whose scoreboard
	// guards the dependencies instead).
	OwnStreams bool
	// Tasks, when set, runs the trace's host kernels as tasks on a
	// software runtime (GeMTC's SuperKernel, Pagoda's MasterKernel)
	// instead of the hardware's kernel path; the other hooks are unused.
	Tasks TaskRuntime
	// ExclusiveSMs keeps CTAs of different kernels off one SM at the same
	// time (CRCS §4.3: without L1 coherence, an SM runs one kernel).
	ExclusiveSMs bool
	// Aggregate fuses the child launches of a warp, a block or a whole
	// kernel into one aggregated kernel per child kernel name (KLAP's
	// kernel launch aggregation: klap.go); AggregateNone launches each
	// lane's child as the site's verdict says.
	Aggregate Aggregation
}
