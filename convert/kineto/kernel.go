package kineto

import (
	"fmt"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// kernel writes a kernel event as its kernel record, its host launch and
// one cta record per thread block, whose cycles are the wave estimate.
func (w *writer) kernel(op *gpuOp) error {
	w.kid++
	k, err := w.shape(op)
	if err != nil {
		return err
	}
	per, err := w.ctaCycles(op, k)
	if err != nil {
		return err
	}
	launch := &trace.Launch{Kernel: k.ID, T: op.t, Stream: w.pl.streams[op.stream]}
	n, err := profile.WriteKernel(w.out, k, launch, per)
	if err != nil {
		return err
	}
	w.sum.Kernels++
	w.sum.CTAs += int64(n)
	return nil
}

// shape builds the kernel record from the kernel event's args, or from
// its launch call's args where a ROCm trace keeps them (a kernel without
// a call has its grid and block in its args: plan.keep), and checks it.
func (w *writer) shape(op *gpuOp) (*trace.Kernel, error) {
	a, c := &op.args, &launchArgs{}
	if op.call != nil {
		c = &op.call.args
	}
	grid := firstDim(a.Grid, a.GridDim, c.Grid, c.GridDim)
	block := firstDim(a.Block, a.BlockDim, c.Block, c.BlockDim)
	smem := firstIdent(a.Smem, a.SharedSize, c.Smem, c.SharedSize)
	regs := firstIdent(a.Regs, c.Regs)
	if !grid.set || !block.set {
		return nil, w.errorf(op, "has no grid or block (neither in its args nor on its launch call)")
	}
	k := &trace.Kernel{ID: w.kid, Name: op.name}
	for i := range 3 {
		if grid.v[i] < 1 || grid.v[i] > 1<<32-1 || block.v[i] < 1 || block.v[i] > 1024 {
			return nil, w.errorf(op, "has grid %v and block %v; want every dimension in 1..2^32-1 (block 1..1024)", grid.v, block.v)
		}
		k.Grid[i], k.Block[i] = uint32(grid.v[i]), uint32(block.v[i])
	}
	if k.CTAs() > maxCTAs {
		return nil, w.errorf(op, "has grid %v, more than 2^32 CTAs", grid.v)
	}
	if k.Threads() > 1024 {
		return nil, w.errorf(op, "has block %v, more than 1024 threads", block.v)
	}
	if k.Name == "" {
		return nil, w.errorf(op, "has no name")
	}
	if len(k.Name) > trace.MaxString {
		return nil, w.errorf(op, "has a name of %d bytes; a trace holds at most %d (2^20)", len(k.Name), trace.MaxString)
	}
	r, ok := nonNegative(regs)
	if !ok || r > 255 {
		return nil, w.errorf(op, "has %q registers per thread; want 0..255", regs)
	}
	s, ok := nonNegative(smem)
	if !ok || s > 1<<40 {
		return nil, w.errorf(op, "has %q bytes of shared memory; want a non-negative integer", smem)
	}
	k.Regs, k.Smem = int(r), s
	return k, nil
}

// maxCTAs bounds a kernel's grid: CUDA allows up to (2^31-1)·65535·65535
// CTAs, but a kernel-level profile of more than 2^32 would become cta
// records beyond any replay's reach.
const maxCTAs = 1 << 32

// ctaCycles is the wave estimate (profile.CTACycles) of the kernel's
// measured duration on the captured GPU.
func (w *writer) ctaCycles(op *gpuOp, k *trace.Kernel) (int64, error) {
	per, err := profile.CTACycles(w.pl.gpu.Model, k, w.pl.cycles(op.dur))
	if err != nil {
		return 0, w.errorf(op, "%v", err)
	}
	return per, nil
}

func (w *writer) errorf(op *gpuOp, format string, a ...any) *Error {
	return &Error{File: w.pl.file, Event: op.index, Offset: op.offset, Msg: "kernel " + quote(op.name) + " " + fmt.Sprintf(format, a...)}
}

// firstDim returns the first of ds that is set.
func firstDim(ds ...dim3) dim3 {
	for _, d := range ds {
		if d.set {
			return d
		}
	}
	return dim3{}
}

// firstIdent returns the first of ids that is not empty.
func firstIdent(ids ...ident) ident {
	for _, id := range ids {
		if id != "" {
			return id
		}
	}
	return ""
}

// nonNegative reads an optional count: absent is 0.
func nonNegative(id ident) (int64, bool) {
	if id == "" {
		return 0, true
	}
	v, ok := id.uint()
	return int64(v), ok && v <= 1<<62
}
