package replay

import (
	"context"
	"errors"
	"io"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/internal/slots"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/trace"
)

// Options are the knobs of one replay besides the trace.
type Options struct {
	Config model.Config
	Policy Policy
	// Progress, when set, is called now and then with the number of CTAs
	// finished so far and the simulated cycle reached, so a command can
	// show that a long run is alive (and moving through idle time too).
	Progress func(ctasDone, cycle int64)
	// Context, when set, stops the run once it is done (another replay of
	// a study failed, say): Run returns the context's error. It is checked
	// as often as Progress is called.
	Context context.Context
	// Prefetch decodes and validates the trace's bodies on a second
	// goroutine, a bounded window of records ahead of the engine
	// (trace.Prefetcher), files an ordered_trees trace's launch trees on
	// a third (treeAhead), and runs the host cursor's pass on a fourth
	// (unless the trace has a host index, which the pass reads instead):
	// a single replay then uses two cores. Leave it off when as many
	// replays run at once as there are cores.
	Prefetch bool
	// Analyses are told of the run's events and compute what they will
	// beside it (Analysis; package bounds: the floors cmd/experiment
	// compares runs against). A run without any pays nothing for them.
	Analyses []Analysis
}

// checkpoint is where a long loop looks up now and then (every 65536
// steps): it returns the context's error once the run is to stop, and
// otherwise reports progress.
func (o *Options) checkpoint(ctas, cycle int64) error {
	if o.Context != nil {
		if err := o.Context.Err(); err != nil {
			return err
		}
	}
	if o.Progress != nil {
		o.Progress(ctas, cycle)
	}
	return nil
}

// Run replays the trace open returns under opt and streams result rows into
// sink. It returns the run's totals. Errors in the trace come back as they
// are (*trace.Error); a run that cannot make progress returns a
// *DeadlockError; a trace the GPU cannot run at all (a CTA larger than an
// SM) returns a *ModelError.
func Run(open Opener, opt Options, sink results.Sink) (*Stats, error) {
	if err := opt.Config.Validate(); err != nil {
		return nil, err
	}
	if opt.Policy.Tasks != nil {
		return runTasks(open, opt, sink)
	}
	hostSrc, err := open()
	if err != nil {
		return nil, err
	}
	defer closeSource(hostSrc)
	bodySrc, err := open()
	if err != nil {
		return nil, err
	}
	defer closeSource(bodySrc)

	e := newEngine(opt, sink)
	// Only the body cursor validates: the host cursor passes over the same
	// records first, but every launch it yields is validated by the body
	// cursor before the kernel can reach the Kernel Distributor, so checking
	// twice would only cost time. Decoding errors surface on either.
	index, err := trace.HostIndexOf(hostSrc) // nil: the host cursor skims the stream
	if err != nil {
		return nil, err
	}
	e.host.src = hostSrc
	if index != nil {
		e.host.src = index.Source()
	} else {
		skimHost(hostSrc)
	}
	if s, ok := bodySrc.(interface {
		ReuseRecords()
		ReuseWarpCycles()
	}); ok {
		// The tree reader copies what it keeps, and a Prefetcher has its
		// Reader decode launch, cta and kernel records into its batches'
		// own storage (trace/slab.go), or copies them there.
		s.ReuseRecords()
		s.ReuseWarpCycles()
	}
	body := bodySrc
	if index != nil {
		// The host operations the engine issues come from the index, a
		// second copy of the stream's: the bodies' read holds each of
		// the stream's against it before validating it. A run that
		// completes has read the bodies to the trace's end (the last
		// host kernel's segment ends only there), so every one is held,
		// copies after the last launch too.
		body = index.Check(bodySrc)
	}
	e.body = newBodyCursor(trace.NewValidator(body), e.hostByIndex)
	e.body.r.pageBytes = opt.Config.IO.PageBytes
	e.body.r.stages = opt.Config.IO.Model == "stages"
	// Defers run last first: the readers ahead stop before their sources
	// close.
	defer e.body.close()
	if opt.Prefetch && index == nil {
		// Without an index the host cursor's pass decodes the whole trace
		// to skip the bodies, time the engine would otherwise spend
		// between two host launches: it reads ahead on a goroutine of its
		// own. The bodies do too (bodyCursor.readAhead, once start has
		// set the tree reader up).
		e.host.src = prefetch(hostSrc)
		defer closeSource(e.host.src)
	}
	if err := e.start(open); err != nil {
		return nil, err
	}
	if opt.Prefetch {
		e.body.readAhead()
	}
	if err := e.loop(); err != nil {
		return nil, err
	}
	s := e.finish()
	if err := checkHorizon(s.MakespanCycles); err != nil {
		return nil, err
	}
	return s, nil
}

