package main

// nested adds to edges, for every two hot edges A→B and B→C (hot by
// hotLine's rule), the edge A→C at B's call site of C, weighing the
// lighter of the two, where edges has none there: go build looks a call
// inside a function it has inlined up by the function it was inlined
// into and the call's own line (pgoir.NodeLineOffset), so the profile of
// a binary built without one, which names B's call of C as B's, leaves
// it cold wherever B is inlined: reschedule's FillHole, inlined into
// Settle. It returns how many it added, and the percent of the weight
// that puts the hot line where it was among the others (each added edge
// is heavier than the lightest hot one).
func nested(edges map[edge]int64, hot float64) (int, float64) {
	n, last, _ := hotLine(edges, hot)
	if last <= 0 {
		return 0, hot
	}
	ws, total := hotWeights(edges)
	var cum int64
	for _, w := range ws[:n] {
		cum += w
	}
	from := map[string][]edge{}
	for e, w := range edges {
		if w >= last {
			from[e.caller] = append(from[e.caller], e)
		}
	}
	added := map[edge]int64{}
	for ab, w1 := range edges {
		if w1 < last {
			continue
		}
		for _, bc := range from[ab.callee] {
			ac := edge{caller: ab.caller, line: bc.line, callee: bc.callee}
			if _, ok := edges[ac]; ok || ab.caller == ab.callee {
				continue
			}
			added[ac] = max(added[ac], min(w1, edges[bc]))
		}
	}
	var extra int64
	for e, w := range added {
		edges[e] = w
		extra += w
	}
	// The line halfway through the last hot edge, as ballast draws it.
	line := float64(cum+extra) - float64(last)/2
	return len(added), 100 * line / float64(total+extra)
}
