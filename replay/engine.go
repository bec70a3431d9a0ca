package replay

// The engine: one replay's state, its event loop (the clock, the queue
// in (cycle, tie key) order, the end-of-cycle settle, the checkpoints)
// and the dispatch of each event to the component it is for.

import (
	"math"

	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
)

// engine is one replay: the configuration, the clock (time, events and
// the table that routes them), and each component as a field of its own
// (the SMs, the CTA records, the Kernel Distributor, the host side, the
// device runtime, the page gate, the recorder), whose state is private to
// it. The engine's methods are the CTA's and the kernel's paths, which
// carry what one component's change means for another
// (docs/architecture.md); the optional mechanisms take part in them
// through one lifecycle interface (mechanism.go), named by none of them.
type engine struct {
	cfg   model.Config
	opt   *Options
	clock eventClock
	err   error

	out      recorder          // the rows and the run's totals (stats.go)
	host     hostSide          // host calls, threads, streams, copies (host.go)
	body     *bodyCursor       // kernel bodies and their CTAs, read as needed (segments of the trace)
	io       *hostIO           // the host's I/O stages (hostio.go)
	kd       kernelDistributor // the KMU's queue, the Kernel Distributor's entries, the FCFS list (kd.go)
	sms      smArray           // the SMs: slots, resources, occupancy, the contention model (sm.go)
	ctas     ctaRuns           // the CTA records and the CTAs waiting to go on (ctaruns.go)
	dispatch Dispatch          // the placer and its view, made once: Place escapes it
	sites    siteEngine        // the device runtime's launch sites (sites.go)
	dev      deviceRuntime     // launch path, device streams, KLAP's aggregation (devlaunch.go)
	groups   groupTable        // DTBL's aggregated groups and the AGT (group.go)
	watch    watchers          // the policy's observer and the analyses (analysis.go)
	dstreams deviceStreams     // ordered device streams (devstreams.go)
	pages    *pageGate         // the CRCS reference count table's gate (IOPaged only), else nil
	tasks    *taskDriver       // the narrow-task runtime (Policy.Tasks), else nil
	mechs    []mechanism       // the optional mechanisms in the CTA's and kernel's paths
}

func newEngine(opt Options, sink tables.Sink) *engine {
	e := &engine{cfg: opt.Config, opt: &opt}
	pol := &opt.Policy
	e.out = newRecorder(sink)
	e.kd = newKernelDistributor(opt.Config.GPU.MaxKernels, pol.Sites)
	e.dstreams = newDeviceStreams()
	an := joinAnalyses(opt.Analyses)
	e.watch = newWatchers(pol.Observer, an)
	var l1Flush int64
	if pol.ExclusiveSMs {
		l1Flush = opt.Config.CRCS.L1Flush
	}
	// A task runtime models contention itself (taskrun).
	shared := opt.Config.Model.Contention == model.On && pol.Tasks == nil
	e.sms = newSMArray(&e.cfg, pol.ExclusiveSMs || opt.Config.GPU.ExclusiveSMs(), shared, slotsNeeded(pol.Sites), l1Flush, sink, &e.clock.q)
	e.clock.q.SetTieSeed(uint64(opt.Config.Model.TieSeed))
	e.clock.seeded = opt.Config.Model.TieSeed != 0
	e.clock.left = checkEvents
	e.dispatch = newDispatch(e, pol.Placer)
	rows := e.out.rows() // the launches rows, written by the device runtime
	e.host = newHostSide(pol.OwnStreams || pol.IO == IOPaged, opt.Config.IO.Memcpy == model.MemcpyLegacy,
		hostLinks{clock: &e.clock, eng: e, cfg: &e.cfg, an: an, out: &e.out})
	e.dev = newDeviceRuntime(&e.clock, e.cfg.Lat, e.cfg.LaunchCosts(), e.sms.count(), pol.Aggregate)
	e.groups = newGroupTable(opt.Config.DTBL.AGTEntries, opt.Config.GPU.MaxCTAsPerSM, &e.clock.q, rows)
	e.sites = newSiteEngine(pol.Sites, siteLinks{
		host: e, clock: &e.clock, launch: e.dev.path(), groups: &e.groups, agg: e.dev.aggregator(), kd: &e.kd,
		rows: e.out.refs, an: an, policy: pol.Name,
	}, e.cfg.DTBL.Fallback == model.FallbackDispatch)
	e.sites.dtblCalls = e.cfg.DTBL.LaunchCost == model.LaunchCostCDP
	e.sites.anyShape = e.cfg.DTBL.Match == model.MatchFunction
	e.dev.links(&e.sites)
	if l := opt.Config.Lat; l.StreamCountdown > 0 {
		e.dev.countdown = newStreamCountdown(l.StreamCountdown, l.StreamPasses, e.awaitKD)
	}
	if pol.Gate != nil {
		e.mechs = append(e.mechs, newPolicyGate(pol.Gate))
	}
	if e.dev.aggregator() != nil {
		e.mechs = append(e.mechs, &e.dev)
	}
	if pol.Tasks != nil {
		e.tasks = newTaskDriver(taskLinks{clock: &e.clock, sms: &e.sms, out: &e.out, fail: e.fail}, &opt, sink, an)
	}
	e.register()
	return e
}

