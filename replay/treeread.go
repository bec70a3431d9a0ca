package replay

import (
	"errors"
	"io"
	"slices"

	"github.com/gpureplay/gpureplay/internal/idtab"
	"github.com/gpureplay/gpureplay/trace"
)

// treeReader files the trace's launch-tree records into what the engine
// runs: device kernels with their CTA tables and launch sites, and the
// specs of host kernels' CTAs. Everything it builds is its own until it
// hands it over in a treeMsg (the bodyCursor takes the messages in order),
// so it may run on a goroutine of its own, ahead of the engine
// (bodyCursor.readAhead): it never touches a Kernel the engine holds. A
// host kernel it files into is a stand-in of its own (the id and grid);
// the engine installs what the stand-in gathered into its own kernel.
//
// Once it hands a tree over it forgets the tree's kernels: with
// ordered_trees a host CTA's tree as soon as the host kernel's records
// and the device records are past that CTA (rule 4), else a whole segment
// at the next host launch. The Validator in front of it rejects a record
// that comes after its tree, so nothing is filed into a kernel the engine
// already holds.
type treeReader struct {
	clk    clock
	header *trace.Header
	feed   recordFeed  // where the records come from, and those read ahead of filing
	book   kernelBook  // the kernels declared and filed, and the lookups that spare a search
	seg    hostSegment // the open segment's host kernel and how far its CTAs are handed over
	sites  siteGather  // the launch sites of the CTA the device launches name now
	io     pageFiling  // host I/O and CRCS: buffers, page references, touches
	held   int         // bytes filed since the last record was counted (treeMsg.held)
	eof    bool
	// redo is a host launch (or, with ending, the end of the trace)
	// read while host CTAs of the open segment still waited to be handed
	// over (seg.due): it ends the segment, so it is read again once they
	// are all handed over.
	redo   trace.Record
	ending bool
}

// recordFeed is where the tree reader's records come from: the source,
// and what it read ahead of filing in one of its fast forms (a batch, a
// run of cta records, a run of plain records, a child). Apart from the
// rest because it is the one part of the reader that knows which source
// it reads (setSource asks once), and the hot loops test only it: step
// takes recs, run or plain before it asks the source for a record.
type recordFeed struct {
	src     trace.Source
	batches batchSource // src, where it hands over batches (next), else nil
	// recs are the records of the batch the source handed over last,
	// where it hands over batches (batchSource), recs[at:] not filed yet.
	// They come first: the source changes (readAhead) before any batch.
	recs []trace.Record
	at   int
	// runs is the source's fast way to the cta records that follow one
	// (trace.Validator.CTAs), to runs of plain ones and to a child's
	// declaration, launch and first cta record (children), nil for a
	// source without (a Prefetcher). The Validator is the only source
	// with one, and nothing wraps it: held as itself, not as an
	// interface, its calls are direct, with no test of PGO's
	// devirtualization (BFS --quick: children about 1 instruction a
	// child fewer). run[runAt:] are those it read last, not filed yet,
	// runErr the error it stopped at. They come before the source's next
	// record.
	runs     *trace.Validator
	run      []trace.CTA
	runAt    int
	runErr   error
	runWarps []int64     // the run's warp_cycles
	kid      trace.Child // where children reads a child's declaration, launch and first cta record
	// tape: runs is a Share's reader (trace.Validator.OnTape), and
	// children reads runs of children off its tape into kids
	// (Validator.Kids, kidOrChild); kidErr is an error filing them,
	// which next returns.
	tape   bool
	kids   trace.Kids
	kidErr error
	// plain are the plain records (trace.PlainCTA) of the open segment's
	// host kernel the source read last, for the window's next CTAs, not
	// filed yet: read in place of a run where the records allow
	// (readRun). They come before the source's next record.
	plain []trace.PlainCTA
}

