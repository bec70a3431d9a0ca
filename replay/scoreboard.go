package replay

// Coarse-grained Reference Counting-based Scoreboarding (CRCS §4.1): per
// page, in kernel order, how many CTAs of each kernel may still touch it.
// The page's owner is the oldest kernel with references left; a CTA runs
// only when every page it references is ready on the GPU and owned by its
// kernel, and gives its references back when it finishes.
//
// The table keeps its state per page group, not per page: a run of
// consecutive pages that no CTA's range starts or ends inside, so that
// every reference, release and arrival touches a group whole and its
// pages stay alike for the whole run (page i of a 1 TiB buffer no kernel
// names is in the same state as page j). Groups split at every buffer
// start and every end of a range the profiler saw, and at every page when
// the host stages bring pages in one at a time. Memory and time follow the
// ranges the trace names, not the bytes it declares.
//
// An irregular kernel references every page with all its CTAs, so its
// references are one count for the whole page space (irr) rather than an
// entry per group: a CTA of it gives its references back in one step, and
// only the kernel's last CTA walks the groups, to pass each to its next
// owner. Kernels without access records (every Kineto and nsys import)
// so cost a pass over the groups per kernel, not per CTA.

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gpureplay/gpureplay/tables"
)

// scoreboard is the reference count table and the page states: the CRCS
// component. Its state is its own, read and written only by its methods
// (here, pagerefs.go's releases, touch.go's access-order checks,
// refprofile.go's pre-profiler, which builds it); the engine asks it whether a CTA may start or go on
// (mayStart, passes), tells it of placements, page arrivals and CTA ends
// (placed, ready, release), and re-asks stalled CTAs only when it reports
// a change (changedSince). It never schedules an event nor touches a CTA
// or an SM: what a page's arrival or a stall costs is the engine's.
type scoreboard struct {
	space      *pageSpace
	groups     []pageGroup
	pages      int      // in the page space
	ids        []uint64 // kernel id by order
	irregular  map[uint64]bool
	setRanges  []int64 // by order: its pre-profiler's SetRange calls, CTAs × arrays (costs.go)
	owned      []int   // by order: pages it owns
	ownedAvail []int   // by order: pages it owns that count towards page shares
	// irr are the irregular kernels in order, each with its CTAs that
	// still hold references to every page; irr[irrCur] is the oldest
	// with some left.
	irr        []pageRef
	irrCur     int
	avail      int // pages that count towards page shares
	readyIn    int // input pages ready
	inputPages int
	changed    bool   // a page became ready or changed owner since the last look
	stamp      uint64 // releases so far (pageGroup.seen)
	// positioned: some access or pages record says where in its CTA's
	// run it touches its pages (a non-zero at), so crcs.gate=access
	// checks CTAs in access order.
	positioned bool
}

// changedSince reports whether any page became ready or changed owner
// since the last call: only then can a CTA the scoreboard stalled start,
// so the engine skips re-asking otherwise. Nil-safe: without a
// scoreboard nothing changes.
func (sb *scoreboard) changedSince() bool {
	if sb == nil || !sb.changed {
		return false
	}
	sb.changed = false
	return true
}

// wake has the engine re-ask the CTAs the scoreboard stalled at the end
// of the cycle, as if a page had changed (a kernel's pre-profiler ended).
func (sb *scoreboard) wake() { sb.changed = true }

// isIrregular reports whether k references every page (no profiled
// ranges).
func (sb *scoreboard) isIrregular(k *Kernel) bool { return sb.irregular[k.id] }

// profilerCalls is host kernel k's pre-profiler's SetRange calls, its CTAs
// × arrays (costs.go).
func (sb *scoreboard) profilerCalls(k *Kernel) int64 { return sb.setRanges[k.order] }

// hostKernels is the number of host kernels in the trace.
func (sb *scoreboard) hostKernels() int { return len(sb.ids) }

// irregularKernels are the ids of the kernels with no access records, which
// reference every page (the body cursor gives their CTAs those references).
func (sb *scoreboard) irregularKernels() map[uint64]bool { return sb.irregular }

// accessPositioned reports whether some access or pages record says where
// in its CTA's run it touches its pages, so crcs.gate=access can check
// CTAs in access order.
func (sb *scoreboard) accessPositioned() bool { return sb.positioned }

