package replay

import (
	"errors"
	"fmt"
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
	src      trace.Source
	clk      clock
	decls    idtab.Pending[declaration] // declared, not yet launched
	declared declCache                  // the launched kernels' declarations, shared
	tree     idtab.Table[filed]         // the open segment's kernels, not yet handed over
	header   *trace.Header
	eof      bool
	// recs are the records of the batch the source handed over last,
	// where it hands over batches (batchSource), recs[at:] not filed yet.
	// They come first: the source changes (readAhead) before any batch.
	recs []trace.Record
	at   int
	last filed // the kernel the last cta record named (they come in runs)

	// host is the open segment's host kernel as the reader files it; nil
	// before the first host launch. Under ordered_trees its CTAs' specs
	// gather in win until they are handed over; otherwise in its table,
	// handed over whole when the segment ends.
	host *Kernel
	win  specWindow
	// With ordered_trees: hostPast and rootPast are one past the host CTA
	// the host kernel's own records and the device records have reached
	// (0: none yet); kids are the device kernels of the trees not yet
	// handed over, in the order they were launched.
	ordered            bool
	hostPast, rootPast uint64
	kids               []filed

	// sites gathers the launch sites of the CTA the device launches name
	// now (siteOf; they come CTA by CTA), until another CTA's come or its
	// tree is handed over: then it gets them in a slice of their number,
	// not one grown by doubling a launch at a time.
	sites  []siteRec
	siteOf *ctaExtra

	pageBytes int64      // io.page_bytes, for headers that give none
	stages    bool       // host I/O is modelled: buffers must come first
	space     *pageSpace // the buffers declared before the first launch
	launched  bool       // a host launch has been read
	refs      *refSource // where CTAs' page references come from (CRCS), or nil
	irregular map[uint64]bool
	touches   touchMode // which CTAs' touches to keep (touch.go)
	held      int       // bytes filed since the last record was counted (treeMsg.held)

	// due is, under ordered_trees, how far the open segment's host CTAs
	// are complete: those from win.from up to due wait to be handed over,
	// msgSpecs at most a message (handOverTo). A host launch or the end of the
	// trace that finds some waiting is read again (redo, ending) once they
	// are all handed over, since it ends the segment.
	due    uint64
	redo   trace.Record
	ending bool
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
	specs   []ctaSpec // the host CTA specs the events hand over, one after another
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
	clear(m.specs)  // sites and children
	m.events, m.specs = m.events[:0], m.specs[:0]
	m.err, m.records, m.held = nil, 0, 0
}

