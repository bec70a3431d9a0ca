package replay

// The CRCS page gate: the reference count table (scoreboard.go), built
// from a pass of its own over the trace before the kernels run, as the
// pre-profiler does (§4.2), and the engine's use of it. As a mechanism it
// holds a host kernel's CTAs until their pages are ready and owned, counts
// their references down at their ends, and runs a kernel's pre-profiler
// when it becomes ready; the placer asks it for a kernel's page share and
// whether its next CTA waits on pages, and a CTA in access order asks it
// at each touch (segments.go).

import (
	"math"

	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// pageGate is the scoreboard and how it is asked (crcs.gate,
// crcs.irregular, crcs.profile_cycles).
type pageGate struct {
	pageLinks
	sb *scoreboard
	// accessOrder: the scoreboard checks CTAs at each touch (touch.go)
	accessOrder  bool
	irregularAll bool  // crcs.irregular=all
	profile      int64 // crcs.profile_cycles: a pre-profiler call's cost
	perWave      uint64
}

// pageLinks is what the page gate reaches outside itself.
type pageLinks struct {
	clock *eventClock
	io    *hostIO
	body  *bodyCursor // the CTA the placer asks about is read ahead
	sink  tables.Sink // the pages' rows
}

// newPageGate builds the reference count table from src, a pass of its
// own over the trace, and has the body cursor give CTAs the references
// the gate checks.
func newPageGate(src trace.Source, cfg *model.Config, space *pageSpace, l pageLinks) (*pageGate, error) {
	exact := cfg.CRCS.Pages == model.PagesExact
	sb, err := profileRefs(src, exact, space, l.io.modelled(), cfg.CRCS.Share == model.ShareAvailable)
	if err != nil {
		return nil, err
	}
	g := cfg.GPU
	p := &pageGate{pageLinks: l, sb: sb,
		accessOrder:  sb.accessPositioned() && cfg.CRCS.Gate == model.GateAccess,
		irregularAll: cfg.CRCS.Irregular == model.IrregularAll,
		profile:      cfg.CRCS.ProfileCycles,
		perWave:      uint64(max(g.SMs*g.MaxCTAsPerSM, 1)),
	}
	touches := touchNone
	switch {
	case p.accessOrder:
		touches = touchAll
	case cfg.CRCS.Irregular == model.IrregularReady:
		touches = touchIrregular
	}
	l.body.setRefs(&refSource{exact: exact, space: space}, sb.irregularKernels(), touches)
	return p, nil
}

// register routes the pages' and the pre-profiler's events to the gate.
func (p *pageGate) register(c *eventClock) {
	c.on(evPageReady, func(ev eventq.Event) {
		p.sb.ready(p.io, p.sink, int(ev.Ref), c.now())
		p.nextPage()
	})
	c.on(evProfiled, func(ev eventq.Event) {
		c.kernelOf(ev)
		p.sb.wake() // its stalled CTAs may start now
	})
}

// start writes the table's first rows and schedules the first prelude
// page's arrival.
func (p *pageGate) start() {
	p.sb.start(p.io, p.sink)
	p.nextPage()
}

// nextPage schedules the next prelude page's arrival on the GPU.
func (p *pageGate) nextPage() {
	if pg, at, ok := p.io.nextReady(); ok {
		p.clock.ref(at, evPageReady, int32(pg))
	}
}

// gated reports whether the scoreboard checks c: a host kernel's own CTA.
func gated(c *ctaRun) bool { return c.g == nil && c.k.order >= 0 }

func (p *pageGate) placed(c *ctaRun) {
	if gated(c) {
		p.sb.placed(c.k, c.spec().x)
	}
}

// mayStart holds a host kernel's own CTA until its kernel's pre-profiler
// has run and the scoreboard passes it. In access order (segments.go) it
// checks the pages touched at the start (all of them for a CTA with
// launch sites, which runs unsegmented); an irregular kernel under
// crcs.irregular=ready has its touched pages' ready bits checked
// (touch.go); otherwise every page the CTA references must be ready and
// owned.
func (p *pageGate) mayStart(c *ctaRun, now int64) bool {
	if !gated(c) {
		return true
	}
	if now < c.k.profiled() {
		return false
	}
	k, x := c.k, c.spec().x
	irregular := p.sb.isIrregular(k)
	switch {
	case irregular && p.irregularAll:
		return p.sb.mayStart(k, x)
	case p.accessOrder:
		pos := int64(0)
		if x != nil && len(x.sites) > 0 {
			pos = math.MaxInt64
		}
		return p.sb.passes(k, x, pos)
	case irregular:
		return p.sb.passes(k, x, math.MaxInt64)
	}
	return p.sb.mayStart(k, x)
}

// ctaEnded counts a host kernel's own CTA's references down.
func (p *pageGate) ctaEnded(c *ctaRun, now int64) {
	if gated(c) {
		p.sb.release(p.io, p.sink, c.k, c.spec().x, now)
	}
}

// kernelReady runs host kernel k's pre-profiler (costs.go): its CTAs may
// start once it is done, crcs.profile_cycles per SetRange call, one wave
// of CTAs at a time.
func (p *pageGate) kernelReady(k *Kernel, now int64) {
	if k.order < 0 || p.profile == 0 || k.total == 0 {
		return
	}
	waves := int64((k.total + p.perWave - 1) / p.perWave)
	calls := max(p.sb.profilerCalls(k)/int64(k.total), 1) // per CTA, at least one
	k.rareParts().profiled = now + waves*calls*p.profile
	p.clock.kernel(k.rare.profiled, evProfiled, k)
}

func (*pageGate) kernelDrained(*Kernel) {}

// changedSince is the scoreboard's: nil-safe, so a run without a gate
// never re-asks stalled CTAs for it.
func (p *pageGate) changedSince() bool { return p != nil && p.sb.changedSince() }

// pageShare is Dispatch.PageShare: the scoreboard's, 0 without one.
func (p *pageGate) pageShare(k *Kernel) float64 {
	if p == nil {
		return 0
	}
	return p.sb.pageShare(k.order)
}

// nextWaitsOnUnplaced is Dispatch.NextWaitsOnUnplaced: k's next CTA is
// read (the body cursor) for the scoreboard to check its pages.
func (p *pageGate) nextWaitsOnUnplaced(k *Kernel) (bool, error) {
	if p == nil || k.order < 0 || k.next >= k.total {
		return false, nil
	}
	if err := p.body.reach(k, k.next); err != nil {
		return false, err
	}
	return p.sb.waitsOnUnplaced(k, k.ctas.at(k.next).x), nil
}

// hostKernels is the number of host kernels in the trace, known from the
// gate's pass over it.
func (p *pageGate) hostKernels() int { return p.sb.hostKernels() }

// segmented reports whether c, about to start, runs in segments: it is
// checked in access order and has touches left past its start.
func (p *pageGate) segmented(c *ctaRun, spec *ctaSpec) bool {
	if !p.accessOrder || !gated(c) || spec.x == nil || len(spec.x.sites) > 0 {
		return false
	}
	_, more := spec.x.nextTouch()
	return more
}

// passesNextTouch reports whether the pages c touches next pass.
func (p *pageGate) passesNextTouch(c *ctaRun) bool {
	x := c.spec().x
	at, _ := x.nextTouch()
	return p.sb.passes(c.k, x, at)
}

// blocker says which page keeps c from starting.
func (p *pageGate) blocker(c *ctaRun) string {
	if !gated(c) {
		return ""
	}
	return p.sb.blocker(c.k, c.spec().x)
}
