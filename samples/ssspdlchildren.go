package samples

// The CDP code's children in dlLoops's clock. Dragon_li's
// ssspCdpExpandKernel (sssp/ssspCdpDevice.h:73-102 at 1397e03) launches,
// from each lane whose vertex has rowLength ≥ CDP_THRESHOLD, a child of
// rowLength >> 5 CTAs of 32 threads, one edge a thread, and the lane then
// loops over the rest itself. Those children lower the same distances
// the loops do, and append to the same frontier, while the loops run: on
// the uniform graph of the what-if captures (dragonli-sssp-uniform9-cdp)
// relaxation 3's children run 47,225 to 77,015 cycles into a kernel whose
// busy CTAs loop until 186,530 to 196,781. So each child CTA is an actor
// in the clock beside the parent warps, placed as GPGPU-Sim places it
// (src/gpgpu-sim at 667834cf, the captures' build):
//
//   - A warp's launching lanes in a chunk launch together after its
//     prologue: cudaStreamCreateWithFlags, cudaGetParameterBufferV2 and
//     cudaLaunchDeviceV2, each stalling the warp b + a·x cycles for x
//     active lanes ("warp(warp_id).m_cdp_latency = … cdp_latency[…] *
//     active_mask.count()", shader.cc:1395-1404), the children made when
//     the launch call issues, in lane order. The generator's cycles are
//     the K20c's, so the costs are DTBL Table 3's, as preset k20c has
//     them (dlLaunchCycles); with the captures' own (-cdp_latency
//     7200,8000,100,12000,1600) relaxation 3's first children are ready
//     at 1,324 + 45,900 = 47,224 cycles, and start at 47,225.
//   - A child takes a slot in the table of 32 running kernels, the lowest
//     free, or waits for one in launch order (seat). An SM no parent CTA
//     holds takes CTAs of its kernel while that kernel has CTAs left, and
//     a new kernel only once its CTAs have all ended: the one a CTA was
//     last taken from while it has CTAs left, else the next in the table
//     with some (pick), so kernels run in the table's round-robin order,
//     not their launch order. Each SM takes at most one CTA a cycle, the
//     SMs in turn from the one after the last that took one (dispatch),
//     and holds at most ⌈CTAs/13⌉ of a kernel's at once (perSM): a
//     child of fewer than 14 CTAs runs one an SM.
//     Parent CTA c is on SM c mod 13 (coldstart.go's placement) and holds
//     it until its last warp's final empty pass; a CTA that holds no
//     vertex leaves within its first thousand cycles, long before a
//     launch ends (45,900 cycles for 11 lanes), so it holds nothing here.
//   - A child CTA's lanes read dist[u] together after its prologue
//     (ssspChildBaseCycles and a gather a lane, the child's warm price:
//     the first fetch of its code on an SM is left out), then the lanes
//     that found d < dist[u] take the lowering branch: their atomicMin,
//     last lane first (relaxDragonli), one a cycle, then their appends
//     at the frontier's counter (ssspdlcounter.go), so CTAs that append
//     together interleave lane by lane there and wait for each other.
//     The CTA ends at its warp's price (ssspChildWarpCycles) and what
//     its last append waited, freeing its SM; the trace's record of it
//     carries the wait (ssspSolver.childWait).
//
// The events are kept in one heap by (time, sequence); at equal times a
// child's event goes before a parent warp's action, and the counter's
// append after both. Held out against the simulator's runs: each
// relaxation's atomics within 7% (exactly on the trees;
// TestSSSPAtomicsHeldOut), the launching lanes by warp
// (TestSSSPSitesByWarp) and the relaxation kernels
// (TestSSSPHeldOutNewInputs; docs/calibration.md).

