package results

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/gpureplay/gpureplay/tables"
)

// The tables with a row per CTA, kernel, launching lane or SM and time
// window (millions of rows a replay) append their rows a column at a time: each column's
// values are gathered into a scratch slice and appended in one call,
// which copies them and sets their validity bits in bulk. Appended a
// value at a time, each column checked its room and set a bit for every
// row, most of what building such a row cost. A Recorder's builder
// goroutine hands them over a spool chunk at a time (spool.go, addBulk).

// scratch holds the slices a column set gathers one column's values
// into; they grow to the largest run of rows appended and are reused.
type scratch struct {
	i64   []int64
	f64   []float64
	i32   []int32
	str   []string
	valid []bool
}

// size makes room for n values in every slice.
func (s *scratch) size(n int) {
	if cap(s.i64) < n {
		s.i64 = make([]int64, n)
		s.f64 = make([]float64, n)
		s.i32 = make([]int32, n)
		s.str = make([]string, n)
		s.valid = make([]bool, n)
	}
}

// oneRow hands appendRows one row as a slice without allocating one: a
// slice literal of the row would escape through the field functions.
type oneRow[R any] [1]R

func (o *oneRow[R]) of(r R) []R {
	o[0] = r
	return o[:]
}

// gather returns field of every row, in buf's storage. It is small
// enough to be inlined, and with it the field's function: a column costs
// a load and a store a row.
func gather[R, V any](buf []V, rs []R, field func(*R) V) []V {
	v := buf[:len(rs)]
	for i := range rs {
		v[i] = field(&rs[i])
	}
	return v
}

// gatherOpt returns an optional field of every row and whether each is
// set, the value zero where it is not (a null slot holds zero).
func gatherOpt[R, V any](buf []V, valid []bool, rs []R, field func(*R) (V, bool)) ([]V, []bool) {
	v, ok := buf[:len(rs)], valid[:len(rs)]
	for i := range rs {
		v[i], ok[i] = field(&rs[i])
	}
	return v, ok
}

func optID(p *uint64) (int64, bool) {
	if p == nil {
		return 0, false
	}
	return id(*p), true
}

func opt[V any](p *V) (V, bool) {
	if p == nil {
		var zero V
		return zero, false
	}
	return *p, true
}

// appendStrings appends field of every row to b.
func appendStrings[R any](s *scratch, b *array.StringBuilder, rs []R, field func(*R) string) {
	v, size := gather(s.str, rs, field), 0
	for i := range v {
		size += len(v[i])
	}
	// AppendValues reserves room for exactly these bytes, which
	// reallocates the bytes of the batch so far on every call: grow them
	// by doubling, as appending one string does.
	if have := b.DataLen(); have+size > b.DataCap() {
		b.ReserveData(max(size, have))
	}
	b.AppendValues(v, nil)
	clear(v) // hold no strings past the rows
}

// appendRows appends CTA rows a column at a time.
func (t *ctaCols) appendRows(rs []tables.CTA) {
	s := &t.sc
	s.size(len(rs))
	t.kernelID.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return id(r.KernelID) }), nil)
	t.cta.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return id(r.CTA) }), nil)
	t.sm.AppendValues(gather(s.i32, rs, func(r *tables.CTA) int32 { return r.SM }), nil)
	t.dispatch.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return r.DispatchCycle }), nil)
	t.start.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return r.StartCycle }), nil)
	t.end.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return r.EndCycle }), nil)
	t.stall.AppendValues(gather(s.i64, rs, func(r *tables.CTA) int64 { return r.StallCycles }), nil)
	t.group.AppendValues(gatherOpt(s.i64, s.valid, rs, func(r *tables.CTA) (int64, bool) { return optID(r.GroupID) }))
	t.slowdown.AppendValues(gatherOpt(s.f64, s.valid, rs, func(r *tables.CTA) (float64, bool) { return opt(r.Slowdown) }))
}

