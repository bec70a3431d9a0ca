package replay

import (
	"container/heap"

	"github.com/gpureplay/gpureplay/model"
)

// The CDP floor's waves and FCFS gate (cdpfloor.go, "The waves" and "The
// FCFS gate"): when a host kernel's last CTA starts at the earliest, and
// what its tree still has to do after that.

// waves is the earliest start of each CTA of a host kernel ready at
// from, its CTAs' chains in the order they start, at most r of them
// resident at once: the i-th starts no earlier than the (i-1)-th, nor
// before i-r of the CTAs before it have ended, each no earlier than its
// own earliest start plus its chain. It returns the last CTA's earliest
// start and the latest earliest end of any of them.
func waves(chains []int64, from, r int64) (last, end int64) {
	low := &cycleHeap{max: true} // the smallest ends so far, i-r of them
	high := &cycleHeap{}         // the other ends
	last, end = from, from
	r = max(r, 1)
	for i, c := range chains {
		if m := int64(i) - r + 1; m >= 1 {
			for int64(low.Len()) < m {
				heap.Push(low, heap.Pop(high))
			}
			last = max(last, low.xs[0])
		}
		e := last + c
		end = max(end, e)
		if low.Len() > 0 && e < low.xs[0] {
			heap.Push(low, e)
			heap.Push(high, heap.Pop(low))
		} else {
			heap.Push(high, e)
		}
	}
	return last, end
}

// perSM is how many CTAs needing n an empty SM of g holds at once.
func perSM(g *model.GPU, n need) int64 {
	var s sm
	var r int64
	for s.fits(g, n) {
		s.reserve(n)
		r++
	}
	return r
}

// beside reports whether a CTA needing d fits on an SM of g holding r
// CTAs needing n.
func beside(g *model.GPU, n need, r int64, d need) bool {
	var s sm
	for ; r > 0; r-- {
		s.reserve(n)
	}
	return s.fits(g, d)
}

// cycleHeap is a heap of cycles, the least on top, or the largest with
// max.
type cycleHeap struct {
	xs  []int64
	max bool
}

func (h *cycleHeap) Len() int { return len(h.xs) }
func (h *cycleHeap) Less(i, j int) bool {
	if h.max {
		return h.xs[i] > h.xs[j]
	}
	return h.xs[i] < h.xs[j]
}
func (h *cycleHeap) Swap(i, j int) { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *cycleHeap) Push(x any)    { h.xs = append(h.xs, x.(int64)) }
func (h *cycleHeap) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

// fcfsPlacement reports whether pol keeps the baseline SMX scheduler
// (RoundRobin: kernels in FCFS order) with CTAs starting when placed (no
// gate, no CRCS scoreboard or exclusive SMs, whose L1 flush delays a
// start): the FCFS gate's premises.
func fcfsPlacement(pol Policy) bool {
	return pol.Placer == nil && pol.Gate == nil && !pol.ExclusiveSMs && pol.IO != IOPaged
}

// checkSneak notes whether device kernel k of tree t could have a CTA
// placed beside a full SM of the host kernel's CTAs.
func (f *cdpFloor) checkSneak(t *treeLoad, k *Kernel) {
	if t.sneak || k.need == t.seen {
		return
	}
	t.seen = k.need
	host := t.host
	t.sneak = beside(&f.gpu, host.need, perSM(&f.gpu, host.need), k.need)
}

// afterWaves is the earliest host kernel k completes by its waves and,
// under the FCFS gate, by what its tree does after its last CTA starts.
func (f *cdpFloor) afterWaves(k *Kernel, t *treeLoad) int64 {
	r := perSM(&f.gpu, k.need) * int64(f.gpu.SMs)
	last, end := waves(t.chains, k.floorReady, r)
	if !f.fcfs || !t.alone || t.sneak || len(t.chains) == 0 {
		return end
	}
	after := t.kids
	if n := int64(f.gpu.MaxKernels); n > 0 {
		after.entries = max(0, after.entries-min(t.nKids, n-1)*f.dispatch)
	}
	after.cta(k.need, t.last.chain, t.last.chain, t.last.insts, t.last.dram)
	return max(end, last+t.tail, last+f.fit(&after))
}
