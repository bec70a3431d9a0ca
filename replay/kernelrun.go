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

	readyCycle     int64  // entered the Kernel Distributor
	startCycle     int64  // first CTA started (-1 before)
	endCycle       int64  // completed
	ready, entered uint64 // FCFS position in the Kernel Distributor, and in entry order (kernelDistributor.stamp)

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
}

// kernelRuns hands device kernels their running parts, reusing those of
// kernels that have completed: only a few dozen device kernels run at
// once, so a replay of hundreds of thousands needs only that many, and
// allocating one per kernel spent the engine's goroutine in the
// allocator.
//
// A completed kernel's parts are still read until the end of the cycle
// it completed in (the FCFS list drops it then:
// kernelDistributor.compact), so they are reused only by a kernel
// entering the Kernel Distributor in a later cycle; the completed kernel
// then loses them (nil), so that anything that still reads them fails at
// once rather than reading another kernel's.
//
// The completed kernels wait in one list, those of the current cycle
// last: a kernel of an earlier cycle leaves it by taking the place of
// the list's last. Under CDP nearly every device kernel's entry falls in
// a cycle after the last completion, where moving the previous cycle's
// kernels to a list of reusable ones (a slice of pointers copied, and
// cleared, each taking write barriers while the collector marks) cost
// more than the reuse.
type kernelRuns struct {
	ended []*Kernel // completed kernels holding parts to reuse; the last `fresh` completed in cycle `at`
	fresh int
	at    int64
}

// start gives device kernel k its running parts as it enters the Kernel
// Distributor in cycle now.
func (r *kernelRuns) start(k *Kernel, now int64) {
	if k.kernelRun != nil {
		return // a host operation's
	}
	old := r.take(now)
	if old == nil {
		k.kernelRun = &kernelRun{startCycle: -1, order: -1}
		return
	}
	k.kernelRun, old.kernelRun = old.kernelRun, nil
	*k.kernelRun, k.startCycle, k.order = kernelRun{plain: k.plain}, -1, -1 // zeroed but the parts' number (plainKernels.add), then two set: a template copied cost 5 more
}

// take removes from the list a kernel completed before cycle now, or
// returns nil when there is none.
func (r *kernelRuns) take(now int64) *Kernel {
	r.settle(now)
	n := len(r.ended) - r.fresh
	if n == 0 {
		return nil
	}
	s := r.ended // a local: each write through r.ended reloaded it
	old, last := s[n-1], len(s)-1
	s[n-1], s[last] = s[last], nil // a fresh one, if any, where old was: still among the last `fresh`
	r.ended = s[:last]
	return old
}

// done takes the running parts of device kernel k, completed in cycle
// now. Where k is still the kernel of an SM's resident CTAs (sm.kernel:
// the first placed, counted in k.sms until the SM empties), its parts
// stay its own until the last such SM empties (leftSM).
func (r *kernelRuns) done(k *Kernel, now int64) {
	if k.sms > 0 || !reuseKernelRuns {
		return
	}
	r.settle(now)
	r.ended = append(r.ended, k)
	r.fresh++
}

// leftSM is k no longer the kernel of an SM that has emptied in cycle
// now: a device kernel completed while SMs still counted it takes its
// part in done now that none does. Under CDP one kernel in eight
// completes so (BFS scale 20: 21K of 165K), and each kept its parts for
// the collector, a kernel entering after it allocating new ones.
func (r *kernelRuns) leftSM(k *Kernel, now int64) {
	if k.sms == 0 && k.state == kComplete && !k.host {
		r.done(k, now)
	}
}

// settle makes the kernels completed before cycle now reusable.
func (r *kernelRuns) settle(now int64) {
	if now != r.at {
		r.fresh, r.at = 0, now
	}
}

// reuseKernelRuns is off only in a test that compares replays with and
// without the reuse (export_test.go).
var reuseKernelRuns = true