// register routes each kind of event to the component it is for.
func (e *engine) register() {
	c := &e.clock
	e.host.register(c)
	e.dev.register(c)
	c.on(evArrive, func(ev eventq.Event) {
		k := c.kernelOf(ev)
		if ev.Aux == deviceArrival || !k.host {
			e.arriveDevice(k, ev.Aux == deviceArrival)
			return
		}
		e.host.arrive(k)
	})
	// evReady: the loop hands it to becomeReady itself, as evCTAEnd.
	c.on(evSite, func(ev eventq.Event) { e.sites.reach(e.ctas.at(ev.Ref), int(ev.Aux), c.now()) })
	c.on(evStart, func(ev eventq.Event) { e.tryStart(e.ctas.at(ev.Ref), ev.At) })
	c.on(evGroupStart, func(ev eventq.Event) { startGroup(e, ev) })
	c.on(evJoin, func(ev eventq.Event) { // a chain of groups (groupTable.schedule), each as if its own event
		for g := e.groups.arrived(ev.Ref); g != nil && e.err == nil; {
			next := g.joinNext
			g.joinNext = nil
			e.arriveGroup(g)
			g = next
		}
	})
	// evCTAEnd and evShare: the loop hands them to ctaEnded and shareWake itself.
	c.on(evResume, func(ev eventq.Event) { e.resumeWarp(e.ctas.at(ev.Ref), int(ev.Aux)) })
	c.on(evTouch, func(ev eventq.Event) { e.reachTouch(e.ctas.at(ev.Ref)) })
	c.on(evIssue, func(eventq.Event) {}) // settle releases the holds due and places
	if e.tasks != nil {
		e.tasks.register(c)
	}
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
	pol := &e.opt.Policy
	e.io = newHostIO(io.Model == model.IOStages, pol.IO, space, e.out.keepsRows(), e.cfg.GPU.ClockMHz, io.SSDMBps, io.PCIeGBps, io.CopyLatency)
	if err := checkPages(space, e.io.modelled(), pol.IO == IOPaged, e.out.keepsRows()); err != nil {
		return err
	}
	if pol.IO == IOPaged {
		src, err := open()
		if err != nil {
			return err
		}
		defer closeSource(src)
		g, err := newPageGate(src, &e.cfg, space, pageLinks{clock: &e.clock, io: e.io, body: e.body, sink: e.out.output()})
		if err != nil {
			return err
		}
		e.pages = g
		// The scoreboard is the first mechanism a CTA meets: a policy's
		// gate is asked only of CTAs whose pages are ready.
		e.mechs = append([]mechanism{g}, e.mechs...)
		g.register(&e.clock)
	}
	e.out.hookEnds(e.watch.observing() || len(e.mechs) > 0)
	e.dispatch.setPlain(!e.out.othersHooked() && e.pages == nil && e.tasks == nil)
	e.io.plan(e.out.output())
	e.host.started(e.io)
	if e.pages != nil {
		e.pages.start()
	}
	return e.host.readHost()
}

