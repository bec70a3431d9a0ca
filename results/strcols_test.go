package results

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStrColumn appends strings one at a time and a slice at a time,
// equal values among them in other strings' bytes and "" among them: the
// stretches must hold each run of equal values once, across the calls,
// and lay out as the values.
func TestStrColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	k := "kernel"
	var c strColumn
	var want []string
	one := func(v string) {
		c.Append(v)
		want = append(want, v)
	}
	many := func(vs ...string) {
		want = append(want, vs...)
		c.AppendValues(append([]string(nil), vs...))
	}
	one(k)
	many(k, strings.Clone(k), k, "", "")
	one("")
	many("x", "x", k)
	many(strings.Clone(k), "kernel2", "x")
	one("x")
	runs := c.take()
	wantRuns := []stretch{{k, 4}, {"", 3}, {"x", 2}, {k, 2}, {"kernel2", 1}, {"x", 2}}
	if !reflect.DeepEqual(runs, wantRuns) {
		t.Errorf("stretches %v, want %v", runs, wantRuns)
	}
	if len(c.runs) != 0 {
		t.Errorf("%d stretches left after take", len(c.runs))
	}
	a := stretchArray(mem, runs)
	defer a.Release()
	s := a.(*array.String)
	var got []string
	for i := range s.Len() {
		got = append(got, s.Value(i))
	}
	if !reflect.DeepEqual(got, want) || s.NullN() != 0 {
		t.Errorf("laid out %q (%d nulls), want %q", got, s.NullN(), want)
	}
}
