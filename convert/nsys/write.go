package nsys

import (
	"path/filepath"
	"strconv"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// converter writes one device of a report as trace records.
type converter struct {
	r        *report
	out      trace.Sink
	o        Options
	dev      int64       // the converted device
	gpu      profile.GPU // what it is
	sum      *Summary
	streams  *streamIDs
	events   *streamIDs
	used     map[uint64]bool     // trace streams a launch, copy, record or wait has named
	recorded map[uint64]bool     // trace events a record has named
	eventOf  map[streamKey]int64 // (process, eventSyncId) → eventId (report.eventIDs)
	writing  bool                // the writing pass (not the timing pass) is reading
	pageable int64               // the memory kind of pageable host memory (report.pageableKind)
	timing   timing
	kid      uint64 // last kernel id
	bid      uint64 // last buffer id
	base     uint64 // next buffer base address
}

// convert chooses every launch's t (the timing pass), then writes the
// header, one buffer per copy, and the copies and kernels in host order,
// each kernel's launch and cta records right after its kernel record.
// Besides the t of every kernel and copy, nothing is held but the
// current row of each query and the dependency state (a few entries per
// stream and event).
func (c *converter) convert() error {
	if err := c.schedule(); err != nil {
		return err
	}
	if err := c.out.Write(c.header()); err != nil {
		return err
	}
	if err := c.buffers(); err != nil {
		return err
	}
	c.writing = true
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
// synchronizations, copies and kernels (same-time ops in that order).
func (c *converter) openWalk() (*walk, error) {
	w := &walk{file: c.r.file}
	if c.r.has(tabEvent) {
		if err := w.open(c.r, c.r.recordQuery(), c.readRecord, c.dev); err != nil {
			return w, err
		}
	}
	if c.r.has(tabSync) {
		if err := w.open(c.r, c.r.syncQuery(), c.readSync, c.dev); err != nil {
			return w, err
		}
	}
	if c.r.has(tabMemcpy) {
		if err := w.open(c.r, c.r.copyQuery(), c.readCopy, c.dev); err != nil {
			return w, err
		}
	}
	return w, w.open(c.r, c.r.kernelQuery(c.o.Names), c.readKernel, c.dev)
}

// buffers declares every copy's buffer up front, as a trace's preamble
// does: a pass over the same query the walk reads copies from.
func (c *converter) buffers() error {
	if !c.r.has(tabMemcpy) {
		return nil
	}
	w := &walk{file: c.r.file}
	defer w.close()
	if err := w.open(c.r, c.r.copyQuery(), c.readCopy, c.dev); err != nil {
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
	case *syncOp:
		return c.sync(o)
	case *copyOp:
		return c.memcpy(o)
	case *kernelOp:
		return c.kernel(o)
	}
	return nil
}

// header describes the captured GPU and records in meta what the timing
// mapping assumed: the replay latencies (cycles at clock_mhz) that each
// launch's t allows for, and the report time (ns) that t = 0 stands for.
func (c *converter) header() *trace.Header {
	meta := map[string]string{
		"file":         filepath.Base(c.r.file),
		"device":       strconv.FormatInt(c.dev, 10),
		"clock_source": c.gpu.Clock,
		"options":      c.o.String(),
		"origin_ns":    strconv.FormatInt(c.timing.originNs(c.gpu.Spec.ClockMHz), 10),
	}
	c.timing.lat.Record(meta)
	if tm := &c.timing; tm.hasHostSync {
		meta[model.SetPrefix+"lat.host_sync"] = strconv.FormatInt(tm.hostSync, 10)
		meta["host_sync_calls"] = strconv.FormatInt(tm.hostSyncN, 10)
	}
	if v := c.r.exportVersion(); v != "" {
		meta["nsys_version"] = v
	}
	return &trace.Header{
		Version:   trace.Version,
		ClockMHz:  c.gpu.Spec.ClockMHz,
		PageBytes: trace.DefaultPageBytes,
		Source:    "nsys",
		GPU:       c.gpu.Name,
		GPUSpec:   c.gpu.Spec,
		Meta:      meta,
	}
}
