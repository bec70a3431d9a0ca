package results

import (
	"github.com/apache/arrow-go/v18/arrow"
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
	for i := range runFields {
		cols[i] = stretchArray(mem, runStretches(runs, i))
	}
	return cols
}

// runStretches is run column col of the rows of runs as stretches of
// its values.
func runStretches(runs []runRows, col int) []stretch {
	s := make([]stretch, len(runs))
	for i := range runs {
		s[i] = stretch{runFields[col](&runs[i].run), runs[i].rows}
	}
	return s
}
