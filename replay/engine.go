package replay

// The engine: one replay's state, its event loop (the clock, the queue
// in (cycle, tie key) order, the end-of-cycle settle, the checkpoints)
// and the dispatch of each event to the component it is for.

import (
	"math"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/internal/slots"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
)

// engine is one replay: the clock and the queue, the configuration and
// the policy, and each component as a field of its own (the SMs, the CTA
// records, the Kernel Distributor, the host's streams and I/O, the
// device runtime, the scoreboard), whose state is private to it. The
// engine's methods fire events at them and carry what one component's
// change means for another (docs/architecture.md).
type engine struct {
	cfg      model.Config
	pol      Policy
	sink     tables.Sink
	quiet    bool // the sink keeps no rows (tables.Discards): none is built
	opt      *Options
	dispatch Dispatch // the placer's view, made once: Place escapes it

	q    eventq.Queue
	now  int64
	host *ingest.Streams // the host operations, one ahead of the simulated host (NextHost)
	body *bodyCursor

	io          *hostIO
	sb          *scoreboard // the CRCS reference count table (IOPaged only)
	accessOrder bool        // the scoreboard checks CTAs at each touch (touch.go)
	hostOrder   int32       // host launches read so far
	kernelsEnd  int64       // the last kernel's completion
	firstLaunch int64       // the first host issue (-1 before)

	hosts      hostThreads
	hostKernel []*Kernel         // host kernels issued, body not loaded yet (issue order)
	hostLoaded int               // host kernels whose bodies were loaded
	streams    hostStreams       // streams, task groups, `after` waits (streams.go)
	dstreams   deviceStreams     // ordered device streams (devstreams.go)
	legacy     *legacyGate       // copies on the legacy default stream (io.memcpy=legacy), else nil
	kd         kernelDistributor // the KMU's queue, the Kernel Distributor's entries, the FCFS list (kd.go)

	sms      smArray              // the SMs: slots, resources, occupancy, the contention model (sm.go)
	ctas     ctaRuns              // the CTA records and the CTAs waiting to go on (ctaruns.go)
	kslots   slots.Table[*Kernel] // kernels with an event pending (events name them by slot, holding no pointer)
	groups   groupTable           // DTBL's aggregated groups and the AGT (group.go)
	gate     Gate
	obs      Observer        // the policy's observer, then the analyses; nil for neither
	arrivals ArrivalObserver // the policy's observer, when it is one; else nil
	an       Analysis        // the analyses (Options.Analyses); nil for none
	ev       CTAEvent        // reused for every observer call
	placer   Placer
	sites    siteEngine  // the device runtime's launch sites (sites.go)
	launch   launchPath  // the device runtime's launch servers and pending pool
	tasks    *taskDriver // the narrow-task runtime (Policy.Tasks), else nil
	err      error

	stats Stats
	busy  busySpan

	parentIDs slab[uint64] // device kernel rows' parent ids

	agg *aggregator // KLAP's launch aggregation (klap.go); nil unless Policy.Aggregate
}

func newEngine(opt Options, sink tables.Sink) *engine {
	e := &engine{
		cfg:      opt.Config,
		pol:      opt.Policy,
		sink:     sink,
		quiet:    tables.Discards(sink),
		opt:      &opt,
		streams:  newHostStreams(opt.Policy.OwnStreams || opt.Policy.IO == IOPaged),
		dstreams: newDeviceStreams(),
		kd:       newKernelDistributor(opt.Config.GPU.MaxKernels),
		gate:     opt.Policy.Gate,
		an:       joinAnalyses(opt.Analyses),
		placer:   opt.Policy.Placer,

		firstLaunch: -1,
		hosts:       newHostThreads(opt.Config.Lat.HostThreads),
	}
	var l1Flush int64
	if opt.Policy.ExclusiveSMs {
		l1Flush = opt.Config.CRCS.L1Flush
	}
	// A task runtime models contention itself (taskrun).
	shared := opt.Config.Model.Contention == "on" && opt.Policy.Tasks == nil
	e.sms = newSMArray(&e.cfg, opt.Policy.ExclusiveSMs || opt.Config.GPU.ExclusiveSMs(), shared, l1Flush, sink, &e.q)
	e.q.SetTieSeed(uint64(opt.Config.Model.TieSeed))
	e.dispatch.e = e
	if e.placer == nil {
		e.placer = &RoundRobin{}
	}
	var rows tables.Sink // the launches rows, written by the device runtime
	if !e.quiet {
		rows = sink
	}
	e.launch = newLaunchPath(e.cfg.LaunchCosts(), e.sms.count())
	e.groups = newGroupTable(opt.Config.DTBL.AGTEntries, opt.Config.GPU.MaxCTAsPerSM, &e.q, &e.stats, rows)
	if opt.Policy.Aggregate != AggregateNone {
		e.agg = newAggregator(opt.Policy.Aggregate)
	}
	e.sites = newSiteEngine(opt.Policy.Sites, siteLinks{
		host: e, launch: &e.launch, groups: &e.groups, agg: e.agg, kd: &e.kd,
		stats: &e.stats, rows: rows, an: e.an, policy: opt.Policy.Name,
	}, e.cfg.DTBL.Fallback == "dispatch")
	if opt.Config.IO.Memcpy == "legacy" {
		e.legacy = &legacyGate{}
	}
	e.obs = watching(opt.Policy.Observer, e.an)
	e.arrivals, _ = opt.Policy.Observer.(ArrivalObserver)
	if opt.Policy.Tasks != nil {
		e.tasks = newTaskDriver(e, &opt, sink, e.an)
	}
	return e
}

