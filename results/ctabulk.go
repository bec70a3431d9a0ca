package results

import "github.com/apache/arrow-go/v18/arrow/array"

// appendRows appends CTA rows a column at a time: each column's values
// are gathered into a scratch slice and appended in one call, which
// copies them and sets their validity bits in bulk. Appended a value at
// a time, each of the nine columns checked its room and set a bit for
// every row, most of what building a ctas row cost; replays write
// millions of these. A Recorder's builder goroutine hands them over a
// spool chunk at a time (spool.go).
func (t *ctaCols) appendRows(rs []CTA) {
	if cap(t.i64) < len(rs) {
		t.i64 = make([]int64, len(rs))
		t.f64 = make([]float64, len(rs))
		t.i32 = make([]int32, len(rs))
		t.valid = make([]bool, len(rs))
	}
	i64, valid := t.i64[:len(rs)], t.valid[:len(rs)]
	ints := func(b *array.Int64Builder, field func(*CTA) int64) {
		for i := range rs {
			i64[i] = field(&rs[i])
		}
		b.AppendValues(i64, nil)
	}
	ints(t.kernelID, func(r *CTA) int64 { return id(r.KernelID) })
	ints(t.cta, func(r *CTA) int64 { return id(r.CTA) })
	i32 := t.i32[:len(rs)]
	for i := range rs {
		i32[i] = rs[i].SM
	}
	t.sm.AppendValues(i32, nil)
	ints(t.dispatch, func(r *CTA) int64 { return r.DispatchCycle })
	ints(t.start, func(r *CTA) int64 { return r.StartCycle })
	ints(t.end, func(r *CTA) int64 { return r.EndCycle })
	ints(t.stall, func(r *CTA) int64 { return r.StallCycles })
	for i := range rs {
		g := rs[i].GroupID
		valid[i] = g != nil
		if g != nil {
			i64[i] = id(*g)
		} else {
			i64[i] = 0
		}
	}
	t.group.AppendValues(i64, valid)
	f64 := t.f64[:len(rs)]
	for i := range rs {
		s := rs[i].Slowdown
		valid[i] = s != nil
		if s != nil {
			f64[i] = *s
		} else {
			f64[i] = 0
		}
	}
	t.slowdown.AppendValues(f64, valid)
}
