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
		var sp strSpool
		for _, v := range vs {
			sp.put(v)
		}
		c.appendSpooled(&sp, 0, len(vs))
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

// TestStrSpoolParts puts rows into a chunk's string column and appends
// them in parts, as a chunk split between two batches is: each part must
// hold its rows' values, and reset must leave nothing.
func TestStrSpoolParts(t *testing.T) {
	k := "kernel"
	vs := []string{k, k, strings.Clone(k), "", "x", "x", k, ""}
	var s strSpool
	for _, v := range vs {
		s.put(v)
	}
	for cut := 0; cut <= len(vs); cut++ {
		var a, b strColumn
		a.appendSpooled(&s, 0, cut)
		b.appendSpooled(&s, cut, len(vs))
		var got []string
		for _, r := range append(a.take(), b.take()...) {
			for range r.rows {
				got = append(got, r.v)
			}
		}
		if !reflect.DeepEqual(got, vs) {
			t.Errorf("cut at %d: rows %q, want %q", cut, got, vs)
		}
	}
	s.reset()
	var c strColumn
	c.appendSpooled(&s, 0, 0)
	if runs := c.take(); len(runs) != 0 || len(s.runs) != 0 || s.rows != 0 {
		t.Errorf("after reset: %v appended, %d stretches and %d rows held", runs, len(s.runs), s.rows)
	}
}
