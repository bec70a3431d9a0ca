package replay

// The run's page space: every buffer's pages numbered in one space, the
// order the prelude reads the input pages in, and the bound on the pages
// a run walks one at a time. The host I/O stages (hostio.go) and the CRCS
// scoreboard (scoreboard.go) both number pages so.

import (
	"fmt"

	"github.com/gpureplay/gpureplay/trace"
)

// bufPages is one buffer's place in the run's page space: its pages are
// numbered first, first+1, ... in one space over all buffers.
type bufPages struct {
	id    uint64
	role  trace.Role
	bytes int64
	first int
	pages int
}

// reads reports whether the prelude fills the buffer; writes whether the
// postlude reads it back.
func (b *bufPages) reads() bool  { return b.role == trace.RoleInput || b.role == trace.RoleInOut }
func (b *bufPages) writes() bool { return b.role == trace.RoleOutput || b.role == trace.RoleInOut }

// pageSpace numbers every page of the buffers declared before the first
// launch.
type pageSpace struct {
	pageBytes int64
	bufs      []bufPages
	byID      map[uint64]int
	pages     int
}

func newPageSpace(pageBytes int64) *pageSpace {
	return &pageSpace{pageBytes: pageBytes, byID: map[uint64]int{}}
}

// add declares a buffer; a second declaration of the same id is the
// validator's to report, so it is ignored here.
func (s *pageSpace) add(b *trace.Buffer) {
	if _, dup := s.byID[b.ID]; dup || b.Bytes <= 0 {
		return
	}
	n := int((b.Bytes + s.pageBytes - 1) / s.pageBytes)
	s.byID[b.ID] = len(s.bufs)
	s.bufs = append(s.bufs, bufPages{id: b.ID, role: b.Role, bytes: b.Bytes, first: s.pages, pages: n})
	s.pages += n
}

// buffer returns the buffer holding global page p.
func (s *pageSpace) buffer(p int) *bufPages {
	lo, hi := 0, len(s.bufs)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if s.bufs[mid].first <= p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return &s.bufs[lo]
}

// pageBytesOf is how many bytes global page p holds (a buffer's last page
// may be partial).
func (s *pageSpace) pageBytesOf(p int) int64 {
	b := s.buffer(p)
	if i := p - b.first; i == b.pages-1 {
		return b.bytes - int64(i)*s.pageBytes
	}
	return s.pageBytes
}

// preludeOrder walks the prelude's pages: page 0 of every input buffer in
// declaration order, then page 1 of each, and so on (CRCS §5.1: "the
// initialization of the arrays is interleaved").
type preludeOrder struct {
	s      *pageSpace
	rounds int // pages of the largest input buffer
	round  int
	buf    int
}

func newPreludeOrder(s *pageSpace) preludeOrder {
	o := preludeOrder{s: s}
	for i := range s.bufs {
		if b := &s.bufs[i]; b.reads() {
			o.rounds = max(o.rounds, b.pages)
		}
	}
	return o
}

// next returns the next page read, or false when the prelude is over.
func (o *preludeOrder) next() (int, bool) {
	for o.round < o.rounds {
		for o.buf < len(o.s.bufs) {
			b := &o.s.bufs[o.buf]
			o.buf++
			if b.reads() && o.round < b.pages {
				return b.first + o.round, true
			}
		}
		o.round++
		o.buf = 0
	}
	return 0, false
}

// maxPagedPages bounds the pages a run moves or reports one at a time:
// the host stages' (io.model=stages) and the pages table's (under a CRCS
// policy with a sink that keeps rows). 2^22 pages is 16 GiB of 4 KiB
// pages, and about 8M rows and a few seconds of replay.
const maxPagedPages = 1 << 22

// checkPages refuses a page space the run would walk page by page beyond
// maxPagedPages: the host stages' buffers, or, when the pages table is
// kept under a CRCS policy, every buffer. Without either, the scoreboard
// keeps state per group of alike pages and any size replays.
func checkPages(space *pageSpace, stages, paged, rows bool) error {
	n, big := 0, (*bufPages)(nil)
	for i := range space.bufs {
		b := &space.bufs[i]
		if stages && (b.reads() || b.writes()) || paged && rows {
			n += b.pages
			if big == nil || b.pages > big.pages {
				big = b
			}
		}
	}
	if n <= maxPagedPages {
		return nil
	}
	why := "the host I/O stages (io.model=stages) move each page alone; replay with io.model=none"
	if !stages {
		why = "the pages table (kept with --out) has a row for each page's events; replay without --out"
	}
	return &ModelError{Msg: fmt.Sprintf("buffer %d has %d pages of %d bytes (%d pages in all): %s, or declare larger pages (page_bytes in the trace header, else io.page_bytes): at most %d (2^22) pages", big.id, big.pages, space.pageBytes, n, why, maxPagedPages)}
}

// lateBuffer is the error for a buffer the I/O model cannot place.
func lateBuffer(b *trace.Buffer) error {
	return &ModelError{Msg: fmt.Sprintf("buffer %d (%s) is declared after the first launch: with io.model=stages every buffer must be declared before the first launch, so the prelude knows what to read", b.ID, b.Name)}
}
