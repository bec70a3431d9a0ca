package accelsim

import (
	"path/filepath"

	"github.com/gpureplay/gpureplay/trace"
)

// Convert reads the Accel-Sim trace whose kernel list is at path (a
// kernelslist.g, or the directory holding it) and writes it to out as
// gpureplay records: a header, the buffers, then in program order a memcpy
// per MemcpyHtoD and, per kernel file, its kernel, launch, cta, pages and
// (for regular kernels) access records. The records obey the trace
// format's order rule, so out may be a trace.Writer directly.
//
// A malformed input stops the conversion with an *Error naming the file and
// line; out may then have received part of the trace, so callers writing a
// file should write it under a temporary name, as replay convert does.
func Convert(path string, out trace.Sink, opts Options) error {
	if err := opts.check(); err != nil {
		return err
	}
	list, cmds, err := readKernelsList(path)
	if err != nil {
		return err
	}
	c := &converter{opts: opts, out: out, list: list, cmds: cmds}
	for _, cmd := range cmds {
		if cmd.file != "" {
			c.kernels++
		}
	}
	c.copies = copyRegions(cmds)
	fp := newFootprint(c.copies, opts.PageBytes)
	sum, err := c.scan(fp)
	if err != nil {
		return err
	}
	c.table = newBufferTable(c.copies, fp.copyAcc, fp.runs())
	return c.write(sum)
}

// converter carries one conversion's state across its two passes.
type converter struct {
	opts    Options
	out     trace.Sink
	list    string
	cmds    []command
	kernels int
	copies  spans
	table   *bufferTable

	// progress
	pass, kernel int
	done         int64 // bytes of the files finished in this pass
	ctas         int64
	lr           *lineReader
}

// copyRegions merges the regions of the MemcpyHtoD commands of a positive
// size, returning them and setting each command's region.
func copyRegions(cmds []command) spans {
	var in []span
	var idx []int
	for i := range cmds {
		cmds[i].region = -1
		if cmd := cmds[i]; cmd.file == "" && cmd.bytes > 0 {
			in = append(in, span{cmd.addr, cmd.addr + cmd.bytes - 1})
			idx = append(idx, i)
		}
	}
	merged, of := mergeSpans(in)
	for k, i := range idx {
		cmds[i].region = of[k]
	}
	return merged
}

// forEachCommand calls fn for each command in order: for a kernel file with
// its header and a line reader positioned after it (closing the file
// afterwards), for a copy with neither.
func (c *converter) forEachCommand(fn func(cmd command, h *kernelHeader, lr *lineReader) error) error {
	ordinal := 0
	for _, cmd := range c.cmds {
		if cmd.file == "" {
			if err := fn(cmd, nil, nil); err != nil {
				return err
			}
			continue
		}
		ordinal++
		if err := c.kernelFile(cmd, ordinal, fn); err != nil {
			return err
		}
	}
	return nil
}

// kernelFile opens one kernel file, reads its header (a missing kernel id
// is its ordinal among the kernel files) and hands it to fn.
func (c *converter) kernelFile(cmd command, ordinal int, fn func(command, *kernelHeader, *lineReader) error) error {
	r, err := openKernel(cmd.file)
	if err != nil {
		return err
	}
	defer r.Close()
	lr := newLineReader(r, cmd.file)
	c.kernel, c.lr = ordinal, lr
	c.report()
	h, err := readHeader(lr, filepath.Base(cmd.file))
	if err != nil {
		return err
	}
	if !h.hasID {
		h.id = uint64(ordinal)
	}
	err = fn(cmd, h, lr)
	c.done += lr.bytes
	c.lr = nil
	return err
}

// report tells Options.Progress where the conversion is.
func (c *converter) report() {
	if c.opts.Progress == nil {
		return
	}
	p := Progress{Pass: c.pass, Kernel: c.kernel, Kernels: c.kernels, Bytes: c.done, CTAs: c.ctas}
	if c.lr != nil {
		p.File, p.Bytes = c.lr.file, c.done+c.lr.bytes
	}
	c.opts.Progress(p)
}

// startPass resets the progress counters.
func (c *converter) startPass(n int) {
	c.pass, c.kernel, c.done, c.ctas = n, 0, 0, 0
}