// loop fires events in (cycle, tie key) order until none are left and no
// warp waits for room in the pending pool, or, with the cycle settled,
// the next event is past until: then it reports paused, and a later loop
// goes on from there (the golden cases that show the components' state
// mid-run). Run passes math.MaxInt64: the test is one comparison a cycle.
//
// It fires a cycle's events in a loop of their own, which ends where the
// next event is in a later cycle (or there is none): the outer loop's
// tests then come once a cycle, not once an event (scripts/instructions.sh
// --quick: uniform, whose waves end 208 CTAs a cycle, 9 instructions a
// CTA fewer; BFS 12, synth 2). It is not inlined: inlined in run, its
// call of eventq's Pop is at a line the profile does not mark hot, and
// Pop stayed a call (uniform 4 instructions a CTA more).
//
// A CTA's end goes to ctaEnd directly, not through the handler table:
// the most frequent event (uniform: every other event), whose closure's
// call cost 18 instructions a CTA more (--quick uniform). A superseded
// contention wake-up does nothing: no clock move (a run's makespan is
// its last event's cycle), no cycle's end. The others go to shareWake
// directly, not through the handler table (synth: 16 a CTA); Wake's nil
// tells which (asked apart: 16 more); readiness so too (bfs 1.2 fewer,
// own). The lines from the Pop keep their offsets from the loop's, for
// the calls inlined there (the profile keys a call by its line's offset).
//
// Its cycles go on while the queue holds events, a test of its length
// alone; only a queue run dry asks the device runtime for an overflow.
// Tested in one condition (Len() > 0 || overflowWhenDry), the answer was
// a bool merged at the loop's head and tested again (BFS 10 instructions
// a CTA fewer, synth 6, uniform 2). An error a settle records (fail) is
// looked up as a handler's is, after the next event (eventClock.left),
// or where the loop pauses, ends or meets the horizon: tested after each
// settle, it cost 4 instructions a cycle (bfs --quick 2,393 -> 2,389 a
// CTA, sweep8 E 1,367 -> 1,363).
//
//go:noinline
func (e *engine) loop(until int64) (paused bool, err error) {
	c := &e.clock
	c.until, c.fired, c.pauses = until, false, until != math.MaxInt64
	for { // while events are left (or the overflow makes one: see the end)
		for c.q.Len() > 0 {
			if c.pauses && !c.fired && c.q.Peek() > c.until {
				return e.err == nil, e.err // paused, but for a settle's error (see the doc)
			}
			for {
				if ev := c.q.Pop(); ev.At&maxSimCycle != 0 { // At >= 2^62 (At is never negative): a bit test; checkHorizon's error value cost 5 instructions an event
					return false, horizonErr(e, ev.At)
				} else if kind := eventKind(ev.Kind); kind != evShare { // see the doc: CTA ends, readiness, then the others
					if c.t = ev.At; kind == evCTAEnd {
						e.ctaEnded(ev.Ref, ev.Aux)
					} else if kind == evReady {
						e.becomeReady(e.kd.numbered(ev.Ref))
					} else {
						c.fire(ev)
					}
					c.fired = true
				} else if done, lo := e.sms.contention().wake(ev.At, int(ev.Ref), uint32(ev.Aux)); done != nil {
					if c.t = ev.At; e.sms.anyOpen() || len(done) != lo+1 || !swapPlain(e, done[lo]) { // fired stays false where swapPlain took the cycle whole
						c.fired = (!e.sms.contention().owns() || e.sms.contention().marked(e.sms.anyOpen())) && e.shareWake(done, lo) // an if above, where one chain of && into fired kept a test's value across shareWake's call (--quick bfs, own functions, 1,976.9 -> 1,971.0 a CTA)
					}
				}
				if c.left--; c.left <= 0 { // a run of checkEvents events ended, or fail recorded an error (left)
					if c.left = checkEvents; e.err != nil {
						return false, e.err
					}
					if err := e.opt.checkpoint(e.out.ctas(), c.now()); err != nil {
						return false, err
					}
				}
				if c.q.Len() == 0 || c.q.Peek() != c.t {
					break
				}
			}
			if c.fired {
				c.fired = false
				e.settle()
			}
		}
		if !e.dev.overflowWhenDry(c.t) {
			break
		}
	}
	if e.err != nil { // one settle's (see the doc), the queue run dry
		return false, e.err
	}
	if e.tasks != nil {
		return false, e.tasks.stuck()
	}
	if e.host.busy() {
		return false, e.deadlock()
	}
	return false, nil
}

