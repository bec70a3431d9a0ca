package replay

// The CRCS scoreboard's records (scoreboard.go): a kernel's references to
// a page, a page group's state, the reference spans the pre-profiler
// reads, and the page ranges a CTA names, normalized so that each covers
// whole groups.

import "slices"

// pageRef is one kernel's remaining references to a page.
type pageRef struct {
	order  int32 // the kernel's place in host launch order
	left   int32 // its CTAs that may still touch the page
	placed int32 // of those, the ones on an SM (the others are not placed yet)
}

// pageState is the state each page of a group is in.
type pageState struct {
	refs  []pageRef // regular kernels', in kernel order; refs[cur] is the oldest left
	cur   int32
	ready bool // on the GPU
	input bool // filled by the prelude
	// avail: the page counts towards PPCS's page shares (pageShare): a
	// prelude page once it has arrived, a page the GPU makes from the
	// start or once its producer has released it (crcs.share).
	avail bool
}

// regular is the oldest regular kernel with references to the page left,
// or -1.
func (p *pageState) regular() int32 {
	if int(p.cur) < len(p.refs) {
		return p.refs[p.cur].order
	}
	return -1
}

// pageGroup is pages lo up to the next group's lo, all in state st.
type pageGroup struct {
	lo   int
	st   pageState
	seen uint64 // the last release (scoreboard.stamp) that dropped it
}

// refSpan is a profiled kernel's references: n of its CTAs reference each
// page lo..hi.
type refSpan struct {
	order  int32
	n      int32
	lo, hi int
}

// pageRange is the pages lo..hi (inclusive) of the run's page space.
type pageRange struct{ lo, hi int }

// normalizeRanges sorts and merges ranges so each page appears once: a CTA
// holds one reference per page however many records name it.
func normalizeRanges(rs []pageRange) []pageRange {
	slices.SortFunc(rs, func(a, b pageRange) int { return a.lo - b.lo })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// normalizeRefs merges the CTA's ranges once, as the profiler counted
// them: one reference per page however many records name it, and ranges
// that each cover whole groups. Nil-safe.
func (x *ctaExtra) normalizeRefs() {
	if x != nil && !x.refsSorted {
		x.refs = normalizeRanges(x.refs)
		x.refsSorted = true
	}
}