// start reads the header and the buffers, plans the host stages (building
// the CRCS reference count table first when the policy needs it) and
// schedules the host's first launch.
func (e *engine) start(open Opener) error {
	h, err := e.body.readHeader()
	if err != nil {
		return err
	}
	clk, err := newClock(h.ClockMHz, e.cfg.GPU.ClockMHz)
	if err != nil {
		return err
	}
	e.body.setClock(clk)
	space := e.body.pages()
	io := e.cfg.IO
	e.io = newHostIO(io.Model == "stages", e.pol.IO, space, !e.quiet, e.cfg.GPU.ClockMHz, io.SSDMBps, io.PCIeGBps)
	if err := checkPages(space, e.io.modelled(), e.pol.IO == IOPaged, !e.quiet); err != nil {
		return err
	}
	if e.pol.IO == IOPaged {
		if err := e.profile(open, space); err != nil {
			return err
		}
	}
	e.io.plan(e.sink)
	if e.sb != nil {
		e.sb.start(e.io, e.sink)
		e.nextPage()
	}
	return e.readHost()
}

// profile builds the CRCS reference count table from a pass of its own
// over the trace, as the pre-profiler runs before the kernels (§4.2).
func (e *engine) profile(open Opener, space *pageSpace) error {
	src, err := open()
	if err != nil {
		return err
	}
	defer closeSource(src)
	exact := e.cfg.CRCS.Pages == "exact"
	sb, err := profileRefs(src, exact, space, e.io.modelled(), e.cfg.CRCS.Share == "available")
	if err != nil {
		return err
	}
	e.sb = sb
	e.accessOrder = sb.accessPositioned() && e.cfg.CRCS.Gate == "access"
	touches := touchNone
	switch {
	case e.accessOrder:
		touches = touchAll
	case e.cfg.CRCS.Irregular == "ready":
		touches = touchIrregular
	}
	e.body.setRefs(&refSource{exact: exact, space: space}, sb.irregularKernels(), touches)
	return nil
}

// nextPage schedules the next prelude page's arrival on the GPU.
func (e *engine) nextPage() {
	if p, at, ok := e.io.nextReady(); ok {
		e.q.Push(eventq.Event{At: at, Kind: uint8(evPageReady), Ref: int32(p)})
	}
}

// loop fires events in (cycle, tie key) order until none are left and no
// warp waits for room in the pending pool, or, with the cycle settled,
// the next event is past until: then it reports paused, and a later loop
// goes on from there (the golden cases that show the components' state
// mid-run). Run passes math.MaxInt64, for which the test is one
// comparison an event.
func (e *engine) loop(until int64) (paused bool, err error) {
	var batch int
	fired := false // an event has fired since the last settle
	for e.q.Len() > 0 || e.overflowWhenDry() {
		if until != math.MaxInt64 && !fired && e.q.Peek() > until {
			return true, nil
		}
		ev := e.q.Pop()
		if err := checkHorizon(ev.At); err != nil {
			return false, err
		}
		if !e.stale(ev) {
			e.now = ev.At
			e.fire(ev)
			fired = true
		}
		if e.err != nil {
			return false, e.err
		}
		if fired && (e.q.Len() == 0 || e.q.Peek() != e.now) {
			fired = false
			e.settle()
			if e.err != nil {
				return false, e.err
			}
		}
		if batch++; batch&0xffff == 0 {
			if err := e.opt.checkpoint(e.stats.CTAs, e.now); err != nil {
				return false, err
			}
		}
	}
	if e.tasks != nil {
		return false, e.tasks.stuck()
	}
	if e.streams.busy() || e.hosts.planned() {
		return false, e.deadlock()
	}
	return false, nil
}

