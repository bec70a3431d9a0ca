package results

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// TestRunArrays lays out the run columns of stretches of rows, empty
// values and a stretch of one row among them.
func TestRunArrays(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var tb table
	runs := []struct {
		run  tables.Run
		rows int
	}{{tables.Run{Trace: "a", Policy: "cdp", Params: ""}, 3}, {tables.Run{Trace: "bb", Policy: "", Params: "x=1"}, 1}, {tables.Run{Trace: "a", Policy: "cdp", Params: ""}, 2}}
	var want [runColumns][]string
	for _, r := range runs {
		for range r.rows {
			tb.addRun(&r.run, 1)
			for i, v := range []string{r.run.Trace, r.run.Policy, r.run.Params} {
				want[i] = append(want[i], v)
			}
		}
	}
	if len(tb.runs) != len(runs) {
		t.Fatalf("%d stretches, want %d", len(tb.runs), len(runs))
	}
	cols := runArrays(mem, tb.takeRuns())
	for i, c := range cols {
		s := c.(*array.String)
		var got []string
		for j := range s.Len() {
			got = append(got, s.Value(j))
		}
		if !reflect.DeepEqual(got, want[i]) || s.NullN() != 0 {
			t.Errorf("column %d: %q (%d nulls), want %q", i, got, s.NullN(), want[i])
		}
		c.Release()
	}
	if len(tb.runs) != 0 {
		t.Errorf("%d stretches left after takeRuns", len(tb.runs))
	}
}
