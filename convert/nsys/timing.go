package nsys

import "github.com/gpureplay/gpureplay/convert/internal/profile"

// timing is the t of every kernel and copy the conversion writes,
// chosen before anything is written so that a replay on the captured GPU
// has each op reach the GPU when the report says it started (see
// "Timing" in the package doc, and profile.Schedule).
type timing struct {
	lat    profile.Latency // what a replay adds to a launch
	ts     []int64         // the t of each kernel and copy, in host order
	next   int             // index in ts of the next one written
	epoch  int64           // report time (ns) of the first op's host call, which GPU starts count from
	origin int64           // cycles after epoch that t = 0 stands for
}

// schedule is the timing pass: a walk over the device's copies and
// kernels in the order the conversion writes them, keeping of each only
// its GPU start (cycles after the first op's host time) and kind, and
// then the backward pass over them. That is 16 bytes per op while the
// pass runs and 8 (its t) while writing: the importer's only memory in
// the number of kernels.
func (c *converter) schedule() error {
	lat, err := profile.AssumedLatency(c.gpu.Name, c.gpu.Spec)
	if err != nil {
		return errorf(c.r.file, "", -1, "the replay model's launch latency: %v", err)
	}
	c.timing.lat = lat
	w, err := c.openWalk(false)
	defer w.close()
	if err != nil {
		return err
	}
	var ops []profile.Op
	for {
		o, err := w.next()
		if err != nil {
			return err
		}
		if o == nil {
			break
		}
		if len(ops) == 0 {
			c.timing.epoch = o.at()
		}
		op := profile.Op{Kind: profile.Kernel}
		switch o := o.(type) {
		case *copyOp:
			op.Start, op.Kind = o.start, profile.Copy
		case *kernelOp:
			op.Start = o.start
		}
		op.Start = profile.CyclesBetween(c.timing.epoch, op.Start, c.gpu.Spec.ClockMHz)
		ops = append(ops, op)
	}
	c.timing.ts, c.timing.origin = profile.Schedule(ops, lat)
	return nil
}

// t is the t of the next kernel or copy written. The timing pass read
// the same queries of the same read-only database, so it has one for
// every op; a report that changes between the passes is an error.
func (c *converter) t(rw *row) (int64, error) {
	tm := &c.timing
	if tm.next >= len(tm.ts) {
		return 0, rw.errorf("not seen by the timing pass: the report changed while being read")
	}
	tm.next++
	t := tm.ts[tm.next-1]
	if err := profile.CheckT(t, c.gpu.Spec.ClockMHz); err != nil {
		return 0, rw.errorf("%v", err)
	}
	return t, nil
}

// originNs is the report time (ns) that t = 0 stands for.
func (tm *timing) originNs(mhz float64) int64 {
	return profile.AddCycles(tm.epoch, tm.origin, mhz)
}