// appendRows appends kernel rows a column at a time.
func (t *kernelCols) appendRows(rs []tables.Kernel) {
	s := &t.sc
	s.size(len(rs))
	t.kernelID.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return id(r.KernelID) }), nil)
	appendStrings(s, t.name, rs, func(r *tables.Kernel) string { return r.Name })
	appendStrings(s, t.origin, rs, func(r *tables.Kernel) string { return r.Origin })
	t.parent.AppendValues(gatherOpt(s.i64, s.valid, rs, func(r *tables.Kernel) (int64, bool) { return optID(r.ParentKernelID) }))
	t.stream.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return id(r.Stream) }), nil)
	t.ctas.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.CTAs }), nil)
	t.threads.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.ThreadsPerCTA }), nil)
	t.launch.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.LaunchCycle }), nil)
	t.ready.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.ReadyCycle }), nil)
	t.start.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.StartCycle }), nil)
	t.end.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.EndCycle }), nil)
	t.wait.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.WaitCycles }), nil)
	t.groups.AppendValues(gather(s.i64, rs, func(r *tables.Kernel) int64 { return r.CoalescedGroups }), nil)
}

// appendRows appends launch rows a column at a time.
func (t *launchCols) appendRows(rs []tables.Launch) {
	s := &t.sc
	s.size(len(rs))
	t.site.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return id(r.SiteID) }), nil)
	t.cycle.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return r.Cycle }), nil)
	t.parent.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return id(r.ParentKernelID) }), nil)
	t.parentCTA.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return id(r.ParentCTA) }), nil)
	t.warp.AppendValues(gather(s.i32, rs, func(r *tables.Launch) int32 { return r.Warp }), nil)
	t.lane.AppendValues(gather(s.i32, rs, func(r *tables.Launch) int32 { return r.Lane }), nil)
	t.child.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return id(r.ChildKernelID) }), nil)
	t.workload.AppendValues(gather(s.i64, rs, func(r *tables.Launch) int64 { return r.Workload }), nil)
	appendStrings(s, t.decision, rs, func(r *tables.Launch) string { return r.Decision })
	t.target.AppendValues(gatherOpt(s.i64, s.valid, rs, func(r *tables.Launch) (int64, bool) { return optID(r.TargetKernelID) }))
	t.estChild.AppendValues(gatherOpt(s.f64, s.valid, rs, func(r *tables.Launch) (float64, bool) { return opt(r.EstChildCycles) }))
	t.estParent.AppendValues(gatherOpt(s.f64, s.valid, rs, func(r *tables.Launch) (float64, bool) { return opt(r.EstParentCycles) }))
	t.spawnN.AppendValues(gatherOpt(s.i64, s.valid, rs, func(r *tables.Launch) (int64, bool) { return opt(r.SpawnN) }))
	t.spawnNCon.AppendValues(gatherOpt(s.f64, s.valid, rs, func(r *tables.Launch) (float64, bool) { return opt(r.SpawnNCon) }))
	appendStrings(s, t.outcome, rs, func(r *tables.Launch) string { return r.Outcome })
}

// appendRows appends occupancy rows a column at a time.
func (t *occupancyCols) appendRows(rs []tables.Occupancy) {
	s := &t.sc
	s.size(len(rs))
	t.cycle.AppendValues(gather(s.i64, rs, func(r *tables.Occupancy) int64 { return r.Cycle }), nil)
	t.window.AppendValues(gather(s.i64, rs, func(r *tables.Occupancy) int64 { return r.WindowCycles }), nil)
	t.sm.AppendValues(gather(s.i32, rs, func(r *tables.Occupancy) int32 { return r.SM }), nil)
	t.warps.AppendValues(gather(s.f64, rs, func(r *tables.Occupancy) float64 { return r.ActiveWarps }), nil)
	t.ctas.AppendValues(gather(s.f64, rs, func(r *tables.Occupancy) float64 { return r.ActiveCTAs }), nil)
}
