package replay

// The swap: a cycle in which one plain CTA's job of the contention model
// finishes on an SM, and nothing else happens, but for the placement that
// follows it, of the same kernel's next CTA on the same SM (synth's
// common cycle: an SM full of one kernel's CTAs, the GPU's other SMs
// full too). The general path takes it through five layers: the end
// (shareWake, jobEnded, the SM's release, its open set), the loop's
// settle (the device runtime, the waiting CTAs, the CTA issue rate),
// RoundRobin.Place (its kernels' loop, find, roundOpen, fitsOpen),
// placePlain (its tests, the SM's reserve, the open set again, the
// occupancy's warp-cycles twice) and the contention model's Start and
// Settle. swapPlain goes from the record of the job's end to the next
// CTA's job in one function, once it has proved that the general path
// would do no more than it does, in the same order.

// swapPlain ends the plain CTA whose job of the contention model is ref,
// the one job that the wake-up firing now finished, and places its
// kernel's next CTA on its SM, as the general path would (shareWake's
// jobEnded, then engine.settle, its RoundRobin.Place placing with
// placePlain, then the model's Settle), where it can prove that path
// would do just that; it then reports true, the cycle settled. Elsewhere
// it changes nothing and reports false.
//
// What it proves first, and why each makes the general path its own:
//
//   - the wake-up is the cycle's only event (none fired before it, none
//     is left at its cycle) and the loop's checkpoint is not due after it
//     (clock.left): the general path ends the CTA, then settles the cycle
//     with nothing else between;
//   - the CTA is not its kernel's last (no plainKernelDone: k.done, which
//     counts its CTAs ended, is below k.next, which counts those placed,
//     this one among them, so that k.next+1 < k.total, below, says so
//     too), and its SM
//     held the most CTAs an SM may (gpu.max_ctas_per_sm, above one) with
//     no SM open (smArray.open empty, which the loop tests before its
//     call, and swapPlain does not again: --quick synth 934 → 932): the
//     end leaves the SM neither
//     empty (no vacate) nor the GPU more than this one free slot, so
//     that RoundRobin's find, wherever r.next points, tries this SM
//     first (roundOpen's round meets no other), and the placement that
//     takes the slot back closes the GPU again: Place then returns;
//   - the run is plain (Dispatch.plain: no mechanism, watcher, page gate,
//     L1 flush, CTA issue rate or numbered slot, and no row or its rows
//     kept on the plain paths, plainrows.go), its placer a
//     RoundRobin, with no stream countdown (the device runtime's settle
//     does nothing), which Dispatch.setPlain tells once a run, and so no
//     CTA waiting (retryWaiting is not called: a CTA is held stalled
//     only by a mechanism's gate, tryStart, and paused only at a page,
//     reachTouch, and a plain run has neither, so swapPlain does not
//     ask: --quick synth 929 → 925): engine.settle goes straight to
//     Place;
//   - the kernel is the first the Kernel Distributor lists (Place's
//     first, asked before any other) and has a CTA left to place after
//     the next (no placedLast; kd.compact, called as settle does, finds
//     nothing drained), its next CTA placePlain's (the kernel started,
//     as its CTA ending did, its segment not behind, its spec queued and
//     plain, with a demand: one job of the model);
//   - the SM fits the next CTA once this one has left it (fitsOpen's
//     test): its SMs are not held to one kernel (Dispatch.setPlain), and
//     its room then, less the ended CTA's need and plus the next's, the
//     same need, is its room now, within the SM's limits: a plain run's
//     SMs hold only CTAs placed where they fitted (no task runtime's
//     threadblocks, smArray.resident, which no fit is asked of).
//
// Then it does what the general path does that leaves a trace: the SM
// marked grown for RoundRobin's search (roomless.grew, leavePlain's),
// the CTA counted ended (recorder.ctaEnded, siteEngine.ctaEnded), the
// kernel's count of CTAs done, RoundRobin's next SM, the next CTA's spec
// taken, the Kernel Distributor compacted (it touches nothing of the
// model's), and the next CTA's job started and the model settled
// (contention.Model.Swap: Start, then Settle); first, where the run
// keeps rows on its plain paths, the ended CTA's row and the next one's
// in its slot (swapRow: the general path writes the row at the CTA's
// end, and none of the rest writes a row). What it leaves out
// cancels: the SM's release of the CTA's need and its reserve of the
// same need, the open set's add of the SM and its drop (it was closed
// and is closed again), and the occupancy's warp-cycles, the end's warps
// times now added and the start's taken away (endedAt, placedAt): all
// integers, whose sums wrap and come back alike. The
// next CTA's job names what the ended one's did (jobRef: the kernel's
// plain number, negated, and the SM), so it is ref.
//
// It is a function of the engine, not a method, as plainKernelDone is:
// the engine's methods are its CTA's and kernel's paths, and this is a
// shortcut through them that changes none of them.
//
// It is nosplit, as contention.Model.Swap is (see there): its frame is
// small and its calls check their own stacks.
//
//go:noinline
//go:nosplit
func swapPlain(e *engine, ref uint64) bool {
	c, d := &e.clock, &e.dispatch
	j := jobOf(ref)
	if d.swap == nil || j.run >= 0 || c.fired || c.left <= 1 { // no CTA waits in a plain run (above)
		return false
	}
	a := &e.sms
	sm := slotSM(j.warp) // s.id, which the stores below would have the compiler load again
	s := a.at(sm)
	if !a.atCapacity(s) { // no SM open: the loop's test
		return false
	}
	k := e.kd.numbered(-j.run)
	i := k.next // k.done < i: the ending CTA is placed, not yet done
	if l := e.kd.listed(); len(l) == 0 || l[0] != k || i+1 >= k.total || e.body.behind(k, i) {
		return false
	}
	q := k.ctas.specQueue()
	if q == nil { // a packed table, or specs with no queue
		return false
	}
	spec := q.peekPlain(i)
	if spec == nil || !(spec.issue > 0 || spec.dram > 0) {
		return false
	}
	if c.q.Len() > 0 && c.q.Peek() == c.t {
		return false // another event this cycle
	}
	if hasSlot(j.warp) { // its row kept (plainrows.go), and the next CTA's
		a.swapRow(&e.out, k, s, j.warp, c.t, i, spec.cycles)
		swapped(e, k, q, spec, sm, ref)
		return true
	}
	swapped(e, k, q, spec, sm, ref)
	return true
}