// settle runs the decisions that depend on the state at the end of a cycle:
// stalled CTAs re-ask the gate, then the placer fills free room.
//
// The model's settle takes the clock's t, not now(): the field's load is
// then an instruction of the call's own line, which the compiler takes as
// the mark of the calls inlined there, where it marked them with two NOPs
// (see contention.Model.markDirty): 2 instructions a cycle with changes.
func (e *engine) settle() {
	// A stream countdown, CTAs waiting (ctaRuns.waiting) and a CTA issue
	// rate come only in runs with one or with mechanisms: few runs
	// (Dispatch.rare), whose settle is settleRare's. The others place
	// where a kernel is listed, with no test of a run's constants a cycle.
	if e.dispatch.rare {
		settleRare(e)
	} else if len(e.kd.listed()) > 0 {
		e.dispatch.place()
		e.kd.compact()
	}
	if e.sms.contention() != nil {
		e.sms.contention().settle(e.clock.t) // t, not now(): see settle's doc
	}
}

// fail records err, the replay's first error not nil, and has the loop
// look up after the event it fires (eventClock.left): one test an event
// for both, where the loop's test of the error cost 3 instructions an
// event.
func (e *engine) fail(err error) {
	if e.err == nil && err != nil {
		e.err = err
		e.clock.left = 1
	}
}

// retryWaiting has the waiting CTAs go on where one now may: those paused
// at a page, then those stalled before their start, where a policy's gate
// may open or the scoreboard has changed. Apart from settle, where the
// test of these after waiting's was a value stored and tested again
// (scripts/instructions.sh --quick: synth and BFS 4 instructions a CTA
// fewer).
func (e *engine) retryWaiting() {
	if e.opt.Policy.Gate == nil && !e.pages.changedSince() {
		return
	}
	e.retryPaused()
	// Every stalled CTA whose gate now opens starts, in the order they
	// were placed.
	e.ctas.retryStalled(func(c *ctaRun) bool {
		if !mayStartAll(e.mechs, c, e.clock.now()) {
			return false
		}
		e.startCTA(c, e.clock.now())
		return true
	})
}

// settleRare is settle for a run with a stream countdown, mechanisms or
// a CTA issue rate (Dispatch.rare), which most runs have none of: the
// countdown sees the Kernel Distributor, stalled CTAs re-ask the gate,
// then the placer fills free room, the SMs held by the issue rate let go
// first. A function, not a method: the engine keeps to 50 (components_test).
// One test of a flag a cycle where the countdown's, waiting's and the
// issue rate's were three (--quick, replay's own functions: BFS 1,565.7
// -> 1,558.3 instructions a CTA, sweep8 E 1,420.9 -> 1,413.4).
func settleRare(e *engine) {
	e.dev.settle(&e.kd)
	if e.ctas.waiting() { // CTAs wait only in runs with mechanisms
		e.retryWaiting()
	}
	if len(e.kd.listed()) > 0 {
		limited := e.sms.releaseLimited(e.clock.now())
		e.dispatch.place()
		e.kd.compact()
		if limited && len(e.kd.listed()) > 0 {
			if at, ok := e.sms.issueWake(); ok {
				e.clock.at(at, evIssue)
			}
		}
	}
}

// horizonErr is the loop's error at an event past the horizon at at: a
// settle's error recorded before it (see loop), else checkHorizon's. A
// function, not a method: the engine keeps to 50 (components_test).
func horizonErr(e *engine, at int64) error {
	if e.err != nil {
		return e.err
	}
	return checkHorizon(at)
}
