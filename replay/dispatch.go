package replay

// Dispatch is what a Placer sees and acts through: the Kernel Distributor's
// kernels in FCFS order and the SMs' room. It exists only during a Place
// call.
type Dispatch struct {
	e      *engine
	placer Placer // the policy's, RoundRobin when it has none
	// plain: only the SMs, the clock, the contention model and rows take
	// part in a CTA's run (no mechanism, watcher, page gate, L1 flush, CTA
	// issue rate or numbered slot; no row, or rows the plain paths keep:
	// plainrows.go): placePlain places most host CTAs.
	plain bool
	// groups: plain but for numbered slots and rows the sink takes as fields,
	// under the contention model and on SMs of at most 64 CTAs: placeGroup
	// places most of the aggregated groups' CTAs (groupplain.go).
	groups bool
	rare   bool        // a countdown, mechanisms, a CTA issue rate: settleRare (setPlain)
	swap   *RoundRobin // the placer where swapPlain may take a cycle whole (setPlain), else nil
	swaps  int64       // the cycles swapPlain took whole (a test's count)
}

func newDispatch(e *engine, p Placer) Dispatch {
	if p == nil {
		p = &RoundRobin{}
	}
	return Dispatch{e: e, placer: p}
}

// place has the placer fill free room.
func (d *Dispatch) place() { d.placer.Place(d) }

// Pending returns the kernels in the Kernel Distributor that still have CTAs
// to place, oldest first (FCFS). The slice is only valid until the next
// Place call.
func (d *Dispatch) Pending() []*Kernel { return d.e.kd.listed() }

// SMs is the number of SMs.
func (d *Dispatch) SMs() int { return d.e.sms.count() }

// Fits reports whether k's next CTA fits on SM sm under all four limits
// (and, under a policy with exclusive SMs, whether sm is idle or k's).
// An sm that is not an SM's index fits nothing.
func (d *Dispatch) Fits(k *Kernel, sm int) bool {
	return sm >= 0 && sm < d.e.sms.count() && d.e.sms.fits(k, sm)
}

// Exclusive reports whether CTAs of different kernels may not share an SM
// (the policy's ExclusiveSMs, or a GPU with gpu.concurrent_kernel_sm=off),
// so an SM full for one kernel says nothing about another.
func (d *Dispatch) Exclusive() bool { return d.e.sms.exclusiveSMs() }

// SMShare is the fraction of SMs running k's CTAs (PPCS's SM share).
func (d *Dispatch) SMShare(k *Kernel) float64 {
	return float64(k.sms) / float64(d.e.sms.count())
}

// PageShare is the fraction of the ready input pages that k owns (PPCS's
// page share); 0 without the CRCS scoreboard or for device kernels.
func (d *Dispatch) PageShare(k *Kernel) float64 { return d.e.pages.pageShare(k) }

// NextWaitsOnUnplaced reports whether k's next CTA, if placed now, could
// wait on the CRCS scoreboard for an older kernel's CTA that is not placed
// yet (a page both reference): false without the scoreboard, for device
// kernels, and for the oldest kernel with CTAs to place.
func (d *Dispatch) NextWaitsOnUnplaced(k *Kernel) bool {
	waits, err := d.e.pages.nextWaitsOnUnplaced(k)
	if err != nil {
		d.e.fail(err)
	}
	return waits
}

// PreludeOver reports whether the host has read every input page (always
// true when host I/O is not modelled).
func (d *Dispatch) PreludeOver() bool {
	return d.e.io.preludeOver(d.e.clock.now())
}

// HostKernels is the number of host kernels in the trace when the CRCS
// scoreboard knows it (from its pass over the trace), otherwise the number
// read so far.
func (d *Dispatch) HostKernels() int {
	if d.e.pages != nil {
		return d.e.pages.hostKernels()
	}
	return d.e.host.kernelsRead()
}

// Idle reports whether SM sm has no resident CTA (false for an sm that is
// not an SM's index).
func (d *Dispatch) Idle(sm int) bool { return sm >= 0 && sm < d.e.sms.count() && d.e.sms.idle(sm) }

