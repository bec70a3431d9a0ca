package replay

// kernelRun is what a kernel needs once it runs: from its Kernel
// Distributor entry to its completion. Under CDP tens of thousands of
// device kernels are filed or pending at once (BFS scale 20: ~100K at its
// peak), nearly all before their entry, so a device kernel gets these
// only at its entry (kernelRuns.start), 48 bytes its Kernel does not
// carry while it waits. A host operation gets them when it is made.
type kernelRun struct {
	next uint64 // next CTA index to place
	done uint64 // native CTAs finished
	kids int    // launched children and groups not complete
	pool *pool  // aggregated groups coalesced here (DTBL); nil until one is

	readyCycle     int64  // entered the Kernel Distributor (set at its entry, for its readiness: eventClock.dispatched)
	startCycle     int64  // first CTA started (-1 before)
	endCycle       int64  // completed
	ready, entered uint64 // FCFS position in the Kernel Distributor, and in entry order (kernelDistributor.stamp)
	readyTie       uint64 // its readiness event's tie key, drawn at its entry (eventClock.dispatched)

	// rare is what few kernels carry (kernelRare): host operations,
	// which have their running parts from when they are made, and
	// aggregated kernels (klap.go), which get theirs when sealed. Kept
	// in the Kernel, it took 8 bytes of each device kernel waiting
	// under CDP (BFS scale 22: 600K at once), all but none of them nil.
	rare *kernelRare

	// A host operation's own, kept here for the same reason: order is
	// its place in host launch order (-1 for device kernels and copies),
	// thread the host thread that issues it (hostThreads), seq its place
	// among the host's calls, from 1 (hostSync).
	order  int32
	seq    int32
	thread uint16

	sms    int32 // SMs whose resident CTAs are this kernel's (exclusive SMs)
	plain  int32 // its number (plainKernels) from its Kernel Distributor entry; device kernels' parts keep theirs
	inKD   bool  // holds a Kernel Distributor entry
	marked bool  // in the FCFS list of kernels with CTAs to place

	free *kernelRun // the next free parts, while these are free (kernelRuns)
}

// kernelRuns hands device kernels their running parts, reusing those of
// kernels that have completed: only a few dozen device kernels run at
// once, so a replay of hundreds of thousands needs only that many, and
// allocating one per kernel spent the engine's goroutine in the
// allocator.
//
// A completed kernel's parts go to the next kernel to enter the Kernel
// Distributor (free), even in the cycle it completed in, once nothing
// reads them: not the SMs that count it as their kernel (sms: its parts
// are freed as the last such SM empties, leftSM), nor the FCFS list,
// which drops a kernel at the end of the cycle it has no CTA left to
// place in (kernelDistributor.compact). A kernel still listed (marked)
// as it completes keeps its parts: under CDP none does (BFS scale 16:
// none of 14,713), as a kernel places its last CTA cycles before it
// completes. The completed kernel loses them (nil), so that anything
// that still reads them fails at once rather than reading another
// kernel's.
//
// They went to a list of completed kernels, reusable from the next cycle
// on, which each entry settled, searched and swapped its parts out of,
// and each were zeroed whole (104 bytes): free parts pushed and popped
// as they come, reset field by field, cost a kernel some 25 instructions
// less (scripts/instructions.sh --quick: bfs 2,279 -> 2,271 a CTA,
// sweep8 E 1,290 -> 1,280, D 986 -> 991, x4.96 -> x4.94). Linked
// through the free parts, not a slice of them, the free ones cost a
// kernel a slice's append, its length and capacity tested and stored,
// no more (bfs 2,253 -> 2,246-2,250, sweep8 E 1,264 -> 1,258).
type kernelRuns struct {
	free *kernelRun // completed kernels' parts, which nothing reads any more, the last freed first, linked (kernelRun.free)
}

// start gives device kernel k its running parts as it enters the Kernel
// Distributor: free ones, reset where they are not set before they are
// read (readyCycle, ready, entered, inKD, marked, endCycle) nor the same
// in every completed device kernel's (kids, sms, order, seq, thread), or
// new ones.
func (r *kernelRuns) start(k *Kernel) {
	if k.kernelRun != nil {
		return // a host operation's
	}
	p := r.free
	if p == nil {
		k.kernelRun = &kernelRun{startCycle: -1, order: -1}
		return
	}
	k.kernelRun, p.next, p.done, p.startCycle = p, 0, 0, -1
	r.free = p.free // p.free not cleared: parts live on, reused
	if p.pool != nil || p.rare != nil {
		p.pool, p.rare = nil, nil
	}
}

// done frees the running parts of device kernel k, just completed,
// unless it is still the kernel of an SM's resident CTAs (sm.kernel: the
// first placed, counted in k.sms until the SM empties): then the last
// such SM's emptying frees them (leftSM).
func (r *kernelRuns) done(k *Kernel) {
	if k.sms == 0 {
		r.release(k)
	}
}

// release frees completed kernel k's parts, unless the FCFS list still
// reads them (see kernelRuns) or the reuse is off.
func (r *kernelRuns) release(k *Kernel) {
	if !k.marked && reuseKernelRuns {
		k.free, r.free = r.free, k.kernelRun
		k.kernelRun = nil
	}
}

// leftSM is k no longer the kernel of an SM that has emptied: a device
// kernel completed while SMs still counted it frees its parts now that
// none does. Under CDP one kernel in eight completes so (BFS scale 20:
// 21K of 165K), and each kept its parts for the collector, a kernel
// entering after it allocating new ones.
func (r *kernelRuns) leftSM(k *Kernel) {
	if k.sms == 0 && k.state == kComplete && !k.host {
		r.release(k)
	}
}

// reuseKernelRuns is off only in a test that compares replays with and
// without the reuse (export_test.go).
var reuseKernelRuns = true
