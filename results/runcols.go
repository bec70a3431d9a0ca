package results

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// runColumns is how many columns every table starts with: trace, policy
// and params (schema).
const runColumns = 3

// runRows is a stretch of a table's pending rows that belong to one run.
//
// A table keeps its rows' run columns (trace, policy, params) as these
// stretches, not in column builders: the three values are the same for
// every row of a replay, and appending them to string builders one row
// at a time was a third of what building a ctas row cost. The columns
// travel with the batch's other columns as these stretches (block.go),
// and each file format lays them out its own way.
type runRows struct {
	run  tables.Run
	rows int
}

// addRun counts rows rows of run r into the pending stretches.
func (t *table) addRun(r *tables.Run, rows int) {
	if n := len(t.runs); n > 0 && t.runs[n-1].run == *r {
		t.runs[n-1].rows += rows
		return
	}
	t.runs = append(t.runs, runRows{*r, rows})
}

// takeRuns hands over the pending rows' stretches and forgets them.
func (t *table) takeRuns() []runRows {
	runs := append([]runRows(nil), t.runs...)
	t.runs = t.runs[:0]
	return runs
}

// runFields reads each run column's value from a run, in schema order.
var runFields = [runColumns]func(*tables.Run) string{
	func(r *tables.Run) string { return r.Trace },
	func(r *tables.Run) string { return r.Policy },
	func(r *tables.Run) string { return r.Params },
}

// runArrays lays out the run columns of the rows of runs as strings, in
// schema order.
func runArrays(mem memory.Allocator, runs []runRows) [runColumns]arrow.Array {
	var cols [runColumns]arrow.Array
	for i, field := range runFields {
		cols[i] = repeatStrings(mem, runs, field)
	}
	return cols
}

// repeatStrings lays out a string column that holds field(run) for each
// row of each stretch: its offsets and bytes are written directly, with
// no validity bitmap (the run columns have no nulls).
func repeatStrings(mem memory.Allocator, runs []runRows, field func(*tables.Run) string) arrow.Array {
	n, size := 0, 0
	for i := range runs {
		n += runs[i].rows
		size += runs[i].rows * len(field(&runs[i].run))
	}
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * arrow.Int32SizeBytes)
	defer offsets.Release()
	values := memory.NewResizableBuffer(mem)
	values.Resize(size)
	defer values.Release()
	offs, data := arrow.Int32Traits.CastFromBytes(offsets.Bytes()), values.Bytes()
	row, at := 0, 0
	for i := range runs {
		v := field(&runs[i].run)
		start := at
		for range runs[i].rows {
			offs[row] = int32(at)
			row++
			at += len(v)
		}
		fill(data[start:at], v)
	}
	offs[n] = int32(at)
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, offsets, values}, nil, 0, 0)
	defer d.Release()
	return array.NewStringData(d)
}

// fill writes v over b again and again (len(b) is a multiple of len(v)),
// doubling each copy.
func fill(b []byte, v string) {
	if len(b) == 0 {
		return
	}
	k := copy(b, v)
	for k < len(b) {
		k += copy(b[k:], b[:k])
	}
}