func newScoreboard(space *pageSpace) *scoreboard {
	return &scoreboard{space: space, pages: space.pages, irregular: map[uint64]bool{}}
}

// build makes the groups once every kernel's references are in (spans,
// in kernel order) and fills them. The pages the prelude fills start not
// ready when the host stages are modelled (staged), each a group of its
// own as it arrives alone; every page is ready otherwise. With madeLater
// (crcs.share=available), pages the GPU makes count towards page shares
// only once their producer has released them; otherwise from the start,
// like the prelude's pages that are already there.
func (sb *scoreboard) build(spans []refSpan, staged, madeLater bool) {
	space := sb.space
	var cuts []int
	for i := range space.bufs {
		b := &space.bufs[i]
		cuts = append(cuts, b.first)
		if staged && b.reads() {
			for p := b.first + 1; p < b.first+b.pages; p++ {
				cuts = append(cuts, p)
			}
		}
	}
	for _, s := range spans {
		cuts = append(cuts, s.lo, s.hi+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	if n := len(cuts); n > 0 && cuts[n-1] >= space.pages {
		cuts = cuts[:sort.SearchInts(cuts, space.pages)]
	}
	sb.groups = make([]pageGroup, len(cuts))
	for i, lo := range cuts {
		b := space.buffer(lo)
		sb.groups[i] = pageGroup{lo: lo, st: pageState{
			input: b.reads(),
			ready: !staged || !b.reads(),
			avail: b.reads() && !staged || !b.reads() && !madeLater,
		}}
	}
	for i := range space.bufs {
		b := &space.bufs[i]
		if !b.reads() && !madeLater {
			sb.avail += b.pages
		}
		if b.reads() {
			sb.inputPages += b.pages
			if !staged {
				sb.readyIn += b.pages
				sb.avail += b.pages
			}
		}
	}
	for _, s := range spans {
		for g := sb.group(s.lo); g < len(sb.groups) && sb.groups[g].lo <= s.hi; g++ {
			st := &sb.groups[g].st
			st.refs = append(st.refs, pageRef{order: s.order, left: s.n})
		}
	}
	for g := range sb.groups {
		if o := sb.owner(g); o >= 0 {
			sb.owned[o] += sb.size(g)
			if sb.groups[g].st.avail {
				sb.ownedAvail[o] += sb.size(g)
			}
		}
	}
}

// group is the index of the group holding page p.
func (sb *scoreboard) group(p int) int {
	if len(sb.groups) == sb.pages {
		return p // a group per page
	}
	lo, hi := 0, len(sb.groups) // groups[lo].lo <= p < groups[hi].lo
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if sb.groups[mid].lo <= p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// end is the first page after group g.
func (sb *scoreboard) end(g int) int {
	if g+1 < len(sb.groups) {
		return sb.groups[g+1].lo
	}
	return sb.pages
}

// size is group g's pages.
func (sb *scoreboard) size(g int) int { return sb.end(g) - sb.groups[g].lo }

// owner is group g's owner: the oldest kernel with references to its pages
// left, a regular kernel's (the group's own list) or an irregular one's
// (irr); -1 when none is left.
func (sb *scoreboard) owner(g int) int32 {
	o := sb.groups[g].st.regular()
	if sb.irrCur < len(sb.irr) {
		if i := sb.irr[sb.irrCur].order; o < 0 || i < o {
			return i
		}
	}
	return o
}

// addKernel registers the next kernel in host order.
func (sb *scoreboard) addKernel(id uint64) int32 {
	sb.ids = append(sb.ids, id)
	sb.setRanges = append(sb.setRanges, 0)
	sb.owned = append(sb.owned, 0)
	sb.ownedAvail = append(sb.ownedAvail, 0)
	return int32(len(sb.ids) - 1)
}

// setCalls notes host kernel order's pre-profiler SetRange calls
// (profilerCalls).
func (sb *scoreboard) setCalls(order int32, calls int) { sb.setRanges[order] = int64(calls) }

// notePositioned notes a record that says where in its CTA's run it
// touches its pages (accessPositioned).
func (sb *scoreboard) notePositioned() { sb.positioned = true }

// addIrregular gives irregular kernel order n CTAs' references to every
// page.
func (sb *scoreboard) addIrregular(id uint64, order int32, n int32) {
	sb.irregular[id] = true
	sb.irr = append(sb.irr, pageRef{order: order, left: n})
}

// start emits each page's first owner and writes back at once the output
// pages no kernel references.
func (sb *scoreboard) start(io *hostIO, sink tables.Sink) {
	for g := range sb.groups {
		lo, n := sb.groups[g].lo, sb.size(g)
		if o := sb.owner(g); o >= 0 {
			io.pageRows(sink, lo, n, "owner", &sb.ids[o], 0)
			continue
		}
		if sb.groups[g].st.ready && sb.space.buffer(lo).writes() {
			io.writeBackRun(sink, lo, n, nil, 0)
		}
	}
}

// ready marks page p ready on the GPU at cycle now: a group of its own,
// as every page the prelude fills is.
func (sb *scoreboard) ready(io *hostIO, sink tables.Sink, p int, now int64) {
	g := sb.group(p)
	st := &sb.groups[g].st
	st.ready, st.avail = true, true
	sb.readyIn++
	sb.avail++
	sb.changed = true
	o := sb.owner(g)
	var kid *uint64
	if o >= 0 {
		sb.ownedAvail[o]++
		kid = &sb.ids[o]
	}
	io.pageRow(sink, p, "ready", kid, now)
	if o < 0 && sb.space.buffer(p).writes() {
		io.writeBack(sink, p, nil, now)
	}
}

// mayStart reports whether every page the CTA references is ready and
// owned by its kernel. An irregular kernel references every page.
func (sb *scoreboard) mayStart(k *Kernel, x *ctaExtra) bool {
	if sb.irregular[k.id] {
		return sb.readyIn == sb.inputPages && sb.ownsAll(k)
	}
	if x == nil {
		return true
	}
	x.normalizeRefs()
	// A page once ready and owned by the CTA's kernel stays so until the
	// CTA ends (it holds a reference), so a stalled CTA's next check
	// resumes at the page that stopped the last one.
	skip := x.checked
	for _, r := range x.refs {
		n := r.hi - r.lo + 1
		if skip >= n {
			skip -= n
			continue
		}
		for p := r.lo + skip; p <= r.hi; {
			g := sb.group(p)
			if !sb.groups[g].st.ready || sb.owner(g) != k.order {
				return false
			}
			next := min(sb.end(g), r.hi+1)
			x.checked += next - p
			p = next
		}
		skip = 0
	}
	return true
}

// blocker names the first page that keeps a CTA of k from starting: not
// yet on the GPU, or owned by an older kernel. For deadlock reports.
func (sb *scoreboard) blocker(k *Kernel, x *ctaExtra) string {
	if x != nil && x.touchesReady && (!sb.irregular[k.id] || sb.ownsAll(k)) {
		return sb.touchBlocker(k, x)
	}
	why := ""
	sb.eachGroup(k, x, func(g, p int) bool {
		why = sb.pageProblem(k, g, p)
		return why == ""
	})
	return why
}

// pageProblem says why page p, of group g, keeps a CTA of k waiting, or ""
// if nothing does.
func (sb *scoreboard) pageProblem(k *Kernel, g, p int) string {
	st := &sb.groups[g].st
	b := sb.space.buffer(p)
	switch o := sb.owner(g); {
	case !st.ready:
		return fmt.Sprintf("page %d of buffer %d is not on the GPU", p-b.first, b.id)
	case o != k.order && o >= 0:
		return fmt.Sprintf("page %d of buffer %d is owned by kernel %d", p-b.first, b.id, sb.ids[o])
	}
	return ""
}

// eachGroup calls fn with every group a CTA of k references — all of
// them for an irregular kernel — and the first page of it the CTA
// references, until fn returns false.
func (sb *scoreboard) eachGroup(k *Kernel, x *ctaExtra, fn func(g, p int) bool) {
	if sb.irregular[k.id] {
		for g := range sb.groups {
			if !fn(g, sb.groups[g].lo) {
				return
			}
		}
		return
	}
	if x == nil {
		return
	}
	for _, r := range x.refs {
		for g := sb.group(r.lo); g < len(sb.groups) && sb.groups[g].lo <= r.hi; g++ {
			if !fn(g, max(sb.groups[g].lo, r.lo)) {
				return
			}
		}
	}
}

// ownsAll reports whether k owns every page, as an irregular kernel must
// to run.
func (sb *scoreboard) ownsAll(k *Kernel) bool { return sb.owned[k.order] == sb.pages }
