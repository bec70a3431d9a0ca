package results

import "github.com/apache/arrow-go/v18/arrow/array"

// The tables with a row per CTA, kernel or launching lane (millions of
// rows a replay) append their rows a column at a time: each column's
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

// appendInt64s appends field of every row to b.
func appendInt64s[R any](s *scratch, b *array.Int64Builder, rs []R, field func(*R) int64) {
	v := s.i64[:len(rs)]
	for i := range rs {
		v[i] = field(&rs[i])
	}
	b.AppendValues(v, nil)
}

// appendIDs appends the ids field of every row to b (as id converts them).
func appendIDs[R any](s *scratch, b *array.Int64Builder, rs []R, field func(*R) uint64) {
	v := s.i64[:len(rs)]
	for i := range rs {
		v[i] = id(field(&rs[i]))
	}
	b.AppendValues(v, nil)
}

func appendInt32s[R any](s *scratch, b *array.Int32Builder, rs []R, field func(*R) int32) {
	v := s.i32[:len(rs)]
	for i := range rs {
		v[i] = field(&rs[i])
	}
	b.AppendValues(v, nil)
}

func appendStrings[R any](s *scratch, b *array.StringBuilder, rs []R, field func(*R) string) {
	v, size := s.str[:len(rs)], 0
	for i := range rs {
		v[i] = field(&rs[i])
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

// appendOptInt64s appends field of every row to b, null where it is nil.
func appendOptInt64s[R any](s *scratch, b *array.Int64Builder, rs []R, field func(*R) *int64) {
	v, valid := s.i64[:len(rs)], s.valid[:len(rs)]
	for i := range rs {
		p := field(&rs[i])
		valid[i] = p != nil
		if p != nil {
			v[i] = *p
		} else {
			v[i] = 0
		}
	}
	b.AppendValues(v, valid)
}

// appendOptIDs appends the ids field of every row to b, null where it is nil.
func appendOptIDs[R any](s *scratch, b *array.Int64Builder, rs []R, field func(*R) *uint64) {
	v, valid := s.i64[:len(rs)], s.valid[:len(rs)]
	for i := range rs {
		p := field(&rs[i])
		valid[i] = p != nil
		if p != nil {
			v[i] = id(*p)
		} else {
			v[i] = 0
		}
	}
	b.AppendValues(v, valid)
}

func appendOptFloats[R any](s *scratch, b *array.Float64Builder, rs []R, field func(*R) *float64) {
	v, valid := s.f64[:len(rs)], s.valid[:len(rs)]
	for i := range rs {
		p := field(&rs[i])
		valid[i] = p != nil
		if p != nil {
			v[i] = *p
		} else {
			v[i] = 0
		}
	}
	b.AppendValues(v, valid)
}

// appendRows appends CTA rows a column at a time.
func (t *ctaCols) appendRows(rs []CTA) {
	s := &t.sc
	s.size(len(rs))
	appendIDs(s, t.kernelID, rs, func(r *CTA) uint64 { return r.KernelID })
	appendIDs(s, t.cta, rs, func(r *CTA) uint64 { return r.CTA })
	appendInt32s(s, t.sm, rs, func(r *CTA) int32 { return r.SM })
	appendInt64s(s, t.dispatch, rs, func(r *CTA) int64 { return r.DispatchCycle })
	appendInt64s(s, t.start, rs, func(r *CTA) int64 { return r.StartCycle })
	appendInt64s(s, t.end, rs, func(r *CTA) int64 { return r.EndCycle })
	appendInt64s(s, t.stall, rs, func(r *CTA) int64 { return r.StallCycles })
	appendOptIDs(s, t.group, rs, func(r *CTA) *uint64 { return r.GroupID })
	appendOptFloats(s, t.slowdown, rs, func(r *CTA) *float64 { return r.Slowdown })
}

// appendRows appends kernel rows a column at a time.
func (t *kernelCols) appendRows(rs []Kernel) {
	s := &t.sc
	s.size(len(rs))
	appendIDs(s, t.kernelID, rs, func(r *Kernel) uint64 { return r.KernelID })
	appendStrings(s, t.name, rs, func(r *Kernel) string { return r.Name })
	appendStrings(s, t.origin, rs, func(r *Kernel) string { return r.Origin })
	appendOptIDs(s, t.parent, rs, func(r *Kernel) *uint64 { return r.ParentKernelID })
	appendIDs(s, t.stream, rs, func(r *Kernel) uint64 { return r.Stream })
	appendInt64s(s, t.ctas, rs, func(r *Kernel) int64 { return r.CTAs })
	appendInt64s(s, t.threads, rs, func(r *Kernel) int64 { return r.ThreadsPerCTA })
	appendInt64s(s, t.launch, rs, func(r *Kernel) int64 { return r.LaunchCycle })
	appendInt64s(s, t.ready, rs, func(r *Kernel) int64 { return r.ReadyCycle })
	appendInt64s(s, t.start, rs, func(r *Kernel) int64 { return r.StartCycle })
	appendInt64s(s, t.end, rs, func(r *Kernel) int64 { return r.EndCycle })
	appendInt64s(s, t.wait, rs, func(r *Kernel) int64 { return r.WaitCycles })
	appendInt64s(s, t.groups, rs, func(r *Kernel) int64 { return r.CoalescedGroups })
}

// appendRows appends launch rows a column at a time.
func (t *launchCols) appendRows(rs []Launch) {
	s := &t.sc
	s.size(len(rs))
	appendIDs(s, t.site, rs, func(r *Launch) uint64 { return r.SiteID })
	appendInt64s(s, t.cycle, rs, func(r *Launch) int64 { return r.Cycle })
	appendIDs(s, t.parent, rs, func(r *Launch) uint64 { return r.ParentKernelID })
	appendIDs(s, t.parentCTA, rs, func(r *Launch) uint64 { return r.ParentCTA })
	appendInt32s(s, t.warp, rs, func(r *Launch) int32 { return r.Warp })
	appendInt32s(s, t.lane, rs, func(r *Launch) int32 { return r.Lane })
	appendIDs(s, t.child, rs, func(r *Launch) uint64 { return r.ChildKernelID })
	appendInt64s(s, t.workload, rs, func(r *Launch) int64 { return r.Workload })
	appendStrings(s, t.decision, rs, func(r *Launch) string { return r.Decision })
	appendOptIDs(s, t.target, rs, func(r *Launch) *uint64 { return r.TargetKernelID })
	appendOptFloats(s, t.estChild, rs, func(r *Launch) *float64 { return r.EstChildCycles })
	appendOptFloats(s, t.estParent, rs, func(r *Launch) *float64 { return r.EstParentCycles })
	appendOptInt64s(s, t.spawnN, rs, func(r *Launch) *int64 { return r.SpawnN })
	appendOptFloats(s, t.spawnNCon, rs, func(r *Launch) *float64 { return r.SpawnNCon })
	appendStrings(s, t.outcome, rs, func(r *Launch) string { return r.Outcome })
}
