package replay

// A CTA's run, from its placement to its end: the engine places it on an
// SM (smArray.enter), starts it when the gate and the scoreboard let it,
// runs its warps to their sites and ends (as events, or as jobs of the
// contention model: shared.go; in segments between pages: segments.go),
// and at its end frees its SM (smArray.leave), writes its row and counts
// it towards its kernel or group. The records live in ctaRuns.

import (
	"math"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// ctaRun is one CTA resident on an SM. Its record is reused for the
// next CTA placed (ctaRuns): what it keeps across CTAs is here, what
// one CTA's run sets is its ctaState, which reset clears (or renews).
type ctaRun struct {
	slot     int32 // index in the CTA records (ctaRuns), for events
	nextFree int32 // once finished, ctaRuns.free's next: 1 + its slot, or 0 at the list's end

	// Only for CTAs with launch sites: per-warp progress. Kept with its
	// room, emptied, for the next CTA.
	warps []warpRun

	// own is its spec when its kernel's table streams (ctaTable.nextSpec):
	// decoded as it is placed, not kept in the table; or when it is a
	// queue (ctaSpecs), taken out of it. Its end leaves it (dropSpec).
	own ctaSpec

	ctaState
}

// ctaState is what one CTA's run sets in its ctaRun.
type ctaState struct {
	k        *Kernel
	g        *group // the aggregated group it belongs to; nil for a native CTA
	idx      uint64 // index in its kernel, or in its group
	sm       *sm    // its SM (its index: sm.id)
	smSlot   int    // its CTA slot on the SM (for hardware thread ids; 0 unless slotsNeeded)
	dispatch int64
	start    int64
	stall    int64

	// Only for CTAs with launch sites (warps).
	pending int   // warps whose end is not known yet
	end     int64 // latest warp end known so far

	// Under the contention model (shared.go): whether c runs as jobs of
	// the model, and its time alone, for its slowdown.
	shared bool
	alone  int64

	// Run in segments between the pages it touches (segments.go): how far
	// into its own run it has got, whether it is heading for a touch, and
	// its cycles stopped at pages (stall counts them too).
	pos         int64
	segment     bool
	paused      int64
	pausedAt    int64
	pausedAfter int64 // of paused, the cycles after the prelude's end

	streamed bool // its spec is own
	// dirty: its run set more than reset leaves (one of a group, or run
	// in segments), so reset clears it all.
	dirty bool
}

// warpRun tracks a warp of a CTA with launch sites: where it is in its
// own cycles and how much the sites so far have extended it.
type warpRun struct {
	cycles int64 // the warp's own execution time
	next   int   // index of its next launching lane in the CTA's sites
	shift  int64 // cycles added by the sites already passed
	end    int64 // when it ended, once known
	work   int64 // progress to make after a site's API stall (contention model)
	sited  bool  // it has launch sites (the others run as one job when shared)
}

// place puts k's next CTA on SM s, reserving its resources: native CTAs
// first, then those of coalesced groups in FIFO order. It starts at once
// unless a spilled group's metadata must be loaded first (for every CTA
// of the group under dtbl.spill_loads=cta, for its first under first) or
// the policy's gate holds it.
func (e *engine) place(k *Kernel, s *sm) {
	now := e.clock.now()
	slot, startAt := e.sms.enter(k, s, now)
	c := e.ctas.get()
	c.reset()
	c.k, c.sm, c.smSlot, c.dispatch, c.streamed, c.shared = k, s, slot, now, false, false
	if k.next < k.total {
		c.idx = k.next
		k.next++
		if e.body.behind(k, c.idx) { // see behind
			e.fail(e.body.reach(k, c.idx)) // a nil error changes nothing
		}
		if k.ctas.streams() {
			k.ctas.nextSpec(&c.own)
			c.streamed = true
		} else if q := k.ctas.queued(); q != nil && q != &packedRun {
			q.pop(c.idx, &c.own)
			c.streamed = true
		}
	} else {
		k.pool.place(c)
	}
	// Its placer tells the Kernel Distributor where this was k's last CTA
	// to place (Dispatch.placeNoted): RoundRobin.Place asks once a kernel
	// it places the last CTA of, not once a CTA.
	// Most CTAs start here after one test: none on a flushing SM, of a
	// run with mechanisms or of a group (a spilled one's metadata loads).
	if startAt > now || len(e.mechs) > 0 || c.g != nil {
		placedAll(e.mechs, c)
		if c.g != nil && c.g.spilled && (c.idx == 0 || e.cfg.DTBL.SpillLoads == model.SpillLoadsCTA) {
			e.clock.ctaDelayed(now, e.cfg.DTBL.AGTSpill, evStart, c, 0) // in the run of its delay, not the heap (BFS --quick: 31K)
			return
		}
		e.tryStart(c, startAt)
		return
	}
	e.startCTA(c, now)
}

// placePlain is place in a plain run (Dispatch.plain), for a CTA of k's
// own (not a group's), not its first to start, whose spec is queued in q,
// k's queue, with no rare parts (no per-warp cycles, no launch sites): it
// reserves the CTA's room on s and starts it, its end an event or, under
// the contention model, the end of its one job, what place does for it
// without the tests of what a plain run leaves out. Elsewhere it changes
// nothing and reports false, for place. Given packedRun for q (a child's
// table), it is placePacked, asked before the tests of a queued spec.
func (e *engine) placePlain(k *Kernel, s *sm, q *specQueue, r *RoundRobin) bool {
	i := k.next
	if q == &packedRun || i >= k.total || k.startCycle < 0 || e.body.behind(k, i) {
		return q == &packedRun && e.placePacked(k, s, r)
	}
	spec := q.nextPlain(i)
	if spec == nil {
		return false // none queued (packedRun was taken above)
	}
	k.next++
	now := e.clock.now()
	e.sms.enterPlain(k, s)
	if sh := e.sms.contention(); sh != nil {
		if spec.issue > 0 || spec.dram > 0 {
			// The end of its one job of the contention model: a plain end
			// (plainend.go), its job naming its kernel (negated) and its SM.
			e.sms.placedAt(k.decl.need, now)
			if e.sms.rowsKept() { // and its row's slot (plainrows.go)
				return rowJob(e, k, s, i, now, spec.cycles, spec.demand())
			}
			sh.start(now, s.id, jobRef{run: -k.plain, warp: int32(s.id)}, spec.cycles, spec.demand())
			return true
		}
		if e.sms.rowsKept() { // its end an event, its row kept (plainrows.go)
			return rowEvent(e, k, s, i, now, spec.cycles)
		}
	}
	// Its end an event: a plain end (plainend.go).
	e.sms.ran(k.decl.need, spec.cycles)
	if ev := (eventq.Event{At: now + spec.cycles, Kind: uint8(evCTAEnd), Ref: int32(s.id), Aux: k.plain}); !e.clock.q.PushTie(ev) {
		e.clock.q.Push(ev) // PushTie, inlined, takes a wave's ends (one cycle's) with no call
	}
	return true
}

// placePacked is placePlain for a CTA of k's own whose spec is the next
// record of k's packed table (a device kernel's, filed in CTA order:
// ctaTable.streams): what place and startCTA do for it, read from its
// words (ctaSpec.decode's head, demand and per-warp cycles) with no CTA
// record and no spec, its end a plain end (plainend.go), its kernel's
// first to start starting the kernel as startCTA does. A CTA with per-warp
// cycles of its own and no launch sites (sites unpack a table) ends with
// its longest warp, as startWarps and alone have it. Elsewhere it changes
// nothing and reports false, for place. placePlain asks it in a plain run
// (Dispatch.plain), for a kernel whose queue is packedRun; r: see again.
func (e *engine) placePacked(k *Kernel, s *sm, r *RoundRobin) bool {
	i, t, kr := k.next, &k.ctas, k.kernelRun // kr: its running parts, loaded once
	if i >= k.total || !t.streams() || e.body.behind(k, i) {
		return false
	}
	p, at := t.words(), int(uint32(t.next))+1 // next, never negative, and len(p)-2: no bounds test of p[at], p[at+1]
	if len(p)-2 < at {
		return false // none left: place's spec is empty
	}
again: // k's next CTA, on the SM Place's find would try first (see below)
	cycles, demand := p[at], uint64(p[at+1])
	if nw := int(cycles >> headWarpShift); nw > 0 {
		// As startWarps (its warps within the block) and alone (all of
		// them) take them: the same where a record keeps the trace's
		// rules (one a warp, the longest its cycles).
		end := at + 2 + nw // by index: p[at+2:end] has more bounds tests (--quick: bfs 2,419 -> 2,409, sweep8 E 1,396 -> 1,392)
		cycles = 0
		if e.sms.contention() == nil {
			end = at + 2 + min(int(k.decl.need.warps), nw)
		}
		for ws, j := p[:end], at+2; j < len(ws); j++ { // one bounds test, none a warp, and none of p[at], p[at+1] above (--quick: bfs 2,355 -> 2,351, sweep8 E 1,325 -> 1,320)
			cycles = max(cycles, ws[j])
		}
		at += nw
	}
	t.next = int32(at + 1) // the next record's start, less one (ctaTable.next)
	kr.next++
	now := e.clock.t // the field, not now(): its load marks the line, where now() left a NOP (see engine.settle; own, bfs --quick 1,403.9 -> 1,403.5 a CTA)
	e.sms.enterPlain(k, s)
	if kr.startCycle < 0 { // its kernel's first, as startCTA starts it
		startKernel(e, k, now)
	}
	if sh := e.sms.contention(); sh != nil {
		if demand != 0 {
			// Its one job of the contention model (a demand of two float32s
			// is not zero where either is more than zero: neither is
			// negative), as startCTA starts it, its job a plain end's.
			e.sms.placedAt(k.decl.need, now)
			d := contention.Demand{Issue: float64(math.Float32frombits(uint32(demand))), DRAM: float64(math.Float32frombits(uint32(demand >> 32)))}
			if e.sms.rowsKept() {
				return rowJob(e, k, s, i, now, cycles, d)
			}
			sh.start(now, s.id, jobRef{run: -kr.plain, warp: int32(s.id)}, cycles, d)
			// again: where r is the RoundRobin whose Place asked (nil for
			// Dispatch.Place), k's next CTA at once, as Place would next,
			// where that needs no more than find's first SM: a CTA of k's
			// left, its record filed, not behind, and the first SM of r's
			// round open and fitting it (RoundRobin.Place has the measures).
			if kr.next < k.total && r != nil && at+2 <= len(p)-2 && !e.body.behind(k, kr.next) { // no anyOpen: roundOpen's -1 (--quick bfs, own functions, 1,968.5 -> 1,967.2 a CTA)
				if sm := e.sms.roundOpen(r.next); sm >= 0 && e.sms.fitsOpen(k, sm) { // find's first SM
					r.next, s, at, i = sm+1, e.sms.at(sm), at+2, kr.next
					goto again
				}
			}
			return true
		}
		if e.sms.rowsKept() {
			return rowEvent(e, k, s, i, now, cycles)
		}
	}
	e.sms.ran(k.decl.need, cycles)
	if ev := (eventq.Event{At: now + cycles, Kind: uint8(evCTAEnd), Ref: int32(s.id), Aux: kr.plain}); !e.clock.q.PushTie(ev) {
		e.clock.q.Push(ev)
	}
	return true
}

// place gives c the next CTA of p's current aggregated group: the
// pool's own state and c's, nothing of the engine's.
func (p *pool) place(c *ctaRun) {
	g, idx := p.take()
	c.g, c.idx, c.dirty = g, idx, true
	if g.src.ctas.streams() { // a group's CTAs are placed in order, as a kernel's
		g.src.ctas.nextSpec(&c.own)
		c.streamed = true
	}
}

// take takes the next CTA of p's current aggregated group: the group and
// the CTA's index in it. A group whose CTAs are all taken leaves the pool.
func (p *pool) take() (*group, uint64) {
	g := p.groups[p.next]
	idx := g.next
	g.next++
	p.pooled--
	if g.next == g.src.total {
		p.groups[p.next] = nil
		p.next++
		if p.next == len(p.groups) {
			p.groups, p.next = p.groups[:0], 0
		}
	}
	return g, idx
}

// tryStart starts a placed CTA at startAt, later than now while its SM
// flushes its L1, or holds it stalled if the gate says no. place starts
// the others itself: there startCTA is inlined (scripts/instructions.sh
// --quick: uniform 14 instructions a CTA fewer, BFS 11, synth 6), where in
// tryStart, itself inlined in place, it was a call.
func (e *engine) tryStart(c *ctaRun, startAt int64) {
	if startAt > e.clock.now() {
		e.clock.cta(startAt, evStart, c, 0)
		return
	}
	if len(e.mechs) > 0 && !mayStartAll(e.mechs, c, e.clock.now()) {
		e.ctas.stall(c)
		return
	}
	e.startCTA(c, e.clock.now())
}

// spec is what the trace says about c: its kernel's CTA, or its group's.
// Most CTAs carry their own (streamed), which this, small
// enough to inline, returns without a call; a CTA asks it two to four
// times.
func (c *ctaRun) spec() *ctaSpec {
	if c.streamed {
		return &c.own
	}
	return c.tableSpec()
}

// tableSpec is spec for a CTA whose spec stays in its kernel's table or
// its group's.
func (c *ctaRun) tableSpec() *ctaSpec {
	if c.g != nil {
		return c.g.src.ctas.at(c.idx)
	}
	return c.k.ctas.at(c.idx)
}

// startCTA begins execution at now (the clock's): warps without launch
// sites end after their own cycles; those with meet their first as an event.
// It takes the cycle from its caller: read from the clock here, in
// place's inlined copy, it cost a load, a spill and the call's mark
// (see dropSpec), where place held the cycle already (synth and BFS 8
// instructions a CTA more, uniform 5).
func (e *engine) startCTA(c *ctaRun, now int64) {
	// now from the caller, not the clock: see above
	c.start, c.stall = now, now-c.dispatch
	k := c.k
	if k.startCycle < 0 {
		startKernel(e, k, now)
	}
	if e.watch.observing() {
		e.watch.ctaStarted(c, now, e.io)
	}
	spec := c.spec()
	if e.pages != nil && e.pages.segmented(c, spec) {
		c.dirty = true
		e.runSegment(c)
		return
	}
	if e.sms.contention() != nil && (spec.issue > 0 || spec.dram > 0) {
		// Under the contention model (shared.go). One job a CTA, most of
		// the starts, starts here: through startShared, a call more.
		if c.shared = true; spec.x == nil || len(spec.x.sites) == 0 {
			c.alone = spec.alone()
			e.sms.contention().start(now, c.sm.id, jobRef{run: c.slot, warp: -1}, c.alone, spec.demand())
			return
		}
		e.startShared(c, spec)
		return
	}
	if spec.warps == nil && (spec.x == nil || len(spec.x.sites) == 0) {
		e.clock.cta(now+spec.cycles, evCTAEnd, c, 0)
		return
	}
	e.startWarps(c, spec)
}

// startWarps begins a CTA with per-warp cycles or launch sites, not
// under the contention model: one end event where no warp has a site,
// else each warp with sites meets its first as an event (evSite) and the
// others end with their cycles. Its warps are set as startShared's
// (sitedWarps): the doc's lines stand where their six lines were, so
// that the lines of the functions below, which the profile keys inlined
// calls by, stay where they were (docs/performance.md).
func (e *engine) startWarps(c *ctaRun, spec *ctaSpec) {
	x := spec.x
	n := int(c.k.decl.need.warps)
	c.end = e.clock.now()
	if x == nil || len(x.sites) == 0 {
		for w := 0; w < n; w++ {
			c.end = max(c.end, e.clock.now()+warpCycles(spec, w))
		}
		e.clock.cta(c.end, evCTAEnd, c, 0)
		return
	}
	c.sitedWarps(spec, x, n)
	for w := range c.warps {
		wr := &c.warps[w]
		if wr.next < 0 {
			wr.end = e.clock.now() + wr.cycles
			c.end = max(c.end, wr.end)
			continue
		}
		wr.sited = true
		c.pending++
		e.clock.cta(e.clock.now()+x.sites[wr.next].at, evSite, c, w)
	}
}

// warpCycles is warp w's own execution time.
func warpCycles(spec *ctaSpec, w int) int64 {
	if spec.warps != nil {
		if w < len(spec.warps) {
			return spec.warps[w]
		}
		return 0 // beyond its own block, in an aggregated kernel's wider CTA (klap.go): it exits at once
	}
	return spec.cycles
}

// warpDone records that a warp with sites has passed its last one.
func (e *engine) warpDone(c *ctaRun, end int64) {
	c.end = max(c.end, end)
	c.pending--
	if c.pending == 0 {
		e.clock.cta(c.end, evCTAEnd, c, 0)
	}
}

// ctaEnd frees the CTA's SM and counts it towards its kernel or group.
//
// It is not inlined (into ctaEnded or shareWake): inlined, its
// call of smArray.leave is at a line the profile does not mark hot in the
// handler, so leave stayed a call, whose spills cost more than the
// handler's call of ctaEnd; on its own, ctaEnd inlines leave
// (scripts/instructions.sh --quick: uniform 6 instructions a CTA fewer,
// synth and BFS the same). loop is kept out of run for it (see loop).
//
//go:noinline
func (e *engine) ctaEnd(c *ctaRun) {
	k, now := c.k, e.clock.now()
	if e.sms.leave(c.sm, k.decl.need, c.smSlot, c.dispatch, now) {
		e.kd.leftSM(e.sms.vacate(c.sm))
	}
	e.out.ctaEnded(now, c.stall)
	if e.out.endsHooked() {
		if e.out.keepsRows() {
			e.out.ctaRow(c, now, &e.sms)
		}
		if e.watch.observing() {
			e.watch.ctaFinished(c, now, e.io)
		}
		if len(e.mechs) > 0 {
			endedAll(e.mechs, c, now)
		}
	}
	if !c.streamed { // the test here, not in dropSpec: see dropSpec
		c.dropSpec()
	}
	e.ctas.put(c)
	if g := c.g; g != nil {
		e.sites.ctaEnded(true)
		if g.done++; g.done == g.src.total {
			e.groupCTAsDone(g)
		}
		return
	}
	e.sites.ctaEnded(!k.host)
	if k.done++; k.done >= k.total { // maybeComplete's test, here: see dropSpec
		// (its number goes as it leaves the Kernel Distributor: plainKernels)
		e.drained(k)
	}
}

// reset clears a reused CTA record for the next CTA, keeping its slot
// and its slices' room (own is written whole as it is used). It clears
// the state alone, where clearing the whole record and setting back what
// it kept cost 30 instructions a CTA more (scripts/instructions.sh
// --quick uniform), and that only where the last CTA's run dirtied it.
// Other runs leave only what place and startCTA write again (kernel,
// index, SM and slot, dispatch, whether its spec is own, whether it is
// shared; start and stall as it starts), what is set before it is read
// (end; alone, read only where shared) and pending, none at a CTA's end.
// Clearing the 144 bytes for every CTA cost uniform 5 instructions a CTA
// more, synth 6, BFS 2.
func (c *ctaRun) reset() {
	if c.dirty {
		c.ctaState = ctaState{}
	}
	c.warps = c.warps[:0]
}

// placedAll tells each mechanism of ms that c is placed, and endedAll
// that it ended at now. place and ctaEnd call them only off their common
// path (no mechanisms): a loop's set-up costs more than the test of the
// slice's length.
func placedAll(ms []mechanism, c *ctaRun) {
	for _, m := range ms {
		m.placed(c)
	}
}

func endedAll(ms []mechanism, c *ctaRun, now int64) {
	for _, m := range ms {
		m.ctaEnded(c, now)
	}
}

// dropSpec clears c's spec in its table at its end (ctaEnd asks it only
// where c's spec is not own): its sites and warps are no longer needed.
// An own one stays till the record's next CTA's is written over it whole
// (specQueue.pop, nextSpec): clearing it cost BFS 8 instructions a CTA
// (scripts/instructions.sh --quick), uniform 4.
//
// ctaEnd tests whether c's spec is own itself, as it tests whether its
// kernel's CTAs are all done (maybeComplete's test) and smArray.leave
// whether slots are numbered: the compiler marks each inlined call with
// an instruction of the call's own line, and where the line has none (a
// call with no argument to compute, whose callee is a test), with a NOP,
// executed each time. Tested in small functions, the three cost synth,
// uniform and BFS 3 instructions a CTA more (callgrind, the --quick
// traces of scripts/instructions.sh).
func (c *ctaRun) dropSpec() { *c.tableSpec() = ctaSpec{} }

// startKernel starts kernel k at now, when its first CTA starts
// (startCTA, placePacked): the kernel's start cycle, the output's count,
// the device launches waiting on it, and the host's record of it. Once a
// kernel, so a function of its own, out of the CTA paths' bodies.
func startKernel(e *engine, k *Kernel, now int64) {
	k.startCycle = now
	e.out.started(now)
	if e.dev.launchBegun(k) {
		e.dev.letWaitersOn()
	}
	if k.host {
		e.io.kernelStarted(k, e.host.lastKernel(k))
	}
}

// mayStartAll asks every mechanism of ms (the CRCS page gate, the
// policy's gate) whether placed CTA c may execute at now.
func mayStartAll(ms []mechanism, c *ctaRun, now int64) bool {
	for _, m := range ms {
		if !m.mayStart(c, now) {
			return false
		}
	}
	return true
}
