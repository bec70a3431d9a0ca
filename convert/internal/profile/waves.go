package profile

import (
	"fmt"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// maxDuration bounds the duration CTACycles divides, so that its
// rounding cannot overflow.
const maxDuration = 1 << 62

// CTACycles is the per-CTA wave estimate of kernel k, which took dur
// cycles on the captured GPU g. A kernel-level profile measures only a
// kernel's duration, while a trace gives every CTA its cycles; assuming
// every CTA costs the same and the kernel had the GPU to itself, its
// CTAs ran in waves of g.SMs × (CTAs per SM that fit, model.GPU.CTAsPerSM),
// so
//
//	waves      = ⌈CTAs ÷ (SMs × CTAs per SM)⌉
//	CTA cycles = dur ÷ waves, rounded to the nearest
//
// and a replay of k alone on g takes dur within half a cycle per wave.
// The error says which limit keeps a CTA of k off an SM of g, for a
// kernel that does not fit at all.
func CTACycles(g model.GPU, k *trace.Kernel, dur int64) (int64, error) {
	if g.SMs < 1 {
		return 0, fmt.Errorf("cannot run: the captured GPU has %d SMs", g.SMs)
	}
	perSM, limit := g.CTAsPerSM(k.Threads(), k.Regs, k.Smem)
	if perSM < 1 {
		return 0, fmt.Errorf("does not fit on an SM of the captured GPU (%s limit)", limit)
	}
	slots := uint64(perSM) * uint64(g.SMs)
	waves := max((k.CTAs()+slots-1)/slots, 1)
	dur = min(max(dur, 0), maxDuration)
	return (dur + int64(waves/2)) / int64(waves), nil
}

// WriteKernel writes kernel k as an importer of a kernel-level profile
// does: its kernel record, its host launch, and one cta record per thread
// block, each of cycles (the wave estimate). The cta records are made as
// they are written, ctaChunk at a time, so a kernel of a million CTAs
// costs no memory. It returns how many cta records it wrote.
func WriteKernel(out trace.Sink, k *trace.Kernel, launch *trace.Launch, cycles int64) (uint64, error) {
	if err := out.Write(k); err != nil {
		return 0, err
	}
	if err := out.Write(launch); err != nil {
		return 0, err
	}
	n := k.CTAs()
	var chunk []trace.CTA
	for i := uint64(0); i < n; i++ {
		if len(chunk) == 0 {
			chunk = make([]trace.CTA, min(n-i, ctaChunk))
		}
		c := &chunk[0]
		chunk = chunk[1:]
		*c = trace.CTA{Kernel: k.ID, CTA: i, Cycles: cycles}
		if err := out.Write(c); err != nil {
			return i, err
		}
	}
	return n, nil
}

// ctaChunk is how many cta records WriteKernel allocates at once. A sink
// may keep the records it is given, so each is a record of its own, but
// one allocation a record was most of an import's time: converting
// convert/nsys's large export (38.9M CTAs) took 1.4 of its 4.6 s in
// WriteKernel's allocations, besides the collector's work on them.
const ctaChunk = 256