// kernelBook is what the reader knows of kernels: those declared and not
// yet launched, the open segment's by id, and where device kernels come
// from and go (their storage, their streams). Apart from the feed and the
// segment because it outlives both: a declaration may be launched in any
// later segment, and the declarations of launched kernels are shared.
type kernelBook struct {
	decls    idtab.Pending[declaration] // declared, not yet launched
	declared declCache                  // the launched kernels' declarations, shared
	tree     treeTable                  // the open segment's kernels, not yet handed over
	// last is the kernel the last cta record named (they come in runs),
	// or the one filed last (its records come next), and after the CTA
	// after that record's (passed); parent the kernel the last device
	// launch named as its parent (a CTA's launches come together, in BFS
	// all of a level's). Each spares a lookup in tree (two cached pages).
	last, parent filed
	after        uint64
	kernels      deviceKernels     // where its device kernels come from
	streams      streamsWhatIf     // cdp.streams: the stream each device launch goes into
	tables       slab[sharedTable] // the children's tables this replay offers (kidTable)
}

// hostSegment is the open segment: its host kernel and, under
// ordered_trees, how far its CTAs' trees are complete and handed over.
// Apart from the book because a segment's state is reset at each host
// launch (begin), where the book's declarations outlive segments.
type hostSegment struct {
	// host is the open segment's host kernel as the reader files it; nil
	// before the first host launch. Under ordered_trees its CTAs' specs
	// gather in win until they are handed over; otherwise in its table,
	// handed over whole when the segment ends.
	host *Kernel
	win  specWindow
	// With ordered_trees: hostPast and rootPast are one past the host CTA
	// the host kernel's own records and the device records have reached
	// (0: none yet); book.tree.kids are the device kernels of the trees
	// not yet handed over, in the order they were launched.
	ordered            bool
	hostPast, rootPast uint64
	// due is, under ordered_trees, how far the open segment's host CTAs
	// are complete: those from win.from up to due wait to be handed over,
	// msgSpecs at most a message (handOverTo).
	due uint64
}

// siteGather gathers the launch sites of the CTA the device launches name
// now (of; they come CTA by CTA), until another CTA's come or its tree is
// handed over: then it gets them in a slice of their number, not one
// grown by doubling a launch at a time (flushSites). Apart from the book
// because it is a CTA's, not a kernel's: k and cta name the CTA of is,
// for extra, which then need not find it again: BFS scale 16's 14,713
// device launches come in 140 runs of one host CTA's (callgrind: extra
// 79 -> 23 a launch). checked: how many of recs are in order (inOrder).
type siteGather struct {
	recs []siteRec
	of   *ctaExtra
	k    *Kernel
	cta  uint64
	// root is the host CTA whose tree the CTA is in, where rootOf is of:
	// sharedChild found it for the CTA's first child it filed, the others
	// take it (and k and cta) from here. gather, which starts a CTA's
	// gathering, clears rootOf: a window's CTA's extra may be another's.
	root    uint64
	rootOf  *ctaExtra
	checked int
	blk     []siteRec // the rest of the block carve copies CTAs' sites into
}

// siteBlock is the sites of a block carve copies CTAs' sites into: 192
// KiB. A CTA's that would fill over a quarter of one get a slice of
// their own.
const siteBlock = 4096

// carve is a copy of recs, the sites gathered, for the CTA whose they are
// (flushSites), its capacity its length, carved from blocks of siteBlock:
// a slice of their own each (slices.Clone) was an allocation each, BFS
// scale 20's 1,757 parent CTAs' some 960 instructions each (scripts/
// instructions.sh bfs: 854.4M-854.8M -> 853.0M-853.2M, 1,593 -> 1,591 a
// CTA). A block is garbage once all its CTAs' sites are.
func (g *siteGather) carve() []siteRec {
	n := len(g.recs)
	if n == 0 || n > siteBlock/4 {
		return slices.Clone(g.recs)
	}
	if cap(g.blk)-len(g.blk) < n {
		g.blk = make([]siteRec, 0, siteBlock)
	}
	g.blk = append(g.blk, g.recs...)
	return g.blk[len(g.blk)-n : len(g.blk) : len(g.blk)]
}

