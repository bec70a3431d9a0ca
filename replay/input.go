package replay

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// Opener opens a fresh Source over the same trace on every call. The engine
// opens the trace twice (ingest.Streams), to read host launches and
// launch-tree bodies at their own paces; where the first Source has a
// HostIndex method (a binary file from trace.Open) and the file a host
// index, the host launches come from the index instead of a pass over the
// stream. Each Source is told what its reader does without
// (trace.SetReadOptions): the host pass skips all but host launches and
// copies, the bodies' reader reuses records, the page-reference profile
// skips cta records; a Source that takes options (trace.Open's binary
// files) saves that work, and one that takes none is read all the same.
// Sources that are io.Closers are closed when Run returns.
type Opener func() (trace.Source, error)

// clock rescales trace cycles to replay-GPU cycles. unit is ratio == 1,
// set by clockOf, for scale's test: a byte's, a compare and a branch,
// where the float's loaded its constant and branched twice (on parity
// too), at each of a launch's two times and a child's CTA and warp
// cycles (callgrind, --quick BFS: treeReader.children 171.8 -> 170.9
// instructions a CTA). A clock made otherwise, unit false, multiplies.
type clock struct {
	ratio float64
	unit  bool
}

// clockOf is the clock of ratio r.
func clockOf(r float64) clock { return clock{ratio: r, unit: r == 1} }

// MaxClockRatio bounds how much longer the replay clock makes a trace's
// times: with the trace's own bound (trace.MaxCycles) every rescaled time
// stays below 2^50 cycles, and the engine's sums of them inside int64.
const MaxClockRatio = 1024

// newClock rescales from a trace recorded at traceMHz to a GPU at gpuMHz.
func newClock(traceMHz, gpuMHz float64) (clock, error) {
	r := gpuMHz / traceMHz
	if !(r <= MaxClockRatio) {
		return clock{}, &ModelError{Msg: fmt.Sprintf("the trace's clock is %g MHz and the GPU's %g MHz: replayed, its times would grow %.3g-fold, more than %d (set gpu.clock_mhz, or fix the trace's clock_mhz)", traceMHz, gpuMHz, r, MaxClockRatio)}
	}
	return clockOf(r), nil
}

func (c clock) scale(v int64) int64 {
	if c.unit {
		return v
	}
	return int64(math.Round(float64(v) * c.ratio))
}

// bodyCursor hands the engine the launch trees' bodies, segment by
// segment: everything from one host launch record to the next belongs to
// that launch's tree (the trace's streaming rule). A treeReader files the
// records; the cursor installs what it hands over into the engine's
// kernels when the engine needs it: a host kernel's declaration and grid
// (and, without ordered_trees, its whole tree) when the kernel is about to
// be dispatched (load), and with ordered_trees a host CTA's spec and tree
// when the CTA is placed (reach).
//
// The reader runs on the engine's goroutine, reading only as far as the
// engine needs, unless readAhead starts it on a goroutine of its own.
type bodyCursor struct {
	r       *treeReader
	clk     clock
	ordered bool              // the trace has ordered_trees (from its header)
	byIndex func(int) *Kernel // the i-th host kernel issued (hostSide.byIndex)
	cur     *treeMsg          // the message whose events are being applied
	ev      int               // its next event
	spec    int               // its next spec
	rare    int               // its next rare parts
	open    *Kernel           // the engine's kernel of the segment the events are in; nil between segments
	past    uint64            // with ordered_trees, its host CTAs installed
	loaded  int               // host launches whose segments have begun
	ahead   *treeAhead        // the reader's goroutine, once it reads ahead
	closer  io.Closer         // a Prefetcher the reader reads through, to close
}

// newBodyCursor reads the bodies from src; pageBytes is io.page_bytes (for
// headers that give none), stages whether host I/O is modelled (buffers
// must then come before the first launch), streams cdp.streams.
func newBodyCursor(src trace.Source, byIndex func(int) *Kernel, pageBytes int64, stages bool, streams streamsWhatIf) *bodyCursor {
	r := &treeReader{io: pageFiling{pageBytes: pageBytes, stages: stages}, book: kernelBook{streams: streams}}
	r.setSource(src)
	return &bodyCursor{r: r, byIndex: byIndex}
}