// The K20c's device-runtime API costs, DTBL Table 3 (preset k20c's
// cdp.*, TestDlLaunchCyclesIsK20c): b + a·x cycles for x lanes.
const (
	dlStreamCreateCycles = 7165
	dlParamBCycles       = 8023
	dlParamACycles       = 129
	dlLaunchBCycles      = 12187
	dlLaunchACycles      = 1592
	// dlChildCTAsPerSM is the K20c's CTAs an SMX holds.
	dlChildCTAsPerSM = k20cCTAsPerSM
	// dlKernelSlots is the kernels that run at once: the K20c's 32
	// concurrent grids, the captures' -gpgpu_max_concurrent_kernel 32.
	dlKernelSlots = 32
)

// dlLaunchCycles is how long a warp whose x lanes launch is stalled by
// the three calls, each lane's child made at its end.
func dlLaunchCycles(x int) int64 {
	return dlStreamCreateCycles + dlParamBCycles + dlParamACycles*int64(x) + dlLaunchBCycles + dlLaunchACycles*int64(x)
}

// dlChild is a launched child kernel: its parent's worklist item, its
// CTAs dispatched so far (next) and ended (ended), of ctas, and its slot
// in the kernel table (seat).
type dlChild struct {
	item, ctas, next, ended, slot int
}

// perSM is how many of ch's CTAs an SM holds at once: the SMX's 16, or,
// where the grid is too small to fill every SM so, an even share of it
// ("gpu_max_cta_per_shader is limited by number of CTAs if not enough to
// keep all cores busy": result = ⌈num_blocks / num_shader⌉,
// shader_core_config::max_cta, src/gpgpu-sim/shader.cc:3552-3557 at
// 667834cf). A child of 4 CTAs runs them on 4 SMs, one each.
func (ch *dlChild) perSM() int { return min(dlChildCTAsPerSM, ceilDiv(ch.ctas, k20cSMs)) }

// left reports whether ch has CTAs to dispatch; a nil kernel has none.
func (ch *dlChild) left() bool { return ch != nil && ch.next < ch.ctas }

// dlChildCTA is one CTA of a child in the clock, on SM sm: its edges
// [lo, hi) of its item's vertex, the lanes that take the lowering branch
// (last lane first) and when its warp's price ends it.
type dlChildCTA struct {
	child  *dlChild
	sm     int
	lo, hi int
	lanes  []int
	issued int
	// lowered is its lanes whose atomicMin lowered, in the order they
	// issued.
	lowered []dlLowered
	end     int64
}

// dlEvent kinds.
const (
	dlReady       uint8 = iota // a warp's launches ended: its children wait for slots
	dlParentEnd                // a parent CTA's last warp ended: its SM frees
	dlDispatch                 // the SMs take CTAs (one an SM a cycle)
	dlRead                     // a child CTA's lanes read dist[u]
	dlChildAtomic              // a child CTA's next lowering lane's atomicMin
	dlChildEnd                 // a child CTA ended: its SM frees
)

// dlEvent is a child's or an SM's event at time t; seq, the order it was
// made in, breaks ties.
type dlEvent struct {
	t, seq int64
	cta    *dlChildCTA
	// arg is dlReady's batch of launches (dlChildren.batches) and
	// dlParentEnd's SM.
	arg  int32
	kind uint8
}

// dlSM is an SM as the children see it: the parent CTAs that hold it,
// the child kernel whose CTAs run there and how many.
type dlSM struct {
	parents int
	kernel  *dlChild
	running int
}

// dlChildren is the relaxation's children: their events, the kernel
// table and the kernels waiting for a slot in it, and the SMs.
type dlChildren struct {
	events []dlEvent // a min-heap by (t, seq)
	seq    int64
	// batches is each launching warp's items, in lane order (dlReady).
	batches [][]int
	// slots is the table of running kernels, the parent in slot 0; last
	// is the slot a CTA was last taken from (dlRun.pick).
	slots   [dlKernelSlots]*dlChild
	last    int
	waiting []*dlChild
	sms     [k20cSMs]dlSM
	nextSM  int
	ctaLive []int // each parent CTA's warps still looping
	planned bool  // a dlDispatch event is queued
}

// push adds an event.
func (c *dlChildren) push(e dlEvent) {
	e.seq = c.seq
	c.seq++
	c.events = timedPush(c.events, e)
}

