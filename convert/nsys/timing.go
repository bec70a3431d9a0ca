package nsys

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// timing is the t of every kernel, copy and sync record the conversion
// writes, chosen before anything is written so that a replay on the
// captured GPU has each op reach the GPU when the report says it started
// (see "Timing" in the package doc, and profile.Schedule), and the
// captured returns of copies and syncs.
type timing struct {
	lat    profile.Latency // what a replay adds to a launch
	ts     []int64         // the t of each kernel and copy, in host order
	next   int             // index in ts of the next one written
	rets   []int64         // the ret of each copy, in host order (0: none)
	nextR  int             // index in rets of the next copy written
	syncs  []hostTime      // the t and ret of each sync, in host order
	nextS  int             // index in syncs of the next sync written
	epoch  int64           // report time (ns) of the first op's host call, which GPU starts count from
	origin int64           // cycles after epoch that t = 0 stands for
	// hostSync is the measured lat.host_sync (cycles), over hostSyncN
	// blocking syncs, where hasHostSync (see converter.hostSync).
	hostSync, hostSyncN int64
	hasHostSync         bool
	// copies is the copy latency and rate measured from the copies' GPU
	// durations (profile.FitCopies).
	copies profile.CopyFit
	// launch is the launch latency measured from the idle launches,
	// where hasLaunch (profile.IdleLaunchReady); lat then has it.
	launch    profile.MeasuredLaunch
	hasLaunch bool
}

// callBound is what boundBlocking needs of a blocking copy: its place
// among the kernels and copies, its call's start and end (cycles after
// the epoch; ret where hasRet) and its size.
type callBound struct {
	pos       int
	call, ret int64
	hasRet    bool
	bytes     int64
}

// hostTime is a host call's t and ret (cycles; ret 0: none).
type hostTime struct{ t, ret int64 }

// pendingCall is what the timing pass keeps of a copy or sync until the
// backward pass has run: its call's start and end (ns), and how many
// kernels and copies came before it in host order.
type pendingCall struct {
	pos      int
	sync     bool
	t, ret   int64
	hasRet   bool
	blocking bool
	device   bool // a device sync: it waits for all of the device's work
}

// schedule is the timing pass: a walk over the device's copies, kernels
// and syncs in the order the conversion writes them, keeping of each
// kernel and copy its GPU start (cycles after the first op's host time)
// and kind, and of each copy and sync its call's times; then the backward
// pass over the kernels and copies. That is 16 bytes per kernel while the
// pass runs and 8 (its t) while writing: the importer's only memory in
// the number of kernels. A sync's t is its call's start on the same
// clock (origin_ns + t / clock), moved no further than it takes to keep
// the host's calls in program order: not before the kernel or copy
// before it, nor after the one after it, whose t the backward pass chose
// from where they ran on the GPU.
func (c *converter) schedule() error {
	lat, err := profile.AssumedLatency(c.gpu.Name, c.gpu.Spec)
	if err != nil {
		return errorf(c.r.file, "", -1, "the replay model's launch latency: %v", err)
	}
	c.timing.lat = lat
	w, err := c.openWalk()
	defer w.close()
	if err != nil {
		return err
	}
	var ops []profile.Op
	var calls []pendingCall
	var samples []profile.CopySample
	var launches [][2]int64 // each kernel's launch call and GPU start (ns)
	var bounds []callBound  // the blocking copies' calls
	started := false
	for {
		o, err := w.next()
		if err != nil {
			return err
		}
		if o == nil {
			break
		}
		op := profile.Op{Kind: profile.Kernel}
		switch o := o.(type) {
		case *syncOp:
			calls = append(calls, pendingCall{pos: len(ops), sync: true, t: o.t, ret: o.ret, hasRet: o.hasRet, blocking: o.op.Blocks(), device: o.op == trace.SyncDevice})
			continue
		case *copyOp:
			op.Start, op.Kind = o.start, profile.Copy
			calls = append(calls, pendingCall{pos: len(ops), ret: o.ret, hasRet: o.hasRet, blocking: o.blocking || o.pageable})
			if o.hasEnd && o.end >= o.start {
				samples = append(samples, profile.CopySample{Bytes: o.bytes, Dur: o.end - o.start, Pageable: o.pageable})
			}
		case *kernelOp:
			op.Start = o.start
			launches = append(launches, [2]int64{o.t, o.start})
		}
		if !started {
			c.timing.epoch, started = o.at(), true
		}
		if cp, ok := o.(*copyOp); ok && (cp.blocking || cp.pageable) {
			b := callBound{pos: len(ops), call: profile.CyclesBetween(c.timing.epoch, cp.t, c.gpu.Spec.ClockMHz), bytes: cp.bytes, hasRet: cp.hasRet}
			if cp.hasRet {
				b.ret = profile.CyclesBetween(c.timing.epoch, cp.ret, c.gpu.Spec.ClockMHz)
			}
			bounds = append(bounds, b)
		}
		ns := op.Start
		op.Start = profile.CyclesBetween(c.timing.epoch, op.Start, c.gpu.Spec.ClockMHz)
		if op.Start > trace.MaxCycles {
			return startError(o, ns-c.timing.epoch, c.gpu.Spec.ClockMHz)
		}
		ops = append(ops, op)
	}
	if len(launches) >= profile.MinIdleLaunches {
		spans, err := c.r.gpuSpans(c.dev)
		if err != nil {
			return err
		}
		if m, ok := profile.IdleLaunchReady(launches, spans); ok {
			c.timing.launch, c.timing.hasLaunch = m, true
			lat = lat.WithReady(profile.Cycles(m.ReadyNs, c.gpu.Spec.ClockMHz))
			c.timing.lat = lat
		}
	}
	launches = nil
	c.timing.copies = profile.FitCopies(samples)
	c.timing.hostSync, c.timing.hostSyncN, c.timing.hasHostSync, err = c.hostSync(calls)
	if err != nil {
		return err
	}
	if err := c.boundBlocking(ops, bounds); err != nil {
		return err
	}
	if !started && len(calls) > 0 {
		c.timing.epoch = calls[0].t
	}
	c.timing.ts, c.timing.origin = profile.Schedule(ops, lat)
	c.timing.place(calls, c.gpu.Spec.ClockMHz)
	return nil
}