// readHeader consumes the preamble up to the first host launch (header,
// buffers, declarations) and returns the header.
func (b *bodyCursor) readHeader() (*trace.Header, error) {
	m := &treeMsg{}
	b.r.fill(m, hasEvent)
	b.cur = m
	if m.err != nil && !errors.Is(m.err, io.EOF) && len(m.events) == 0 {
		return nil, m.err
	}
	if b.r.header == nil {
		return nil, errors.New("trace has no header record")
	}
	b.ordered = b.r.seg.ordered
	return b.r.header, nil
}

// hasEvent is enough for a reader on the engine's goroutine: it stops as
// soon as it has something to hand over.
func hasEvent(m *treeMsg) bool { return len(m.events) > 0 }

// setClock sets the clock the trees' times are rescaled with.
func (b *bodyCursor) setClock(c clock) {
	b.clk = c
	b.r.clk = c
}

// scale rescales a trace time with the trace's clock (setClock).
func (b *bodyCursor) scale(v int64) int64 { return b.clk.scale(v) }

// pages is the page space of the buffers the preamble declared (readHeader).
func (b *bodyCursor) pages() *pageSpace { return b.r.io.space }

// setRefs has the reader keep CTAs' page references (CRCS) from refs, with
// the kernels in irregular referencing every page, and the touches of the
// CTAs that touches names. Call it before the first load.
func (b *bodyCursor) setRefs(refs *refSource, irregular map[uint64]bool, touches touchMode) {
	b.r.io.refs, b.r.io.irregular, b.r.io.touches = refs, irregular, touches
}

// load reads segments until host kernel k has its body: its declaration
// and grid, and without ordered_trees its whole tree. Segments of host
// kernels issued before k are loaded on the way. With ordered_trees its
// CTAs' trees are installed as they are placed (reach).
func (b *bodyCursor) load(k *Kernel) error {
	for k.decl == nil || !b.ordered && b.open == k {
		if err := b.advance(); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("kernel %d: its launch tree is missing from the trace", k.id)
			}
			return err
		}
	}
	return nil
}

