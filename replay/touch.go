package replay

// Page accesses in access order (CRCS §4.1): "When a warp accesses global
// memory, scoreboard logic checks if the kernel owns the pages to
// determine the warp's eligibility. ... The instruction can be issued only
// if all accessed pages are owned by the kernel; otherwise, the warp
// stalls." A trace says where in a CTA's run it first touches each page
// (the `at` of its access and pages records); the replay checks a CTA's
// pages at those points, in that order, and a CTA stalls mid-run at the
// first page that is not ready or is owned by an older kernel. The
// reference counts (who owns a page, when it passes on) still come from
// refs, the profiler's ranges or the exact pages (crcs.pages): the check
// is on what the CTA touches, the hold on what the profiler promised.

import (
	"cmp"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// touch is a run of pages a CTA first touches at one point of its run.
type touch struct {
	at     int64 // cycles into the CTA's own run
	lo, hi int   // pages of the run's page space, inclusive
	exact  bool  // from a pages record; otherwise an access range
}

// touchMode says which CTAs' touches the body cursor keeps.
type touchMode uint8

const (
	touchNone      touchMode = iota
	touchIrregular           // only irregular kernels' (their exact pages)
	touchAll                 // every scoreboarded CTA's, access ranges too
)

// appendTouches appends the touches a record names: an access range's
// pages, or a pages record's pages, runs of consecutive ones merged.
// Parts outside the buffer are ignored, as appendRanges does.
func (s refSource) appendTouches(r trace.Record, out []touch) []touch {
	switch r := r.(type) {
	case *trace.Access:
		if pr, ok := s.accessRange(r); ok {
			out = append(out, touch{at: r.At, lo: pr.lo, hi: pr.hi})
		}
	case *trace.Pages:
		s.eachPage(r, func(p int) {
			if n := len(out); n > 0 && out[n-1].exact && out[n-1].at == r.At && out[n-1].hi+1 == p {
				out[n-1].hi = p
				return
			}
			out = append(out, touch{at: r.At, lo: p, hi: p, exact: true})
		})
	}
	return out
}

// prepareTouches readies a CTA's touches for checking, once: the exact
// pages when the trace gives any for it (what the CTA really touches),
// otherwise its access ranges, in the order it reaches them.
func (x *ctaExtra) prepareTouches() {
	if x.touchesReady {
		return
	}
	x.touchesReady = true
	if slices.ContainsFunc(x.touches, func(t touch) bool { return t.exact }) {
		x.touches = slices.DeleteFunc(x.touches, func(t touch) bool { return !t.exact })
	}
	slices.SortStableFunc(x.touches, func(a, b touch) int { return cmp.Compare(a.at, b.at) })
}

// nextTouch is the position of the CTA's next unchecked touch, and false
// when none is left.
func (x *ctaExtra) nextTouch() (int64, bool) {
	if x == nil || x.touchNext >= int32(len(x.touches)) {
		return 0, false
	}
	return x.touches[x.touchNext].at, true
}

// passes reports whether a CTA of k may go on past position pos of its
// run: every page it touches up to pos is on the GPU and, where k
// references it, owned by k. An irregular kernel runs only as the oldest
// unfinished kernel (it references every page, so it owns them all then)
// and, as §4.1 has it, "CRCS only overlaps the current oldest,
// unfinished kernel with the prelude by looking up the page's ready bit":
// its touched pages must be ready; with no touches known (no pages
// records), every input page must be. A page once passed stays passable
// while the CTA runs (it holds its references), so the next call resumes
// where this one stopped.
func (sb *scoreboard) passes(k *Kernel, x *ctaExtra, pos int64) bool {
	irregular := sb.irregular[k.id]
	if irregular && !sb.ownsAll(k) {
		return false
	}
	if x == nil || len(x.touches) == 0 {
		return !irregular || sb.readyIn == sb.inputPages
	}
	x.prepareTouches()
	for x.touchNext < int32(len(x.touches)) {
		t := &x.touches[x.touchNext]
		if t.at > pos {
			return true
		}
		for p := t.lo + x.touchWithin; p <= t.hi; {
			g := sb.group(p)
			if !sb.mayTouch(k, g) {
				return false
			}
			next := min(sb.end(g), t.hi+1)
			x.touchWithin += next - p
			p = next
		}
		x.touchNext++
		x.touchWithin = 0
	}
	return true
}

// mayTouch reports whether a CTA of k may access the pages of group g
// now: they are ready, and owned by k unless k holds no reference to them
// (an exact page outside the profiler's ranges, which only a trace at
// odds with itself has).
func (sb *scoreboard) mayTouch(k *Kernel, g int) bool {
	st := &sb.groups[g].st
	if !st.ready {
		return false
	}
	if sb.owner(g) == k.order || sb.irregular[k.id] {
		return true
	}
	for _, r := range st.refs[min(int(st.cur), len(st.refs)):] {
		if r.order == k.order {
			return false
		}
	}
	return true
}

// touchBlocker names the page a CTA's next touch waits for, for deadlock
// reports.
func (sb *scoreboard) touchBlocker(k *Kernel, x *ctaExtra) string {
	if int(x.touchNext) >= len(x.touches) {
		return ""
	}
	t := x.touches[x.touchNext]
	for p := t.lo; p <= t.hi; p = min(sb.end(sb.group(p)), t.hi+1) {
		if g := sb.group(p); !sb.mayTouch(k, g) {
			return sb.pageProblem(k, g, p)
		}
	}
	return ""
}
