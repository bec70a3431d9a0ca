package main

import "testing"

// Worked by hand: a → b (line 1, 100) and a → c (2, 50) are hot at 70%
// of the weight (TestHotLine's a), b → c (line 10, 60) too once added,
// and a → d (3, 30), a → e (4, 20) cold. nested adds a → c at b's line
// 10, weighing min(100, 60) = 60: b is called from a, and c from b, both
// hot. It adds nothing for b → c's callee c, which calls nothing, nor for
// a → c (a's own call of c at line 2), which has no hot edge from c, nor
// for the cold edges. With b → c the weight is 260 and the hot edges are
// a → b, b → c and a → c (210, over 70% of 260 at 80.8%); the line, halfway
// through the lightest hot edge, a → c (50), then counts 210 + 60 − 25 of
// 320: 76.5625%.
func TestNested(t *testing.T) {
	edges := map[edge]int64{
		{"a", 1, "b"}: 100, {"a", 2, "c"}: 50, {"a", 3, "d"}: 30, {"a", 4, "e"}: 20,
		{"b", 10, "c"}: 60,
	}
	if n, _, _ := hotLine(edges, 70); n != 3 {
		t.Fatalf("%d hot before, want 3", n)
	}
	n, hot := nested(edges, 70)
	if n != 1 || hot != 76.5625 {
		t.Fatalf("nested: %d added, line at %v%%; want 1, 76.5625%%", n, hot)
	}
	if w := edges[edge{"a", 10, "c"}]; w != 60 {
		t.Errorf("a → c at line 10 weighs %d, want 60", w)
	}
	if len(edges) != 6 {
		t.Errorf("%d edges, want 6: %v", len(edges), edges)
	}
	// The line where it was: the same three hot, and the added one.
	if n, last, _ := hotLine(edges, hot); n != 4 || last != 50 {
		t.Errorf("%d hot after, the lightest %d; want 4, 50", n, last)
	}
	// No hot edges, nothing added.
	cold := map[edge]int64{}
	if n, hot := nested(cold, 95); n != 0 || hot != 95 {
		t.Errorf("nested of none: %d, %v; want 0, 95", n, hot)
	}
}