// reach makes sure CTA i of k is installed with everything of its tree:
// its own records and every device launch made from it, with their
// kernels' records, recursively. Only the open segment of an ordered_trees
// trace has anything left to install.
func (b *bodyCursor) reach(k *Kernel, i uint64) error {
	for b.behind(k, i) {
		if err := b.advance(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// advance applies the reader's next event, or returns its error (io.EOF at
// the end of the trace) once every event before it is applied.
func (b *bodyCursor) advance() error {
	for b.ev == len(b.cur.events) {
		if b.cur.err != nil {
			return b.cur.err
		}
		b.cur, b.ev, b.spec, b.rare = b.receive(), 0, 0, 0
	}
	ev := &b.cur.events[b.ev]
	b.ev++
	switch {
	case ev.start != nil:
		return b.begin(ev.start)
	case ev.end:
		if !b.ordered {
			b.open.ctas = ev.table
		}
		b.open = nil
	default:
		b.install(ev)
	}
	return nil
}

// begin opens the next segment in the host kernel it belongs to.
func (b *bodyCursor) begin(s *treeStart) error {
	k := b.byIndex(b.loaded)
	if k == nil || k.id != s.kernel {
		return fmt.Errorf("kernel %d: host launch order differs between reads of the trace", s.kernel)
	}
	b.loaded++
	k.decl, k.total = s.decl, s.total
	if b.ordered {
		k.ctas = newQueuedCTATable()
	}
	b.open, b.past = k, 0
	return nil
}

// install puts the specs of the open segment's host CTAs ev completes into
// its kernel's queue.
func (b *bodyCursor) install(ev *treeEvent) {
	specs := b.cur.specs[b.spec : b.spec+ev.specs]
	rare := b.cur.rare[b.rare : b.rare+ev.rare]
	b.spec += ev.specs
	b.rare += ev.rare
	if q := b.open.ctas.queued(); b.spec == len(b.cur.specs) && len(specs) == b.spec {
		// All the message's specs: the queue may take their storage.
		b.cur.specs, b.spec = q.putOwned(b.past, specs, rare), 0
	} else {
		q.put(b.past, specs, rare)
	}
	b.past = ev.upTo
}

// receive returns the reader's next message, the last one given back.
func (b *bodyCursor) receive() *treeMsg {
	if b.ahead == nil {
		m := b.cur
		m.reset()
		b.r.fill(m, hasEvent)
		return m
	}
	return b.ahead.receive(b.cur)
}

// readAhead lets the reader go ahead of the engine: the records are
// decoded and validated on a goroutine of ra's (a Prefetcher), and with
// ordered_trees filed into trees on another (treeAhead), each a bounded
// window ahead. Without ordered_trees a segment is filed whole when its
// host kernel is dispatched (filing it ahead would hold a second
// segment's tree), on the engine's goroutine. Call it once the reader is
// set up (its clock, page references), before the first load.
func (b *bodyCursor) readAhead(ra ReadAhead) {
	if b.cur.err != nil {
		return // the trace has ended, or failed, in its preamble
	}
	p := ra.Records(b.r.feed.src)
	b.r.setSource(p)
	b.closer, _ = p.(io.Closer)
	if !b.ordered {
		return
	}
	b.ahead = startTreeAhead(b.r, ra)
}

// close stops reading ahead; the source is the caller's to close after.
func (b *bodyCursor) close() {
	if b.ahead != nil {
		b.ahead.close()
		b.ahead = nil
	}
	if b.closer != nil {
		b.closer.Close()
		b.closer = nil
	}
}

// extra returns CTA i's rare parts, creating them on first use.
func (k *Kernel) extra(i uint64) *ctaExtra {
	s := k.ctas.at(i)
	if s.x == nil {
		s.x = &ctaExtra{}
	}
	return s.x
}

// sortSites orders a CTA's launching lanes by (warp, at, lane). Producers
// usually write them in that order already, so the check is what every
// CTA with sites pays: a loop of its own, comparing the lanes in place,
// where slices.IsSortedFunc called cmpSite through a func value with two
// siteRecs copied for each pair (BFS scale 16 under CDP, a child a lane:
// 80 instructions a lane where this loop takes 17).
func sortSites(s []siteRec) {
	for i := 1; i < len(s); i++ {
		if siteBefore(&s[i], &s[i-1]) {
			slices.SortStableFunc(s, cmpSite)
			return
		}
	}
}

// siteBefore reports whether lane a comes before lane b in a CTA's
// order: cmpSite(*a, *b) < 0.
func siteBefore(a, b *siteRec) bool {
	if a.warp != b.warp {
		return a.warp < b.warp
	}
	if a.at != b.at {
		return a.at < b.at
	}
	return a.lane < b.lane
}

// cmpSite is siteBefore as the three-way comparison a sort takes.
func cmpSite(a, b siteRec) int {
	switch {
	case siteBefore(&a, &b):
		return -1
	case siteBefore(&b, &a):
		return 1
	}
	return 0
}

// behind reports whether CTA i of k has something of its tree left to
// install (reach): only in the open segment of an ordered_trees trace.
// place asks it, and calls reach only then, as for 450 of synth's 500K
// CTAs (--quick): reach inlined there kept its error's test and stored
// the values its call of advance needs on every CTA (scripts/
// instructions.sh --quick: synth 5 instructions a CTA fewer, BFS 8,
// uniform 4).
func (b *bodyCursor) behind(k *Kernel, i uint64) bool { return b.open == k && b.past <= i }

// sortSites sorts x's sites (sortSites), unless the reader knew them in
// order as it filed them (sitesChecked). The replays of a Share's tape
// file a CTA's sites as copies of the sites one of them filed first
// (siblings), with that one's finding that they are in order so far
// (siteGather.inOrder, sharedTable.sorted), where each tested them again
// when its CTA started: scripts/instructions.sh --quick sweep8 E 1,499
// -> 1,489 instructions a CTA. A replay that reads alone tests them here,
// as before: a test in child cost BFS 11 instructions a CTA, this one 8.
func (x *ctaExtra) sortSites() {
	if x.sitesChecked < len(x.sites) {
		sortSites(x.sites)
	}
}
