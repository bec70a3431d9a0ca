package nsys

import (
	"math"
	"path/filepath"

	"github.com/gpureplay/gpureplay/trace"
)

// converter writes one device of a report as trace records.
type converter struct {
	r       *report
	out     trace.Sink
	o       Options
	gpu     *captured
	sum     *Summary
	streams *streamIDs
	deps    *deps
	kid     uint64 // last kernel id
	bid     uint64 // last buffer id
	base    uint64 // next buffer base address
	origin  int64  // host time (ns) that becomes t = 0: the first written op's
	started bool   // whether origin is set
}

// convert writes the header, one buffer per copy, and then the copies
// and kernels in host order, each kernel's launch and cta records right
// after its kernel record. Nothing is held but the current row of each
// query and the dependency state (a few entries per stream and event).
func (c *converter) convert() error {
	if err := c.out.Write(c.header()); err != nil {
		return err
	}
	if err := c.buffers(); err != nil {
		return err
	}
	w, err := c.openWalk()
	defer w.close()
	if err != nil {
		return err
	}
	for {
		o, err := w.next()
		if err != nil || o == nil {
			return err
		}
		if err := c.handle(o); err != nil {
			return err
		}
	}
}

// openWalk opens the host-ordered walk over the device's event records,
// stream waits, copies and kernels (same-time ops in that order).
func (c *converter) openWalk() (*walk, error) {
	w := &walk{file: c.r.file}
	dev := c.gpu.device
	if c.r.has(tabEvent) {
		if err := w.open(c.r, tabEvent, c.r.recordQuery(), c.readRecord, dev); err != nil {
			return w, err
		}
	}
	if c.r.has(tabSync) {
		if err := w.open(c.r, tabSync, c.r.waitQuery(), c.readWait, dev); err != nil {
			return w, err
		}
	}
	if c.r.has(tabMemcpy) {
		if err := w.open(c.r, tabMemcpy, c.r.copyQuery(), c.readCopy, dev); err != nil {
			return w, err
		}
	}
	return w, w.open(c.r, tabKernel, c.r.kernelQuery(c.o.Names), c.readKernel, dev)
}

// buffers declares every copy's buffer up front, as a trace's preamble
// does: a first pass over the same query the walk reads copies from.
func (c *converter) buffers() error {
	if !c.r.has(tabMemcpy) {
		return nil
	}
	w := &walk{file: c.r.file}
	defer w.close()
	if err := w.open(c.r, tabMemcpy, c.r.copyQuery(), c.readCopy, c.gpu.device); err != nil {
		return err
	}
	for {
		o, err := w.next()
		if err != nil || o == nil {
			c.bid, c.base = 0, 0
			return err
		}
		if err := c.buffer(o.(*copyOp)); err != nil {
			return err
		}
	}
}

// handle writes or notes one op.
func (c *converter) handle(o op) error {
	switch o := o.(type) {
	case *eventOp:
		if !o.wait {
			c.deps.record(o.event, o.stream)
		} else if !c.deps.wait(o.event, o.stream) {
			c.sum.Unused["synchronization:"+syncLabels[syncStreamWait]+" (event not recorded)"]++
		}
	case *copyOp:
		c.start(o.t)
		return c.memcpy(o)
	case *kernelOp:
		c.start(o.t)
		return c.kernel(o)
	}
	return nil
}

// start sets the origin at the first written op.
func (c *converter) start(t int64) {
	if !c.started {
		c.origin, c.started = t, true
	}
}

func (c *converter) header() *trace.Header {
	meta := map[string]string{
		"file":         filepath.Base(c.r.file),
		"device":       formatInt(c.gpu.device),
		"clock_source": c.gpu.clockSrc,
		"options":      c.o.String(),
	}
	if v := c.r.exportVersion(); v != "" {
		meta["nsys_version"] = v
	}
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  c.gpu.spec.ClockMHz,
		PageBytes: trace.DefaultPageBytes,
		Source:    "nsys",
		GPU:       c.gpu.name,
		GPUSpec:   c.gpu.spec,
		Meta:      meta,
	}
}

// hostCycles is a host time as trace cycles after the origin.
func (c *converter) hostCycles(t int64) int64 {
	return c.cycles(span(c.origin, t))
}

// cycles converts nanoseconds to cycles at the header clock, saturating.
func (c *converter) cycles(ns int64) int64 {
	v := math.Round(float64(ns) * c.gpu.spec.ClockMHz / 1e3)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// span is to - from for to ≥ from, saturating where the difference
// overflows.
func span(from, to int64) int64 {
	d := to - from
	if d < 0 {
		return math.MaxInt64
	}
	return d
}
