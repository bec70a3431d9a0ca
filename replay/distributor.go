package replay

// The Kernel Distributor: kernels take one of its gpu.max_kernels entries
// to be dispatched, become ready, and give the entry back when they have
// nothing left to distribute; completion waits for their children too.

import (
	"fmt"

	"github.com/gpureplay/gpureplay/model"
)

// fillKD hands free Kernel Distributor entries to waiting kernels, oldest
// first (one only, !all); each takes lat.kernel_dispatch to arrive.
func (e *engine) fillKD(all bool) {
	for e.kd.takes() {
		k := e.kd.take()
		if k.decl == nil {
			if err := e.body.load(k); err != nil {
				e.fail(err)
				return
			}
		}
		e.enterKD(k, e.clock.now()+e.cfg.Lat.KernelDispatch)
		if !all {
			break
		}
	}
}

// arriveDevice is a device kernel reaching the KMU: on a private stream of its
// own, with no copy to start and nothing `after`, it goes straight to wait for
// a Kernel Distributor entry. It reads only k's first line (inDevStream,
// arriveNext): the kernel was launched tens of thousands of cycles ago and is
// out of the cache, and under CDP another kernel, long waiting, takes the free
// entry (BFS scale 20: tens of thousands wait), so reading more of k here
// would only wait for it. The kernels chained to k at its launch
// (launchChildren), none in an ordered device stream, arrive with it, in their
// order, and wait for an entry chained, in one place of the queue
// (kernelDistributor.take): queued one by one, each cost awaitKD's call, the
// queue's push and pop, and a test for a free entry (scripts/instructions.sh,
// BFS scale 20: 14 instructions a CTA fewer). Entering the Kernel Distributor
// tells no one and only schedules a kernel's readiness, so they enter as they
// would one by one; but a chain's arrivals are all observed (ArrivalObserver)
// before the first of it enters, where one by one each kernel's entry followed
// its own arrival.
// A kernel of the device runtime (runtime: cudaLaunchDevice's, not DTBL's
// launch hardware's or KLAP's host launch of an aggregated kernel) waits first
// for GPGPU-Sim's stream manager where that is modelled
// (deviceRuntime.counts).
func (e *engine) arriveDevice(k *Kernel, runtime bool) {
	for c := k; c != nil; c = c.arriveNext {
		e.watch.kernelArrived(c, e.clock.now())
		if !c.inDevStream {
			e.host.privateStream(c)
			c.state = kWaiting
		} else if !e.dstreams.arrive(c) {
			return // alone, as a kernel in an ordered stream arrives
		}
	}
	if !runtime || !e.dev.counts(k) {
		e.awaitKD(k)
	}
}

// awaitKD queues k for a Kernel Distributor entry and hands out the free
// ones.
func (e *engine) awaitKD(k *Kernel) {
	k.state = kWaiting
	e.kd.wait(k)
	e.fillKD(true)
}

// enterKD gives k a Kernel Distributor entry now; its CTAs may be placed
// from readyAt on.
func (e *engine) enterKD(k *Kernel, readyAt int64) {
	// Most kernels are declared as the last one found to fit (prepare).
	if !e.kd.fitted(k.decl) && !e.prepare(k) {
		return
	}
	e.kd.enter(k).start(k)
	e.kd.number(k) // for its readiness and its plain ends (plainKernels), once it has its running parts
	k.inKD, k.state, k.entered, k.readyCycle = true, kDispatched, e.kd.stamp(), readyAt
	e.clock.kernel(readyAt, evReady, k)
}

// prepare checks that one CTA of k can run at all, and fails the run
// where it cannot (false). enterKD asks it once for kernels declared
// alike one after the other (kd.fitted), as a launch level's children
// are, where each child's test cost BFS --quick 7 instructions a CTA:
// kd.fitted is asked first, as an error returned nil was tested again.
func (e *engine) prepare(k *Kernel) bool {
	d := k.decl
	var empty sm
	if !empty.fits(&e.cfg.GPU, d.need) {
		e.fail(unfit(k, &e.cfg.GPU))
		return false
	}
	e.kd.fits(d)
	return true
}