// skimHost makes a trace reader pass over every record but host launches
// and copies without building them (trace.Reader.Skip).
func skimHost(src trace.Source) {
	if s, ok := src.(interface{ Skip(...trace.Kind) }); ok {
		s.Skip(trace.KindCTA, trace.KindKernel, trace.KindAccess, trace.KindPages, trace.KindBuffer)
	}
	if s, ok := src.(interface{ SkipDeviceLaunches() }); ok {
		s.SkipDeviceLaunches()
	}
}

// prefetch reads s on a goroutine of its own (trace.Prefetcher).
func prefetch(s trace.Source) trace.Source { return trace.NewPrefetcher(s) }

func closeSource(s trace.Source) {
	if c, ok := s.(io.Closer); ok {
		c.Close()
	}
}

// engine is one replay's whole state.
type engine struct {
	cfg model.Config
	pol Policy
	// exclusive keeps CTAs of different kernels off one SM at a time: the
	// policy's ExclusiveSMs or the GPU's gpu.concurrent_kernel_sm=off.
	exclusive bool
	sink      results.Sink
	quiet     bool // the sink keeps no rows (results.Discards): none is built
	opt       *Options
	dispatch  Dispatch // the placer's view, made once: Place escapes it

	q    eventq.Queue
	now  int64
	host hostCursor
	body *bodyCursor

	io          *hostIO
	sb          *scoreboard // the CRCS reference count table (IOPaged only)
	accessOrder bool        // the scoreboard checks CTAs at each touch (touch.go)
	paused      []*ctaRun   // CTAs stopped mid-run at a page, in the order they stopped
	hostOrder   int32       // host launches read so far
	kernelsEnd  int64       // the last kernel's completion
	groups      taskGroups  // trace stream → its current task group (OwnStreams)
	firstLaunch int64       // the first host issue (-1 before)

	hosts      hostThreads
	hostKernel []*Kernel // host kernels issued, body not loaded yet (issue order)
	hostLoaded int       // host kernels whose bodies were loaded
	live       map[uint64]*Kernel
	streams    map[uint64]*stream
	waitAfter  map[uint64][]*Kernel // kernel id -> kernels waiting on it
	legacy     *legacyGate          // copies on the legacy default stream (io.memcpy=legacy), else nil
	kd         kernelDistributor    // the KMU's queue, the Kernel Distributor's entries, the FCFS list (kd.go)
	devStreams uint64

	sms      []sm
	open     smSet // SMs with a free CTA slot (noteSlots)
	stalled  []*ctaRun
	runs     []*ctaRun            // every CTA state ever made, by slot (events name them so)
	freeRuns []int32              // finished CTAs' state for reuse, by slot in runs (no pointer: no write barrier at a CTA's end)
	kruns    kernelRuns           // device kernels' running parts, for reuse
	kslots   slots.Table[*Kernel] // kernels with an event pending (events name them by slot, holding no pointer)
	gslots   slots.Table[*group]  // aggregated groups on their way to a pool
	agt      agt
	gate     Gate
	obs      Observer        // the policy's observer, then the analyses; nil for neither
	arrivals ArrivalObserver // the policy's observer, when it is one; else nil
	an       Analysis        // the analyses (Options.Analyses); nil for none
	ev       CTAEvent        // reused for every observer call
	placer   Placer
	sites    siteEngine
	launch   launchPath // the device runtime's launch servers and pending pool
	err      error

	stats Stats
	// childEnded: a CTA of device-launched work has finished (Stats.BlindSites).
	childEnded bool
	busy       busySpan
	occ        occupancy

	share     *contention.Model   // the contention model; nil when off
	jobs      slots.Table[jobRef] // what each contention job stands for, by ref
	slowdowns slab[float64]       // CTA rows' slowdowns
	parentIDs slab[uint64]        // device kernel rows' parent ids
}

