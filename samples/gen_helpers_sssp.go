package samples

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// dpTally is a sink that only counts what a generator writes. The sssp,
// amr and join generators learn their totals by running their record
// writer once into a dpTally, so the header written before the records can
// state them without a second, hand-kept copy of the counting logic that
// could drift from what is written.
type dpTally struct {
	kernels, ctas, sites int
}

// Write counts r.
func (t *dpTally) Write(r trace.Record) error {
	switch r := r.(type) {
	case *trace.Kernel:
		t.kernels++
	case *trace.CTA:
		t.ctas++
	case *trace.Launch:
		if !r.Host() {
			t.sites++
		}
	}
	return nil
}

// writeTallied writes a trace whose header reports its own totals: body
// writes everything after the header and must write the same records each
// time it is called; header builds the header once the totals are known
// (body has run once by then, so it may also report what body computed).
func writeTallied(out trace.Sink, body func(trace.Sink) error, header func() *trace.Header) error {
	var t dpTally
	if err := body(&t); err != nil {
		return err
	}
	h := header()
	h.Meta["kernels"] = strconv.Itoa(t.kernels)
	h.Meta["ctas"] = strconv.Itoa(t.ctas)
	h.Meta["sites"] = strconv.Itoa(t.sites)
	if err := out.Write(h); err != nil {
		return err
	}
	return body(out)
}

// dpKernels numbers a trace's kernels from 1 in the order their records
// are written, as the package's conventions require.
type dpKernels struct {
	last uint64
}

// declare returns the next kernel's record; grid and block are [x, y, z].
func (k *dpKernels) declare(name string, grid, block [3]uint32, regs int) *trace.Kernel {
	k.last++
	return &trace.Kernel{ID: k.last, Name: name, Grid: grid, Block: block, Regs: regs}
}

// dpLine is a 1-D shape of n: a grid of n CTAs or a block of n threads.
func dpLine(n int) [3]uint32 {
	return [3]uint32{uint32(n), 1, 1}
}

// dpWarpMax returns the largest warp time, the CTA's cycles.
func dpWarpMax(warps []int64) int64 {
	m := int64(0)
	for _, w := range warps {
		m = max(m, w)
	}
	return m
}