// boundBlocking moves the start the timing mapping aims each blocking
// copy at (ops[b.pos].Start) no later than
//
//	max(call + ready, ret − lat.host_sync − the copy's time)
//
// in cycles, with the copy's time io.copy_latency + bytes /
// io.pcie_gbps and the host sync cost as the header sets them for
// --gpu=captured (measured, else the model's). A replay holds the host
// from a blocking copy's issue until the copy is done and lat.host_sync
// after (docs/model.md, "The host waits"), so that is the latest issue
// at which a copy with nothing ahead of it returns by its captured
// return, and no issue comes before its call. A copy whose call
// returned before its transfer ended (a pageable host-to-device copy
// returns once its buffer is staged, which the model's transfer stands
// for) would otherwise return late by its transfer, and the host's
// later calls with it; a copy that waited on the GPU keeps the t its
// GPU start gives.
func (c *converter) boundBlocking(ops []profile.Op, bounds []callBound) error {
	if len(bounds) == 0 {
		return nil
	}
	hostSyncN := 0
	if c.timing.hasHostSync {
		hostSyncN = 1
	}
	b, err := profile.NewBlockingCopy(c.gpu.Name, c.gpu.Spec, c.timing.copies, c.timing.hostSync, hostSyncN, c.timing.lat)
	if err != nil {
		return errorf(c.r.file, "", -1, "the replay model's copy timing: %v", err)
	}
	for _, cp := range bounds {
		ops[cp.pos].Start = min(ops[cp.pos].Start, b.LatestIssue(cp.call, cp.ret, cp.hasRet, cp.bytes))
	}
	return nil
}

// startError refuses a kernel or copy that starts on the GPU more than
// 2^40 cycles after the capture's first operation: no t a trace holds
// reaches it, and Schedule, bounding each op's issue by the next one's,
// would move it back to the ops after it without a word (issue 75: a
// kernel starting 2^62 ns after the copy that follows it in its stream
// converted with exit 0, its start dropped). Where the ops after it start
// there too, CheckT would refuse their t; here the op itself is named.
func startError(o op, ns int64, mhz float64) error {
	var rw *row
	what := "copy"
	switch o := o.(type) {
	case *kernelOp:
		rw, what = o.row, fmt.Sprintf("kernel %q", o.name)
	case *copyOp:
		rw = o.row
	}
	return rw.errorf("%s starts on the GPU %d ns after the capture's first operation, more than a trace spans (2^40 cycles, %.0f s at %g MHz): a start out of order with the ops issued after it, or a capture too long (convert a shorter window)", what, ns, float64(trace.MaxCycles)/(mhz*1e6), mhz)
}