func newEngine(opt Options, sink results.Sink) *engine {
	e := &engine{
		cfg:       opt.Config,
		pol:       opt.Policy,
		exclusive: opt.Policy.ExclusiveSMs || opt.Config.GPU.ExclusiveSMs(),
		sink:      sink,
		quiet:     results.Discards(sink),
		opt:       &opt,
		live:      map[uint64]*Kernel{},
		streams:   map[uint64]*stream{},
		waitAfter: map[uint64][]*Kernel{},
		groups:    taskGroups{},
		sms:       make([]sm, opt.Config.GPU.SMs),
		kd:        newKernelDistributor(opt.Config.GPU.MaxKernels),
		gate:      opt.Policy.Gate,
		an:        joinAnalyses(opt.Analyses),
		placer:    opt.Policy.Placer,

		firstLaunch: -1,
		hosts:       newHostThreads(opt.Config.Lat.HostThreads),
	}
	e.open = newSMSet(len(e.sms))
	for i := range e.sms {
		e.sms[i].id = i
		e.noteSlots(&e.sms[i])
	}
	e.q.SetTieSeed(uint64(opt.Config.Model.TieSeed))
	e.dispatch.e = e
	if e.placer == nil {
		e.placer = &RoundRobin{}
	}
	e.sites = newSiteEngine(e, opt.Policy.Sites)
	e.sites.commands = e.cfg.DTBL.Fallback == "dispatch"
	e.launch = newLaunchPath(e.cfg.LaunchCosts(), len(e.sms))
	e.agt = newAGT(opt.Config.DTBL.AGTEntries)
	e.occ = newOccupancy(opt.Config, sink)
	if opt.Config.Model.Contention == "on" {
		e.share = newShare(e)
	}
	if opt.Config.IO.Memcpy == "legacy" {
		e.legacy = &legacyGate{}
	}
	e.obs = watching(opt.Policy.Observer, e.an)
	e.arrivals, _ = opt.Policy.Observer.(ArrivalObserver)
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
	space := e.body.r.space
	io := e.cfg.IO
	e.io = newHostIO(io.Model == "stages", e.pol.IO, space, e.cfg.GPU.ClockMHz, io.SSDMBps, io.PCIeGBps)
	e.io.rows = !e.quiet
	if err := checkPages(space, e.io.on, e.pol.IO == IOPaged, e.io.rows); err != nil {
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
	sb, err := profileRefs(src, exact, space, e.io.on, e.cfg.CRCS.Share == "available")
	if err != nil {
		return err
	}
	e.sb = sb
	e.body.r.refs = &refSource{exact: exact, space: space}
	e.body.r.irregular = sb.irregular
	e.accessOrder = sb.accessPositioned() && e.cfg.CRCS.Gate == "access"
	switch {
	case e.accessOrder:
		e.body.r.touches = touchAll
	case e.cfg.CRCS.Irregular == "ready":
		e.body.r.touches = touchIrregular
	}
	return nil
}

// nextPage schedules the next prelude page's arrival on the GPU.
func (e *engine) nextPage() {
	if !e.io.on {
		return
	}
	if p, at, ok := e.io.nextReady(); ok {
		e.q.Push(eventq.Event{At: at, Kind: uint8(evPageReady), Ref: int32(p)})
	}
}

// loop fires events in (cycle, tie key) order until none are left and no
// warp waits for room in the pending pool.
func (e *engine) loop() error {
	var batch int
	fired := false // an event has fired since the last settle
	for e.q.Len() > 0 || e.overflowWhenDry() {
		ev := e.q.Pop()
		if err := checkHorizon(ev.At); err != nil {
			return err
		}
		if !e.stale(ev) {
			e.now = ev.At
			e.fire(ev)
			fired = true
		}
		if e.err != nil {
			return e.err
		}
		if fired && (e.q.Len() == 0 || e.q.Peek() != e.now) {
			fired = false
			e.settle()
			if e.err != nil {
				return e.err
			}
		}
		if batch++; batch&0xffff == 0 {
			if err := e.opt.checkpoint(e.stats.CTAs, e.now); err != nil {
				return err
			}
		}
	}
	if len(e.live) > 0 || e.hosts.pending > 0 {
		return e.deadlock()
	}
	return nil
}

// stale reports whether ev is a contention wake-up the model has since
// superseded: it does nothing, so it neither moves the clock (a run's
// makespan is its last event's cycle) nor ends a cycle.
func (e *engine) stale(ev eventq.Event) bool {
	return eventKind(ev.Kind) == evShare && e.share.Stale(int(ev.Ref), uint32(ev.Aux))
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
		e.sites.reach(e.runs[ev.Ref], int(ev.Aux))
	case evCTAEnd:
		e.ctaEnd(e.runs[ev.Ref])
	case evStart:
		e.tryStart(e.runs[ev.Ref])
	case evJoin:
		e.arriveGroup(e.gslots.Take(ev.Ref))
	case evCopyDone:
		e.copyDone(e.kernelOf(ev))
	case evPageReady:
		e.sb.ready(e.io, e.sink, int(ev.Ref), e.now)
		e.nextPage()
	case evShare:
		e.shareWake(ev)
	case evResume:
		e.resumeWarp(e.runs[ev.Ref], int(ev.Aux))
	case evTouch:
		e.reachTouch(e.runs[ev.Ref])
	case evProfiled:
		e.kernelOf(ev)
		e.sb.wake() // its stalled CTAs may start now
	case evLaunchSlot:
		e.launchSlots()
	case evOverflow:
		e.launchOverflow()
	}
}

