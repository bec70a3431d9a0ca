package replay

// The CRCS pre-profiler's result (§4.2): before any kernel runs, the
// reference count table holds, for every page, how many CTAs of each
// kernel may touch it. The engine builds it with one pass over the trace's
// access (or pages) records, a launch tree at a time, so the pass keeps
// one tree's references in memory besides the table itself.

import (
	"cmp"
	"errors"
	"io"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// refSource says which records give a CTA's pages: the profiler's access
// ranges rounded out to pages, or the exact pages of a full trace.
type refSource struct {
	exact bool
	space *pageSpace
}

// counts reports whether a record is one this source takes references
// from.
func (s refSource) counts(r trace.Record) bool {
	switch r.(type) {
	case *trace.Access:
		return !s.exact
	case *trace.Pages:
		return s.exact
	}
	return false
}

// recordCTA is the kernel and CTA an access or pages record describes.
func recordCTA(r trace.Record) (kernel, cta uint64) {
	switch r := r.(type) {
	case *trace.Access:
		return r.Kernel, r.CTA
	case *trace.Pages:
		return r.Kernel, r.CTA
	}
	return 0, 0
}

// recordAt is where an access or pages record says its CTA touches its
// pages; 0 for every other record.
func recordAt(r trace.Record) int64 {
	switch r := r.(type) {
	case *trace.Access:
		return r.At
	case *trace.Pages:
		return r.At
	}
	return 0
}

// appendRanges appends the pages a record of this source names, as ranges
// of the run's page space. Parts outside the buffer are ignored, as the
// profiler's SetRange ignores bounds beyond the allocation (§4.2.2).
func (s refSource) appendRanges(r trace.Record, out []pageRange) []pageRange {
	switch r := r.(type) {
	case *trace.Access:
		if pr, ok := s.accessRange(r); ok {
			out = append(out, pr)
		}
	case *trace.Pages:
		s.eachPage(r, func(p int) { out = append(out, pageRange{p, p}) })
	}
	return out
}

// eachPage calls fn with each page a pages record names that lies in its
// buffer, as a page of the run's page space: its reads, then its writes.
func (s refSource) eachPage(r *trace.Pages, fn func(p int)) {
	b := s.buf(r.Buffer)
	if b == nil {
		return
	}
	for _, list := range [2][]uint64{r.R, r.W} {
		for _, p := range list {
			if p < uint64(b.pages) {
				fn(b.first + int(p))
			}
		}
	}
}

// accessRange is the pages an access range covers, rounded out to pages
// and clipped to its buffer; false when nothing of it is inside.
func (s refSource) accessRange(a *trace.Access) (pageRange, bool) {
	b := s.buf(a.Buffer)
	if b == nil || a.Lo >= uint64(b.bytes) || a.Hi < a.Lo {
		return pageRange{}, false
	}
	pb := uint64(s.space.pageBytes)
	hi := min(a.Hi, uint64(b.bytes-1))
	return pageRange{b.first + int(a.Lo/pb), b.first + int(hi/pb)}, true
}

func (s refSource) buf(id uint64) *bufPages {
	i, ok := s.space.byID[id]
	if !ok {
		return nil
	}
	return &s.space.bufs[i]
}

// profiler builds the reference count table from a pass over the trace.
type profiler struct {
	src   refSource
	sb    *scoreboard
	decls map[uint64]uint64 // kernel id → CTAs, declared and not yet launched
	host  uint64            // the current tree's host kernel
	ctas  uint64            // its CTAs
	order int32
	refs  map[uint64][]pageRange // its CTAs' ranges
	calls int                    // its records: the pre-profiler's SetRange calls
	open  bool
	spans []refSpan // every kernel's references so far, in kernel order
}

// profileRefs reads src to the end and returns the filled scoreboard.
func profileRefs(src trace.Source, exact bool, space *pageSpace, staged, madeLater bool) (*scoreboard, error) {
	p := &profiler{
		src:   refSource{exact: exact, space: space},
		sb:    newScoreboard(space),
		decls: map[uint64]uint64{},
		refs:  map[uint64][]pageRange{},
	}
	trace.SetReadOptions(src, trace.ReadOptions{Skip: []trace.Kind{trace.KindCTA, trace.KindMemcpy}})
	for {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			p.flush()
			p.sb.build(p.spans, staged, madeLater)
			return p.sb, nil
		}
		if err != nil {
			return nil, err
		}
		p.record(r)
	}
}

func (p *profiler) record(r trace.Record) {
	switch r := r.(type) {
	case *trace.Kernel:
		p.decls[r.ID] = r.CTAs()
	case *trace.Launch:
		if r.Host() {
			p.flush()
			p.host, p.ctas, p.open, p.calls = r.Kernel, p.decls[r.Kernel], true, 0
			delete(p.decls, r.Kernel)
			p.order = p.sb.addKernel(r.Kernel)
		}
	default:
		if at := recordAt(r); at != 0 {
			p.sb.notePositioned()
		}
		if k, cta := recordCTA(r); p.src.counts(r) && p.open && k == p.host {
			p.refs[cta] = p.src.appendRanges(r, p.refs[cta])
			p.calls++
		}
	}
}

// flush files the finished tree's host kernel in the table: for each page,
// how many of its CTAs reference it. A kernel with no references is
// irregular: the profiler assumes it may touch every page (§4.2.1).
func (p *profiler) flush() {
	if !p.open {
		return
	}
	p.open = false
	if len(p.refs) == 0 {
		if p.ctas == 0 {
			return
		}
		p.sb.addIrregular(p.host, p.order, int32(min(p.ctas, 1<<31-1)))
		return
	}
	p.sb.setCalls(p.order, p.calls)
	p.spans = spansOf(p.order, p.refs, p.spans)
	clear(p.refs)
}

// spansOf is one kernel's references as spans: the pages between two
// consecutive ends of its CTAs' ranges (normalized), each with the count
// of its CTAs referencing them, by a sweep over the ranges' ends.
func spansOf(order int32, ctas map[uint64][]pageRange, out []refSpan) []refSpan {
	type edge struct {
		at int
		d  int32
	}
	var edges []edge
	for _, rs := range ctas {
		for _, r := range normalizeRanges(rs) {
			edges = append(edges, edge{r.lo, 1}, edge{r.hi + 1, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	var n int32
	for i := 0; i < len(edges); {
		at := edges[i].at
		for ; i < len(edges) && edges[i].at == at; i++ {
			n += edges[i].d
		}
		if n == 0 || i == len(edges) {
			continue
		}
		// Spans stay apart at every range end, equal counts or not: a CTA
		// gives back its own ranges, so a group must not straddle one.
		out = append(out, refSpan{order: order, n: n, lo: at, hi: edges[i].at - 1})
	}
	return out
}