// stale reports whether ev is a contention wake-up the model has since
// superseded: it does nothing, so it neither moves the clock (a run's
// makespan is its last event's cycle) nor ends a cycle.
func (e *engine) stale(ev eventq.Event) bool {
	return eventKind(ev.Kind) == evShare && e.sms.contention().stale(int(ev.Ref), uint32(ev.Aux))
}

func (e *engine) fire(ev eventq.Event) {
	switch eventKind(ev.Kind) {
	case evHostIssue:
		e.issue(e.kernelOf(ev))
	case evArrive:
		if ev.Aux == deviceArrival {
			e.arriveDevice(e.kernelOf(ev))
			break
		}
		e.arrive(e.kernelOf(ev))
	case evReady:
		e.becomeReady(e.kernelOf(ev))
	case evSite:
		e.sites.reach(e.ctas.at(ev.Ref), int(ev.Aux), e.now)
	case evCTAEnd:
		e.ctaEnd(e.ctas.at(ev.Ref))
	case evStart:
		e.tryStart(e.ctas.at(ev.Ref))
	case evJoin:
		e.arriveGroup(e.groups.arrived(ev.Ref))
	case evCopyDone:
		e.copyDone(e.kernelOf(ev))
	case evPageReady:
		e.sb.ready(e.io, e.sink, int(ev.Ref), e.now)
		e.nextPage()
	case evShare:
		e.shareWake(ev)
	case evResume:
		e.resumeWarp(e.ctas.at(ev.Ref), int(ev.Aux))
	case evTouch:
		e.reachTouch(e.ctas.at(ev.Ref))
	case evProfiled:
		e.kernelOf(ev)
		e.sb.wake() // its stalled CTAs may start now
	case evLaunchSlot:
		e.launchSlots()
	case evOverflow:
		e.launchOverflow()
	case evTasks:
		e.advanceTasks()
	case evIssue:
		// settle releases the holds due and places
	}
}

// settle runs the decisions that depend on the state at the end of a cycle:
// stalled CTAs re-ask the gate, then the placer fills free room.
func (e *engine) settle() {
	if e.ctas.waiting() && (e.gate != nil || e.sb.changedSince()) {
		e.retryPaused()
		e.retryStalled()
	}
	if len(e.kd.listed()) > 0 {
		e.sms.releaseIssued(e.now)
		e.placer.Place(&e.dispatch)
		e.kd.compact()
		if len(e.kd.listed()) > 0 {
			if at, ok := e.sms.issueWake(); ok {
				e.q.Push(eventq.Event{At: at, Kind: uint8(evIssue)})
			}
		}
	}
	if e.sms.contention() != nil {
		e.sms.contention().settle(e.now)
	}
}

// scheduleKernel schedules a kernel event. A kernel has at most one event
// pending (issue, then arrival, then readiness), so it holds a slot in the
// kernel table only while one is.
//
// A host call's issue, arrival and readiness keep their order within a
// cycle under a tie seed (model.tie_seed): that order is the program's (a
// stream's calls queue in it, a call's `after` names calls issued before
// it, the KMU dispatches host kernels in it, and the CRCS scoreboard gives
// a page to the earlier kernel first), not a tie the model leaves open.
//
// A device kernel's arrival and readiness come a latency after the cycle
// that schedules them (a launch's cost, the dispatch), tens of thousands
// pending at once under CDP: they go in the queue's runs of their delays
// (eventq.PushDelayed), which keeps its heap small; the order events fire
// in is the same.
func (e *engine) scheduleKernel(at int64, kind eventKind, k *Kernel) {
	ev := eventq.Event{At: at, Kind: uint8(kind), Ref: e.kslots.Put(k)}
	switch {
	case (kind == evHostIssue || kind == evArrive || kind == evReady) && (k.host || k.copyOp() != nil):
		e.q.PushOrdered(ev)
	case kind == evArrive || kind == evReady:
		if kind == evArrive {
			ev.Aux = deviceArrival
		}
		e.q.PushDelayed(at-e.now, ev)
	default:
		e.q.Push(ev)
	}
}

// deviceArrival marks, in Aux, the arrival of a device kernel: when it
// fires, the engine goes on without reading the kernel (arriveDevice).
const deviceArrival = 1

// kernelOf returns a kernel event's kernel and frees its slot.
func (e *engine) kernelOf(ev eventq.Event) *Kernel { return e.kslots.Take(ev.Ref) }

// scheduleCTA schedules a CTA event; warp matters for launch sites.
func (e *engine) scheduleCTA(at int64, kind eventKind, c *ctaRun, warp int) {
	e.q.Push(eventq.Event{At: at, Kind: uint8(kind), Ref: c.slot, Aux: int32(warp)})
}

func (e *engine) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}
