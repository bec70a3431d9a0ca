package replay

import (
	"unsafe"

	"github.com/gpureplay/gpureplay/tables"
)

// siteEngine carries out launch sites: it asks the policy for a verdict per
// lane, charges the warp the SIMT cost of those verdicts, and launches the
// children that were not inlined.
//
// It owns the sites' numbering, the policy's decider and whether the blind
// phase is over (childEnded), and reaches
// nothing of the engine's but through siteLinks: the rest of the engine
// through siteHost (a warp going on, a device kernel launched), the
// device runtime's launch path and aggregated groups, the Kernel
// Distributor's entries (read only, for Site.KD), and the run's counts
// and launches rows. It never places or ends a CTA, and never completes a
// kernel.
type siteEngine struct {
	siteLinks
	decider SiteDecider
	// launchAll: the decider is LaunchAll, whose verdicts read no lane
	launchAll bool
	// inlineAll: the decider is InlineAll, whose verdicts read no lane
	inlineAll bool
	nextID    uint64
	site      Site        // reused for every site
	verdict   []Verdict   // reused for every site; LaunchAll's kept as decided (launchVerdicts)
	reqs      []launchReq // a held site's launches, reused
	arrival   Site        // a group command's match at arrival, reused
	matched   [1]Verdict  // its verdict, reused: a local array, which Decide's call moved to the heap, was an allocation a group
	// commands: dtbl.fallback=dispatch, DTBL's groups are matched when
	// their command arrives (byCommand)
	commands bool
	// dtblCalls: dtbl.launch_cost=cdp, DTBL's groups and hardware launches
	// stall their warp for both device-runtime calls (cost)
	dtblCalls bool
	// anyShape: dtbl.match=function, a group may coalesce into a kernel of
	// its function whatever its block shape (checkVerdicts)
	anyShape bool
	// childEnded: a CTA of device-launched work has finished
	// (Stats.BlindSites, Analysis.BlindCall).
	childEnded bool
	// counts are the launching lanes reached, those decided blind, and
	// the verdicts: summed into the run's Stats at its end (count).
	counts struct{ sites, blind, launched, inlined int64 }
	// row is a launches row, reused: the sink takes it by reference
	// (tables.RefSink), where a Launch by value was copied into the call.
	row tables.Launch
}

// count adds the site engine's counts to s.
func (se *siteEngine) count(s *Stats) {
	s.LaunchSites += se.counts.sites
	s.BlindSites += se.counts.blind
	s.Launched += se.counts.launched
	s.Inlined += se.counts.inlined
}

// siteHost is what the site engine needs from the rest of the engine: a
// CTA's events, its warps going on past their sites, and device kernels
// launched.
type siteHost interface {
	warpDone(c *ctaRun, end int64)
	resumeWarp(c *ctaRun, w int)
	launchChildren(c *ctaRun, lanes []siteRec, arrive int64)
	launchHardware(owner launcher, child *Kernel, readyAt int64)
	fail(err error)
}

// siteLinks is everything outside itself a site engine reaches.
type siteLinks struct {
	host   siteHost
	clock  *eventClock        // a warp's next site, or its resumption
	launch *launchPath        // the launch servers and the pending pool
	groups *groupTable        // DTBL's aggregated groups
	kd     *kernelDistributor // its entries, for Site.KD
	rows   tables.RefSink     // the launches rows; nil when none is kept
	an     Analysis           // told of blind calls and verdicts; nil for none
	policy string             // the policy's name, for errors
	agg    *aggregator        // KLAP's launch aggregation; nil unless the policy aggregates
}

func newSiteEngine(d SiteDecider, links siteLinks, commands bool) siteEngine {
	if d == nil {
		d = LaunchAll{}
	}
	_, all := d.(LaunchAll)
	_, inline := d.(InlineAll)
	return siteEngine{siteLinks: links, decider: d, launchAll: all, inlineAll: inline, commands: commands}
}