// swapped is the rest of swapPlain, once it has proved the swap: the
// CTA's end and the next one's start (see swapPlain). A function of its
// own, called on both of swapPlain's ways (with a row and without), so
// that the way without keeps its values in registers: where the two
// joined after swapRow's call, the compiler stored the values the rest
// reads before the test, on the way without a row too (built without a
// profile, --quick synth 961 instructions a CTA on the tree before,
// 971 so). The profile inlines it where it is hot. Nosplit, as
// swapPlain is.
//
//go:nosplit
func swapped(e *engine, k *Kernel, q *specQueue, spec *slimSpec, sm int, ref uint64) {
	a, d, now := &e.sms, &e.dispatch, e.clock.t
	a.grew(sm)
	e.out.ctaEnded(now, 0)
	e.sites.ctaEnded(!k.host)
	k.done++
	d.swap.next = sm + 1
	d.swaps++
	q.head++ // peekPlain's spec, as nextPlain takes it
	k.next++
	e.kd.compact()
	a.contention().swap(now, sm, float64(spec.cycles), spec.demand(), ref)
}

// setPlain sets plain (engine.start reads it), given whether nothing but
// the SMs, the clock, the contention model and rows take part in a CTA's
// run: so where the SMs are plain too (smArray.plain), or plain but for
// rows they may keep on the plain paths (keepPlainRows). It sets groups
// where they are plain but for numbered slots and rows its sink takes as
// fields, under the contention model (groupplain.go), and d.swap where
// the run's placer is a RoundRobin and the run has what swapPlain proves
// of it throughout: plain, with the contention model (which leaves the
// engine its marks), no stream countdown, no SMs held to one kernel, and
// room for more than one CTA on an SM; rare where the run has a stream
// countdown, mechanisms or SMs not plainButSlots (a CTA issue rate, or an
// L1 flush, which settleRare takes too: it does all settle did).
func (d *Dispatch) setPlain(plain bool) {
	a := &d.e.sms
	if plain && plainRowsOn && d.e.out.rowsAsFields() && a.plainRows() {
		keepPlainRows(d.e)
	}
	d.groups = groupsPlain && plain && (!d.e.out.keepsRows() || d.e.out.rowsAsFields()) && a.plainButSlots() && a.contention() != nil && a.maxCTAs() <= 64
	plain = plain && (a.plain() || a.rowsKept())
	d.plain, d.rare = plain, d.e.dev.counting() || len(d.e.mechs) > 0 || !a.plainButSlots()
	if rr, ok := d.placer.(*RoundRobin); ok && plain && swapCycles && a.contention() != nil && !d.e.dev.counting() && !a.exclusiveSMs() && a.maxCTAs() > 1 {
		d.swap = rr
		a.contention().ownMarks() // swapPlain swaps, or the loop marks (shareJobs.marked)
	}
}

// swapCycles is off only in a test that compares replays with and
// without swapPlain (SetSwap).
var swapCycles = true

// peekPlain is the spec nextPlain would give CTA i, or nil, taking none.
func (q *specQueue) peekPlain(i uint64) *slimSpec {
	if i >= q.end || q.head == len(q.specs) || q.specs[q.head].rare != 0 {
		return nil
	}
	return &q.specs[q.head]
}