// Place puts k's next CTA on SM sm. The caller must have checked Fits and
// that k has CTAs left (k.Remaining() > 0): the engine checks both, and
// the SM index, and stops the replay with a *PolicyError naming the
// policy where one fails (a CTA over an SM's limits would make every
// later cycle wrong).
func (d *Dispatch) Place(k *Kernel, sm int) {
	switch n := d.e.sms.count(); {
	case k == nil:
		d.e.refuse("Place", "a nil kernel on SM %d", sm)
	case sm < 0 || sm >= n:
		d.e.refuse("Place", "kernel %d's CTA on SM %d; the GPU has SMs 0 to %d", k.id, sm, n-1)
	case k.Remaining() == 0:
		d.e.refuse("Place", "kernel %d's CTA on SM %d, but the kernel has no CTA left to place", k.id, sm)
	case !d.e.sms.fits(k, sm):
		d.e.refuse("Place", "kernel %d's CTA on SM %d, where Fits says it does not fit", k.id, sm)
	}
	d.placeNoted(k, sm)
}

// RoundRobin is the baseline SMX scheduler: kernels in FCFS order, each
// placing CTAs on SMs round-robin while any SM has room for them. A kernel
// whose next CTA fits nowhere lets younger kernels use what is left
// (concurrent kernel execution).
type RoundRobin struct {
	next   int    // the SM the next placement starts looking at
	failed []need // CTA sizes that fit on no SM in this Place call
}

// Place implements Placer. It stops once no SM has a free CTA slot
// (smArray.anyOpen), where no kernel's CTA fits: under CDP it would otherwise
// read every waiting kernel to find each hopeless. It asks after each
// placement too: one that filled the last free slot leaves nothing for a
// search to find (synth searched twice a CTA, noting each failed size).
// And it stops when a CTA that fitted nowhere needs no more of any
// resource than the least any listed kernel needs (kernelDistributor.
// lowest): every kernel left is hopeless, and under CDP thousands of
// listed kernels, most of one shape, were each asked in turn. A kernel
// is asked whether it is hopeless once, not before each of its CTAs: only
// a failed search adds to the sizes that failed, and that ends the
// kernel's turn (17 instructions a CTA fewer on uniform, where one Place
// fills a wave's 208 free slots; 5 on synth). Whether it has CTAs left
// is toPlace's (k.next < k.total first; a listed kernel has its running
// parts, which Remaining tests): 6 fewer on both, BFS 10 (--quick). A
// placement that took the last free slot ends the call where the kernel
// has CTAs or groups left: DTBL's kernels, whose CTAs left are mostly
// their aggregated groups', had each placement round end in a search of
// no SM (24.6K of BFS scale 16's 25.1K vain searches; dtbl 5.3M
// instructions fewer). A packed kernel's CTAs are placed in one pass
// where they may be (placePacked, given r: its again): under CDP most
// CTAs follow one of their kernel's on the first SM find would try next
// (BFS scale 20: 309K of 536K), each then placed without the loop's
// tests, find and placePlain's call (scripts/instructions.sh bfs 1,716
// -> 1,710 a CTA; --quick bfs 2,278 -> 2,275, sweep8 E 1,290 -> 1,287).
// Its tests, after the contention model's Start, cost every CTA: a jump
// back to placePacked's first line, its values loaded again, 1,716.
func (r *RoundRobin) Place(d *Dispatch) {
	r.failed = r.failed[:0]
kernels: // (find counts the SMs, where it must wrap r.next round them)
	for i := 0; i < len(d.Pending()) && d.e.sms.anyOpen(); i++ {
		if k := d.Pending()[i]; len(r.failed) == 0 || d.Exclusive() || !r.hopeless(&k.decl.need) {
			for q := d.plainQueue(k); k.toPlace(); {
				s := r.find(d, k)
				if s == nil {
					r.failed = append(r.failed, k.decl.need)
					if !d.Exclusive() && k.decl.need.within(d.e.kd.lowest()) {
						return // every listed kernel is hopeless
					}
					continue kernels
				}
				r.next = s.id + 1 // find wraps it round; set first, s need not outlive the call
				// find checked Fits
				if q == nil || !d.e.placePlain(k, s, q, r) {
					d.placeRest(k, s) // placePlain's true a branch, no bool merged with q == nil's
				}
				if !d.e.sms.anyOpen() && k.toPlace() {
					return // k has CTAs or groups left (else the loop ends)
				}
			}
			d.e.kd.placedLast() // k has no CTA left to place
		}
	}
}

