package replay

// A CTA's run, from its placement to its end: the engine places it on an
// SM (smArray.enter), starts it when the gate and the scoreboard let it,
// runs its warps to their sites and ends (as events, or as jobs of the
// contention model: shared.go; in segments between pages: segments.go),
// and at its end frees its SM (smArray.leave), writes its row and counts
// it towards its kernel or group. The records live in ctaRuns.

import (
	"math"

	"github.com/gpureplay/gpureplay/tables"
)

// ctaRun is one CTA resident on an SM.
type ctaRun struct {
	slot     int32 // index in the CTA records (ctaRuns), for events
	k        *Kernel
	g        *group // the aggregated group it belongs to; nil for a native CTA
	idx      uint64 // index in its kernel, or in its group
	sm       int
	smSlot   int // its CTA slot on the SM (for hardware thread ids)
	dispatch int64
	start    int64
	stall    int64

	// Only for CTAs with launch sites: per-warp progress.
	warps   []warpRun
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

	// own is its spec when its kernel's table streams (ctaTable.nextSpec):
	// decoded as it is placed, not kept in the table; or when it is a
	// queue (ctaSpecs), taken out of it.
	own      ctaSpec
	streamed bool
	// ownWarps holds own's per-warp cycles: kept when the state is reused
	// for the next CTA, so streaming a CTA with them allocates nothing.
	ownWarps []int64
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

// place puts k's next CTA on SM i, reserving its resources: native CTAs
// first, then those of coalesced groups in FIFO order. It starts at once
// unless a spilled group's metadata must be loaded first (for every CTA
// of the group under dtbl.spill_loads=cta, for its first under first) or
// the policy's gate holds it.
func (e *engine) place(k *Kernel, i int) {
	slot, startAt := e.sms.enter(k, i, e.now)
	c := e.ctas.get()
	c.reset()
	c.k, c.sm, c.smSlot, c.dispatch = k, i, slot, e.now
	if k.next < k.total {
		c.idx = k.next
		k.next++
		if err := e.body.reach(k, c.idx); err != nil {
			e.fail(err)
		}
		if k.ctas.streams() {
			c.ownWarps = k.ctas.nextSpec(&c.own, c.ownWarps)
			c.streamed = true
		} else if q := k.ctas.queued(); q != nil {
			q.pop(c.idx, &c.own)
			c.streamed = true
		}
		if e.sb != nil && k.order >= 0 {
			e.sb.placed(k, c.spec().x)
		}
	} else {
		e.placeGrouped(k, c)
	}
	if k.Remaining() == 0 {
		e.kd.placedLast()
	}
	if c.g != nil && c.g.spilled && (c.idx == 0 || e.cfg.DTBL.SpillLoads == "cta") {
		e.scheduleCTA(e.now+e.cfg.DTBL.AGTSpill, evStart, c, 0)
		return
	}
	if startAt > e.now {
		e.scheduleCTA(startAt, evStart, c, 0)
		return
	}
	e.tryStart(c)
}

// placeGrouped gives c the next CTA of k's current aggregated group.
func (e *engine) placeGrouped(k *Kernel, c *ctaRun) {
	p := k.pool
	g := p.groups[p.next]
	c.g, c.idx = g, g.next
	g.next++
	p.pooled--
	if g.next == g.src.total {
		p.groups[p.next] = nil
		p.next++
		if p.next == len(p.groups) {
			p.groups, p.next = p.groups[:0], 0
		}
	}
}

// tryStart starts a placed CTA, or holds it stalled if the gate says no.
func (e *engine) tryStart(c *ctaRun) {
	if !e.mayStart(c) {
		e.ctas.stall(c)
		return
	}
	e.startCTA(c)
}

// mayStart asks the CRCS scoreboard (for a host kernel's own CTAs) and the
// policy's gate whether a placed CTA may execute now.
func (e *engine) mayStart(c *ctaRun) bool {
	if e.sb != nil && c.g == nil && c.k.order >= 0 && (e.now < c.k.profiled() || !e.scoreboardStart(c)) {
		return false
	}
	return e.gate == nil || e.gate.MayStart(c.k, c.idx)
}

// scoreboardStart is the scoreboard's word on a CTA about to start. In
// access order (segments.go) it checks the pages touched at the start
// (all of them for a CTA with launch sites, which runs unsegmented); an
// irregular kernel under crcs.irregular=ready has its touched pages'
// ready bits checked (touch.go); otherwise every page the CTA references
// must be ready and owned.
func (e *engine) scoreboardStart(c *ctaRun) bool {
	k, x := c.k, c.spec().x
	irregular := e.sb.isIrregular(k)
	switch {
	case irregular && e.cfg.CRCS.Irregular == "all":
		return e.sb.mayStart(k, x)
	case e.accessOrder:
		pos := int64(0)
		if x != nil && len(x.sites) > 0 {
			pos = math.MaxInt64
		}
		return e.sb.passes(k, x, pos)
	case irregular:
		return e.sb.passes(k, x, math.MaxInt64)
	}
	return e.sb.mayStart(k, x)
}

// pageShare is Dispatch.PageShare: the scoreboard's, 0 without one.
func (e *engine) pageShare(k *Kernel) float64 {
	if e.sb == nil {
		return 0
	}
	return e.sb.pageShare(k.order)
}

// nextWaitsOnUnplaced is Dispatch.NextWaitsOnUnplaced: k's next CTA is
// read (the body cursor) for the scoreboard to check its pages.
func (e *engine) nextWaitsOnUnplaced(k *Kernel) bool {
	if e.sb == nil || k.order < 0 || k.next >= k.total {
		return false
	}
	if err := e.body.reach(k, k.next); err != nil {
		e.fail(err)
		return false
	}
	return e.sb.waitsOnUnplaced(k, k.ctas.at(k.next).x)
}

// spec is what the trace says about c: its kernel's CTA, or its group's.
// Most CTAs carry their own (streamed: never a group's), which this, small
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

// retryStalled starts every stalled CTA whose gate now opens, in the order
// they were placed.
func (e *engine) retryStalled() {
	e.ctas.retryStalled(func(c *ctaRun) bool {
		if !e.mayStart(c) {
			return false
		}
		e.startCTA(c)
		return true
	})
}

// startCTA begins execution: warps without launch sites end after their own
// cycles; warps with sites meet their first site as an event.
func (e *engine) startCTA(c *ctaRun) {
	c.start = e.now
	c.stall = c.start - c.dispatch
	k := c.k
	if k.startCycle < 0 {
		k.startCycle = e.now
		e.launchBegun(k)
		if k.host {
			e.io.kernelStarted(k, e.lastHostKernel(k))
		}
	}
	if e.obs != nil {
		e.obs.CTAStarted(e.ctaEvent(c))
	}
	spec := c.spec()
	if e.segmented(c, spec) {
		e.runSegment(c)
		return
	}
	if e.sms.contention() != nil && (spec.issue > 0 || spec.dram > 0) {
		e.startShared(c, spec)
		return
	}
	if spec.warps == nil && (spec.x == nil || len(spec.x.sites) == 0) {
		e.scheduleCTA(e.now+spec.cycles, evCTAEnd, c, 0)
		return
	}
	e.startWarps(c, spec)
}

func (e *engine) startWarps(c *ctaRun, spec *ctaSpec) {
	x := spec.x
	n := int(c.k.decl.need.warps)
	c.end = e.now
	if x == nil || len(x.sites) == 0 {
		for w := 0; w < n; w++ {
			c.end = max(c.end, e.now+warpCycles(spec, w))
		}
		e.scheduleCTA(c.end, evCTAEnd, c, 0)
		return
	}
	sortSites(x.sites)
	c.warps = c.warps[:0]
	for w := 0; w < n; w++ {
		c.warps = append(c.warps, warpRun{cycles: warpCycles(spec, w), next: -1})
	}
	for i := len(x.sites) - 1; i >= 0; i-- {
		c.warps[x.sites[i].warp].next = i
	}
	for w := range c.warps {
		wr := &c.warps[w]
		if wr.next < 0 {
			wr.end = e.now + wr.cycles
			c.end = max(c.end, wr.end)
			continue
		}
		wr.sited = true
		c.pending++
		e.scheduleCTA(e.now+x.sites[wr.next].at, evSite, c, w)
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
		e.scheduleCTA(c.end, evCTAEnd, c, 0)
	}
}

// ctaEnd frees the CTA's SM and counts it towards its kernel or group.
func (e *engine) ctaEnd(c *ctaRun) {
	k := c.k
	if emptied := e.sms.leave(c.sm, k.decl.need, c.smSlot, e.now); emptied != nil {
		e.kd.leftSM(emptied, e.now)
	}
	e.stats.CTAs++
	e.sites.ctaEnded(c)
	e.stats.StallCycles += c.stall
	e.busy.cover(c.start, e.now)
	if !e.quiet {
		e.emitCTA(c)
	}
	if e.obs != nil {
		e.obs.CTAFinished(e.ctaEvent(c))
	}
	if e.sb != nil && c.g == nil && k.order >= 0 {
		e.sb.release(e.io, e.sink, k, c.spec().x, e.now)
	}
	*c.spec() = ctaSpec{} // its sites and warps are no longer needed
	e.ctas.put(c)
	if g := c.g; g != nil {
		if g.done++; g.done == g.src.total {
			e.groupCTAsDone(g)
		}
		return
	}
	k.done++
	e.maybeComplete(k)
}

// emitCTA writes a finished CTA's row. The row, nine fields passed by
// value to an interface, and its slowdown from a slab cost a CTA's end a
// good part of its time, so ctaEnd skips it for a sink that keeps no rows.
func (e *engine) emitCTA(c *ctaRun) {
	row := tables.CTA{
		KernelID:      c.k.id,
		CTA:           c.idx,
		SM:            int32(c.sm),
		DispatchCycle: c.dispatch,
		StartCycle:    c.start,
		EndCycle:      e.now,
		StallCycles:   c.stall,
		Slowdown:      e.slowdown(c),
		Name:          c.k.decl.Name,
	}
	if c.g != nil {
		row.GroupID = &c.g.id
	}
	e.sink.CTA(row)
}

// reset clears a reused CTA state, keeping its slot and its slices' room.
// It clears in place and sets what it keeps field by field: a ctaRun
// literal is built whole on the stack and copied, and the copy reads
// back stores the processor cannot forward (one placed CTA each).
func (c *ctaRun) reset() {
	slot, warps, ownWarps := c.slot, c.warps[:0], c.ownWarps
	*c = ctaRun{}
	c.slot, c.warps, c.ownWarps = slot, warps, ownWarps
}

// ctaEvent describes c for observers; the engine reuses one event.
func (e *engine) ctaEvent(c *ctaRun) *CTAEvent {
	e.ev = CTAEvent{Kernel: c.k, CTA: c.idx, Group: c.g != nil, SM: c.sm, Cycle: e.now, Start: c.start, run: c, io: e.io}
	return &e.ev
}
