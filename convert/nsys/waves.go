package nsys

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// kernel writes a kernel as its kernel record, its host launch (after the
// kernels its stream waits for) and one cta record per thread block,
// whose cycles are the wave estimate.
func (c *converter) kernel(k *kernelOp) error {
	c.kid++
	rec, err := k.shape(c.kid)
	if err != nil {
		return err
	}
	per, err := c.ctaCycles(k, rec)
	if err != nil {
		return err
	}
	after := c.deps.launch(rec.ID, k.stream)
	launch := &trace.Launch{Kernel: rec.ID, T: c.hostCycles(k.t), Stream: c.streams.id(k.stream), After: after}
	if err := c.out.Write(rec); err != nil {
		return err
	}
	if err := c.out.Write(launch); err != nil {
		return err
	}
	n := rec.CTAs()
	for i := uint64(0); i < n; i++ {
		if err := c.out.Write(&trace.CTA{Kernel: rec.ID, CTA: i, Cycles: per}); err != nil {
			return err
		}
	}
	c.sum.Kernels++
	c.sum.CTAs += int64(n)
	c.sum.After += len(after)
	return nil
}

// ctaCycles is the wave estimate: the kernel's CTAs run in waves of
// (SMs × CTAs per SM) on the captured GPU, every CTA as long as every
// other, so each takes the measured duration divided by the waves.
func (c *converter) ctaCycles(k *kernelOp, rec *trace.Kernel) (int64, error) {
	perSM, limit := c.gpu.gpu.CTAsPerSM(rec.Threads(), rec.Regs, rec.Smem)
	if perSM < 1 {
		return 0, k.errorf("does not fit on an SM of the captured GPU (%s limit)", limit)
	}
	slots := uint64(perSM) * uint64(c.gpu.gpu.SMs)
	waves := (rec.CTAs() + slots - 1) / slots
	dur := c.cycles(span(k.start, k.end))
	if dur > 1<<62 {
		dur = 1 << 62 // keeps the rounding below from overflowing
	}
	return (dur + int64(waves/2)) / int64(waves), nil
}

func formatInt(v int64) string { return strconv.FormatInt(v, 10) }
