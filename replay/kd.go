package replay

import (
	"iter"
	"unsafe"

	"github.com/gpureplay/gpureplay/internal/cacheline"
	"github.com/gpureplay/gpureplay/internal/fifo"
)

// kernelDistributor is the Kernel Distributor and the KMU's queue in
// front of it: the kernels waiting for an entry, oldest first; the
// gpu.max_kernels entries, held in entry order; and the FCFS list of
// ready kernels with CTAs to place, which the placer walks. It owns that
// state, the running parts it gives a device kernel at its entry
// (kernelRuns) and the entries' numbers (plainKernels), and nothing else:
// it schedules no event, loads no body, completes no kernel. The engine
// (distributor.go) does those; policies see its entries (Site.KD) and
// list (Pending).
type kernelDistributor struct {
	entries, room      int                 // gpu.max_kernels, and how many are free (a test of one field: takes)
	waiting            fifo.Queue[*Kernel] // stream heads and device kernels waiting for an entry, each with those chained to it (take)
	chained            *Kernel             // the kernels chained to the one take took last: they wait before the queue's
	held               kdOrder             // kernels holding an entry, in entry order
	pending            []*Kernel           // ready kernels with CTAs to place, FCFS (by ready sequence)
	least              need                // each resource's least need among pending's kernels (lowest)
	drained, unordered bool                // a kernel in pending may have no CTA left (compact); held is not kept: LaunchAll reads no Site.KD (siteKD, holders)
	readySeq, entrySeq uint64              // kernels become ready in this order, and enter in this (Kernel.entered)
	runs               kernelRuns          // device kernels' running parts, for reuse (kernelrun.go)
	fit                *kernelDecl         // the declaration last found to fit an empty SM (engine.prepare)
	nums               plainKernels        // the kernels holding an entry, by number, for events to name them (plainend.go)
}

func newKernelDistributor(entries int, sites SiteDecider) kernelDistributor {
	_, all := sites.(LaunchAll)
	return kernelDistributor{entries: entries, room: entries, nums: plainKernels{ks: make([]*Kernel, 1, 64)}, unordered: sites == nil || all}
}

// fitted reports whether decl is the one last noted to fit an empty SM.
func (d *kernelDistributor) fitted(decl *kernelDecl) bool { return decl == d.fit }

// fits notes that a CTA of decl fits an empty SM: kernels declared alike
// come one after the other, so the last one is all engine.prepare needs.
func (d *kernelDistributor) fits(decl *kernelDecl) { d.fit = decl }

// wait queues k for an entry: with no call while the queue's last block
// has room, as for all but one kernel in 256 (a call of Push a kernel
// cost BFS --quick 5 instructions a CTA).
func (d *kernelDistributor) wait(k *Kernel) {
	if !d.waiting.TryPush(k) {
		d.waiting.Push(k)
	}
}

// takes reports whether an entry is free for a waiting kernel. Small
// enough to inline, apart from take: fillKD asks until there is none, so
// every kernel it hands an entry is followed by a call that found none
// (under CDP one of each per kernel), which cost more than the test.
func (d *kernelDistributor) takes() bool {
	return d.room > 0 && (d.chained != nil || d.waiting.Len() > 0)
}

// take takes the oldest waiting kernel, which takes a free entry, and
// starts loading the kernel that takes the next free entry, which has
// waited out of the cache (under CDP tens of thousands wait): fillKD's
// one read of it (its decl) stalled the engine on memory at every entry.
// Its first line is enough: prefetching the next one too measured no
// better. The prefetch is take's own: in a function of its own, called,
// it cost a kernel some 10 instructions more (callgrind, BFS scale 16
// under CDP: 4,789 → 4,783 instructions a CTA).
//
// A site's device kernels arrive chained (Kernel.arriveNext) and wait so,
// in one place of the queue: the oldest waiting kernel is the next of the
// chain take took from last, or the queue's first, itself the first of
// its chain, which then waits before the queue's.
func (d *kernelDistributor) take() *Kernel {
	k := d.chained
	if k == nil {
		k = d.waiting.Pop()
	}
	next := k.arriveNext // front, known: d.chained not loaded again
	if d.chained, k.arriveNext = next, nil; next == nil {
		if next, _ = d.waiting.Front(); next == nil {
			return k // none waits: the chain's next (most) is tested once, not again
		}
	}
	cacheline.Prefetch(unsafe.Pointer(next))
	return k
}

