package replay

// The site engine's side of KLAP's launch aggregation (klap.go): what a
// warp pays at a site whose launches are aggregated, and when the
// aggregated kernels are launched.

// aggregate carries out a decided site under Policy.Aggregate. Its
// launching lanes store their children into the site's batch, at no cost
// of their own (KLAP's threads write the child's parameters and
// configuration to arrays); its inlining lanes are as ever. Then:
//   - a warp's batch is complete at once: the warp launches its
//     aggregated kernels, one cudaLaunchDevice per child name ("one
//     thread launches one aggregated kernel": src/Transform/AWB/Kernel.cpp);
//   - a block's round is complete when the last of its warps arrives
//     (__syncthreads): the others wait at the barrier until then, and the
//     last launches;
//   - a kernel's children wait for its CTAs to end (the engine's promote).
func (se *siteEngine) aggregate(c *ctaRun, w, first, last int, s *Site, lanes []siteRec, out []Verdict, cost siteCost, now int64) (siteCost, bool) {
	b, round := se.agg.batchAt(c, w)
	owner := se.agg.launcherAt(c)
	for i := range out {
		v := &out[i]
		var into *Kernel
		switch {
		case v.Decision == Launch && !v.Hardware:
			into = b.add(lanes[i].child, owner)
		case v.Decision != Inline:
			se.host.fail(&ModelError{Msg: "policy " + se.policy + " aggregates launches: a lane may only launch through the device runtime or inline"})
			return siteCost{}, false
		}
		se.tally(v.Decision, 1)
		se.record(s, &lanes[i], v, into)
	}
	cost = siteCost{inline: cost.inline}
	switch se.agg.granularity() {
	case AggregateKernel:
		return cost, false
	case AggregateBlock:
		if !se.agg.arrive(c, round) {
			round.waiting = append(round.waiting, launchWait{c: c, w: w, first: first, last: last, since: now, cost: cost})
			return cost, true
		}
		defer se.passBarrier(round, now)
	}
	return se.launchAggregated(c, w, first, last, b.seal(), cost, now)
}

// passBarrier lets the warps waiting at a block's round go on: the last
// has arrived at now.
func (se *siteEngine) passBarrier(r *blockRound, now int64) {
	for i := range r.waiting {
		se.release(&r.waiting[i], now)
	}
	r.waiting = nil
}

// launchAggregated is warp w launching a sealed batch's aggregated
// kernels: their parameter buffers and cudaLaunchDevice calls, as a site
// of that many launching lanes; held like one when the pending pool has
// no room for them.
func (se *siteEngine) launchAggregated(c *ctaRun, w, first, last int, heads []*Kernel, cost siteCost, now int64) (siteCost, bool) {
	m := int64(len(heads))
	if m == 0 {
		return cost, false
	}
	// Each aggregated kernel goes into a stream of its own, created
	// first, as every device launch did before the trace named streams.
	cost.front, cost.launched, cost.runtime, cost.creates = se.launch.paramCost(m), m, m, true
	se.blind(c, cost, now)
	se.reqs = se.reqs[:0]
	for _, k := range heads {
		se.reqs = append(se.reqs, launchReq{lane: siteRec{child: k}})
	}
	if !se.launch.admit(m) {
		se.launch.hold(c, w, first, last, now, cost, se.reqs)
		return cost, true
	}
	cost.launch = se.launchEnd(c, cost, now)
	for i := range se.reqs {
		se.launchOne(c, &se.reqs[i].lane, false, cost, nil, now)
	}
	return cost, false
}
