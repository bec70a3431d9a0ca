package results

import "github.com/apache/arrow-go/v18/arrow/array"

// The chunks of rows a Recorder's builder goroutine takes (spool.go,
// addAll) are appended a column at a time (the generated appendRows of
// columns_gen.go): each column's values are gathered into a scratch slice
// and appended in one call, which copies them and sets their validity bits
// in bulk. Appended a value at a time, each column checked its room and
// set a bit for every row, most of what building a row of the tables with
// a row per CTA, kernel, launching lane or SM and time window (millions a
// replay) cost. A row written straight to a file Writer goes a value at a
// time (the generated append): for one row, a call of AppendValues per
// column costs more than it saves.

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

// id stores an unsigned id in an int64 column, keeping its bits
// (tables.Type).
func id(v uint64) int64 { return int64(v) }

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