// front is the kernel take takes next, nil for none.
func (d *kernelDistributor) front() *Kernel {
	if d.chained != nil {
		return d.chained
	}
	k, _ := d.waiting.Front()
	return k
}

// free reports whether a kernel arriving now would take an entry at once:
// one is free and no kernel waits before it.
func (d *kernelDistributor) free() bool {
	return d.room > 0 && d.chained == nil && d.waiting.Len() == 0
}

// enter gives k an entry, and returns the running parts' source for
// enterKD to give k its own (kernelRuns.start) on the same line: PGO
// inlines start at that hot line, where start called from here, inlined
// into enterKD, stayed a call once a kernel (scripts/instructions.sh
// --quick, BFS, a kernel for every 2.4 CTAs: 6 instructions a CTA fewer).
func (d *kernelDistributor) enter(k *Kernel) *kernelRuns {
	if d.room--; !d.unordered {
		d.held.add(k)
	}
	return &d.runs
}

// completed is device kernel k completing (kernelRuns.done).
func (d *kernelDistributor) completed(k *Kernel) { d.runs.done(k) }

// leftSM is k no longer the kernel of an SM that emptied.
func (d *kernelDistributor) leftSM(k *Kernel) { d.runs.leftSM(k) }

// leave takes k's entry back, and its number: most kernels leave as the
// oldest, asked first (--quick: BFS 3 instructions a CTA fewer).
func (d *kernelDistributor) leave(k *Kernel) {
	if d.nums.release(k); d.unhold() {
		d.held.drop(k)
	}
}

// ready numbers k in the order kernels become ready: the FCFS order.
func (d *kernelDistributor) ready(k *Kernel) {
	d.readySeq++
	k.ready = d.readySeq
}

// list puts ready kernel k with CTAs to place back into the FCFS list,
// in its ready order (a kernel comes back when a group joins its pool):
// appended (listLast), then moved to its place where kernels ready after
// it are listed.
func (d *kernelDistributor) list(k *Kernel) {
	i := len(d.pending)
	for i > 0 && d.pending[i-1].ready > k.ready {
		i--
	}
	d.listLast(k)
	if last := len(d.pending) - 1; i < last {
		copy(d.pending[i+1:], d.pending[i:last])
		d.pending[i] = k
	}
}

// lower brings least down to listed kernel k's need, or sets it to k's
// where k is the first kernel of the list.
func (d *kernelDistributor) lower(k *Kernel, first bool) {
	if first {
		d.least = k.decl.need
		return
	}
	d.least = d.least.lower(k.decl.need)
}

// lowest is, for each resource, the least a CTA of a listed kernel needs:
// no more than any listed kernel's need (a kernel with no CTA left counts
// until compact drops it). The list must not be empty.
func (d *kernelDistributor) lowest() need { return d.least }

// placedLast notes that a listed kernel has placed its last CTA.
func (d *kernelDistributor) placedLast() { d.drained = true }

// compact drops from the FCFS list the kernels with no CTA left to place,
// if one may have none (drained: a kernel's last CTA placed, or a kernel
// listed with none; nothing else takes a listed kernel's CTAs, and under
// CDP a third of the Place calls place no kernel's last, BFS scale 20: 74K
// of 232K). A kept kernel is written back only where it moves: most stay
// where they are, and while the collector marks every pointer written
// into the list takes a write barrier.
func (d *kernelDistributor) compact() {
	if d.drained { // small enough to inline: most calls stop here
		d.dropDrained()
	}
}