// pageFiling is what the reader needs of host I/O and the CRCS page
// references: settings from the replay's options, the buffers declared
// before the first launch, and where the CTAs' references and touches
// go. Apart from the rest because only traces with buffers or page
// references use it; the CTA path tests refs alone.
type pageFiling struct {
	pageBytes int64      // io.page_bytes, for headers that give none
	stages    bool       // host I/O is modelled: buffers must come first
	space     *pageSpace // the buffers declared before the first launch
	launched  bool       // a host launch has been read
	refs      *refSource // where CTAs' page references come from (CRCS), or nil
	irregular map[uint64]bool
	touches   touchMode // which CTAs' touches to keep (touch.go)
}

// filed is a kernel of the open segment as the reader keeps it: with the
// host CTA whose tree it is in (device kernels under ordered_trees), which
// only the reader needs, so it is not in the Kernel (tens of thousands of
// which are pending at once under CDP).
type filed struct {
	k    *Kernel
	root uint64
}

// declaration is what the reader keeps of a kernel record until the
// kernel's launch: the record itself is the source's to reuse.
type declaration struct {
	decl *kernelDecl
	ctas uint64
}

// treeMsg is what the reader hands over at a time: events in trace order,
// then, once it has stopped, its error (io.EOF at the end of the trace).
type treeMsg struct {
	events  []treeEvent
	specs   []slimSpec // the host CTA specs the events hand over, one after another
	rare    []rareSpec // the rare parts of those specs that have any, in order (specWindow.take)
	err     error
	records int // trace records read to fill it (one read again after a hand-over counts again)
	held    int // about how many bytes the reader filed while filling it (treeahead.go's estimates)
}

// treeEvent is one step of the segments: a host launch opens the next
// (start), host CTAs of the open one are complete (specs, under
// ordered_trees), or the open one is complete (end).
type treeEvent struct {
	start *treeStart
	// Under ordered_trees: the open segment's host CTAs up to upTo
	// (exclusive) are complete, the first specs of them with the next
	// specs of treeMsg.specs, the rest with none.
	specs int
	rare  int // of treeMsg.rare, the next rare of them are those specs'
	upTo  uint64
	end   bool     // the open segment is complete
	table ctaTable // at its end without ordered_trees: the host kernel's whole table
}

// treeStart is a host launch that opens a segment: its kernel, grid and
// declaration.
type treeStart struct {
	kernel uint64
	total  uint64
	decl   *kernelDecl
}

func (m *treeMsg) reset() {
	clear(m.events) // tables and starts
	clear(m.rare)   // warps, sites and children
	m.events, m.specs, m.rare = m.events[:0], m.specs[:0], m.rare[:0]
	m.err, m.records, m.held = nil, 0, 0
}

// size is about how many bytes m holds, for the read-ahead's byte limit
// (treeahead.go): what the reader filed while filling it, and its own
// storage of events and specs (up to msgSpecs specs, about
// treeMsgBytes).
func (m *treeMsg) size() int64 {
	return int64(m.held) + int64(cap(m.specs))*specBytes + int64(cap(m.rare))*rareBytes + int64(cap(m.events))*eventBytes
}

// fill reads records into m until enough says m holds enough after a
// record, m holds as many specs as a message takes (msgSpecs), or the
// reader stops (m.err).
func (b *treeReader) fill(m *treeMsg, enough func(*treeMsg) bool) {
	for {
		if err := b.step(m); err != nil {
			m.err = err
			return
		}
		m.records++
		m.held, b.held = m.held+b.held, 0
		if len(m.specs) == msgSpecs || enough(m) {
			return
		}
	}
}

