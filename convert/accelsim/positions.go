package accelsim

import (
	"cmp"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// positionPoints bounds the points of a CTA's run at which its records say
// it first touches a buffer's pages: at most this many pages records per
// CTA and buffer, however many instructions touch it.
const positionPoints = 16

// positions maps the cost model's warp times to at, cycles into the CTA's
// run. The model runs a CTA's warps side by side from 0, each adding its
// instructions' costs, and the CTA takes ⌈max(slowest warp, insts ÷
// issue_width)⌉ cycles; so an instruction a warp issues at time t (its
// cost so far) lies t × cycles ÷ slowest into the CTA's run: its place in
// the slowest warp's time, stretched with the warps when the issue width
// bounds the CTA. That point is quantised down to a multiple of
// ⌈cycles ÷ 16⌉, the first of at most 16 points: early rather than late, so
// a replay that gates the CTA at a page waits for it no later than the
// CTA's real first touch.
type positions struct {
	scale float64 // cycles ÷ slowest warp
	step  int64   // ⌈cycles ÷ positionPoints⌉, at least 1
}

func newPositions(cycles int64, slowest float64) positions {
	p := positions{step: max(cycles/positionPoints, 1)}
	if cycles > positionPoints && cycles%positionPoints != 0 {
		p.step++
	}
	if slowest > 0 {
		p.scale = float64(cycles) / slowest
	}
	return p
}

// at is the point of the CTA's run at which a warp time t lies.
func (p positions) at(t float64) int64 {
	k := int64(t * p.scale / float64(p.step))
	return min(max(k, 0), positionPoints-1) * p.step
}

// pageUse is what a CTA did to one page: how it accessed it, and the
// earliest warp time at which one of its warps did.
type pageUse struct {
	acc   access
	first float64
}

// records are the buffer's pages records for the CTA, one per point at
// which it first touches some of its pages, in order of at; first is the
// earliest at, where its access record lies.
func (cb *ctaBuf) records(kernel, cta uint64, pos positions) (recs []*trace.Pages, first int64) {
	for page, u := range cb.pages {
		at := pos.at(u.first)
		i := slices.IndexFunc(recs, func(p *trace.Pages) bool { return p.At == at })
		if i < 0 {
			i = len(recs)
			recs = append(recs, &trace.Pages{Kernel: kernel, CTA: cta, Buffer: cb.b.id, At: at})
		}
		p := recs[i]
		if u.acc&accRead != 0 {
			p.R = append(p.R, page)
		}
		if u.acc&accWrite != 0 {
			p.W = append(p.W, page)
		}
	}
	slices.SortFunc(recs, func(a, b *trace.Pages) int { return cmp.Compare(a.At, b.At) })
	for _, p := range recs {
		slices.Sort(p.R)
		slices.Sort(p.W)
	}
	if len(recs) > 0 {
		first = recs[0].At
	}
	return recs, first
}
