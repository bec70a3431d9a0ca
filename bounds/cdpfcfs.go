package bounds

import (
	"container/heap"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// The CDP floor's waves and FCFS gate (cdpfloor.go, "The waves" and "The
// FCFS gate"): when a host kernel's last CTA starts at the earliest, and
// what its tree still has to do after that.

// waveFront runs the waves' recurrence over a host kernel's CTAs as they
// start: the i-th starts (at the earliest) no earlier than the (i-1)-th,
// nor before the (i-r+1)-th smallest end of the CTAs before it, each
// ending its own earliest start plus its chain. Once i ≥ r each start is
// at least that order statistic, so every new end is at least it too: the
// ends below it never matter again, and the front keeps only the others,
// at most r of them, in a heap (memory grows with the CTAs resident at
// once, not with the kernel's size).
type waveFront struct {
	r, n      int64     // CTAs resident at once at most; CTAs started so far
	last, end int64     // the last CTA's earliest start; the latest earliest end
	ends      cycleHeap // the ends above the order statistic, at most r
}

// begin is the kernel ready at from, at most r of its CTAs resident at
// once.
func (w *waveFront) begin(from, r int64) { w.r, w.last, w.end = max(r, 1), from, from }

// start adds a CTA with chain cycles.
func (w *waveFront) start(chain int64) {
	if w.n >= w.r {
		w.last = max(w.last, heap.Pop(&w.ends).(int64))
	}
	e := w.last + chain
	w.end = max(w.end, e)
	heap.Push(&w.ends, e)
	w.n++
}

// cycleHeap is a heap of cycles, the least on top.
type cycleHeap struct{ xs []int64 }

func (h *cycleHeap) Len() int           { return len(h.xs) }
func (h *cycleHeap) Less(i, j int) bool { return h.xs[i] < h.xs[j] }
func (h *cycleHeap) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *cycleHeap) Push(x any)         { h.xs = append(h.xs, x.(int64)) }
func (h *cycleHeap) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

// fcfsPlacement reports whether pol keeps the baseline SMX scheduler
// (RoundRobin: kernels in FCFS order) with CTAs starting when placed (no
// gate, no CRCS scoreboard or exclusive SMs, whose L1 flush delays a
// start, and a GPU whose SMs run CTAs of several kernels at once): the
// FCFS gate's premises.
func fcfsPlacement(pol replay.Policy, g model.GPU) bool {
	return pol.Placer == nil && pol.Gate == nil && !pol.ExclusiveSMs && pol.IO != replay.IOPaged && !g.ExclusiveSMs()
}

// checkSneak notes whether device kernel k of tree t could have a CTA
// placed beside a full SM of the host kernel's CTAs.
func (f *CDPFloor) checkSneak(t *treeLoad, k *replay.Kernel) {
	n := k.Need()
	if t.sneak || n == t.seen {
		return
	}
	t.seen = n
	host := t.host.Need()
	t.sneak = host.Beside(&f.gpu, host.PerSM(&f.gpu), n)
}

// afterWaves is the earliest host kernel k completes by its waves and,
// under the FCFS gate, by what its tree does after its last CTA starts.
func (f *CDPFloor) afterWaves(k *replay.Kernel, t *treeLoad) int64 {
	w := &t.waves
	if w.n == 0 {
		return f.kernelTimes(k).ready
	}
	last, end := w.last, w.end
	if !f.fcfs || !t.alone || t.head != f.heads || t.sneak {
		return end
	}
	after := t.kids
	if n := int64(f.gpu.MaxKernels); n > 0 {
		after.entries = max(0, after.entries-min(t.nKids, n-1)*f.dispatch)
	}
	after.cta(k.Need(), t.last.chain, t.last.chain, t.last.insts, t.last.dram)
	return max(end, last+t.tail, last+f.fit(&after))
}