// pop removes and returns the first event.
func (c *dlChildren) pop() dlEvent {
	var e dlEvent
	c.events, e = timedPop(c.events)
	return e
}

func (e dlEvent) key() (int64, int64) { return e.t, e.seq }

// launch makes the children of a warp's launching lanes (their items,
// in lane order) ready at t, when the warp's launch calls end.
func (r *dlRun) launch(items []int, t int64) {
	r.kids.batches = append(r.kids.batches, items)
	r.kids.push(dlEvent{t: t, kind: dlReady, arg: int32(len(r.kids.batches) - 1)})
}

// hold records that parent CTA cta has a warp looping, on its SM.
func (r *dlRun) hold(cta int) {
	if r.kids.ctaLive[cta] == 0 {
		r.kids.sms[cta%k20cSMs].parents++
	}
	r.kids.ctaLive[cta]++
}

// release records that a warp of parent CTA cta has ended its last loop
// at t; the CTA frees its SM after its final empty pass.
func (r *dlRun) release(cta int, t int64) {
	r.kids.ctaLive[cta]--
	if r.kids.ctaLive[cta] == 0 {
		r.kids.push(dlEvent{t: t + ssspIdlePassCycles, kind: dlParentEnd, arg: int32(cta % k20cSMs)})
	}
}

// event runs the first event.
func (r *dlRun) event() {
	c := &r.kids
	e := c.pop()
	switch e.kind {
	case dlReady:
		for _, i := range c.batches[e.arg] {
			c.waiting = append(c.waiting, &dlChild{item: i, ctas: ceilDiv(r.items[i].first, dragonliChildBlock)})
		}
		r.seat()
	case dlParentEnd:
		c.sms[e.arg].parents--
	case dlDispatch:
		c.planned = false
		r.dispatch(e.t)
		return
	case dlRead:
		r.read(e.cta, e.t)
		return
	case dlChildAtomic:
		r.atomic(e.cta, e.t)
		return
	case dlChildEnd:
		c.sms[e.cta.sm].running--
		ch := e.cta.child
		if ch.ended++; ch.ended == ch.ctas {
			c.slots[ch.slot] = nil
			r.seat()
		}
	}
	r.plan(e.t)
}

// seat gives the waiting kernels, in launch order, the free slots of the
// table, lowest first ("if ((NULL == m_running_kernels[n]) ||
// m_running_kernels[n]->done()) { m_running_kernels[n] = kinfo;",
// gpgpu_sim::launch, gpu-sim.cc). Slot 0 is the parent's.
func (r *dlRun) seat() {
	c := &r.kids
	for i := 1; i < dlKernelSlots && len(c.waiting) > 0; i++ {
		if c.slots[i] == nil {
			c.slots[i], c.waiting = c.waiting[0], c.waiting[1:]
			c.slots[i].slot = i
		}
	}
}

// plan queues the SMs' next pass at t, unless one is queued.
func (r *dlRun) plan(t int64) {
	if !r.kids.planned {
		r.kids.planned = true
		r.kids.push(dlEvent{t: t, kind: dlDispatch})
	}
}

// pick is the kernel an idle SM takes: the one a CTA was last taken from
// while it has CTAs left, else the next in the table after it that has
// ("if (m_running_kernels[m_last_issued_kernel] &&
// !m_running_kernels[m_last_issued_kernel]->no_more_ctas_to_run() …",
// then "idx = (n + m_last_issued_kernel + 1) % max_concurrent_kernel",
// gpgpu_sim::select_kernel, gpu-sim.cc).
func (r *dlRun) pick() *dlChild {
	c := &r.kids
	if c.slots[c.last].left() {
		return c.slots[c.last]
	}
	for n := 1; n <= dlKernelSlots; n++ {
		if i := (c.last + n) % dlKernelSlots; c.slots[i].left() {
			c.last = i
			return c.slots[i]
		}
	}
	return nil
}

