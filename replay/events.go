package replay

import (
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/internal/slots"
)

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evHostIssue  eventKind = iota + 1 // the host issues its next launch
	evArrive                          // a kernel reaches the Kernel Management Unit
	evReady                           // a kernel finishes dispatch into the Kernel Distributor
	evSite                            // a warp reaches its next launch site
	evCTAEnd                          // a CTA finishes
	evStart                           // a placed CTA starts after a delay
	evJoin                            // an aggregated group joins its kernel's pool
	evPageReady                       // a prelude page arrives on the GPU (CRCS)
	evCopyDone                        // an explicit host copy ends
	evShare                           // the contention model's wake-up for an SM
	evResume                          // a warp resumes progress after a site's API stall (contention model)
	evTouch                           // a CTA reaches the next pages it touches (CRCS, access order)
	evProfiled                        // a kernel's pre-profiler ends (CRCS)
	evLaunchSlot                      // pending launches have begun: warps held for room in the pool go on
	evOverflow                        // the replay ran out of events while warps are held: the oldest goes over the pool's limit
	evTasks                           // the narrow-task runtime's next event: it advances, the host hands it tasks
	evIssue                           // an SM's CTA issue hold ends: kernels waiting to place try again
	evSync                            // a host thread reaches a blocking sync
	evCountdown                       // GPGPU-Sim's stream manager: a waiting stream head's countdown ends (lat.stream_countdown)
	evRowEnd                          // a plain CTA whose row is kept ends, its end no job's (plainrows.go)
	evGroupStart                      // a spilled group's plain CTA starts, its metadata loaded (groupplain.go)
	evKinds                           // the number of kinds, for the handler table
)

// eventClock is the replay's time and its pending events: the queue in
// (cycle, tie key) order, the kernels kernel events name, and the table
// that sends each kind of event to the component that registered it
// (akita's engine: a component schedules events, the engine fires them).
// Every component schedules through its methods; only the engine's loop
// pops, and it reads the queue and sets the time directly (the loop's
// three calls a event are the hottest lines of a replay: wrapped, they
// cost a uniform replay 30 instructions a CTA, callgrind).
type eventClock struct {
	t      int64 // the cycle of the event firing, or last fired
	q      eventq.Queue
	kslots slots.Table[*Kernel] // kernels with an event pending (events name them by slot, holding no pointer)
	// handlers routes each kind to its component; the funcs are made once,
	// when the engine is built, so firing an event allocates nothing.
	handlers [evKinds]func(eventq.Event)
	// left counts down the events the loop fires before it looks up: a run of
	// checkEvents ends (a checkpoint), or the engine recorded an error
	// (engine.fail sets left to 1). A count down in the clock, where the
	// loop's own count, spilled across its calls, was loaded, counted, stored
	// and masked every event. Runs continue from one loop call to the next (a
	// paused replay's). The loop counts and tests it in line: a method's call
	// (tick) had no instruction of its own line for the compiler's
	// inlined-call mark, a NOP every event (synth and BFS: 1 a CTA).
	left   int
	until  int64 // the loop's pause: it stops before a later cycle's events (math.MaxInt64: none)
	fired  bool  // an event has fired since the loop's last settle (a stale wake-up does not count)
	seeded bool  // a tie seed orders each cycle's events (model.tie_seed): no two share one (launchChildren)
	pauses bool  // until is not math.MaxInt64 (a byte's test, where until's loaded a 64-bit constant); the loop's, as until and fired: not registers restored, nor locals stored, an event
	// readyLast is the last of the device kernels dispatched whose
	// readiness events wait in firing order, chained (dispatched); nil
	// for none.
	readyLast *Kernel
}

// on registers h as the handler of kind's events.
func (c *eventClock) on(kind eventKind, h func(eventq.Event)) {
	if c.handlers[kind] != nil {
		panic("replay: two handlers for one event kind")
	}
	c.handlers[kind] = h
}

// now is the cycle of the event firing, or last fired.
func (c *eventClock) now() int64 { return c.t }

// fire moves the time to ev's cycle and hands ev to its kind's handler.
func (c *eventClock) fire(ev eventq.Event) {
	c.t = ev.At
	c.handlers[ev.Kind](ev)
}

// at schedules an event of kind that names nothing.
func (c *eventClock) at(at int64, kind eventKind) {
	c.q.Push(eventq.Event{At: at, Kind: uint8(kind)})
}

// ref schedules an event of kind that names ref (a page, a group).
func (c *eventClock) ref(at int64, kind eventKind, ref int32) {
	c.q.Push(eventq.Event{At: at, Kind: uint8(kind), Ref: ref})
}

// kernel schedules a kernel event. A kernel has at most one event
// pending (issue, then arrival), so it holds a slot in the kernel table
// only while one is; its readiness names it by its entry's number (refOf).
//
// A host call's issue, arrival and readiness keep their order within a
// cycle under a tie seed (model.tie_seed): that order is the program's (a
// stream's calls queue in it, a call's `after` names calls issued before
// it, the KMU dispatches host kernels in it, and the CRCS scoreboard gives
// a page to the earlier kernel first), not a tie the model leaves open.
//
// A device kernel's arrival and readiness come a latency after the cycle
// that schedules them (a launch's cost, the dispatch), tens of thousands
// pending at once under CDP: its arrival goes in the queue's run of its
// delay (eventq.PushDelayed), its readiness in a chain of its own
// (dispatched), which keep the heap small; the order events fire in is
// the same.
func (c *eventClock) kernel(at int64, kind eventKind, k *Kernel) {
	switch {
	case (kind == evHostIssue || kind == evArrive || kind == evReady) && k.host: // copies too (newCopy)
		c.q.PushOrdered(eventq.Event{At: at, Kind: uint8(kind), Ref: c.refOf(kind, k)})
	case kind == evArrive:
		c.arrival(at, k)
	case kind == evReady: // device kernels': see dispatched
		if t := c.q.Tie(); !c.dispatched(at, t, k) {
			c.q.PushTied(at, uint8(kind), k.plain, t)
		}
	default:
		c.q.Push(eventq.Event{At: at, Kind: uint8(kind), Ref: c.kslots.Put(k)})
	}
}