// step files the next record.
func (b *treeReader) step(m *treeMsg) error {
	if b.eof {
		return io.EOF
	}
	if b.ending {
		return b.stop(m, io.EOF)
	}
	if b.feed.runAt < len(b.feed.run) || len(b.feed.plain) > 0 {
		return b.runCTAs(m)
	}
	if b.feed.runErr != nil {
		return b.feed.runErr
	}
	var r trace.Record
	if b.redo != nil {
		r, b.redo = b.redo, nil
	} else if b.feed.at < len(b.feed.recs) {
		r = b.feed.recs[b.feed.at]
		b.feed.at++
	} else {
		var err error
		if r, err = b.next(m); err != nil {
			return b.stop(m, err)
		}
	}
	switch r := r.(type) {
	case *trace.Header:
		b.header = r
		b.seg.ordered = r.OrderedTrees
		pb := r.PageBytes
		if pb <= 0 {
			pb = b.io.pageBytes
		}
		b.io.space = newPageSpace(pb)
	case *trace.Buffer:
		if b.io.launched && b.io.stages {
			return lateBuffer(r)
		}
		if !b.io.launched && b.io.space != nil {
			b.io.space.add(r)
		}
	case *trace.Access, *trace.Pages:
		if err := b.ref(r); err != nil {
			return err
		}
	case *trace.Kernel:
		b.book.decls.Set(r.ID, declaration{decl: b.book.declared.of(r), ctas: r.CTAs()})
	case *trace.Launch:
		if r.Host() {
			if !b.end(m) {
				b.redo = r // the record stays the source's until the next is read
				return nil
			}
			return b.begin(m, r)
		}
		if err := b.device(r); err != nil {
			return err
		}
	case *trace.CTA:
		if err := b.cta(r); err != nil {
			return err
		}
		if err := b.batchRun(m, r.Kernel); err != nil {
			return err
		}
		b.readRun(r.Kernel)
	}
	b.handOver(m)
	return nil
}

// runLen and plainLen are how many cta and plain records a run reads at a
// time, into storage the reader reuses: 16 KiB with their warp_cycles, and
// 6 KiB (64 plain records cost uniform and synth 4 instructions a CTA more).
const runLen, plainLen = 64, 256

// setSource makes src the source of the records, and its fast way to
// runs of cta records, where it has one, the way to them.
func (b *treeReader) setSource(src trace.Source) {
	b.feed.src = src
	b.feed.batches, _ = src.(batchSource)
	b.feed.runs, _ = src.(*trace.Validator)
	if b.feed.runs != nil && b.feed.run == nil {
		b.feed.run, b.feed.runWarps = make([]trace.CTA, 0, runLen), make([]int64, runLen*trace.RunWarps)
		b.feed.plain = make([]trace.PlainCTA, 0, plainLen)
	}
	b.feed.tape = b.feed.runs != nil && b.feed.runs.OnTape()
}

// readRun reads the run of cta records after one of kernel, where the
// source has a fast way to them: plain records where they are the open
// segment's windowed host kernel's, for the window's next CTAs, else a
// run of any.
func (b *treeReader) readRun(kernel uint64) {
	if b.feed.runs == nil || b.ended(kernel) {
		return
	}
	if h := b.seg.host; h != nil && h.id == kernel && b.windowed(h) {
		if next := b.seg.win.next(); next < h.total {
			n := b.feed.runs.PlainCTAs(kernel, next, b.feed.plain[:min(plainLen, h.total-next)])
			if b.feed.plain = b.feed.plain[:n]; n > 0 {
				return
			}
		}
	}
	n, err := b.feed.runs.CTAs(kernel, b.feed.run[:runLen], b.feed.runWarps)
	b.feed.run, b.feed.runAt, b.feed.runErr = b.feed.run[:n], 0, err
}

// batchRun files the cta records of kernel that come next in the batch
// the source handed over (a Prefetcher's), as part of the step that filed
// the one before them: handed over together, as runCTAs hands over a
// run.
func (b *treeReader) batchRun(m *treeMsg, kernel uint64) error {
	for b.feed.at < len(b.feed.recs) {
		c, ok := b.feed.recs[b.feed.at].(*trace.CTA)
		if !ok || c.Kernel != kernel {
			return nil
		}
		b.feed.at++
		m.records++
		if err := b.cta(c); err != nil {
			return err
		}
	}
	return nil
}

