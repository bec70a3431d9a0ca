package replay

import (
	"github.com/gpureplay/gpureplay/results"
)

// siteEngine carries out launch sites: it asks the policy for a verdict per
// lane, charges the warp the SIMT cost of those verdicts, and launches the
// children that were not inlined.
type siteEngine struct {
	e       *engine
	decider SiteDecider
	nextID  uint64
	site    Site      // reused for every site
	verdict []Verdict // reused for every site
}

func newSiteEngine(e *engine, d SiteDecider) siteEngine {
	if d == nil {
		d = LaunchAll{}
	}
	return siteEngine{e: e, decider: d}
}

// LaunchAll is CUDA Dynamic Parallelism as the hardware does it: every
// launching lane launches its child kernel.
type LaunchAll struct{}

// Decide implements SiteDecider.
func (LaunchAll) Decide(s *Site, out []Verdict) {
	for i := range out {
		out[i] = Verdict{Decision: Launch}
	}
}

// reach is warp w of CTA c arriving at its next site: the lanes of that warp
// launching at the same point form one site.
func (se *siteEngine) reach(c *ctaRun, w int) {
	e := se.e
	sites, first, last, _ := se.pass(c, w)
	wr := &c.warps[w]
	if last < len(sites) && sites[last].warp == int32(w) {
		wr.next = last
		e.scheduleCTA(c.start+sites[last].at+wr.shift, evSite, c, w)
		return
	}
	own := max(wr.cycles, sites[first].at)
	wr.end = c.start + own + wr.shift
	e.warpDone(c, wr.end)
}

// pass decides warp w's next site, adds what it costs to the warp's
// shift, and returns the CTA's sites, the site's lanes sites[first:last]
// and its cost. Whether sites[last] is the warp's next site is the
// caller's to check.
func (se *siteEngine) pass(c *ctaRun, w int) (sites []siteRec, first, last int, cost siteCost) {
	sites = c.spec().x.sites
	wr := &c.warps[w]
	first, last = siteLanes(sites, wr.next, w)
	cost = se.decide(c, w, sites[first:last])
	wr.shift += cost.launch + cost.inline
	return sites, first, last, cost
}

// siteLanes is the run sites[first:last] of warp w's lanes that launch at
// the same point as sites[first]: one warp-level site.
func siteLanes(sites []siteRec, first, w int) (int, int) {
	last := first
	for last < len(sites) && sites[last].warp == int32(w) && sites[last].at == sites[first].at {
		last++
	}
	return first, last
}

// decide asks the policy about one site and returns what the warp pays
// there: the API cost of its launching lanes, then its longest inlining
// lane (the two branches diverge, so the warp runs both in turn).
func (se *siteEngine) decide(c *ctaRun, w int, lanes []siteRec) siteCost {
	e := se.e
	se.nextID++
	s := &se.site
	*s = Site{ID: se.nextID, Cycle: e.now, ParentKernel: c.k.id, ParentCTA: c.idx, Warp: w, Lanes: s.Lanes[:0], KD: e.kd}
	for _, l := range lanes {
		s.Lanes = append(s.Lanes, Lane{
			Lane: int(l.lane), ChildKernel: l.child.id, ChildName: l.child.decl.Name, ChildBlock: l.child.decl.Block,
			ChildCTAs: l.child.total, Workload: l.workload, InlineCycles: l.inline,
		})
	}
	if cap(se.verdict) < len(lanes) {
		se.verdict = make([]Verdict, len(lanes))
	}
	out := se.verdict[:len(lanes)]
	clear(out)
	se.decider.Decide(s, out)

	cost, ok := se.cost(c, lanes, out)
	if !ok {
		e.fail(&ModelError{Msg: "policy " + e.pol.Name + " gave no valid decision at a launch site"})
		return siteCost{}
	}
	for i, v := range out {
		se.record(s, lanes[i], v)
		switch v.Decision {
		case Launch:
			if v.Hardware {
				e.launchHardware(launcherOf(c), lanes[i].child, e.now+cost.front)
				continue
			}
			e.launchChild(launcherOf(c), lanes[i].child, e.now+cost.launch)
		case Coalesce:
			e.coalesce(c, lanes[i], v.Target, e.now+cost.front)
		case Inline:
			e.body.forget(lanes[i].child)
		}
	}
	return cost
}