// place converts the copies' returns and the syncs' calls to cycles
// after t = 0, keeping every sync between the kernels and copies around
// it in host order and after the syncs before it, and every ret at or
// after its call's t.
func (tm *timing) place(calls []pendingCall, mhz float64) {
	cycles := func(ns int64) int64 {
		return profile.CyclesBetween(tm.epoch, ns, mhz) - tm.origin
	}
	var last int64 // the latest sync's t
	for _, p := range calls {
		var t int64
		if p.sync {
			lo, hi := last, int64(math.MaxInt64)
			if p.pos > 0 {
				lo = max(lo, tm.ts[p.pos-1])
			}
			if p.pos < len(tm.ts) {
				hi = tm.ts[p.pos]
			}
			t = min(max(cycles(p.t), lo), hi)
			last = t
		} else {
			t = tm.ts[p.pos]
		}
		var ret int64
		if p.blocking && p.hasRet {
			ret = max(cycles(p.ret), t)
		}
		if p.sync {
			tm.syncs = append(tm.syncs, hostTime{t: t, ret: ret})
		} else {
			tm.rets = append(tm.rets, ret)
		}
	}
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

// hostT is the t and ret of the next copy (rw from the copy query) or
// sync (from the synchronization or event record queries) written.
func (c *converter) hostT(rw *row) (t, ret int64, err error) {
	tm := &c.timing
	if rw.table == tabMemcpy {
		if t, err = c.t(rw); err != nil {
			return 0, 0, err
		}
		if tm.nextR >= len(tm.rets) {
			return 0, 0, rw.errorf("not seen by the timing pass: the report changed while being read")
		}
		ret = tm.rets[tm.nextR]
		tm.nextR++
	} else {
		if tm.nextS >= len(tm.syncs) {
			return 0, 0, rw.errorf("not seen by the timing pass: the report changed while being read")
		}
		t, ret = tm.syncs[tm.nextS].t, tm.syncs[tm.nextS].ret
		tm.nextS++
		if err := profile.CheckT(t, c.gpu.Spec.ClockMHz); err != nil {
			return 0, 0, rw.errorf("%v", err)
		}
	}
	if err := profile.CheckT(ret, c.gpu.Spec.ClockMHz); err != nil {
		return 0, 0, rw.errorf("returns %d cycles after the capture's first operation; a trace spans at most 2^40 cycles: convert a shorter window of the capture", ret)
	}
	return t, ret, nil
}

// originNs is the report time (ns) that t = 0 stands for.
func (tm *timing) originNs(mhz float64) int64 {
	return profile.AddCycles(tm.epoch, tm.origin, mhz)
}

// hostSync measures lat.host_sync, a blocking sync's own cost once what
// it waited for has completed: over the device's blocking syncs whose
// call has an end, the median of
//
//	end − max(start, the end of the device's last GPU activity that ended by then)
//
// in cycles at mhz, the activities being its kernels, copies and memsets
// of any kind. A device sync that returned while an activity that
// started before its return had not ended measures nothing and is left
// out: it waited for all of the device's work, so the GPU's clock runs
// ahead of the host's there (cuda-perf-sandbox's device sync returned
// 6 µs before the end of the kernel it waited for, which started 1.1 ms
// into the sync), the activity that ended by the return is one it did
// not wait for, and its whole wait would count as its own cost. (A
// stream or event sync may return while another stream's work runs.)
// ok is false where the report has no sync that measures it.
func (c *converter) hostSync(calls []pendingCall) (cycles, n int64, ok bool, err error) {
	var costs []int64
	var spans [][2]int64 // by start
	var reach []int64    // reach[i]: the latest end of spans[:i+1]
	var ends []int64     // the spans' ends, in order
	for _, p := range calls {
		if !p.sync || !p.blocking || !p.hasRet {
			continue
		}
		if spans == nil {
			if spans, err = c.r.gpuSpans(c.dev); err != nil {
				return 0, 0, false, err
			}
			reach, ends = make([]int64, len(spans)), make([]int64, len(spans))
			for i, s := range spans {
				reach[i], ends[i] = s[1], s[1]
				if i > 0 {
					reach[i] = max(reach[i], reach[i-1])
				}
			}
			slices.Sort(ends)
			if spans == nil {
				spans = [][2]int64{}
			}
		}
		// The spans that started by the return: where one of them
		// ends after it, a device sync measures nothing.
		i, _ := slices.BinarySearchFunc(spans, p.ret+1, func(s [2]int64, t int64) int { return cmp.Compare(s[0], t) })
		if i > 0 && p.device && reach[i-1] > p.ret {
			continue
		}
		from := p.t
		if j, _ := slices.BinarySearch(ends, p.ret+1); j > 0 {
			from = max(from, ends[j-1])
		}
		costs = append(costs, max(p.ret-from, 0))
	}
	if len(costs) == 0 {
		return 0, 0, false, nil
	}
	slices.Sort(costs)
	mid := costs[len(costs)/2]
	if len(costs)%2 == 0 {
		mid = (costs[len(costs)/2-1] + mid) / 2
	}
	return profile.Cycles(mid, c.gpu.Spec.ClockMHz), int64(len(costs)), true, nil
}

// gpuSpans is the start and end (ns) of every kernel, copy and memset of
// device dev that has both, by start.
func (r *report) gpuSpans(dev int64) ([][2]int64, error) {
	var spans [][2]int64
	for _, tab := range []string{tabKernel, tabMemcpy, tabMemset} {
		if !r.hasCol(tab, "start") || !r.hasCol(tab, "end") {
			continue
		}
		err := r.scan(tab, "reading the GPU's activity", []string{"deviceId", "start", "end"}, func(_ int64, v []any) error {
			s, ok1 := v[1].(int64)
			e, ok2 := v[2].(int64)
			if ok1 && ok2 && equal(v[0], dev) {
				spans = append(spans, [2]int64{s, e})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return spans, nil
}
