package bounds

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// blindTail is what must follow a blind call in any run (blindfloor.go):
// its host kernel — the root of the launch tree the calling CTA is in —
// completes only after the call's children have (a parent waits for its
// children), and each operation behind that kernel in its stream starts
// only after the one before it has ended (nextInStream). So from the
// call's children's dispatch the run lasts at least the least durations
// of those operations, summed:
//   - a kernel takes lat.kernel_dispatch in its Kernel Distributor entry
//     before any CTA is placed, and then holds its CTAs from their
//     placement to their end: at least its longest CTA's own cycles (a
//     site only adds: an inlined lane's loop, or a launch's call), and at
//     least its CTAs' room × own cycles over the GPU's and, under the
//     contention model, their demand over the issue slots and DRAM
//     bandwidth (gpuLoad.cycles, as the CDP floor's trees: cdpfloor.go);
//   - a copy takes at least its transfer.
//
// Children, `after` dependencies and other streams only add, so they are
// not counted. Only streams whose host kernels made blind calls are
// watched: their later operations' loads are gathered as their CTAs
// start, and summed as they complete.
type blindTail struct {
	cfg        model.Config
	gpu        model.GPU
	contention bool
	dispatch   int64

	roots map[*replay.Kernel]*blindRoot
	sums  map[uint64]int64               // a watched stream's operations' least durations, summed as they complete
	loads map[*replay.Kernel]*kernelLoad // a watched stream's kernels in flight
}

// blindRoot is a host kernel that made blind calls (or whose tree did).
type blindRoot struct {
	stream uint64
	done   bool
	at     int64 // its stream's sum when it completed
}

// kernelLoad is what a kernel's own CTAs hold and ask: their room and
// demand, and the longest of them.
type kernelLoad struct {
	load    gpuLoad
	longest int64
}

func newBlindTail(cfg model.Config) blindTail {
	return blindTail{
		cfg: cfg, gpu: cfg.GPU, contention: cfg.Model.Contention == model.On,
		dispatch: cfg.Lat.KernelDispatch,
	}
}

// root is the record of the host kernel whose tree k is in, watching its
// stream from now on; nil where k's launcher is an aggregated group.
func (t *blindTail) root(k *replay.Kernel) *blindRoot {
	h := hostRoot(k)
	if h == nil {
		return nil
	}
	if r := t.roots[h]; r != nil {
		return r
	}
	if t.roots == nil {
		t.roots, t.sums, t.loads = map[*replay.Kernel]*blindRoot{}, map[uint64]int64{}, map[*replay.Kernel]*kernelLoad{}
	}
	r := &blindRoot{stream: h.Stream()}
	t.roots[h] = r
	if _, ok := t.sums[h.Stream()]; !ok {
		t.sums[h.Stream()] = 0
	}
	return r
}

// cta is a CTA starting: a host kernel of a watched stream adds it to
// its load.
func (t *blindTail) cta(ev *replay.CTAEvent) {
	k := ev.Kernel
	if !k.Host() || t.sums == nil {
		return
	}
	if _, ok := t.sums[k.Stream()]; !ok {
		return
	}
	l := t.loads[k]
	if l == nil {
		l = &kernelLoad{}
		t.loads[k] = l
	}
	own := ev.Alone()
	insts, dram := ctaDemand(ev, t.contention)
	l.load.cta(k.Need(), own, 0, insts, dram)
	l.longest = max(l.longest, own)
}

// done is host operation k complete: an operation of a watched stream
// adds its least duration to the stream's sum, and a root notes where
// the sum then stands (what follows it is what the sum gains after). A
// root's own load misses its CTAs started before its first blind call,
// which only matters to the roots before it in the stream: it is a
// lower bound there too.
//
// A device kernel is none of a watched stream's (it runs on a private
// stream of its own), and, as in cta, is let go before the map is asked:
// under CDP every one of the hundreds of thousands completing asked it
// in vain.
func (t *blindTail) done(k *replay.Kernel) {
	if !k.Host() || t.sums == nil {
		return
	}
	sum, ok := t.sums[k.Stream()]
	if !ok {
		return
	}
	if bytes, ok := k.CopyBytes(); ok {
		sum += replay.CopyCycles(t.cfg, bytes)
	} else {
		sum += t.dispatch
		if l := t.loads[k]; l != nil {
			sum += max(l.longest, l.load.cycles(t.gpu, t.contention))
			delete(t.loads, k)
		}
	}
	t.sums[k.Stream()] = sum
	if r := t.roots[k]; r != nil {
		r.done, r.at = true, sum
	}
}

// least is the least that follows the blind calls of roots: 0 if one of
// them is not known (an aggregated group's tree) or never completed.
func (t *blindTail) least(roots []*blindRoot) int64 {
	least := int64(-1)
	for _, r := range roots {
		if r == nil || !r.done {
			return 0
		}
		after := t.sums[r.stream] - r.at
		if least < 0 || after < least {
			least = after
		}
	}
	return max(least, 0)
}

// hostRoot is the host kernel whose launch tree k is in; nil where k's
// launcher is an aggregated group.
func hostRoot(k *replay.Kernel) *replay.Kernel {
	for k != nil && !k.Host() {
		k = k.Parent()
	}
	return k
}
