package kineto

import (
	"math"
	"strconv"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// The timing mapping: the t of every launch and copy, chosen so that a
// replay on the captured GPU starts each kernel when the profile says it
// started (see "Timing" in the package doc).

// latency is what a replay adds to a host launch, in cycles: the host
// thread is busy issue cycles per launch (launches serialise), and on an
// idle GPU the kernel's first CTA starts issue + launch + dispatch cycles
// after its t.
type latency struct {
	issue    int64 // lat.host_issue
	launch   int64 // lat.host_launch
	dispatch int64 // lat.kernel_dispatch
}

func (l latency) total() int64 { return l.issue + l.launch + l.dispatch }

// maxCycles bounds every time the mapping computes, so that sums and
// differences of a few of them never overflow int64 whatever the input.
const maxCycles = 1 << 60

// assumedLatency is the latency of the configuration `replay
// --gpu=captured` builds for a trace with this gpu_spec: the default
// preset with the captured GPU's limits (model.FromSpec), whose host-side
// costs keep their microseconds at the captured clock.
func assumedLatency(name string, spec *trace.GPUSpec) (latency, error) {
	base, err := model.Preset(model.DefaultPreset)
	if err != nil {
		return latency{}, err
	}
	c := model.FromSpec(base, name, spec).Lat
	clamp := func(v int64) int64 { return min(max(v, 0), maxCycles) }
	return latency{issue: clamp(c.HostIssue), launch: clamp(c.HostLaunch), dispatch: clamp(c.KernelDispatch)}, nil
}

// ready is how long after its issue an op can start on an idle GPU: a
// kernel's first CTA after the host issue, the trip to the GPU and the
// Kernel Distributor's dispatch; a copy once issued and on the GPU, when
// its stream and copy engine are free.
func (l latency) ready(op *gpuOp) int64 {
	if op.copy {
		return l.issue + l.launch
	}
	return l.total()
}

// schedule sets the t of every kept op, in cycles. Going backwards over
// the ops in program order, op k is issued at
//
//	issue_k = min(start_k − ready_k, issue_k+1 − lat.host_issue)
//
// where start_k is its profiled start on the GPU: the latest issue that
// has it ready on an idle GPU by that start and still leaves the one host
// thread time to issue the next op by its own issue. The first op's issue
// becomes t = 0.
func (pl *plan) schedule() {
	if len(pl.ops) == 0 {
		return
	}
	pl.base = hostStart(pl.ops[0])
	next := int64(math.MaxInt64)
	for i := len(pl.ops) - 1; i >= 0; i-- {
		op := pl.ops[i]
		at := min(pl.at(op.ts)-pl.lat.ready(op), next-pl.lat.issue)
		op.t = max(at, -4*maxCycles)
		next = op.t
	}
	pl.origin = next
	for _, op := range pl.ops {
		op.t -= pl.origin
	}
}

// at is profile time ns (nanoseconds, as Kineto's ts) in cycles after
// pl.base.
func (pl *plan) at(ns int64) int64 { return pl.cycles(satSub(ns, pl.base)) }

// cycles converts nanoseconds to cycles at the header clock, rounding to
// the nearest and saturating at ±maxCycles.
func (pl *plan) cycles(ns int64) int64 {
	c := math.Round(float64(ns) * pl.spec.ClockMHz / 1e3)
	switch {
	case c >= maxCycles:
		return maxCycles
	case c <= -maxCycles:
		return -maxCycles
	}
	return int64(c)
}

// originMicros is the profile time that t = 0 stands for, as Kineto
// writes ts (microseconds, up to three decimals), for the header's meta.
func (pl *plan) originMicros() string {
	ns := pl.base
	if d := math.Round(float64(pl.origin) * 1e3 / pl.spec.ClockMHz); math.Abs(d) < 9e18 {
		ns = satAdd(ns, int64(d))
	}
	return strconv.FormatFloat(float64(ns)/1e3, 'f', -1, 64)
}

// satSub is a − b, saturating at the int64 limits.
func satSub(a, b int64) int64 {
	d := a - b
	switch {
	case b > 0 && d > a:
		return math.MinInt64
	case b < 0 && d < a:
		return math.MaxInt64
	}
	return d
}

// satAdd is a + b, saturating at the int64 limits.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}