// dispatch is one cycle of the SMs' CTA issue at t: each SM in turn, from
// the one after the last that took a CTA, takes at most one. An SM that
// no parent CTA holds takes a CTA of its kernel while that kernel has
// CTAs left and the SM has room, and, once its CTAs have all ended, a
// new kernel (pick): under -gpgpu_concurrent_kernel_sm 0 an SM changes
// kernel only then ("first select core kernel, if no more cta, get a new
// kernel only when core completes", simt_core_cluster::issue_block2core,
// shader.cc). Where an SM took one, the next cycle tries again.
func (r *dlRun) dispatch(t int64) {
	c := &r.kids
	took, from := false, c.nextSM
	for k := range k20cSMs {
		s := (from + k) % k20cSMs
		sm := &c.sms[s]
		if sm.parents > 0 {
			continue
		}
		if !sm.kernel.left() && sm.running == 0 {
			sm.kernel = r.pick()
		}
		ch := sm.kernel
		if !ch.left() || sm.running >= ch.perSM() {
			continue
		}
		sm.running++
		lo := ch.next * dragonliChildBlock
		cta := &dlChildCTA{child: ch, sm: s, lo: lo, hi: min(lo+dragonliChildBlock, r.items[ch.item].first)}
		c.push(dlEvent{t: t + ssspChildBaseCycles + int64(cta.hi-cta.lo)*ssspGatherCycles, kind: dlRead, cta: cta})
		ch.next++
		took, c.nextSM = true, (s+1)%k20cSMs
	}
	if took {
		r.plan(t + 1)
	}
}

// read runs a child CTA's gathers at t: the lanes whose edge would lower
// dist[u] take the branch, the last first, and send their atomicMin one
// a cycle (atomic); the CTA ends at its warp's price, and what its last
// append waited at the counter past it.
func (r *dlRun) read(cta *dlChildCTA, t int64) {
	i := cta.child.item
	for e := cta.hi - 1; e >= cta.lo; e-- {
		if u, d := r.relaxed(i, e); d < r.s.dist[u] {
			cta.lanes = append(cta.lanes, e)
		}
	}
	if r.s.countAtomics {
		edges := make([]int, len(cta.lanes))
		for l, e := range cta.lanes {
			edges[l] = r.items[i].lo + e
		}
		r.s.countAtomicMin(edges)
	}
	start := t - ssspChildBaseCycles - int64(cta.hi-cta.lo)*ssspGatherCycles
	cta.end = start + ssspChildWarpCycles(cta.hi-cta.lo, len(cta.lanes))
	if len(cta.lanes) == 0 {
		r.wait(cta, 0)
		return
	}
	r.atomic(cta, t)
}

// atomic runs a child CTA's lowering lanes' atomicMin from t, one a cycle
// (its load/store unit sends a transaction a cycle; the lanes' words
// lie apart), each lowering dist[u] only where d is still below it. It
// runs on while nothing else comes before the next lane (before), and
// leaves the rest to a later event. The lanes that lowered then append
// (dlCounter.claim).
func (r *dlRun) atomic(cta *dlChildCTA, t int64) {
	i := cta.child.item
	for {
		e := cta.lanes[cta.issued]
		if u, d := r.relaxed(i, e); d < r.s.dist[u] {
			r.s.dist[u] = d
			cta.lowered = append(cta.lowered, dlLowered{u, r.at[i] + e})
		}
		if cta.issued++; cta.issued == len(cta.lanes) {
			break
		}
		t++
		if r.before(t) {
			r.kids.push(dlEvent{t: t, kind: dlChildAtomic, cta: cta})
			return
		}
	}
	if len(cta.lowered) == 0 {
		r.wait(cta, 0)
		return
	}
	r.count.claim(t, cta.lowered, &dlBatch{cta: cta})
}

// before reports whether anything of the clock comes before a child's
// event made now for t: another event at t or earlier (made first, it
// goes first), a warp's action or the counter's append before t (at t
// they go after).
func (r *dlRun) before(t int64) bool {
	if ev := r.kids.events; len(ev) > 0 && ev[0].t <= t || len(r.warps) > 0 && r.warps[0].t < t {
		return true
	}
	n, ok := r.count.next()
	return ok && n < t
}