// settle runs the decisions that depend on the state at the end of a cycle:
// stalled CTAs re-ask the gate, then the placer fills free room.
func (e *engine) settle() {
	if len(e.stalled)+len(e.paused) > 0 && (e.gate != nil || e.sb.changedSince()) {
		e.retryPaused()
		e.retryStalled()
	}
	if len(e.kd.listed()) > 0 {
		e.placer.Place(&e.dispatch)
		e.kd.compact()
	}
	if e.share != nil {
		e.share.Settle(e.now)
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

// scheduleGroup schedules an aggregated group's arrival in its target's
// pool.
func (e *engine) scheduleGroup(at int64, g *group) {
	e.q.Push(eventq.Event{At: at, Kind: uint8(evJoin), Ref: e.gslots.Put(g)})
}

// scheduleCTA schedules a CTA event; warp matters for launch sites.
func (e *engine) scheduleCTA(at int64, kind eventKind, c *ctaRun, warp int) {
	e.q.Push(eventq.Event{At: at, Kind: uint8(kind), Ref: c.slot, Aux: int32(warp)})
}

func (e *engine) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// ModelError says the configured GPU cannot run the trace at all.
type ModelError struct{ Msg string }

func (m *ModelError) Error() string { return m.Msg }

// IsInputError reports whether err is the user's to fix (a bad trace, a
// trace the GPU cannot run, a deadlock) rather than an internal failure.
func IsInputError(err error) bool {
	var te *trace.Error
	var me *ModelError
	var de *DeadlockError
	return errors.As(err, &te) || errors.As(err, &me) || errors.As(err, &de)
}