// dropDrained is compact's work. Under CDP the list mostly holds one
// kernel, which has placed its last CTA (BFS scale 16: 13,379 of 14,061
// calls), and empties with no loop: the loops and their write-barrier
// tests cost some 25 instructions more a call (callgrind, BFS scale 16
// under CDP: 4,796 → 4,789 instructions a CTA).
func (d *kernelDistributor) dropDrained() {
	d.drained = false
	if p := d.pending; len(p) == 1 && !p[0].toPlace() {
		p[0].marked = false
		p[0] = nil
		d.pending = d.pending[:0] // its length alone stored: p[:0] stored p's pointer and capacity too
		return
	}
	j := 0
	for i, k := range d.pending {
		if k.toPlace() {
			if j != i {
				d.pending[j] = k
			}
			d.lower(k, j == 0)
			j++
		} else {
			k.marked = false
		}
	}
	for i := j; i < len(d.pending); i++ {
		d.pending[i] = nil // a few at most: clear's call into the runtime cost more
	}
	d.pending = d.pending[:j]
}

// listed is the FCFS list, valid until the next change.
func (d *kernelDistributor) listed() []*Kernel { return d.pending }

// holders, the kernels holding an entry in entry order (a deadlock's
// report, the golden state), is in deadlock.go with the reports that ask
// for it; siteKD, below, is what a site's decider sees.

// heldLen is how many entries are held.
func (d *kernelDistributor) heldLen() int { return d.entries - d.room }

// waiters yields the kernels waiting for an entry, oldest first.
func (d *kernelDistributor) waiters() iter.Seq[*Kernel] {
	return func(yield func(*Kernel) bool) {
		if !yieldChain(d.chained, yield) {
			return
		}
		for k := range d.waiting.All() {
			if !yieldChain(k, yield) {
				return
			}
		}
	}
}

// yieldChain yields k and the kernels chained to it, and reports whether
// to go on.
func yieldChain(k *Kernel, yield func(*Kernel) bool) bool {
	for ; k != nil; k = k.arriveNext {
		if !yield(k) {
			return false
		}
	}
	return true
}

// listLast appends k to the FCFS list: a kernel that has just become
// ready (engine.becomeReady), ready last, goes after every listed one.
// Its readiness lists it so, with no search of the list for its place
// and none of mark's tests (a kernel becoming ready is not listed yet),
// under CDP once a device kernel (scripts/instructions.sh, BFS scale 20:
// mark's call and its tests, 5 instructions a CTA fewer).
func (d *kernelDistributor) listLast(k *Kernel) {
	if !k.toPlace() {
		d.drained = true
	}
	d.lower(k, len(d.pending) == 0)
	d.pending = append(d.pending, k)
}

// toPlace reports whether listed kernel k has CTAs left to place
// (Remaining() > 0): native CTAs first, then its groups' (DTBL). A listed
// kernel has its running parts until the cycle after it completes, when
// compact has dropped it, so toPlace asks none of Remaining's tests of
// them (--quick, replay's own functions: BFS 1,556.0 -> 1,545.6
// instructions a CTA, sweep8 E 1,411.1 -> 1,399.6).
func (k *Kernel) toPlace() bool {
	return k.next < k.total || k.pool != nil && k.pool.pooled > 0
}

// number gives k, which has just entered, its number (plainKernels).
func (d *kernelDistributor) number(k *Kernel) { d.nums.add(k) }

// Under LaunchAll, the decider of CDP's runs, the Kernel Distributor
// keeps no order of its holders (unordered): LaunchAll reads no Site.KD,
// and the order's upkeep, each entry added to kdOrder and taken out, cost
// every kernel some 35 instructions (scripts/instructions.sh --quick: bfs
// 2,380 -> 2,368 a CTA, sweep8 E 1,357 -> 1,341, x4.99 -> x4.96). The
// few that ask (a deadlock's report, the golden tests' state) have them
// from their numbers, sorted (holders).

// siteKD is what a site's decider sees of the holders (Site.KD): all of
// them in entry order, or none for LaunchAll, which reads none.
func (d *kernelDistributor) siteKD() []*Kernel { return d.held.kernels() }

// unhold counts an entry given back, and reports whether held keeps it.
func (d *kernelDistributor) unhold() bool {
	d.room++
	return !d.unordered
}

// stamp is the next entry's place in entry order (Kernel.entered).
func (d *kernelDistributor) stamp() uint64 {
	d.entrySeq++
	return d.entrySeq
}