// arrival schedules device kernel k's arrival at the KMU: kernel's case
// for it, which a launching site, knowing its children device kernels,
// takes at once.
func (c *eventClock) arrival(at int64, k *Kernel) {
	c.q.PushDelayed(at-c.t, eventq.Event{At: at, Kind: uint8(evArrive), Ref: c.kslots.Put(k), Aux: deviceArrival})
}

// deviceArrival marks, in Aux, the arrival of a device kernel: when it
// fires, the engine goes on without reading the kernel (arriveDevice).
const deviceArrival = 1

// kernelOf returns a kernel event's kernel and frees its slot.
//
// A device kernel's arrival kept its slot for its readiness once (the
// kernel's evSlot): one Put and one Take fewer a device kernel while each
// arrived at an event of its own. A site's children now arrive at one
// (launchChildren), and the test of that slot at every readiness cost
// more than the Put and Take it saved the site's first
// (scripts/instructions.sh, BFS scale 20: 2 instructions a CTA fewer).
func (c *eventClock) kernelOf(ev eventq.Event) *Kernel {
	return c.kslots.Take(ev.Ref)
}

// cta schedules a CTA event; warp matters for launch sites.
func (c *eventClock) cta(at int64, kind eventKind, r *ctaRun, warp int) {
	c.q.Push(eventq.Event{At: at, Kind: uint8(kind), Ref: r.slot, Aux: int32(warp)})
}

// checkEvents is how many events the loop fires between checkpoints
// (Options.checkpoint: cancellation, progress).
const checkEvents = 1 << 16

// ctaDelayed schedules a CTA event delay cycles after now, the current
// cycle, in the queue's run of that delay (eventq.PushDelayed): a warp's
// resumption after a launch site's API stall under the contention model,
// a launch's cost after the cycle that reaches the site, a spilled DTBL
// group's CTA's start after its metadata's load (dtbl.agt_spill).
// Pushed into the heap, these stalls held some 800 events at once early
// in BFS scale 16 under CDP, where the heap otherwise holds some 30 (the
// SMs' wake-ups and the runs' heads), and every pop and push there
// sifted through ten levels (callgrind, --quick bfs: eventq's fill 54 →
// 42 instructions a CTA, push 89 → 83; the whole replay 3,440 → 3,418).
func (c *eventClock) ctaDelayed(now, delay int64, kind eventKind, r *ctaRun, warp int) {
	c.q.PushDelayed(delay, eventq.Event{At: now + delay, Kind: uint8(kind), Ref: r.slot, Aux: int32(warp)})
}

// refOf is what a host call's event of kind names k by: its number for
// its readiness, else a slot of the kernel table.
func (c *eventClock) refOf(kind eventKind, k *Kernel) int32 {
	if kind == evReady {
		return k.plain
	}
	return c.kslots.Put(k)
}

// dispatched is device kernel k's readiness at at (its readyCycle), as
// kernel schedules it, with tie key t drawn now: it reports whether the
// event waits for its place in the queue, chained, or goes into it now.
// The readiness of device kernels after their dispatch mostly comes in
// the order they entered, a latency later, so an event that fires after
// the last one's waits, with its key, in a chain of them
// (Kernel.arriveNext, nil once a kernel has entered), and only the
// chain's first is in the queue: each, as it fires, pushes the next
// (readied). One out of that order (a DTBL kernel ready when its
// parameter buffer is) goes into the queue as it is. Where the queue's
// run of the dispatch latency took them (eventq.PushDelayed), each filed
// its 32-byte entry behind the run's, and the run's last, and looked the
// run up (scripts/instructions.sh --quick: bfs 2,271 -> 2,253 a CTA,
// sweep8 E 1,280 -> 1,264, x4.94 -> x4.92). Inlined here (and kernel in
// enterKD, by the profile), the test and the link; readyNext's push is a
// call, out of becomeReady (PushTied inlined in it). One return of each
// value, where three merged a result set and tested: --quick BFS 3 a kernel.
func (c *eventClock) dispatched(at int64, t uint64, k *Kernel) bool {
	k.readyTie = t
	l := c.readyLast
	if l != nil && (l.readyCycle < at || l.readyCycle == at && l.readyTie < t) {
		l.arriveNext, c.readyLast = k, k
		return true
	}
	if l == nil { // the chain's first, in the queue
		c.readyLast = k
	}
	return false
}

// readied is kernel k's readiness event fired: the next in its chain, if
// any, goes into the queue (dispatched).
func (c *eventClock) readied(k *Kernel) {
	if n := k.arriveNext; n != nil {
		c.readyNext(k, n)
	} else if k == c.readyLast {
		c.readyLast = nil
	}
}

// readyNext is readied for k, followed by n in the chain.
func (c *eventClock) readyNext(k, n *Kernel) {
	k.arriveNext = nil
	c.q.PushTied(n.readyCycle, uint8(evReady), n.plain, n.readyTie)
}
