package report

import (
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
	if !hasPrev || k.end > prev {
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

// waitRow is a run's breakdown as the page shows it: µs and the share of
// the summed wait.
type waitRow struct {
	Label                      string
	Host, Path, Deps, KD, Wait string
	HostShare, PathShare       string
	DepsShare, KDShare         string
	IO, IOShare                string // µs and share of the makespan; "" without host I/O
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
	return r
}
