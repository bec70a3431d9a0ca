package accelsim

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// write is the second pass: the header and buffers, then the commands in
// program order.
func (c *converter) write(sum *summary) error {
	if err := c.out.Write(c.header(sum)); err != nil {
		return err
	}
	for i := range c.table.all {
		if err := c.out.Write(c.table.all[i].record()); err != nil {
			return err
		}
	}
	c.startPass(2)
	var hostOps int64
	return c.forEachCommand(func(cmd command, h *kernelHeader, lr *lineReader) error {
		t := hostOps * c.opts.HostGap
		if h == nil {
			if cmd.region < 0 {
				return nil // a zero-byte copy moves nothing
			}
			hostOps++
			b := &c.table.all[c.table.ofCopy[cmd.region]]
			// The tracer writes a MemcpyHtoD line for cuMemcpyHtoD_v2 alone,
			// the driver's synchronous copy (cudaMemcpy's): the host waits
			// for it (Accel-Sim's tracer_tool.cu, its API callback).
			return c.out.Write(&trace.Memcpy{Dir: trace.DirH2D, Buffer: b.id, Bytes: int64(cmd.bytes), T: t, Blocking: true})
		}
		hostOps++
		return c.writeKernel(h, lr, t)
	})
}

// header is the trace's header record.
func (c *converter) header(sum *summary) *trace.Header {
	meta := map[string]string{
		"accelsim.trace_dir":      filepath.Base(filepath.Dir(c.list)),
		"accelsim.tracer_version": strings.Join(sum.tracerVersions, ","),
		"accelsim.binary_version": strconv.Itoa(sum.binaryVersion),
		"accelsim.options":        c.opts.String(),
	}
	if len(sum.nvbitVersions) > 0 {
		meta["accelsim.nvbit_version"] = strings.Join(sum.nvbitVersions, ",")
	}
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  c.opts.ClockMHz,
		PageBytes: c.opts.PageBytes,
		Source:    "accelsim",
		GPU:       gpuName(sum.binaryVersion),
		GPUSpec:   gpuSpec(sum.binaryVersion, c.opts.ClockMHz),
		Meta:      meta,
	}
}

// writeKernel writes one kernel file's records: the kernel and its launch,
// a cta and pages records per thread block as it is read, empty CTAs for
// the blocks the file leaves out, and last the access records when every
// CTA was regular.
func (c *converter) writeKernel(h *kernelHeader, lr *lineReader, t int64) error {
	k := &trace.Kernel{ID: h.id, Name: h.name, Grid: h.grid, Block: h.block, Regs: h.nregs, Smem: h.shmem}
	if err := c.out.Write(k); err != nil {
		return err
	}
	if err := c.out.Write(&trace.Launch{Kernel: h.id, T: t, Stream: h.stream}); err != nil {
		return err
	}
	w := &kernelWriter{c: c, id: h.id, work: newCTAWork(&c.opts, h, c.table)}
	seen, err := readBody(lr, h, w)
	if err != nil {
		return err
	}
	err = seen.missing(h.ctas(), func(cta uint64) error {
		return c.out.Write(&trace.CTA{Kernel: h.id, CTA: cta})
	})
	if err != nil || w.irregular {
		return err
	}
	for i := range w.accesses {
		if err := c.out.Write(&w.accesses[i]); err != nil {
			return err
		}
	}
	return nil
}

// kernelWriter is the second pass's visitor for one kernel.
type kernelWriter struct {
	c         *converter
	id        uint64
	cta       uint64
	work      *ctaWork
	irregular bool
	accesses  []trace.Access // held until the kernel is known regular
}

func (w *kernelWriter) beginCTA(cta uint64) error {
	w.cta = cta
	w.work.reset()
	return nil
}

func (w *kernelWriter) inst(warp int, in *inst) error { return w.work.inst(warp, in) }

func (w *kernelWriter) endCTA() error {
	work := w.work
	insts, dram := work.demand()
	cycles := work.cycles()
	if err := w.c.out.Write(&trace.CTA{Kernel: w.id, CTA: w.cta, Cycles: cycles, Insts: insts, DRAMBytes: dram}); err != nil {
		return err
	}
	work.sortBufs()
	pos := newPositions(cycles, work.slowest())
	for _, cb := range work.bufs {
		var recs []*trace.Pages
		recs, cb.first = cb.records(w.id, w.cta, pos)
		for _, p := range recs {
			if err := w.c.out.Write(p); err != nil {
				return err
			}
		}
	}
	if !w.irregular && !work.regular() {
		w.irregular, w.accesses = true, nil
	}
	if !w.irregular {
		for _, cb := range work.bufs {
			w.accesses = append(w.accesses, cb.access(w.id, w.cta))
		}
	}
	w.c.ctas++
	w.c.report()
	return nil
}
