package profile

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// The timing mapping chooses the t of every launch and copy so that a
// replay on the captured GPU has each op reach the GPU when the profile
// says it started. Taking t from the op's API call instead would add the
// model's launch latencies to real ones that are longer and vary (the
// first launch of a process takes tens of µs while CUDA loads modules),
// moving every op by a different amount: a replay then overshoots the
// profile's busy span.

// Latency is what a replay adds to a host launch or copy, in cycles
// (docs/model.md): the one host thread is busy Issue cycles per launch
// (launches serialise); the op reaches the GPU Launch cycles later; a
// kernel heading its stream takes Dispatch more before its first CTA
// starts.
type Latency struct {
	Issue    int64 // lat.host_issue
	Launch   int64 // lat.host_launch
	Dispatch int64 // lat.kernel_dispatch
}

// AssumedLatency is the latency of the configuration `replay
// --gpu=captured` builds for a trace whose header has this gpu and
// gpu_spec: the default preset with the captured GPU's limits
// (model.FromSpec), whose host-side costs keep their microseconds at the
// captured clock. Each value is clamped to 0..MaxCycles.
func AssumedLatency(name string, spec *trace.GPUSpec) (Latency, error) {
	base, err := model.Preset(model.DefaultPreset)
	if err != nil {
		return Latency{}, err
	}
	c := model.FromSpec(base, name, spec).Lat
	return Latency{Issue: c.HostIssue, Launch: c.HostLaunch, Dispatch: c.KernelDispatch}.clamped(), nil
}

func (l Latency) clamped() Latency {
	clamp := func(v int64) int64 { return min(max(v, 0), MaxCycles) }
	return Latency{Issue: clamp(l.Issue), Launch: clamp(l.Launch), Dispatch: clamp(l.Dispatch)}
}

// Ready is how long after its issue an op of kind k can start on an
// idle GPU: a kernel's first CTA after the host issue, the trip to the
// GPU and the Kernel Distributor's dispatch; a copy once issued and on
// the GPU, when its stream and copy engine are free.
func (l Latency) Ready(k Kind) int64 {
	if k == Copy {
		return l.Issue + l.Launch
	}
	return l.Issue + l.Launch + l.Dispatch
}

// Record adds the latencies to a trace header's meta (lat.host_issue,
// lat.host_launch, lat.kernel_dispatch, in cycles at the header's clock),
// so a user replaying with other latencies knows every op shifts by the
// difference.
func (l Latency) Record(meta map[string]string) {
	meta["lat.host_issue"] = strconv.FormatInt(l.Issue, 10)
	meta["lat.host_launch"] = strconv.FormatInt(l.Launch, 10)
	meta["lat.kernel_dispatch"] = strconv.FormatInt(l.Dispatch, 10)
}

// Kind is what an op is, for its latency.
type Kind uint8

// The kinds of op.
const (
	Kernel Kind = iota // a kernel launch
	Copy               // a host↔device copy
)

// Op is a GPU op as the timing mapping sees it: when the profile shows
// it starting on the GPU, in cycles after a base time of the importer's
// choosing, and its kind. It is all the mapping keeps of an op, 16 bytes,
// for importers that must hold every op until the mapping has run.
type Op struct {
	Start int64
	Kind  Kind
}