// runCTAs files the run's cta records, or the plain records read in its
// place, then reads the next run: a step of as many records, handed over
// together (fill counts one, m.records the rest), where one at a time
// each would be a message of its own (hasEvent).
func (b *treeReader) runCTAs(m *treeMsg) error {
	if len(b.feed.plain) > 0 {
		return b.plainCTAs(m)
	}
	n := len(b.feed.run) - b.feed.runAt
	for b.feed.runAt < len(b.feed.run) {
		c := &b.feed.run[b.feed.runAt]
		b.feed.runAt++
		if err := b.cta(c); err != nil {
			return err
		}
	}
	m.records += n - 1
	if b.feed.runErr == nil {
		b.readRun(b.feed.run[len(b.feed.run)-1].Kernel)
	}
	b.handOver(m)
	return nil
}

// plainCTAs files the plain records read last into the window, as cta
// files each, then reads on: a step of as many records, as runCTAs is.
func (b *treeReader) plainCTAs(m *treeMsg) error {
	n := len(b.feed.plain)
	b.seg.win.appendPlains(b.feed.plain, b.clk)
	b.feed.plain = b.feed.plain[:0]
	b.seg.hostPast = b.seg.win.next() // passed, for the last of them
	b.held += n * ctaHeld(0)
	m.records += n - 1
	b.readRun(b.seg.host.id)
	b.handOver(m)
	return nil
}

// batchSource is a source that hands over its records a batch at a time
// (trace.Prefetcher).
type batchSource interface {
	Batch() ([]trace.Record, error)
}

// next is the source's next record once the batch it handed over last is
// filed (step takes the batch's records itself): the next batch's first,
// or the next record of a source that is no batchSource, with the
// children of a tree before it filed (children). From a
// Prefetcher that is a call a batch, where Next was a call through the
// Source interface a record (BFS scale 20: 867K records, 1024 a batch).
// Which the source is, setSource asks once: asked here, a type assertion
// a record, it cost BFS 27 instructions a CTA (scripts/instructions.sh
// --quick bfs).
func (b *treeReader) next(m *treeMsg) (trace.Record, error) {
	if b.feed.batches == nil {
		return b.kidsErr(b.children(m))
	}
	recs, err := b.feed.batches.Batch()
	if err != nil {
		return nil, err
	}
	b.feed.recs, b.feed.at = recs, 1
	return recs[0], nil
}

// kidsErr is r and err, children's record, unless filing the runs of
// children before it failed (kidErr): then that error, with r not filed.
func (b *treeReader) kidsErr(r trace.Record, err error) (trace.Record, error) {
	if b.feed.kidErr != nil {
		return nil, b.feed.kidErr
	}
	return r, err
}

// stop is step's end at the source's error err: at the end of the trace
// (io.EOF) the open segment is complete. Apart from step, which asks
// errors.Is only of an error, not of every record.
func (b *treeReader) stop(m *treeMsg, err error) error {
	if !errors.Is(err, io.EOF) {
		return err
	}
	if b.ending = !b.end(m); b.ending {
		return nil
	}
	b.eof = true
	return io.EOF
}

// inOrder reports whether g's sites are known in sortSites' order,
// testing those after the ones known so: a replay that files children
// for a Share's tape tells the others (sharedTable.sorted), which take
// it for theirs (sortedTo).
func (g *siteGather) inOrder() bool {
	for g.checked < len(g.recs) && (g.checked == 0 || !siteBefore(&g.recs[g.checked], &g.recs[g.checked-1])) {
		g.checked++
	}
	return g.checked == len(g.recs)
}

// sortedTo notes that g's sites are in sortSites' order where sorted:
// as another replay found them, up to the child whose site is the last.
func (g *siteGather) sortedTo(sorted bool) {
	if sorted {
		g.checked = len(g.recs)
	}
}