// hopeless reports whether a CTA needing n cannot fit anywhere because one
// no larger in any resource already failed to (SMs only fill up during a
// Place call), which saves scanning every SM for every waiting kernel.
// Place asks it only where some size has failed: with none, as in most
// calls, the test of the list's length costs less than setting up the
// loop over an empty list (--quick: synth 6 instructions a CTA fewer,
// one Place call for each; uniform 2). It takes n by pointer, so that
// n's fields are loaded only where the list is looked at.
func (r *RoundRobin) hopeless(n *need) bool {
	for _, f := range r.failed {
		if f.within(*n) {
			return true
		}
	}
	return false
}

// find is the first SM from r.next on, round the SMs, that k's next CTA
// fits on (for place, which need not look it up again), or nil. It tries
// only SMs with a free CTA slot (smArray.open), and past its first, those
// roomless leaves: the others fit no CTA of k.
func (r *RoundRobin) find(d *Dispatch, k *Kernel) *sm {
	// The SMs nextOpen gives are the GPU's, with a free slot and not held:
	// fitsOpen asks them room alone, without Dispatch.Fits's index check.
	// roundOpen takes r.next round the SMs itself (one past the last SM
	// starts the round at 0): the wrap waits for the searches after it
	// (--quick: synth 10 instructions a CTA fewer, BFS 9, uniform 9).
	sms := &d.e.sms
	if sm := sms.roundOpen(r.next); sm >= 0 && sms.fitsOpen(k, sm) {
		return sms.at(sm) // the first SM tried: most searches end there (smSet.round)
	}
	if r.next >= d.SMs() {
		r.next = 0
	}
	mask := sms.mayFit(&k.decl.need) // the others have no room (roomless)
	if mask == 0 {
		return nil // none grew since: nothing to try, nothing to learn
	}
	for sm := sms.nextOpen(r.next, mask); sm >= 0; sm = sms.nextOpen(sm+1, mask) {
		if sms.fitsOpen(k, sm) {
			return sms.at(sm)
		}
	}
	for sm := sms.nextOpen(0, mask); sm >= 0 && sm < r.next; sm = sms.nextOpen(sm+1, mask) {
		if sms.fitsOpen(k, sm) {
			return sms.at(sm)
		}
	}
	sms.failed(k.decl.need)
	return nil
}

// plainQueue is k's queue of specs where the run is plain (placePlain's
// CTAs), else nil. RoundRobin.Place asks it once a kernel: a host
// kernel's queue, made as its body's segment begins, stays its own, and
// a kernel whose segment begins while its CTAs are being placed (reached
// by place) has the rest of them placed by place, as placePlain would.
func (d *Dispatch) plainQueue(k *Kernel) *specQueue {
	if !d.plain {
		return nil
	}
	return k.ctas.queued()
}

// placeNoted places k's next CTA on SM sm, and tells the Kernel
// Distributor where it was k's last to place (kernelDistributor.
// placedLast): engine.place asked that of every CTA, where RoundRobin.
// Place, knowing it as its loop ends, asks only where it returns after
// a placement (scripts/instructions.sh bfs: 6 instructions a CTA fewer,
// --quick uniform 1; --quick synth 3 more, a Place call a CTA).
func (d *Dispatch) placeNoted(k *Kernel, sm int) {
	if s, q := d.e.sms.at(sm), k.ctas.queued(); (!d.plain || q == nil || !d.e.placePlain(k, s, q, nil)) && !(d.groups && placeGroup(d.e, k, s)) {
		d.e.place(k, s)
	}
	if k.Remaining() == 0 {
		d.e.kd.placedLast()
	}
}

// placeRest places k's next CTA on s where placePlain did not: a group's
// (placeGroup) or place's.
func (d *Dispatch) placeRest(k *Kernel, s *sm) {
	if !(d.groups && placeGroup(d.e, k, s)) {
		d.e.place(k, s)
	}
}
