package replay

// The scoreboard's references given back: a finished CTA releases its
// references, a page whose owner has none left passes to the next kernel
// with references (or back to the host), and PPCS reads the placed
// references and page shares (scoreboard.go has the table and the checks
// before a CTA runs).

import (
	"cmp"
	"slices"

	"github.com/gpureplay/gpureplay/tables"
)

// release drops a finished CTA's references; pages whose owner has no
// references left pass to the next kernel, or back to the host. The
// CTA's ranges, merged, are those the profiler counted, so they cover
// whole groups; each group gives back one reference however many of the
// CTA's records name it, in the order the records first do.
func (sb *scoreboard) release(io *hostIO, sink tables.Sink, k *Kernel, x *ctaExtra, now int64) {
	if sb.irregular[k.id] {
		sb.dropIrregular(io, sink, now)
		return
	}
	sb.eachGroupOnce(k, x, func(g int) { sb.drop(io, sink, g, now) })
}

// eachGroupOnce calls fn once with each group a regular CTA of k
// references, in the order its records first name them (the order the
// pages table's rows follow).
func (sb *scoreboard) eachGroupOnce(k *Kernel, x *ctaExtra, fn func(g int)) {
	sb.stamp++
	sb.eachGroup(k, x, func(g, _ int) bool {
		if sb.groups[g].seen != sb.stamp {
			sb.groups[g].seen = sb.stamp
			fn(g)
		}
		return true
	})
}

// drop gives back one reference of group g's owner (a CTA only ran once
// its kernel owned all its pages, and ownership cannot move while the
// kernel holds references, so the reference is the owner's).
func (sb *scoreboard) drop(io *hostIO, sink tables.Sink, g int, now int64) {
	st := &sb.groups[g].st
	if int(st.cur) >= len(st.refs) {
		return // nothing left to give back (cannot happen with a validated trace)
	}
	ref := &st.refs[st.cur]
	ref.placed--
	if ref.left--; ref.left > 0 {
		return
	}
	st.cur++
	if int(st.cur) == len(st.refs) {
		st.refs, st.cur = nil, 0
	}
	sb.passOn(io, sink, g, ref.order, now)
}

// dropIrregular gives back one reference of the oldest irregular kernel
// with some left, which a CTA of it only holds while it owns every page.
// When its last CTA ends every page passes on.
func (sb *scoreboard) dropIrregular(io *hostIO, sink tables.Sink, now int64) {
	if sb.irrCur >= len(sb.irr) {
		return // cannot happen with a validated trace
	}
	ref := &sb.irr[sb.irrCur]
	ref.placed--
	if ref.left--; ref.left > 0 {
		return
	}
	sb.irrCur++
	for g := range sb.groups {
		sb.passOn(io, sink, g, ref.order, now)
	}
}

// passOn moves group g's pages on from old, whose references to them are
// all given back: to their next owner, or to the host.
func (sb *scoreboard) passOn(io *hostIO, sink tables.Sink, g int, old int32, now int64) {
	st := &sb.groups[g].st
	lo, n := sb.groups[g].lo, sb.size(g)
	sb.changed = true
	sb.owned[old] -= n
	if st.avail {
		sb.ownedAvail[old] -= n
	}
	if !st.input && !st.avail {
		// Its producer, the first kernel to reference it, is done with
		// it: from now on it is data a later kernel can work on.
		st.avail = true
		sb.avail += n
	}
	if o := sb.owner(g); o >= 0 {
		sb.owned[o] += n
		if st.avail {
			sb.ownedAvail[o] += n
		}
		io.pageRows(sink, lo, n, "owner", &sb.ids[o], now)
		return
	}
	if sb.space.buffer(lo).writes() {
		io.writeBackRun(sink, lo, n, &sb.ids[old], now)
	}
}

// placed notes a CTA of k placed on an SM: its references are no longer
// an unplaced CTA's (waitsOnUnplaced).
func (sb *scoreboard) placed(k *Kernel, x *ctaExtra) {
	if sb.irregular[k.id] {
		sb.irrRef(k).placed++
		return
	}
	sb.eachGroupOnce(k, x, func(g int) {
		if r := sb.groups[g].st.ref(k.order); r != nil {
			r.placed++
		}
	})
}

// irrRef is irregular kernel k's entry in irr.
func (sb *scoreboard) irrRef(k *Kernel) *pageRef {
	i, _ := slices.BinarySearchFunc(sb.irr, k.order, func(r pageRef, o int32) int { return cmp.Compare(r.order, o) })
	return &sb.irr[i]
}

// ref is kernel order o's references to the group's pages, or nil.
func (p *pageState) ref(o int32) *pageRef {
	for i := int(p.cur); i < len(p.refs); i++ {
		if p.refs[i].order == o {
			return &p.refs[i]
		}
	}
	return nil
}

// waitsOnUnplaced reports whether a CTA of k with extra x, if placed now,
// could wait for a CTA of an older kernel that is not placed yet: some
// page it references is also referenced by an older kernel's unplaced
// CTAs (an older irregular kernel's reference every page). Such a CTA
// holds its SM until that older CTA runs, which needs an SM of its own.
func (sb *scoreboard) waitsOnUnplaced(k *Kernel, x *ctaExtra) bool {
	for _, r := range sb.irr[sb.irrCur:] {
		if r.order >= k.order {
			break
		}
		if r.left > r.placed {
			return true
		}
	}
	waits := false
	sb.eachGroup(k, x, func(g, _ int) bool {
		st := &sb.groups[g].st
		for _, r := range st.refs[st.cur:] {
			if r.order >= k.order {
				break
			}
			if r.left > r.placed {
				waits = true
				return false
			}
		}
		return true
	})
	return waits
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