// Schedule returns the t of every op of ops, which are in host (program)
// order, and origin, the cycles after the ops' base that t = 0 stands
// for. Going backwards, op k is issued at
//
//	issue_k = min(start_k − ready_k, issue_k+1 − lat.Issue)
//
// the latest issue that has it ready on an idle GPU by its profiled
// start and still leaves the one host thread time to issue the next op by
// its own issue; t_k = issue_k − issue_1. An op that was not held up on
// the captured GPU then starts in the replay exactly when the profile
// says; one that queued behind its stream (kernels the host issued well
// ahead) is ready early and starts when its stream frees, as it did. An
// op that started before an earlier op in host order (another stream)
// keeps its place, a host issue after it. The ts are non-decreasing and
// non-negative, and no input overflows them.
func Schedule(ops []Op, lat Latency) (t []int64, origin int64) {
	if len(ops) == 0 {
		return nil, 0
	}
	lat = lat.clamped()
	t = make([]int64, len(ops))
	next := int64(math.MaxInt64)
	for i := len(ops) - 1; i >= 0; i-- {
		start := min(max(ops[i].Start, -MaxCycles), MaxCycles)
		at := min(start-lat.Ready(ops[i].Kind), next-lat.Issue)
		t[i] = max(at, -4*MaxCycles)
		next = t[i]
	}
	for i := range t {
		t[i] -= next
	}
	return t, next
}

// MeasuredLaunch is the launch latency a profile shows: ReadyNs, the
// median over N launches made while the GPU was idle (every op that
// started before the kernel had ended by the launch call) of the
// kernel's GPU start minus its launch call's start, in ns. Such a kernel
// waited for nothing but the launch path, so its ready time is the
// model's lat.host_issue + lat.host_launch + lat.kernel_dispatch.
type MeasuredLaunch struct {
	ReadyNs int64
	N       int
}

// MinIdleLaunches is the fewest idle launches a launch latency is
// measured from.
const MinIdleLaunches = 3

// MaxLaunchReadyNs bounds the call-to-start time of a launch a latency
// is measured from. A launch path takes microseconds (the presets' 8.7
// µs; 5.5 to 11 µs measured on the profiles in docs/importers); a launch
// that took over 100 µs on an idle GPU paid something once — its
// module's loading at a kernel's first launch (CUDA's lazy loading, the
// default since 11.7), a context's creation — and is left out, or a
// profile whose only idle launches are its first would set every
// launch of a what-if that late (HTA's execution_trace: three, a median
// 3,982 µs).
const MaxLaunchReadyNs = 100_000

// IdleLaunchReady measures the launch latency from launches, each a
// kernel's launch call start and GPU start (ns), and spans, the start
// and end (ns) of every op of the device on the GPU (kernels, copies,
// memsets; the launches' kernels among them), sorted by start. ok is
// false where fewer than MinIdleLaunches launches were made on an idle
// GPU.
func IdleLaunchReady(launches, spans [][2]int64) (m MeasuredLaunch, ok bool) {
	// before[i]: the latest end of spans[:i], the ops started before
	// spans[i].
	before := make([]int64, len(spans)+1)
	before[0] = math.MinInt64
	for i, s := range spans {
		before[i+1] = max(before[i], s[1])
	}
	var ready []int64
	for _, l := range launches {
		call, start := l[0], l[1]
		if start < call {
			continue
		}
		// The ops that started before the kernel: spans[:i].
		i, _ := slices.BinarySearchFunc(spans, start, func(s [2]int64, t int64) int { return cmp.Compare(s[0], t) })
		if before[i] <= call && start-call <= MaxLaunchReadyNs {
			ready = append(ready, start-call)
		}
	}
	if len(ready) < MinIdleLaunches {
		return MeasuredLaunch{}, false
	}
	slices.Sort(ready)
	mid := ready[len(ready)/2]
	if len(ready)%2 == 0 {
		mid = ready[len(ready)/2-1] + (mid-ready[len(ready)/2-1])/2
	}
	return MeasuredLaunch{ReadyNs: mid, N: len(ready)}, true
}

// WithReady is l with Launch set so that a kernel is ready ready cycles
// after its launch call (Issue + Launch + Dispatch): the measured launch
// latency, the host's share (Issue) and the dispatch kept as the model
// has them. Launch is not made negative: a ready time shorter than
// Issue + Dispatch gives Launch 0.
func (l Latency) WithReady(ready int64) Latency {
	l.Launch = max(ready-l.Issue-l.Dispatch, 0)
	return l.clamped()
}