// unfit is the error of a kernel one CTA of which does not fit on an
// empty SM of g: a call of its own, so that its arguments cost
// enterKD's common path nothing.
func unfit(k *Kernel, g *model.GPU) error {
	d := k.decl
	return &ModelError{Msg: fmt.Sprintf("kernel %d (%s): one CTA (%d threads, %d regs/thread, %d B smem) does not fit on an empty SM of %s (max_threads_per_sm %d, regs_per_sm %d, smem_per_sm %d)",
		k.id, d.Name, d.Threads(), d.Regs, d.Smem, g.Name, g.MaxThreadsPerSM, g.RegsPerSM, g.SmemPerSM)}
}

// becomeReady is a kernel arriving in the Kernel Distributor: from now on
// the SMX scheduler may place its CTAs.
func (e *engine) becomeReady(k *Kernel) {
	r := k.kernelRun // each store through k.kernelRun loaded it again
	k.state = kReady
	e.clock.readied(k) // (its readyCycle, now, set at its entry)
	e.kd.ready(k)
	if len(e.mechs) > 0 {
		readyAll(e.mechs, k, r.readyCycle)
	}
	r.marked = true
	e.kd.listLast(k)
}

// complete finishes a kernel whose CTAs and children are all done, and
// everything its completion releases: its stream successor, kernels
// waiting on it, and whoever launched it.
func (e *engine) complete(k *Kernel) {
	now := e.clock.now()
	k.state = kComplete
	k.endCycle = now
	e.watch.kernelDone(k)
	e.out.kernel(k, now)
	k.ctas = ctaTable{}
	if k.host {
		e.host.kernelDone(k)
		return
	}
	e.kd.completed(k)
	if k.inDevStream {
		if next := e.dstreams.done(k); next != nil && !e.dev.counts(next) {
			e.awaitKD(next)
		}
	}
	if k.ownerGroup {
		e.release(k.owner())
	} else if o := k.ownerKernel(); o.childDone() || e.dstreams.open() {
		e.maybeComplete(o)
	}
}

// maybeComplete moves a kernel on once its own work is done. When its CTAs
// and the groups coalesced into it have finished, it has nothing left to
// distribute and gives its Kernel Distributor entry back (as GPGPU-Sim
// does: children are tracked apart from the entry, so nested launches
// cannot starve for entries); when its children are done too, it completes.
//
// Small enough to inline: every CTA's end asks it, and nearly always k
// has CTAs to go; drained does the rest.
func (e *engine) maybeComplete(k *Kernel) {
	if k.done >= k.total {
		e.drained(k)
	}
}

// drained is maybeComplete for a kernel whose own CTAs are all done.
func (e *engine) drained(k *Kernel) {
	if k.state != kReady || k.groupsOpen() {
		return
	}
	if k.inKD {
		k.inKD = false
		e.kd.leave(k)
		if len(e.mechs) > 0 {
			drainedAll(e.mechs, k)
		}
		e.fillKD(false) // one entry came back, for one kernel: no loop's second test (--quick: replay's own bfs 1,382 -> 1,380 a CTA, sweep8 E 1,295 -> 1,293)
	}
	if k.kids == 0 {
		e.complete(k)
		return
	}
	e.openTail(launcher{k: k}, k.kids)
}

// openTail is a grid's own work done with kids pieces of launched work
// left: its tail launches may start once those are all they are.
func (e *engine) openTail(owner launcher, kids int) {
	if next := e.dstreams.openTail(owner, kids); next != nil && !e.dev.counts(next) {
		e.awaitKD(next)
	}
}

// readyAll tells each mechanism of ms that k arrived in the Kernel
// Distributor at now, and drainedAll that k's own CTAs are done. Each
// kernel's readiness and drain called them only where a run has
// mechanisms, as place does placedAll: an empty loop's set-up cost more
// than the test (scripts/instructions.sh --quick, BFS, a kernel for
// every 2.4 CTAs: with Kernel.groupsOpen, 6 instructions a CTA fewer in
// drained and becomeReady).
func readyAll(ms []mechanism, k *Kernel, now int64) {
	for _, m := range ms {
		m.kernelReady(k, now)
	}
}

func drainedAll(ms []mechanism, k *Kernel) {
	for _, m := range ms {
		m.kernelDrained(k)
	}
}
