package replay

// Coarse-grained Reference Counting-based Scoreboarding (CRCS §4.1): per
// page, in kernel order, how many CTAs of each kernel may still touch it.
// The page's owner is the oldest kernel with references left; a CTA runs
// only when every page it references is ready on the GPU and owned by its
// kernel, and gives its references back when it finishes.
//
// An irregular kernel references every page with all its CTAs, so its
// references are one count for the whole page space (irr) rather than an
// entry per page: a CTA of it gives its references back in one step, and
// only the kernel's last CTA walks the pages, to pass each to its next
// owner. Kernels without access records (every Kineto and nsys import)
// so cost a pass over the pages per kernel, not per CTA.

import (
	"fmt"
	"slices"

	"github.com/gpureplay/gpureplay/results"
)

// pageRef is one kernel's remaining references to a page.
type pageRef struct {
	order int32 // the kernel's place in host launch order
	left  int32 // its CTAs that may still touch the page
}

// pageState is one page's entry in the GPU page table.
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

// owner is page p's owner: the oldest kernel with references to it left,
// a regular kernel's (the page's own list) or an irregular one's (irr);
// -1 when none is left.
func (sb *scoreboard) owner(p int) int32 {
	o := sb.pages[p].regular()
	if sb.irrCur < len(sb.irr) {
		if i := sb.irr[sb.irrCur].order; o < 0 || i < o {
			return i
		}
	}
	return o
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

// scoreboard is the reference count table and the page states.
type scoreboard struct {
	space      *pageSpace
	pages      []pageState
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
	changed    bool // a page became ready or changed owner since the last look
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

// newScoreboard starts with the pages the prelude fills not ready when the
// host stages are modelled (staged), and every page ready otherwise. With
// madeLater (crcs.share=available), pages the GPU makes count towards page
// shares only once their producer has released them; otherwise from the
// start, like the prelude's pages that are already there.
func newScoreboard(space *pageSpace, staged, madeLater bool) *scoreboard {
	sb := &scoreboard{space: space, pages: make([]pageState, space.pages), irregular: map[uint64]bool{}}
	for i := range space.bufs {
		b := &space.bufs[i]
		for p := b.first; p < b.first+b.pages; p++ {
			sb.pages[p].input = b.reads()
			sb.pages[p].ready = !staged || !b.reads()
			sb.pages[p].avail = b.reads() && !staged || !b.reads() && !madeLater
		}
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
	return sb
}

// addKernel registers the next kernel in host order.
func (sb *scoreboard) addKernel(id uint64) int32 {
	sb.ids = append(sb.ids, id)
	sb.setRanges = append(sb.setRanges, 0)
	sb.owned = append(sb.owned, 0)
	sb.ownedAvail = append(sb.ownedAvail, 0)
	return int32(len(sb.ids) - 1)
}

// addRefs gives kernel order n CTAs' references to page p. Kernels are
// added in order, so each page's list stays sorted.
func (sb *scoreboard) addRefs(p int, order int32, n int32) {
	st := &sb.pages[p]
	st.refs = append(st.refs, pageRef{order: order, left: n})
}

// addIrregular gives irregular kernel order n CTAs' references to every
// page.
func (sb *scoreboard) addIrregular(id uint64, order int32, n int32) {
	sb.irregular[id] = true
	sb.irr = append(sb.irr, pageRef{order: order, left: n})
}

// countOwners fills the owned counts once every kernel's references are
// in.
func (sb *scoreboard) countOwners() {
	for p := range sb.pages {
		if o := sb.owner(p); o >= 0 {
			sb.owned[o]++
			if sb.pages[p].avail {
				sb.ownedAvail[o]++
			}
		}
	}
}

// start emits each page's first owner and writes back at once the output
// pages no kernel references.
func (sb *scoreboard) start(io *hostIO, sink results.Sink) {
	for p := range sb.pages {
		if o := sb.owner(p); o >= 0 {
			io.pageRow(sink, p, "owner", &sb.ids[o], 0)
			continue
		}
		if sb.pages[p].ready && sb.space.buffer(p).writes() {
			io.writeBack(sink, p, nil, 0)
		}
	}
}

// ready marks page p ready on the GPU at cycle now.
func (sb *scoreboard) ready(io *hostIO, sink results.Sink, p int, now int64) {
	st := &sb.pages[p]
	st.ready, st.avail = true, true
	sb.readyIn++
	sb.avail++
	sb.changed = true
	o := sb.owner(p)
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
	if !x.refsSorted {
		x.refs = normalizeRanges(x.refs)
		x.refsSorted = true
	}
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
		for p := r.lo + skip; p <= r.hi; p++ {
			if !sb.pages[p].ready || sb.owner(p) != k.order {
				return false
			}
			x.checked++
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
	sb.eachPage(k, x, func(p int) bool {
		why = sb.pageProblem(k, p)
		return why == ""
	})
	return why
}

// pageProblem says why page p keeps a CTA of k waiting, or "" if nothing
// does.
func (sb *scoreboard) pageProblem(k *Kernel, p int) string {
	st := &sb.pages[p]
	b := sb.space.buffer(p)
	switch o := sb.owner(p); {
	case !st.ready:
		return fmt.Sprintf("page %d of buffer %d is not on the GPU", p-b.first, b.id)
	case o != k.order && o >= 0:
		return fmt.Sprintf("page %d of buffer %d is owned by kernel %d", p-b.first, b.id, sb.ids[o])
	}
	return ""
}

// eachPage calls fn with every page a CTA of k references — all of them
// for an irregular kernel — until fn returns false.
func (sb *scoreboard) eachPage(k *Kernel, x *ctaExtra, fn func(p int) bool) {
	if sb.irregular[k.id] {
		for p := range sb.pages {
			if !fn(p) {
				return
			}
		}
		return
	}
	if x == nil {
		return
	}
	for _, r := range x.refs {
		for p := r.lo; p <= r.hi; p++ {
			if !fn(p) {
				return
			}
		}
	}
}

// ownsAll reports whether k owns every page, as an irregular kernel must
// to run.
func (sb *scoreboard) ownsAll(k *Kernel) bool { return sb.owned[k.order] == len(sb.pages) }

// release drops a finished CTA's references; pages whose owner has no
// references left pass to the next kernel, or back to the host.
func (sb *scoreboard) release(io *hostIO, sink results.Sink, k *Kernel, x *ctaExtra, now int64) {
	if sb.irregular[k.id] {
		sb.dropIrregular(io, sink, now)
		return
	}
	sb.eachPage(k, x, func(p int) bool {
		sb.drop(io, sink, p, now)
		return true
	})
}

// drop gives back one reference of the page's owner (a CTA only ran once
// its kernel owned all its pages, and ownership cannot move while the
// kernel holds references, so the reference is the owner's).
func (sb *scoreboard) drop(io *hostIO, sink results.Sink, p int, now int64) {
	st := &sb.pages[p]
	if int(st.cur) >= len(st.refs) {
		return // nothing left to give back (cannot happen with a validated trace)
	}
	ref := &st.refs[st.cur]
	if ref.left--; ref.left > 0 {
		return
	}
	st.cur++
	if int(st.cur) == len(st.refs) {
		st.refs, st.cur = nil, 0
	}
	sb.passOn(io, sink, p, ref.order, now)
}

// dropIrregular gives back one reference of the oldest irregular kernel
// with some left, which a CTA of it only holds while it owns every page.
// When its last CTA ends every page passes on.
func (sb *scoreboard) dropIrregular(io *hostIO, sink results.Sink, now int64) {
	if sb.irrCur >= len(sb.irr) {
		return // cannot happen with a validated trace
	}
	ref := &sb.irr[sb.irrCur]
	if ref.left--; ref.left > 0 {
		return
	}
	sb.irrCur++
	for p := range sb.pages {
		sb.passOn(io, sink, p, ref.order, now)
	}
}

// passOn moves page p on from old, whose references to it are all given
// back: to its next owner, or to the host.
func (sb *scoreboard) passOn(io *hostIO, sink results.Sink, p int, old int32, now int64) {
	st := &sb.pages[p]
	sb.changed = true
	sb.owned[old]--
	if st.avail {
		sb.ownedAvail[old]--
	}
	if !st.input && !st.avail {
		// Its producer, the first kernel to reference it, is done with
		// it: from now on it is data a later kernel can work on.
		st.avail = true
		sb.avail++
	}
	if o := sb.owner(p); o >= 0 {
		sb.owned[o]++
		if st.avail {
			sb.ownedAvail[o]++
		}
		io.pageRow(sink, p, "owner", &sb.ids[o], now)
		return
	}
	if sb.space.buffer(p).writes() {
		io.writeBack(sink, p, &sb.ids[old], now)
	}
}

// pageShare is PPCS's page share of kernel order o (CRCS §4.4): "the
// portion of the pages owned by the kernel out of all available pages
// (i.e., pages that are initialized by the prelude and transferred)". A
// prelude page counts once it has arrived. A page the GPU makes (temp and
// output buffers) counts from the start (crcs.share=ready), or, as the
// sentence reads, once its producer, the first kernel that references it,
// has released it (crcs.share=available).
func (sb *scoreboard) pageShare(o int32) float64 {
	if sb.avail == 0 || o < 0 {
		return 0
	}
	return float64(sb.ownedAvail[o]) / float64(sb.avail)
}
