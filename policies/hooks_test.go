package policies

import (
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// Every field of replay.Policy but its name is a row of hooks, once, so
// baseline sees it and merge carries it into a combined policy; a new
// field fails here until it is given a decision point or declared shared.
func TestHooksCoverPolicy(t *testing.T) {
	rows := map[string]int{}
	for _, h := range hooks {
		rows[h.field]++
	}
	ty := reflect.TypeOf(replay.Policy{})
	for i := range ty.NumField() {
		f := ty.Field(i).Name
		if f == "Name" {
			continue
		}
		if rows[f] != 1 {
			t.Errorf("replay.Policy.%s is in %d rows of hooks, want 1", f, rows[f])
		}
		delete(rows, f)
	}
	for f := range rows {
		t.Errorf("hooks row %s names no field of replay.Policy", f)
	}
	if !baseline(replay.Policy{Name: "x"}) {
		t.Error("a policy setting no hook is not the baseline")
	}
}

// Each row's set and add agree: merging a policy that sets one hook into
// an empty one sets it there, makes it no longer the baseline, and takes
// the row's decision point (a second policy at that point is refused).
func TestHooksMerge(t *testing.T) {
	for _, name := range Names() {
		q, err := New(name, k20c(t))
		if err != nil {
			t.Fatal(err)
		}
		var p replay.Policy
		owner := map[string]string{}
		if err := merge(&p, q, name, owner); err != nil {
			t.Fatalf("%s into an empty policy: %v", name, err)
		}
		for _, h := range hooks {
			if h.set(&q) != h.set(&p) {
				t.Errorf("%s: hook %s set %v, merged %v", name, h.field, h.set(&q), h.set(&p))
			}
			if h.point != "" && h.set(&q) {
				if err := merge(&p, q, "again", owner); err == nil {
					t.Errorf("%s: a second policy at %q was not refused", name, h.point)
				}
			}
		}
		if baseline(p) != baseline(q) {
			t.Errorf("%s: baseline %v, merged %v", name, baseline(q), baseline(p))
		}
	}
}
