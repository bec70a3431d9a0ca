package accelsim

import (
	"math"
	"sort"
)

// span is the closed address interval [lo, hi].
type span struct{ lo, hi uint64 }

// spans is a sorted list of disjoint spans: the copied regions, or every
// buffer. Together with the gaps between them it partitions the address
// space into regions.
type spans []span

// region returns the region holding address a: span i when inside, else
// the gap just below span i (i may be len(s), the gap above the last
// span), with the region's bounds.
func (s spans) region(a uint64) (i int, inside bool, lo, hi uint64) {
	i = sort.Search(len(s), func(j int) bool { return s[j].hi >= a })
	if i < len(s) && s[i].lo <= a {
		return i, true, s[i].lo, s[i].hi
	}
	lo, hi = 0, math.MaxUint64
	if i > 0 {
		lo = s[i-1].hi + 1
	}
	if i < len(s) {
		hi = s[i].lo - 1
	}
	return i, false, lo, hi
}

// regionCache remembers the last region found, since consecutive lanes
// and instructions mostly stay in one buffer.
type regionCache struct {
	ok       bool
	i        int
	inside   bool
	lo, hi   uint64
	regionOf spans
}

// find is spans.region with the cache in front.
func (c *regionCache) find(a uint64) (i int, inside bool, hi uint64) {
	if !c.ok || a < c.lo || a > c.hi {
		c.i, c.inside, c.lo, c.hi = c.regionOf.region(a)
		c.ok = true
	}
	return c.i, c.inside, c.hi
}

// mergeSpans sorts spans and merges the overlapping ones, returning the
// merged list and, for each input span, the index of the span holding it.
func mergeSpans(in []span) (spans, []int) {
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return in[order[a]].lo < in[order[b]].lo })
	var out spans
	of := make([]int, len(in))
	for _, k := range order {
		s := in[k]
		if n := len(out); n > 0 && s.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, s.hi)
		} else {
			out = append(out, s)
		}
		of[k] = len(out) - 1
	}
	return out, of
}