// size is about how many bytes m holds, for the read-ahead's byte limit
// (treeahead.go): what the reader filed while filling it, and its own
// storage of events and specs (up to msgSpecs specs, about
// treeMsgBytes).
func (m *treeMsg) size() int64 {
	return int64(m.held) + int64(cap(m.specs))*specBytes + int64(cap(m.events))*eventBytes
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
	var r trace.Record
	if b.redo != nil {
		r, b.redo = b.redo, nil
	} else if b.at < len(b.recs) {
		r = b.recs[b.at]
		b.at++
	} else {
		var err error
		if r, err = b.next(); err != nil {
			return b.stop(m, err)
		}
	}
	switch r := r.(type) {
	case *trace.Header:
		b.header = r
		b.ordered = r.OrderedTrees
		pb := r.PageBytes
		if pb <= 0 {
			pb = b.pageBytes
		}
		b.space = newPageSpace(pb)
	case *trace.Buffer:
		if b.launched && b.stages {
			return lateBuffer(r)
		}
		if !b.launched && b.space != nil {
			b.space.add(r)
		}
	case *trace.Access, *trace.Pages:
		if err := b.ref(r); err != nil {
			return err
		}
	case *trace.Kernel:
		b.decls.Set(r.ID, declaration{decl: b.declared.of(r), ctas: r.CTAs()})
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
	}
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
// or the next record of a source that is no batchSource. From a
// Prefetcher that is a call a batch, where Next was a call through the
// Source interface a record (BFS scale 20: 867K records, 1024 a batch).
func (b *treeReader) next() (trace.Record, error) {
	s, ok := b.src.(batchSource)
	if !ok {
		return b.src.Next()
	}
	recs, err := s.Batch()
	if err != nil {
		return nil, err
	}
	b.recs, b.at = recs, 1
	return recs[0], nil
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

// begin opens a segment at host launch l.
func (b *treeReader) begin(m *treeMsg, l *trace.Launch) error {
	b.launched = true
	d, err := b.takeDecl(l)
	if err != nil {
		return err
	}
	h := &Kernel{id: l.Kernel, host: true}
	b.adopt(h, d, 0)
	if b.ordered {
		b.win.reset() // its specs gather here, not in a table
		b.hostPast, b.rootPast, b.due = 0, 0, 0
	}
	b.host = h
	m.events = append(m.events, treeEvent{start: &treeStart{kernel: h.id, total: h.total, decl: h.decl}})
	return nil
}

// end closes the open segment, if any: what is left of it is handed over
// and its kernels forgotten. It reports false, having done nothing else,
// while more of its host CTAs wait to be handed over than m takes.
func (b *treeReader) end(m *treeMsg) bool {
	h := b.host
	if h == nil {
		return true
	}
	b.flushSites()
	ev := treeEvent{end: true}
	if b.ordered {
		if b.handOverTo(m, h.total); b.win.from < h.total {
			return false
		}
	} else {
		ev.table = h.ctas
	}
	m.events = append(m.events, ev)
	b.host = nil
	b.tree.Clear()
	clear(b.kids)
	b.kids = b.kids[:0]
	b.last = filed{}
	return true
}

// handOver, under ordered_trees, hands over the host CTAs whose trees the
// records have passed (rule 4): both the host kernel's records and the
// device records are past the CTA. It is handOverTo's own first test,
// inlined into step: there is nothing to do after most records. It needs
// no other: without ordered_trees hostPast and rootPast stay 0 (passed);
// with it they are at most the host kernel's grid, which end hands over
// whole, and begin sets them to 0.
func (b *treeReader) handOver(m *treeMsg) {
	if past := min(b.hostPast, b.rootPast); past > b.win.from+1 {
		b.handOverTo(m, past-1)
	}
}

// handOverTo hands over the open segment's host CTAs up to n (exclusive),
// as many as m has room for (the rest wait for the next messages: a
// message carries msgSpecs specs at most, however many CTAs a record
// completes, such as a host kernel's whole grid where its trees come after
// all its CTAs' records), and forgets their trees' device kernels.
func (b *treeReader) handOverTo(m *treeMsg, n uint64) {
	b.due = max(b.due, n)
	if b.due <= b.win.from {
		return
	}
	b.flushSites()
	at := len(m.specs)
	room := msgSpecs - at
	if room == 0 {
		return
	}
	if need := at + int(min(uint64(min(room, b.win.len())), b.due-b.win.from)); need > cap(m.specs) {
		// Grown by doubling, but never past msgSpecs (append's
		// growth would): a reused message keeps its storage.
		grown := make([]ctaSpec, at, min(max(2*cap(m.specs), need), msgSpecs))
		copy(grown, m.specs)
		m.specs = grown
	}
	m.specs, n = b.win.take(m.specs, b.due, room)
	m.events = append(m.events, treeEvent{specs: len(m.specs) - at, upTo: n})
	i := 0
	for ; i < len(b.kids) && b.kids[i].root < n; i++ {
		b.forget(b.kids[i])
	}
	k := copy(b.kids, b.kids[i:])
	clear(b.kids[k:])
	b.kids = b.kids[:k]
}

// forget drops a kernel the engine now holds from the reader's tree.
func (b *treeReader) forget(f filed) {
	if t, _ := b.tree.Get(f.k.id); t.k == f.k {
		b.tree.Delete(f.k.id)
	}
	if b.last.k == f.k {
		b.last = filed{}
	}
}

// takeDecl is the declaration of the kernel l launches, which it takes:
// a kernel is launched once.
func (b *treeReader) takeDecl(l *trace.Launch) (declaration, error) {
	d, ok := b.decls.Take(l.Kernel)
	if !ok {
		return d, fmt.Errorf("launch of kernel %d: kernel not declared", l.Kernel)
	}
	return d, nil
}

// adopt gives a launched kernel its declaration and files it in the
// tree, in the tree of host CTA root; a host kernel gets room for its
// CTAs here unless they gather in the window (ordered_trees), and a
// device kernel has its packed table from newDeviceKernel.
func (b *treeReader) adopt(k *Kernel, d declaration, root uint64) filed {
	k.decl, k.total = d.decl, d.ctas
	if k.host && !b.ordered {
		k.ctas = newCTATable(k.total)
	}
	f := filed{k: k, root: root}
	b.tree.Set(k.id, f)
	return f
}

// device creates a child kernel for a device launch record and attaches the
// site to its parent CTA.
func (b *treeReader) device(l *trace.Launch) error {
	pf, _ := b.tree.Get(l.Parent.Kernel)
	p := pf.k
	if p == nil {
		return fmt.Errorf("device launch of kernel %d: parent kernel %d is not in this launch tree", l.Kernel, l.Parent.Kernel)
	}
	if l.Parent.CTA >= p.total {
		return fmt.Errorf("device launch of kernel %d: parent CTA %d outside kernel %d's grid", l.Kernel, l.Parent.CTA, p.id)
	}
	d, err := b.takeDecl(l)
	if err != nil {
		return err
	}
	child := newDeviceKernel(d.ctas)
	child.id, child.parentID, child.order, child.startCycle = l.Kernel, p.id, -1, -1
	root := pf.root
	if b.ordered && p == b.host {
		root = l.Parent.CTA
	}
	cf := b.adopt(child, d, root)
	b.held += deviceHeld
	if b.ordered {
		b.kids = append(b.kids, cf)
	}
	b.passed(cf, 0)
	x, err := b.extra(p, l.Parent.CTA)
	if err != nil {
		return err
	}
	if x != b.siteOf {
		b.flushSites()
		b.siteOf = x
		b.sites = append(b.sites, x.sites...)
	}
	b.sites = append(b.sites, siteRec{
		warp:     int32(l.Parent.Warp),
		lane:     int32(l.Parent.Lane),
		at:       b.clk.scale(l.Parent.At),
		child:    child,
		workload: l.Workload,
		inline:   b.clk.scale(l.InlineCycles),
	})
	return nil
}

// flushSites gives the CTA whose sites are gathering its sites.
func (b *treeReader) flushSites() {
	if b.siteOf == nil {
		return
	}
	b.siteOf.sites = slices.Clone(b.sites)
	clear(b.sites)
	b.sites, b.siteOf = b.sites[:0], nil
}

// cta records one CTA's cost in its kernel.
func (b *treeReader) cta(c *trace.CTA) error {
	f := b.last
	if f.k == nil || f.k.id != c.Kernel {
		f, _ = b.tree.Get(c.Kernel)
		b.last = f
	}
	k := f.k
	if k == nil {
		return fmt.Errorf("cta %d of kernel %d: kernel not launched in this launch tree", c.CTA, c.Kernel)
	}
	if c.CTA >= k.total {
		return fmt.Errorf("cta %d of kernel %d: outside the grid of %d CTAs", c.CTA, c.Kernel, k.total)
	}
	b.passed(f, c.CTA)
	r := ctaRecord{cycles: b.clk.scale(c.Cycles), demand: c.HasDemand(), insts: c.Insts, bytes: c.DRAMBytes}
	if len(c.WarpCycles) > 0 && !uniform(c.WarpCycles, c.Cycles) {
		// The slice is ours until the next record (the reader may reuse
		// it): scale it in place; the table copies what it keeps.
		r.warps = c.WarpCycles
		for i, w := range r.warps {
			r.warps[i] = b.clk.scale(w)
		}
	}
	b.held += ctaHeld(len(r.warps))
	if k == b.host && b.ordered {
		r.warps = slices.Clone(r.warps)
		return b.win.record(c.CTA, &r)
	}
	k.ctas.record(c.CTA, &r)
	return nil
}

// extra returns CTA i of k's rare parts, creating them on first use.
func (b *treeReader) extra(k *Kernel, i uint64) (*ctaExtra, error) {
	if k == b.host && b.ordered {
		return b.win.extra(i)
	}
	return k.extra(i), nil
}

// passed notes, in the open segment of an ordered_trees trace, that a
// record of CTA cta of kernel f has been read: how far the host kernel's
// records or the device records have got.
func (b *treeReader) passed(f filed, cta uint64) {
	switch k := f.k; {
	case !b.ordered || k == nil:
	case k == b.host:
		b.hostPast = cta + 1
	case k.order < 0:
		b.rootPast = f.root + 1
	}
}

// ref files an access or pages record as the CTA's page references when the
// scoreboard needs them.
func (b *treeReader) ref(r trace.Record) error {
	kid, cta := recordCTA(r)
	if b.ordered {
		f, _ := b.tree.Get(kid)
		b.passed(f, cta)
	}
	if b.refs == nil {
		return nil
	}
	isRef := b.refs.counts(r) && !b.irregular[kid]
	isTouch := b.touches == touchAll || b.touches == touchIrregular && b.irregular[kid] && r.Kind() == trace.KindPages
	if !isRef && !isTouch {
		return nil
	}
	f := b.last
	if f.k == nil || f.k.id != kid {
		f, _ = b.tree.Get(kid)
	}
	k := f.k
	if k == nil || !k.host {
		return nil // device kernels are not scoreboarded
	}
	if cta >= k.total {
		return fmt.Errorf("%s record of kernel %d: cta %d outside the grid of %d CTAs", r.Kind(), kid, cta, k.total)
	}
	x, err := b.extra(k, cta)
	if err != nil {
		return err
	}
	if isRef {
		x.refs = b.refs.appendRanges(r, x.refs)
	}
	if isTouch {
		x.touches = b.refs.appendTouches(r, x.touches)
	}
	b.held += refHeld(r)
	return nil
}

// uniform reports whether every warp runs the CTA's cycles, which is what
// a spec without warps says: such CTAs (most of a child kernel's, full
// ones) keep no slice.
func uniform(warps []int64, cycles int64) bool {
	for _, w := range warps {
		if w != cycles {
			return false
		}
	}
	return true
}