// ctaEnded is a CTA ending: one of device-launched work (device: a child
// kernel's, or an aggregated group's) ends the sites' blind phase.
func (se *siteEngine) ctaEnded(device bool) {
	if device {
		se.childEnded = true
	}
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

// InlineAll is the non-DP ("flat") code: every launching lane loops
// over its child's work itself.
type InlineAll struct{}

// Decide implements SiteDecider.
func (InlineAll) Decide(s *Site, out []Verdict) {
	for i := range out {
		out[i] = Verdict{Decision: Inline}
	}
}

// reach is warp w of CTA c arriving at its next site at now: the lanes of
// that warp launching at the same point form one site.
func (se *siteEngine) reach(c *ctaRun, w int, now int64) {
	first, last, _, held := se.pass(c, w, now)
	if held {
		return
	}
	se.goOn(c, w, first, last)
}

// goOn moves warp w of CTA c past the site sites[first:last], whose cost
// is in the warp's shift: to its next site, or to its end.
func (se *siteEngine) goOn(c *ctaRun, w, first, last int) {
	sites := c.spec().x.sites
	wr := &c.warps[w]
	if last < len(sites) && sites[last].warp == int32(w) {
		wr.next = last
		se.clock.cta(c.start+sites[last].at+wr.shift, evSite, c, w)
		return
	}
	own := max(wr.cycles, sites[first].at)
	wr.end = c.start + own + wr.shift
	se.host.warpDone(c, wr.end)
}

// pass decides warp w's next site, adds what it costs to the warp's
// shift, and returns the site's lanes sites[first:last] of the CTA's
// sites and its cost. Whether sites[last] is the warp's next site is the
// caller's to check. A site whose launches do not fit in the pending pool
// is held: the warp stops there until release lets it go on.
func (se *siteEngine) pass(c *ctaRun, w int, now int64) (first, last int, cost siteCost, held bool) {
	sites := c.spec().x.sites
	// c.warps[w] indexed at each use: a pointer held was reloaded at every lane of siteLanes
	first, last = siteLanes(sites, c.warps[w].next, w)
	cost, held = se.decide(c, w, first, last, now)
	if !held {
		c.warps[w].shift += cost.launch + cost.inline
	}
	return first, last, cost, held
}

// release is a held warp's launches entering the pending pool now: they
// are made, and the warp goes on, having waited since its site.
func (se *siteEngine) release(lw *launchWait, now int64) {
	c, w := lw.c, lw.w
	cost := lw.cost
	cost.launch = se.launchEnd(c, cost, now)
	for i := range lw.reqs {
		r := &lw.reqs[i]
		se.launchOne(c, &r.lane, r.hardware, cost, r.row, now)
	}
	wr := &c.warps[w]
	wr.shift += now - lw.since + cost.launch + cost.inline
	if c.shared {
		se.goOnShared(c, w, lw.first, lw.last, cost, now)
		return
	}
	se.goOn(c, w, lw.first, lw.last)
}

// siteLanes is the run sites[first:last] of warp w's lanes that launch at
// the same point as sites[first]: one warp-level site.
func siteLanes(sites []siteRec, first, w int) (int, int) {
	last, at := first, sites[first].at // a lane of w's: its position loaded once, not a lane
	for last < len(sites) && sites[last].warp == int32(w) && sites[last].at == at {
		last++
	}
	return first, last
}

// decide asks the policy about one site and returns what the warp pays
// there: the API cost of its launching lanes, then its longest inlining
// lane (the two branches diverge, so the warp runs both in turn).
func (se *siteEngine) decide(c *ctaRun, w, first, last int, now int64) (siteCost, bool) {
	lanes := c.spec().x.sites[first:last]
	se.nextID++
	if se.inlineAll && se.rows == nil && se.an == nil && se.agg == nil {
		return se.inlineSite(lanes), false
	}
	s := &se.site
	*s = Site{ID: se.nextID, Cycle: now, ParentKernel: c.k.id, ParentCTA: c.idx, Warp: w, Lanes: s.Lanes[:0], KD: se.kd.siteKD()}
	out := se.verdicts(s, lanes)
	if !se.launchAll {
		if err := se.checkVerdicts(s, out); err != nil {
			se.host.fail(err)
			return siteCost{}, false
		}
	}
	cost, ok := se.cost(lanes, out)
	if !ok {
		se.host.fail(&ModelError{Msg: "policy " + se.policy + " gave no valid decision at a launch site"})
		return siteCost{}, false
	}
	if se.agg != nil {
		return se.aggregate(c, w, first, last, s, lanes, out, cost, now)
	}
	se.blind(c, cost, now)
	held := cost.launched > 0 && !se.launch.admit(cost.launched)
	if !held {
		cost.launch = se.launchEnd(c, cost, now)
	}
	if se.launchAll && !held {
		se.launchAllLanes(c, s, lanes, out, cost, now)
		return cost, false
	}
	se.reqs = se.reqs[:0]
	for i := range out {
		v := &out[i]
		se.tally(v.Decision, 1)
		row := se.record(s, &lanes[i], v, nil)
		switch v.Decision {
		case Launch:
			if held {
				se.reqs = append(se.reqs, launchReq{lane: lanes[i], hardware: v.Hardware, row: row})
				continue
			}
			if se.byCommand(v) { // launchOne's first case, with no call: DTBL's hardware launches
				se.groups.command(c, &lanes[i], now, cost.front, true, row)
				continue
			}
			se.launchOne(c, &lanes[i], v.Hardware, cost, row, now)
		case Coalesce:
			if se.byCommand(v) {
				se.groups.command(c, &lanes[i], now, cost.front, false, row)
				continue
			}
			se.groups.coalesce(c, &lanes[i], v.Target, now, cost.front)
		}
	}
	if held {
		se.launch.hold(c, w, first, last, now, cost, se.reqs)
	}
	return cost, held
}

// launchAllLanes is decide's loop for LaunchAll's verdicts, every lane a
// runtime launch, at a site not held: the lanes are counted at once, and
// each is recorded, then all launched through the device runtime at
// once (engine.launchChildren), as launchOne launches one. CDP's sites
// (BFS scale 16: a child kernel a lane) spent 37 instructions a lane in
// the loop besides the launch, telling each verdict apart, and 15 more
// in launchOne. Where no rows are kept, no loop records them: a loop of
// record's calls that each found none cost BFS scale 20 3 instructions
// a CTA.
func (se *siteEngine) launchAllLanes(c *ctaRun, s *Site, lanes []siteRec, out []Verdict, cost siteCost, now int64) {
	se.tally(Launch, int64(len(lanes)))
	arrive := now + cost.launch
	if se.rows != nil { // record's test, asked once a site, not once a lane
		se.launchRows(s, lanes, out)
	}
	se.host.launchChildren(c, lanes, arrive)
}

// inlineSite is decide for InlineAll's verdicts, where no rows are kept,
// no analysis is told and nothing aggregates: every lane inlined, the
// site costs the warp its longest lane's loop, and nothing else happens
// there. It builds no lane for the policy, checks no verdict and tells
// none apart: BFS scale 16 under flat, some 150 instructions a lane.
func (se *siteEngine) inlineSite(lanes []siteRec) siteCost {
	var inline int64
	for i := range lanes {
		inline = max(inline, lanes[i].inline)
	}
	se.tally(Inline, int64(len(lanes)))
	front := se.launch.paramCost(0) // cost's, with no lane launching
	return siteCost{front: front, launch: front, inline: inline}
}

// blind tells the analyses of a site's runtime call made before any
// device-launched work has ended.
func (se *siteEngine) blind(c *ctaRun, cost siteCost, now int64) {
	if !se.childEnded && cost.runtime > 0 && se.an != nil {
		se.an.BlindCall(c.sm.id, c.k, now+cost.front+se.launch.latency(cost.creates), cost.runtime)
	}
}

// verdicts asks the policy for its verdicts on site s's lanes. The lanes
// are built for it only when it reads them: CDP's LaunchAll launches every
// lane whatever the site, and building a lane reads its child kernel (id,
// declaration, size), a line out of the cache at nearly every CDP site, as
// the child was filed long before.
func (se *siteEngine) verdicts(s *Site, lanes []siteRec) []Verdict {
	if se.launchAll {
		return se.launchVerdicts(s, len(lanes))
	}
	if cap(se.verdict) < len(lanes) {
		se.verdict = make([]Verdict, len(lanes))
	}
	out := se.verdict[:len(lanes)]
	clear(out)
	// Each lane written in place, field by field, the site's lanes grown
	// once: a range copying each siteRec and an append a lane cost BFS
	// --quick some 40 instructions a lane under DTBL and SPAWN, and each
	// Lane written whole from a literal 15 more.
	if cap(s.Lanes) < len(lanes) {
		s.Lanes = make([]Lane, len(lanes), 2*len(lanes))
	}
	ls := s.Lanes[:len(lanes)]
	for i := range ls {
		l, d, k := &ls[i], &lanes[i], lanes[i].child
		l.Lane, l.ChildKernel, l.ChildName, l.ChildBlock = int(d.lane), k.id, k.decl.Name, k.decl.Block
		l.ChildCTAs, l.Workload, l.InlineCycles, l.CreatesStream = k.total, d.workload, d.inline, d.createsStream()
	}
	s.Lanes = ls
	se.decider.Decide(s, out)
	if se.an != nil {
		se.an.Decided(out) // LaunchAll's are all runtime launches: not told
	}
	return out
}

// launchVerdicts is LaunchAll's verdicts for a site of n lanes. They are
// the same at every site and nothing writes to them once decided, so
// se.verdict keeps them from one site to the next and only grows: clearing
// and refilling them at every site wrote Verdicts of five pointers each,
// and while the collector marks, every such write takes a write barrier
// (BFS scale 20 under CDP: 1% of the engine goroutine's time).
func (se *siteEngine) launchVerdicts(s *Site, n int) []Verdict {
	if len(se.verdict) < n {
		se.verdict = make([]Verdict, max(n, 2*len(se.verdict)))
		LaunchAll{}.Decide(s, se.verdict)
	}
	return se.verdict[:n]
}

// launchEnd is when, in cycles from now, a site's device-runtime call
// returns and its children reach the KMU: its parameter buffers, then
// cudaLaunchDevice on the SM's launch path. With no runtime launch it is
// the front cost alone.
func (se *siteEngine) launchEnd(c *ctaRun, cost siteCost, now int64) int64 {
	if cost.runtime == 0 {
		return cost.front
	}
	return se.launch.serve(c.sm.id, now+cost.front, cost.runtime, cost.creates) - now
}

// launchOne makes one lane's launch now, at a site costing cost. A
// launch by DTBL's hardware is an aggregated group's command under
// dtbl.fallback=dispatch, matched when it arrives; row is its launches
// row, written then (nil when rows are not kept). l is the lane where it
// is kept (the CTA's sites, a held launch's request), not a copy: a
// copy's address handed on through siteHost, an interface, went to the
// heap, an allocation at every CDP launch (BFS scale 16: 100
// instructions a CTA). A runtime launch hands it on as the one lane of
// its site launchChildren launches (unsafe.Slice: a slice of l itself).
func (se *siteEngine) launchOne(c *ctaRun, l *siteRec, hardware bool, cost siteCost, row *tables.Launch, now int64) {
	switch {
	case se.byCommand(&Verdict{Decision: Launch, Hardware: hardware}):
		se.groups.command(c, l, now, cost.front, true, row)
	case hardware:
		se.host.launchHardware(launcherOf(c), l.child, now+cost.front)
	default:
		se.host.launchChildren(c, unsafe.Slice(l, 1), now+cost.launch)
	}
}

// match asks the policy, at now, for the kernel group g's launching lane
// would coalesce into: the SMX scheduler's match when the group's command
// arrives. Nil when the policy finds none (or would not coalesce).
//
// The arrival's Site keeps its one lane from one match to the next, and
// only the fields that change are written (ID, ParentKernel, ParentCTA,
// Warp and the lane's other fields stay zero): a Site and a Lane made
// whole and appended, their strings and slices each behind the write
// barrier's test, cost BFS scale 16 some 50 instructions a group.
func (se *siteEngine) match(g *group, now int64) *Kernel {
	l, s := g.src, &se.arrival
	if len(s.Lanes) == 0 {
		s.Lanes = make([]Lane, 1)
	}
	s.Cycle, s.KD = now, se.kd.siteKD()
	ln := &s.Lanes[0]
	ln.ChildKernel, ln.ChildName, ln.ChildBlock, ln.ChildCTAs = l.id, l.decl.Name, l.decl.Block, l.total
	out := &se.matched
	*out = [1]Verdict{}
	se.decider.Decide(s, out[:])
	if out[0].Decision != Coalesce {
		return nil
	}
	if !se.verdictOK(&s.Lanes[0], &out[0]) { // checkVerdicts' tests, for the one lane
		se.host.fail(se.verdictError(s, 0, &out[0]))
		return nil
	}
	return out[0].Target
}

// siteCost is what a warp pays at a site, in cycles from reaching it (or,
// for a held site, from its release).
type siteCost struct {
	front    int64 // parameter buffers ready and the KDE searched: groups join their kernel, hardware launches reach the KMU
	launch   int64 // runtime launches return: their children reach the KMU
	inline   int64 // the longest inlining lane's work, run after the launches
	launched int64 // launching lanes (runtime and hardware)
	runtime  int64 // of them, those calling cudaLaunchDevice
	creates  bool  // the warp creates a stream for a runtime launch first
}

// cost prices a site's verdicts. Launching and coalescing lanes first get
// parameter buffers (cudaGetParameterBuffer for all of them, DTBL Table 3);
// coalescing lanes search the Kernel Distributor meanwhile, one cycle per
// entry plus one for the AGT slot, and the slower of the two sets the pace
// (DTBL §4.3); lanes launching through the device runtime then pay
// cudaLaunchDevice, and a stream creation where one of them creates its
// stream (siteRec.createsStream): once a warp, as DTBL Table 3 prices
// cudaStreamCreateWithFlags with no per-thread term. The inlining lanes' longest loop runs
// after that (the branches diverge). With only runtime launches and an
// idle launch path this is exactly the CDP API cost. The launch itself is
// priced by launchEnd once the launches may be made.
func (se *siteEngine) cost(lanes []siteRec, out []Verdict) (siteCost, bool) {
	if se.launchAll {
		return se.launchAllCost(lanes), true
	}
	var launched, runtime, coalesced, search, inline int64
	creates, dtblCreates := false, false
	for i := range out { // by pointer: a range copied each Verdict (BFS scale 16 under DTBL: 18 instructions a lane)
		switch v := &out[i]; v.Decision {
		case Launch:
			launched++
			if !v.Hardware {
				runtime++
				creates = creates || lanes[i].createsStream()
			} else {
				dtblCreates = dtblCreates || lanes[i].creates
			}
		case Coalesce:
			if v.Target == nil {
				return siteCost{}, false
			}
			coalesced++
			search = max(search, v.SearchCycles+1)
			dtblCreates = dtblCreates || lanes[i].creates
		case Inline:
			inline = max(inline, lanes[i].inline)
		default:
			return siteCost{}, false
		}
	}
	front := max(se.launch.paramCost(launched+coalesced), search)
	if dtbl := launched - runtime + coalesced; se.dtblCalls && dtbl > 0 {
		// dtbl.launch_cost=cdp: the DTBL authors' simulator stalls the warp
		// for cudaGetParameterBufferV2 and cudaLaunchDeviceV2 whatever the
		// launch becomes (shader.cc:1090-1096: b + a·x each, x the active
		// lanes), and the group joins its kernel as the second is called;
		// the KDE search is not modelled there. So the front, when groups
		// join and hardware launches reach the KMU, is the whole CDP cost
		// of the site's lanes, on no launch server. A lane the trace says
		// creates its child's stream first (a captured program's own
		// cudaStreamCreateWithFlags) still makes that call, which stalls
		// the warp the same in either mode (shader.cc:1090-1091: m_is_cdp
		// == 1 takes cdp_latency[0], once a warp), so the warp pays the
		// creation where such a lane joins a group or reaches the KMU and
		// no lane launching through the runtime already did. A child with
		// a stream of its own (a trace that names none) creates nothing
		// here: that creation is the model's CDP pricing, not a call of
		// the program.
		front = se.launch.paramCost(launched+coalesced) + se.launch.latency(dtblCreates && !creates) + se.launch.service(launched+coalesced)
	}
	return siteCost{front: front, inline: inline, launched: launched, runtime: runtime, creates: creates}, true
}

// launchAllCost is cost for LaunchAll's verdicts, every lane a runtime
// launch, which it need not read (BFS 16 under CDP: 31 instructions a lane)
// past the first that creates a stream (BFS's first: the rest cost 9 each).
func (se *siteEngine) launchAllCost(lanes []siteRec) siteCost {
	creates := false
	for i := 0; i < len(lanes) && !creates; i++ {
		creates = lanes[i].createsStream()
	}
	n := int64(len(lanes))
	return siteCost{front: max(se.launch.paramCost(n), 0), launched: n, runtime: n, creates: creates}
}

// byCommand reports whether a lane decided v becomes an aggregated group
// sent to the SMX scheduler by command, to be matched when it arrives
// (dtbl.fallback=dispatch): a coalescing lane, or a launch by DTBL's
// hardware.
func (se *siteEngine) byCommand(v *Verdict) bool {
	return se.commands && (v.Decision == Coalesce || v.Decision == Launch && v.Hardware)
}

// tally counts n lanes' verdict d.
func (se *siteEngine) tally(d Decision, n int64) {
	st := &se.counts
	st.sites += n
	if !se.childEnded {
		st.blind += n
	}
	switch d {
	case Launch:
		st.launched += n
	case Inline:
		st.inlined += n
	}
}

// record writes a lane's launches row. The row of a lane sent by command
// is returned instead, to be written when the command arrives and what
// the lane did is known (writeCommand); record returns nil otherwise, and
// when the sink keeps no rows. into is the aggregated kernel a launching
// lane's child runs in (KLAP), else nil.
//
// Small enough to inline, as tally is, with the lane and the verdict by
// reference: called for every lane of a CDP site, where most runs keep no
// rows, it was a call that counted the verdict too and copied a siteRec
// and a Verdict (64 bytes each) into its arguments.
func (se *siteEngine) record(s *Site, l *siteRec, v *Verdict, into *Kernel) *tables.Launch {
	if se.rows == nil {
		return nil // a sink that keeps no rows
	}
	return se.launchRow(s, l, v, into)
}

// launchRow is record's work for a sink that keeps rows.
func (se *siteEngine) launchRow(s *Site, l *siteRec, v *Verdict, into *Kernel) *tables.Launch {
	var target *uint64
	if v.Decision == Coalesce {
		target = &v.Target.id
	}
	// The row is stored field by field: a literal was built and copied.
	row := &se.row
	row.SiteID = s.ID
	row.Cycle = s.Cycle
	row.ParentKernelID = s.ParentKernel
	row.ParentCTA = s.ParentCTA
	row.Warp = int32(s.Warp)
	row.Lane = int32(l.lane)
	row.ChildKernelID = l.child.id
	row.Workload = l.workload
	row.Decision = v.Decision.String()
	row.TargetKernelID = target
	row.EstChildCycles = v.EstChildCycles
	row.EstParentCycles = v.EstParentCycles
	row.SpawnN = v.QueuedCTAs
	row.SpawnNCon = v.ConcurrentCTAs
	row.Outcome = v.Decision.outcome()
	if into != nil {
		row.Outcome, row.TargetKernelID = aggregatedOutcome, &into.id
	}
	if se.byCommand(v) {
		kept := *row // on the heap for this lane alone: a row written at once stays on the stack
		return &kept
	}
	se.rows.LaunchRow(row)
	return nil
}

// launchRows writes the launches rows of a site's lanes, all runtime
// launches (launchAllLanes), for a sink that keeps rows.
func (se *siteEngine) launchRows(s *Site, lanes []siteRec, out []Verdict) {
	for i := range lanes {
		se.launchRow(s, &lanes[i], &out[i], nil) // nil: a runtime launch is not sent by command
	}
}