// siteCost is what a warp pays at a site, in cycles from reaching it.
type siteCost struct {
	front  int64 // parameter buffers ready and the KDE searched: groups join their kernel, hardware launches reach the KMU
	launch int64 // runtime launches return: their children reach the KMU
	inline int64 // the longest inlining lane's work, run after the launches
}

// cost prices a site's verdicts. Launching and coalescing lanes first get
// parameter buffers (cudaGetParameterBuffer for all of them, DTBL Table 3);
// coalescing lanes search the Kernel Distributor meanwhile, one cycle per
// entry plus one for the AGT slot, and the slower of the two sets the pace
// (DTBL §4.3); lanes launching through the device runtime then pay
// cudaLaunchDevice and a stream. The inlining lanes' longest loop runs
// after that (the branches diverge). With only runtime launches this is
// exactly the CDP API cost.
func (se *siteEngine) cost(c *ctaRun, lanes []siteRec, out []Verdict) (siteCost, bool) {
	var launched, runtime, coalesced, search, inline int64
	for i, v := range out {
		switch v.Decision {
		case Launch:
			launched++
			if !v.Hardware {
				runtime++
			}
		case Coalesce:
			if v.Target == nil {
				return siteCost{}, false
			}
			coalesced++
			search = max(search, v.SearchCycles+1)
		case Inline:
			inline = max(inline, lanes[i].inline)
		default:
			return siteCost{}, false
		}
	}
	cdp := &se.e.cfg.CDP
	front := max(cdp.ParamCost(launched+coalesced), search)
	return siteCost{front: front, launch: front + cdp.LaunchCost(runtime), inline: inline}, true
}

// record counts a lane's verdict and writes its launches row.
func (se *siteEngine) record(s *Site, l siteRec, v Verdict) {
	st := &se.e.stats
	st.LaunchSites++
	switch v.Decision {
	case Launch:
		st.Launched++
	case Inline:
		st.Inlined++
	}
	var target *uint64
	if v.Target != nil {
		target = &v.Target.id
	}
	se.e.sink.Launch(results.Launch{
		SiteID:          s.ID,
		Cycle:           s.Cycle,
		ParentKernelID:  s.ParentKernel,
		ParentCTA:       s.ParentCTA,
		Warp:            int32(s.Warp),
		Lane:            l.lane,
		ChildKernelID:   l.child.id,
		Workload:        l.workload,
		Decision:        v.Decision.String(),
		TargetKernelID:  target,
		EstChildCycles:  v.EstChildCycles,
		EstParentCycles: v.EstParentCycles,
		SpawnN:          v.QueuedCTAs,
		SpawnNCon:       v.ConcurrentCTAs,
	})
}

// launchChild starts a device kernel: it exists from the site's cycle and
// reaches the KMU when the API call returns.
func (e *engine) launchChild(owner launcher, child *Kernel, arrive int64) {
	child.launchCycle = e.now
	child.owner = owner
	e.adopt(owner)
	e.stats.DeviceKernels++
	e.scheduleKernel(arrive, evArrive, child)
}

// launchHardware starts a device kernel the way DTBL's launch hardware
// does for a group with no eligible kernel: the SMX scheduler gives it a
// Kernel Distributor entry at once, if one is free and no kernel is queued
// for one, so later groups can coalesce into it; its CTAs become ready when
// its parameter buffer is (readyAt). Otherwise it queues at the KMU like
// any device kernel.
func (e *engine) launchHardware(owner launcher, child *Kernel, readyAt int64) {
	child.launchCycle = e.now
	child.owner = owner
	e.adopt(owner)
	e.stats.DeviceKernels++
	if e.kdUsed < e.cfg.GPU.MaxKernels && len(e.kdWait) == 0 {
		e.privateStream(child)
		e.enterKD(child, readyAt)
		return
	}
	e.scheduleKernel(readyAt, evArrive, child)
}
