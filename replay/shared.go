package replay

import (
	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// CTAs that record a demand (trace fields insts, dram_bytes) run through
// the contention model when it is on: their progress, not wall time, is
// what their cycles, launch-site positions and inlined work count. Each
// such CTA is one job of the model, or, when it has launch sites, one job
// per warp with sites (the warp stalls at a site for the launch API, which
// is wall time and demands nothing, then goes on with the inlined work and
// its own) plus one job for its other warps together. A CTA's demand is
// spread evenly over its warps. CTAs without demand keep the exact path of
// cta.go, so traces without demands replay as they did before the model.

// jobRef is what a contention job stands for: a CTA (warp −1: the whole
// CTA, or its warps without sites) or one warp with launch sites. It
// names the CTA by its slot in the CTA records (ctaRuns), not by a
// pointer, and travels in the model as its ref (bits): the model holds
// no pointer to write-barrier, and no table maps its refs back.
type jobRef struct {
	run  int32
	warp int32
}

// bits is j as the model's ref.
func (j jobRef) bits() uint64 { return uint64(uint32(j.run)) | uint64(uint32(j.warp))<<32 }

// jobOf is the jobRef whose bits are x.
func jobOf(x uint64) jobRef { return jobRef{run: int32(uint32(x)), warp: int32(uint32(x >> 32))} }

// shareJobs is the contention model (internal/contention) and what its
// jobs stand for: the SMs' shared issue slots and DRAM bandwidth, with the
// CTAs' progress on them. It owns the model and the CTA rows' slowdowns; it never decides what a finished job's CTA does next
// (the engine's shareWake does) and makes no event but the model's
// wake-ups (evShare).
type shareJobs struct {
	model     *contention.Model
	slowdowns slab[float64] // CTA rows' slowdowns
}

// newShareJobs makes the contention model for g; its wake-ups are events
// in q, moved there while pending (eventq.Queue.Move) rather than left
// to come stale when an SM's rate changes.
func newShareJobs(g *model.GPU, q *eventq.Queue) *shareJobs {
	s := &shareJobs{model: contention.New(g.SMs, g.IssueWidth, g.DRAMBytesPerCycle(), func(sm int, at int64, gen uint32) {
		q.Push(eventq.Event{At: at, Kind: uint8(evShare), Ref: int32(sm), Aux: int32(gen)})
	})}
	s.model.WakeIn(q, uint8(evShare))
	s.model.MoveWith(func(sm int, at, prev int64, gen uint32) {
		e := eventq.Event{At: at, Kind: uint8(evShare), Ref: int32(sm), Aux: int32(gen)}
		q.Move(eventq.Event{At: prev, Kind: e.Kind, Ref: e.Ref, Aux: int32(gen - 1)}, e)
	})
	return s
}

// start hands the model work cycles of progress on SM sm at now, demanding
// d per cycle alone, standing for j.
func (s *shareJobs) start(now int64, sm int, j jobRef, work int64, d contention.Demand) {
	s.model.Start(now, sm, float64(work), d, j.bits())
}

// wake is SM sm's wake-up of generation gen at now: the refs of the jobs
// that have finished are done[lo:] (jobOf gives what each stands for);
// done is nil where it is stale.
func (s *shareJobs) wake(now int64, sm int, gen uint32) (done []uint64, lo int) {
	return s.model.Wake(now, sm, gen)
}

// settle sets the rates for the cycle now ends.
func (s *shareJobs) settle(now int64) { s.model.Settle(now) }

// utilization is the issue slots' and DRAM's use over the run to end.
func (s *shareJobs) utilization(end int64) (issue, dram float64) {
	return s.model.Utilization(end, end)
}

// slowdown keeps a CTA row's slowdown v (in a slab, as rows may outlive
// the call).
func (s *shareJobs) slowdown(v float64) *float64 { return s.slowdowns.of(v) }

// demand is the CTA's demand per cycle alone.
func (s *slimSpec) demand() contention.Demand {
	return contention.Demand{Issue: float64(s.issue), DRAM: float64(s.dram)}
}

// demand is the CTA's demand per cycle alone.
func (s *ctaSpec) demand() contention.Demand {
	return contention.Demand{Issue: float64(s.issue), DRAM: float64(s.dram)}
}

// alone is the CTA's own time alone: the longest warp, without sites.
func (s *ctaSpec) alone() int64 {
	if s.warps == nil {
		return s.cycles
	}
	var m int64
	for _, w := range s.warps {
		m = max(m, w)
	}
	return m
}

// startShared begins a CTA with demand and launch sites under the
// contention model (startCTA starts those without sites, one job each):
// each warp with sites is a job of the model up to its first site, and
// the warps without sites one job together, of their longest warp's
// cycles, at their demand together.
//
// Its warps are set as startWarps's (sitedWarps). The lines of this doc
// stand where theirs were, so that the functions below keep the lines
// the profile keys their calls by (docs/performance.md).
func (e *engine) startShared(c *ctaRun, spec *ctaSpec) {
	d := spec.demand()
	x := spec.x
	n := int(c.k.decl.need.warps)
	c.sitedWarps(spec, x, n)
	per := d.Scale(1 / float64(n))
	c.end = e.clock.now()
	var rest int64
	var others int
	for w := range c.warps {
		wr := &c.warps[w]
		if wr.next < 0 {
			rest = max(rest, wr.cycles)
			others++
			continue
		}
		wr.sited = true
		c.pending++
		e.startJob(c, w, x.sites[wr.next].at, per)
	}
	c.alone = rest
	if others > 0 {
		c.pending++
		e.startJob(c, -1, rest, per.Scale(float64(others)))
	}
}

// startJob hands work cycles of c's progress (warp −1: the CTA's own) to
// the model.
func (e *engine) startJob(c *ctaRun, warp int, work int64, d contention.Demand) {
	e.sms.contention().start(e.clock.now(), c.sm.id, jobRef{run: c.slot, warp: int32(warp)}, work, d)
}

// shareWake is an SM's wake-up (evShare) that is not stale: the jobs
// that have finished (done[lo:], from shareJobs.wake) go on. True: unsettled.
func (e *engine) shareWake(done []uint64, lo int) bool {
	if len(done) == lo+1 && int32(done[lo]) < 0 && int32(done[lo]>>32) >= 0 { // j.run < 0, j.warp >= 0: one plain CTA's end, most wake-ups'
		j := jobOf(done[lo])
		jobEnded(e, jobSM(e, j), -j.run) // the loop's first case, without the loop (its done reloaded past the call; --quick: bfs 2,422 -> 2,419, sweep8 E 1,402 -> 1,396)
		return true
	}
	for ; lo < len(done); lo++ { // by index: done[lo:] cost its re-base
		j := jobOf(done[lo])
		if j.run < 0 { // a plain CTA's (plainend.go): its kernel's number, negated, and its SM
			if j.warp < 0 { // a plain group CTA's (groupplain.go)
				groupCTAEnded(e, j)
				continue
			}
			jobEnded(e, jobSM(e, j), -j.run)
			continue
		}
		c := e.ctas.at(j.run)
		switch {
		case j.warp < 0 && c.segment:
			e.reachTouch(c) // a CTA run in segments between its touches
		case j.warp >= 0 && c.warps[j.warp].next >= 0:
			e.sites.reachShared(c, int(j.warp), e.clock.now())
		case j.warp >= 0:
			c.warps[j.warp].end = e.clock.now()
			e.warpDone(c, e.clock.now()) // past its last site
		case c.pending == 0:
			e.ctaEnd(c) // a CTA without launch sites
		default:
			e.unsitedDone(c)
			e.warpDone(c, e.clock.now()) // the warps without sites
		}
	}
	return true
}

// unsitedDone records the ends of a shared CTA's warps without launch
// sites, which ran as one job of their longest warp's cycles that has just
// finished: each warp ends when the job's progress passed its own cycles,
// taken at the job's mean rate.
func (e *engine) unsitedDone(c *ctaRun) {
	var rest int64
	for _, wr := range c.warps {
		if !wr.sited {
			rest = max(rest, wr.cycles)
		}
	}
	for w := range c.warps {
		if wr := &c.warps[w]; !wr.sited {
			wr.end = c.start + scaleTime(e.clock.now()-c.start, wr.cycles, rest)
		}
	}
}

// scaleTime is t·part/whole (t when whole is 0), in floating point: the
// product of two cycle counts may not fit in an int64.
func scaleTime(t, part, whole int64) int64 {
	if whole <= 0 {
		return t
	}
	return roundCycle(float64(t) * float64(part) / float64(whole))
}

// resumeWarp goes on with a warp's progress after a launch site's API
// stall: the inlined work and its own cycles up to its next site or end.
func (e *engine) resumeWarp(c *ctaRun, w int) {
	wr := &c.warps[w]
	if wr.next < 0 && wr.work == 0 {
		wr.end = e.clock.now()
		e.warpDone(c, e.clock.now())
		return
	}
	spec := c.spec()
	e.startJob(c, w, wr.work, spec.demand().Scale(1/float64(len(c.warps))))
}

// reachShared is a warp under the contention model reaching its next
// site: the site is decided and priced as in reach; the API stall is wall
// time, the inlined work is progress.
func (se *siteEngine) reachShared(c *ctaRun, w int, now int64) {
	first, last, cost, held := se.pass(c, w, now)
	if held {
		return
	}
	se.goOnShared(c, w, first, last, cost, now)
}

// goOnShared moves a shared warp past the site sites[first:last]: its
// API stall is wall time, then its inlined work and own cycles up to its
// next site or end are progress.
func (se *siteEngine) goOnShared(c *ctaRun, w, first, last int, cost siteCost, now int64) {
	sites := c.spec().x.sites
	wr := &c.warps[w]
	wr.work = cost.inline
	if last < len(sites) && sites[last].warp == int32(w) {
		wr.next = last
		wr.work += sites[last].at - sites[first].at
	} else {
		wr.next = -1
		wr.work += max(wr.cycles-sites[first].at, 0)
		c.alone = max(c.alone, max(wr.cycles, sites[first].at)+wr.shift)
	}
	if cost.launch > 0 {
		se.clock.ctaDelayed(now, cost.launch, evResume, c, w)
		return
	}
	se.host.resumeWarp(c, w)
}

// slowdown is a shared CTA's run time over its time alone at now, for
// its row (from a slab, as rows may outlive the call).
func (a *smArray) slowdown(c *ctaRun, now int64) *float64 {
	v, ok := slowdownOf(c, now)
	if !ok {
		return nil
	}
	return a.contention().slowdown(v)
}

// slowdownOf is a shared CTA's run time over its time alone at now, and
// whether it is shared (has one).
func slowdownOf(c *ctaRun, now int64) (float64, bool) {
	if !c.shared {
		return 0, false
	}
	v := 1.0
	if c.alone > 0 {
		v = float64(now-c.start-c.paused) / float64(c.alone)
	}
	return v, true
}

// marked marks the SM the model's last Wake woke, left unmarked for the
// engine in swapPlain's runs (Dispatch.setPlain: contention.Model.OwnMarks),
// for the cycle's settle, and reports true: the loop's condition holds
// it, on the line of shareWake's call, whose lines the PGO profile keys
// calls by (docs/performance.md). The loop asks it only where the model
// leaves it the marks (owns). Where an SM is open (open), the next
// wake-ups cannot swap either until the GPU fills again: the engine hands
// the marks back to the model (Disown), so that those wake-ups cost no
// mark of the engine's, until a swap takes them again (Model.Swap).
func (s *shareJobs) marked(open bool) bool {
	s.model.MarkWoken()
	if open {
		s.model.Disown()
	}
	return true
}

// owns reports whether the model leaves the engine the marks of the SMs
// its wake-ups wake (contention.Model.Owned).
func (s *shareJobs) owns() bool { return s.model.Owned() }

// ownMarks has the model leave the SMs its wake-ups wake unmarked, for
// swapPlain's swap or the loop's mark (marked).
func (s *shareJobs) ownMarks() { s.model.OwnMarks() }

// swap ends the job that finished on sm and starts the next of work
// and d in one step (contention.Model.Swap: Start, then Settle), for
// swapPlain.
func (s *shareJobs) swap(now int64, sm int, work float64, d contention.Demand, ref uint64) {
	s.model.Swap(now, sm, work, d, ref)
}

// sitedWarps sets up c's n warps for a run with launch sites x: each
// warp's own cycles, and its first site (a warp's are together), or none
// (-1). startWarps's and startShared's.
func (c *ctaRun) sitedWarps(spec *ctaSpec, x *ctaExtra, n int) {
	x.sortSites()
	c.warps = append(c.warps[:0], make([]warpRun, n)...) // grown once, not by each append
	for w := range c.warps {
		c.warps[w].cycles, c.warps[w].next = warpCycles(spec, w), -1
	}
	for i := 0; i < len(x.sites); i = warpEnd(x.sites, i) {
		c.warps[x.sites[i].warp].next = i
	}
}
