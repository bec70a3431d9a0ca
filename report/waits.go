package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// waitStats is a run's idle/wait breakdown: where its kernels' time from
// launch (launch_cycle) to their first CTA (start_cycle) went, summed over
// every kernel, from the kernels table's columns alone (docs/tables.md,
// "Where the wait went"):
//
//   - deps: launch until the kernel's stream predecessor completed (the
//     kernel of the same origin and stream launched before it), capped at
//     its ready cycle: waiting on stream order;
//   - host: a host kernel's rest of launch to ready: host issue, the trip
//     to the KMU and waiting for a Kernel Distributor entry;
//   - path: a device kernel's rest of launch to ready: the launch path
//     from the launch site to the KMU and a Kernel Distributor entry;
//   - kd: ready to first CTA, in the Kernel Distributor waiting for room
//     on the SMs.
//
// `after` lists are not in the tables, so a wait on them counts as host.
// The page adds the makespan's cycles in host I/O stages outside the
// kernels stage (ioOutsideKernels).
type waitStats struct {
	host, path, deps, kd int64
	// last is each stream's latest completion so far: rows come in
	// completion order, and a stream's kernels complete in launch order,
	// so the latest is a kernel's predecessor.
	last map[streamKey]int64
	// budget bounds the streams last tracks across the report's runs
	// (Data.budget); nil: no bound.
	budget *budget
}

type streamKey struct {
	device bool
	stream int64
}

// addWait adds a kernel of the given stream to the breakdown.
func (w *waitStats) addWait(k kernelSpan, stream int64) {
	key := streamKey{k.origin == "device", stream}
	prev, hasPrev := w.last[key]
	if w.last == nil {
		w.last = map[streamKey]int64{}
	}
	switch {
	case hasPrev && k.end > prev:
		w.last[key] = k.end
	case hasPrev:
	case w.budget == nil:
		w.last[key] = k.end
	case w.budget.streams < maxStreams:
		w.budget.streams++
		w.last[key] = k.end
	}
	ready := max(k.launch, min(k.ready, k.start))
	var deps int64
	if hasPrev && prev <= k.end {
		deps = max(0, min(prev, ready)-k.launch)
	}
	w.deps += deps
	w.addPath(k, ready-k.launch-deps)
	w.kd += max(0, k.start-ready)
}

func (w *waitStats) addPath(k kernelSpan, d int64) {
	if k.origin == "device" {
		w.path += d
	} else {
		w.host += d
	}
}

func (w *waitStats) total() int64 { return w.host + w.path + w.deps + w.kd }

// ioOutsideKernels is the cycles covered by the run's host I/O stages
// (every stage but kernels) outside its kernels stage.
func ioOutsideKernels(stages []span) int64 {
	var io []span
	var ks []span
	for _, s := range stages {
		if s.end <= s.start {
			continue
		}
		if s.name == "kernels" {
			ks = append(ks, s)
		} else {
			io = append(io, s)
		}
	}
	return measure(io) - overlap(io, ks)
}

// union merges intervals into disjoint ones, in order.
func union(ss []span) []span {
	ss = slices.Clone(ss)
	sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
	var out []span
	for _, s := range ss {
		if n := len(out); n > 0 && s.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

func measure(ss []span) int64 {
	var n int64
	for _, s := range union(ss) {
		n += s.end - s.start
	}
	return n
}

// overlap is the cycles both interval sets cover.
func overlap(a, b []span) int64 {
	var n int64
	for _, x := range union(a) {
		for _, y := range union(b) {
			n += max(0, min(x.end, y.end)-max(x.start, y.start))
		}
	}
	return n
}

// syncCalls are the syncs table's calls, in the page's column order;
// anything else a table holds counts as the last, "other".
var syncCalls = [...]string{"device", "stream", "event", "memcpy", "other"}

// syncHeads are the columns' heads on the page, by syncCalls.
var syncHeads = [...]string{"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy (blocking)", "other calls"}

// hostWaits is a run's other side of the wait: how long its host threads
// were held in blocking calls (the syncs table: return_cycle −
// call_cycle), per call, and how many calls.
type hostWaits struct {
	calls, cycles [len(syncCalls)]int64
}

// add counts a blocking call from call to ret. A row that returns before
// its call (only a hostile table's) counts no wait, and the sums stop at
// the largest int64 rather than wrap.
func (h *hostWaits) add(call string, at, ret int64) {
	i := len(syncCalls) - 1
	for j, c := range syncCalls[:i] {
		if c == call {
			i = j
		}
	}
	h.calls[i] = satAdd(h.calls[i], 1)
	if ret > at {
		h.cycles[i] = satAdd(h.cycles[i], ret-at)
	}
}

func (h *hostWaits) total() (calls, cycles int64) {
	for i := range syncCalls {
		calls, cycles = satAdd(calls, h.calls[i]), satAdd(cycles, h.cycles[i])
	}
	return calls, cycles
}

// satAdd is a + b for non-negative a and b, at most math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// waitRow is a run's breakdown as the page shows it: µs and the share of
// the summed wait; and the host's waits on the GPU, in µs and calls, per
// call (by syncCalls; "" where the run made none) and in all, with their
// share of the makespan ("" without blocking calls).
type waitRow struct {
	Label                      string
	Host, Path, Deps, KD, Wait string
	HostShare, PathShare       string
	DepsShare, KDShare         string
	IO, IOShare                string // µs and share of the makespan; "" without host I/O
	Sync                       [len(syncCalls)]string
	SyncWait, SyncShare        string
}

func (rd *runData) waitRow() waitRow {
	w := &rd.waits
	t := float64(w.total())
	r := waitRow{Label: rd.summary.run.label(),
		Host: num(rd.us(w.host)), Path: num(rd.us(w.path)), Deps: num(rd.us(w.deps)), KD: num(rd.us(w.kd)), Wait: num(rd.us(w.total())),
		HostShare: pct(float64(w.host), t), PathShare: pct(float64(w.path), t), DepsShare: pct(float64(w.deps), t), KDShare: pct(float64(w.kd), t)}
	if rd.hostIO() {
		io := ioOutsideKernels(rd.stages)
		r.IO, r.IOShare = num(rd.us(io)), pct(float64(io), float64(rd.summary.makespan))
	}
	h := &rd.hostWaits
	for i := range syncCalls {
		if h.calls[i] > 0 {
			r.Sync[i] = fmt.Sprintf("%s (%d)", num(rd.us(h.cycles[i])), h.calls[i])
		}
	}
	if calls, cycles := h.total(); calls > 0 {
		r.SyncWait, r.SyncShare = fmt.Sprintf("%s (%d)", num(rd.us(cycles)), calls), pct(float64(cycles), float64(rd.summary.makespan))
	}
	return r
}
