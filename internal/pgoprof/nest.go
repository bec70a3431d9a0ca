package main

// nested adds to edges, for every two hot edges A→B and B→C (hot by
// hotLine's rule), the edge A→C at B's call site of C, weighing the
// lighter of the two, where edges has none there: go build looks a call
// inside a function it has inlined up by the function it was inlined
// into and the call's own line (pgoir.NodeLineOffset), so the profile of
// a binary built without one, which names B's call of C as B's, leaves
// it cold wherever B is inlined: reschedule's FillHole, inlined into
// Settle; and so on, up to maxNesting calls deep. It returns how many
// it added, and the percent of the weight
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
	// Rounds, each over the edges hot so far, added ones included: a
	// call two inlined calls deep (A → B → C → D) is looked up by A at
	// C's line too. Each round adds edges only for pairs of the last.
	added := map[edge]int64{}
	for round := 0; round < maxNesting; round++ {
		from := map[string][]edge{}
		for e, w := range edges {
			if w >= last {
				from[e.caller] = append(from[e.caller], e)
			}
		}
		more := map[edge]int64{}
		for ab, w1 := range edges {
			if w1 < last {
				continue
			}
			for _, bc := range from[ab.callee] {
				ac := edge{caller: ab.caller, line: bc.line, callee: bc.callee}
				if _, ok := edges[ac]; ok || ab.caller == ab.callee {
					continue
				}
				more[ac] = max(more[ac], min(w1, edges[bc]))
			}
		}
		if len(more) == 0 {
			break
		}
		for e, w := range more {
			edges[e] = w
			added[e] = w
		}
	}
	var extra int64
	for _, w := range added {
		extra += w
	}
	// The line halfway through the last hot edge, as ballast draws it.
	line := float64(cum+extra) - float64(last)/2
	return len(added), 100 * line / float64(total+extra)
}

// maxNesting is the most rounds nested makes: calls that many inlined
// calls deep.
const maxNesting = 4
