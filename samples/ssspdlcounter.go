package samples

// The frontier's counter in dlLoops's clock. Every lane of Dragon_li's
// SSSP that lowers a distance claims its slot in the next frontier with
// an atomicAdd on one global word ("SizeType globalOffset =
// ctaOutputAssignment.getCtaOutputAssignment(1);", ssspRegDevice.h:83,
// ssspCdpDevice.h:115 and ssspCdpThread.h:39 at 1397e03;
// ctaOutputAssignment.h:61-63), and the
// next frontier is in the order those atomics are done. GPGPU-Sim sends
// a warp's atomics on one word as one transaction a lane (their bytes
// overlap: warp_inst_t::memory_coalescing_arch_atomic, src/
// abstract_hardware_model.cc:590-690 at 667834cf), the SM's load/store
// unit one a cycle, last lane first, and does each where the L2 pops it
// (memory_sub_partition::pop, src/gpgpu-sim/l2cache.cc:817), so the
// word's one L2 bank does them one at a time. Measured: in a rerun of
// dragonli-sssp-tree3-cdp with each atomic logged as the L2 does it
// (validation/gpgpusim/whatif, dragonli-sssp-tree3-cdp-atomics.txt.xz;
// TestDlCounterMeasured), the counter does one a cycle whenever more
// wait: 10,629 of the run's 11,000 appends come one cycle after the one
// before, the lanes of the CTAs appending at once taken in turn, SM by
// SM, so that a child CTA of 32 lowering lanes beside five others ends
// its appends some 160 cycles later than alone; a CTA alone appends its
// 32 in 32 cycles.
//
// So each lowering lane's append reaches the counter one cycle after the
// one before it in its warp, from when its warp's atomicMin is done, and
// the counter does the earliest that has reached it, one a cycle (those
// that reach it in the same cycle in the order their warps issued). A
// warp's branch costs what it costs alone (ssspLowerCycles and
// ssspLowerLaneCycles, measured on warps appending alone); what its
// last append waits for the others is added to it: a parent warp's loop
// goes on that much later, a child CTA ends that much later.

// dlClaimLagCycles is how long after its warp's atomicMin a lane's append
// reaches the counter: the atomicMin's result back at the SM, the test,
// and the atomicAdd's way to the L2. Measured: in the same log, a warp's
// first append is done 147 to 157 cycles after its last atomicMin, the
// median 148 (over the 168 warps whose first append did not wait), at
// 837 MHz: 125 here.
var dlClaimLagCycles = roundDiv(148*706, 837)

// dlLowered is a lane whose atomicMin lowered a distance: the vertex it
// appends and its edge's flag in s.lowered.
type dlLowered struct {
	u    int32
	flag int
}

// dlClaim is one lane's append: when it reaches the counter and the warp
// it is one of.
type dlClaim struct {
	at, seq int64
	dlLowered
	batch *dlBatch
}

// dlBatch is one warp's appends: how many the counter has still to do,
// when the last reaches it, and who waits for them (a parent warp
// parked at its append, or a child CTA).
type dlBatch struct {
	left  int
	last  int64
	delay int64 // what the last waited, once done
	warp  *dlWarp
	cta   *dlChildCTA
}

// dlCounter is the counter: the appends that have not been done, by
// (arrival, order issued), and the first cycle it is free.
type dlCounter struct {
	claims []dlClaim // a min-heap by (at, seq)
	seq    int64
	free   int64
}

// claim issues a warp's appends (its lanes that lowered, in the order
// they issue them) after its atomicMin at t, one a cycle.
func (c *dlCounter) claim(t int64, lanes []dlLowered, b *dlBatch) {
	t += dlClaimLagCycles
	b.left = len(lanes)
	b.last = t + int64(len(lanes)) - 1
	for k, l := range lanes {
		c.push(dlClaim{at: t + int64(k), seq: c.seq, dlLowered: l, batch: b})
		c.seq++
	}
}

// next is when the counter does its next append, and whether it has one.
func (c *dlCounter) next() (int64, bool) {
	if len(c.claims) == 0 {
		return 0, false
	}
	return max(c.free, c.claims[0].at), true
}

func (x dlClaim) key() (int64, int64) { return x.at, x.seq }

func (c *dlCounter) push(x dlClaim) { c.claims = timedPush(c.claims, x) }

func (c *dlCounter) pop() dlClaim {
	var x dlClaim
	c.claims, x = timedPop(c.claims)
	return x
}

// serve does the counter's appends from t while they come before limit,
// until one warp's last is done, and hands that warp on.
func (r *dlRun) serve(t, limit int64) {
	c := &r.count
	for {
		x := c.pop()
		r.next = append(r.next, x.u)
		r.s.lowered[x.flag] = true
		if r.s.countAtomics {
			r.s.atomics++
		}
		c.free = t + 1
		b := x.batch
		if b.left--; b.left == 0 {
			b.delay = t - b.last
			r.done(b)
			return
		}
		n, ok := c.next()
		if !ok || n >= limit {
			return
		}
		t = n
	}
}

// done hands on a warp whose appends are all done: a child CTA ends what
// its last waited later than its price, and a parent warp parked at its
// append goes on that much later than it got there.
func (r *dlRun) done(b *dlBatch) {
	if b.cta != nil {
		r.wait(b.cta, b.delay)
		return
	}
	if wp := b.warp; wp != nil {
		wp.t += b.delay
		b.delay = 0
		r.warps.push(wp)
	}
}

// wait ends a child CTA whose last append waited delay at the counter,
// that much past its price, and keeps the wait for the trace
// (ssspSolver.childWait).
func (r *dlRun) wait(cta *dlChildCTA, delay int64) {
	r.kids.push(dlEvent{t: cta.end + delay, kind: dlChildEnd, cta: cta})
	if delay > 0 {
		r.s.childWait[[2]int{cta.child.item, cta.lo / dragonliChildBlock}] = delay
	}
}
