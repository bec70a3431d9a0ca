package replay

// The tree reader's filing: each launch-tree record goes into the kernel
// it belongs to, a device launch as a child kernel with its launch site
// in the parent CTA, a CTA record as the CTA's cost in its kernel's
// table, an access or pages record as the CTA's page references.

import (
	"fmt"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// takeDecl is the declaration of the kernel l launches, which it takes:
// a kernel is launched once.
func (b *treeReader) takeDecl(l *trace.Launch) (declaration, error) {
	d, ok := b.book.decls.Take(l.Kernel)
	if !ok {
		return d, fmt.Errorf("launch of kernel %d: kernel not declared", l.Kernel)
	}
	return d, nil
}

// device creates a child kernel for a device launch record and attaches the
// site to its parent CTA.
func (b *treeReader) device(l *trace.Launch) error {
	if err := b.orphan(l); err != nil {
		return err // the parent's error comes before the declaration's
	}
	d, err := b.takeDecl(l)
	if err != nil {
		return err
	}
	return b.child(l, d, nil)
}

// orphan is the error of device launch l whose parent kernel is not in
// the tree or has not l's parent CTA, or nil where it has.
func (b *treeReader) orphan(l *trace.Launch) error {
	switch p := b.book.known(&b.book.parent, l.Parent.Kernel); {
	case p.k == nil:
		return fmt.Errorf("device launch of kernel %d: parent kernel %d is not in this launch tree", l.Kernel, l.Parent.Kernel)
	case l.Parent.CTA >= p.k.total:
		return fmt.Errorf("device launch of kernel %d: parent CTA %d outside kernel %d's grid", l.Kernel, l.Parent.CTA, p.k.id)
	}
	return nil
}

// child creates the child kernel device launch l launches, declared d,
// with its packed table (newDeviceKernel; st's words, where another
// replay filed them: sharedKernel), files it in the tree of its
// host CTA, and attaches the site to its parent CTA. Its parent is
// checked here, with no call where it is in the tree and has l's parent
// CTA: a call a child to find and check it cost BFS --quick 13
// instructions a CTA. The filing is child's own too: a call of a
// function shared with the host kernel's (begin) cost 9. The site is
// built in place in sites, not as a literal zeroed on the stack and
// copied in by append (BFS --quick: 4 instructions a launch fewer).
func (b *treeReader) child(l *trace.Launch, d declaration, st *sharedTable) error {
	pf := b.book.known(&b.book.parent, l.Parent.Kernel)
	if pf.k == nil || l.Parent.CTA >= pf.k.total {
		return b.orphan(l)
	}
	p := pf.k
	var child *Kernel
	if st == nil {
		child = b.book.kernels.newDeviceKernel(d.ctas)
	} else {
		child = b.book.kernels.sharedKernel(st.words)
	}
	child.id, child.parentID = l.Kernel, p.id
	root := pf.root
	if b.seg.ordered && p == b.seg.host {
		root = l.Parent.CTA
	}
	child.decl, child.total = d.decl, d.ctas
	cf := filed{k: child, root: root}
	if b.seg.ordered {
		b.book.tree.kids = append(b.book.tree.kids, cf) // indexed when first missed (treeTable)
	} else {
		b.book.tree.Set(child.id, cf)
	}
	b.book.last = cf // its CTAs' records come next, as a rule
	b.held += deviceHeld
	b.passed(cf, 0)
	if b.sites.of == nil || p != b.sites.k || l.Parent.CTA != b.sites.cta {
		if err := b.gather(p, l.Parent.CTA); err != nil {
			return err
		}
	}
	kind, creates := b.book.streams.of(l)
	if len(b.sites.recs) == cap(b.sites.recs) {
		b.sites.recs = slices.Grow(b.sites.recs, 1)
	}
	b.sites.recs = b.sites.recs[:len(b.sites.recs)+1]
	s := &b.sites.recs[len(b.sites.recs)-1]
	s.warp, s.lane, s.kind, s.creates, s.stream = int32(l.Parent.Warp), int16(l.Parent.Lane), kind, creates, l.Stream
	s.at, s.child, s.workload, s.inline = b.clk.scale(l.Parent.At), child, l.Workload, b.clk.scale(l.InlineCycles)
	return nil
}

// children files the device launches that come next, each with its
// kernel's declaration, the pair read in one call (trace.Validator.Child),
// and the child's cta records after it (kidCTAs), and returns the
// source's next record. Through it, most of a launch-heavy trace's
// records come as pairs and runs (BFS: each child's declaration and
// launch, then its CTAs' records), not one by one through Next: each
// record so was a call through the Source interface and down the
// Validator and the Reader, a type switch at each, a step of its own,
// and the declaration filed as pending and taken again (BFS --quick:
// 4,717 -> 4,610 instructions a CTA).
//
// The children of one tree are filed in one step, where each child took
// a step or two (its pair and first record, then the run after it), each
// handing over what the records had passed: a pair Child reads stays in
// the tree the device records are in (it leaves a launch into another
// tree to Next), so between them there is nothing to hand over, and the
// engine, which takes the messages, sees the same events (BFS --quick:
// 4,459 -> 4,374). A child's grid size is the one Child computed
// (trace.Child.CTAs), not multiplied again (BFS --quick: 7 instructions a
// child fewer). A child whose records Child read all of (no run after
// them, no error: all but 18 of BFS scale 16's 14,484) has them filed
// here, into its fresh packed table (as kidCTAs files them), with no
// call of kidCTAs (BFS --quick: 2,931 -> 2,917 instructions a CTA).
func (b *treeReader) children(m *treeMsg) (trace.Record, error) {
	for b.feed.runs != nil && (!b.feed.tape && b.feed.runs.Child(&b.feed.kid) || b.feed.tape && b.kidOrChild(m)) {
		m.records += 2
		// A launch level's children are declared alike: one declared as
		// the record before it (Alike, known from its read) has the last
		// declaration, untested (a test cost BFS --quick 11 a CTA).
		d := declaration{decl: b.book.declared.last, ctas: b.feed.kid.Head().CTAs}
		if !b.feed.kid.Head().Alike || d.decl == nil {
			d.decl = b.book.declared.of(&b.feed.kid.Head().Kernel)
		}
		var st *sharedTable
		if b.feed.kid.OnTape() {
			st = b.filedKid()
		}
		if err := b.child(&b.feed.kid.Head().Launch, d, st); err != nil {
			return nil, err
		}
		cs := b.feed.kid.Records()
		if len(cs) == 0 {
			break
		}
		if st != nil { // its table another replay's words (filedKid)
			m.records += len(cs)
			b.book.after = cs[len(cs)-1].CTA + 1 // passed: child passed its CTA 0, and so its root
			b.held += ctasHeld(len(cs), st.warps)
			continue
		}
		if f, kid := b.book.last, b.feed.kid.Head(); !kid.More && kid.Err == nil && f.k.ctas.isPacked() {
			m.records += len(cs)
			b.book.after = cs[len(cs)-1].CTA + 1 // passed: child passed its CTA 0, and so its root
			b.held += ctasHeld(len(cs), b.kidTable(&f.k.ctas, cs, kid.Same))
			continue
		}
		if err := b.kidCTAs(m); err != nil {
			return nil, err
		}
		if b.feed.runErr != nil {
			// As runCTAs: step hands over, the next returns the
			// error. fill counts a record for the step.
			m.records--
			return nil, nil
		}
	}
	return b.feed.src.Next()
}

// kidOrChild reads the next child (trace.Validator.Child) and reports
// whether it read one, having filed first the runs of children the tape
// holds before it, where the source is a Share's reader (fileKids); an
// error filing them it leaves in kidErr, for next, and reports false.
// Apart from children, whose lines it leaves where they were: the
// profile (default.pgo) knows its calls by their lines, and where they
// moved a lone replay of BFS --quick lost the inlining of child and
// kidTable (95.6M instructions to 96.3M). children tests the source
// before it calls it: a call of it a child cost a lone replay (BFS
// --quick) 18 instructions a child.
func (b *treeReader) kidOrChild(m *treeMsg) bool {
	for b.feed.runs.Kids(&b.feed.kids) {
		if err := b.fileKids(m, &b.feed.kids); err != nil {
			b.feed.kidErr = err
			return false
		}
	}
	return b.feed.runs.Child(&b.feed.kid)
}

// sharedTable is a child's packed CTA table as one replay filed it, for
// the replays of one clock that read the trace from one Share's tape
// (trace.Child.Offer): its words, read-only, and their per-warp cycles.
type sharedTable struct {
	self  any     // the table itself, as Offer takes it: first, its pointer the table's (siblings)
	ratio float64 // its clock's (clock.ratio): a clock, with its unit, took the table past 128 bytes
	words []int64
	warps int
	// What the replays of its clock take of the child's filing besides
	// (sharedChild, siblings): its declaration (read-only), its launch
	// site, and whether its CTA's sites up to it are in order (sorted).
	decl   *kernelDecl
	site   siteRec // its child nil
	held   int     // the bytes its kernel and table hold (treeahead.go's estimates)
	sorted bool
}

// sharedBlock is how many sharedTables (128 bytes) a block of
// kernelBook.tables holds: a replay that files children for a Share's
// tape offers one a child it files first, and one allocation a table
// (with the any Offer had boxed, two) cost BFS --quick's four policies
// 14M instructions. A block lives while the tape's chunks hold its
// tables, so memory stays bounded by the tape's.
const sharedBlock = 128

// filedKid is the table another replay of b's clock filed for the child
// Child read last and offered (kidTable), or nil: none has, the child's
// records did not all come with it, or b reads the trace alone.
func (b *treeReader) filedKid() *sharedTable {
	kid := &b.feed.kid
	if h := kid.Head(); h.More || h.Err != nil {
		return nil
	}
	if st, _ := kid.Filed().(*sharedTable); st != nil && st.ratio == b.clk.ratio {
		return st
	}
	return nil
}

// kidTable files cs, all of the child's cta records, which Child read
// with its launch, into t, its fresh packed table, and returns the
// per-warp cycles it keeps. A replay that reads the trace from a Share's
// tape offers the words to the other replays (trace.Child.Offer), and
// those of its clock take them for their child (filedKid) with no record
// filed: the packed form is a function of the records and the clock
// alone, and nothing writes to a table's words once filed (nextSpec
// keeps its place in the table, recordRun copies a shared table's words
// before it files more). The words stay alive while a replay's kernel
// holds them, and the tape's chunk its answer: as long as the work in
// flight and the tape.
func (b *treeReader) kidTable(t *ctaTable, cs []trace.CTA, same uint64) int {
	*t.header() += int64(len(cs)) // fresh (child): CTAs 0, 1, … in order
	warps := t.appendKid(cs, same, b.clk)
	if kid := &b.feed.kid; kid.OnTape() {
		kid.Offer(b.share(b.book.last.k, warps, ctasHeld(len(cs), warps)))
	}
	return warps
}

// share is t, the table of k, a child just filed (child, then its
// records), made a sharedTable for the other replays of b's clock, and
// what they take of its filing besides (its declaration, its site's
// times: sharedChild): its words are read-only from now on.
func (b *treeReader) share(k *Kernel, warps, held int) *any {
	t := &k.ctas
	t.c = t.n // its capacity its length: nothing appends in place
	t.shared = true
	st := b.book.tables.next(sharedBlock)
	site := &b.sites.recs[len(b.sites.recs)-1] // k's: child filed it last
	st.ratio, st.words, st.warps = b.clk.ratio, t.words(), warps
	st.decl, st.site, st.site.child = k.decl, *site, nil    // not the filer's child, kept alive by the tape
	st.held, st.sorted = deviceHeld+held, b.sites.inOrder() // this child's site the last
	st.self = st
	return &st.self
}

// fileKids files run, children a Share's tape answered
// (trace.Validator.Kids), as children files each that Child reads: a
// child another replay of b's clock filed and offered has its kernel and
// launch site made from that filing (sharedChild), and no record filed;
// any other is filed as children files it (child, kidTable), and
// offered. The run is a loop over the tape's answers in place, with no
// call a child to read them.
//
// What the run's children leave behind them is set once, at its end: the
// records read (trace.Kids.Read, where each child's were added) and the
// CTA after the last one's last record (book.after, which the kernel
// each child files sets again). A child filed from another replay's
// filing takes the bytes that filing held (sharedTable.held), not
// counted again. BFS --quick sweep8: see docs/performance.md, "Many
// replays over one trace".
func (b *treeReader) fileKids(m *treeMsg, run *trace.Kids) error {
	for i := 0; i < run.Len(); i++ {
		h, p := run.HeadFiled(i)
		if st := (*sharedTable)(p); st != nil && st.ratio == b.clk.ratio { // every offer a sharedTable's self (siblings)
			if err := b.sharedChild(&h.Launch, h.CTAs, st); err != nil {
				return err
			}
			b.held += st.held
			i = b.siblings(run, i+1) - 1
			continue
		}
		d := declaration{decl: b.book.declared.last, ctas: h.CTAs}
		if !h.Alike || d.decl == nil {
			d.decl = b.book.declared.of(&h.Kernel)
		}
		if err := b.child(&h.Launch, d, nil); err != nil {
			return err
		}
		cs, k := run.Records(i), b.book.last.k
		if t := &k.ctas; t.isPacked() {
			*t.header() += int64(len(cs)) // fresh (child): CTAs 0, 1, … in order
			warps := t.appendKid(cs, h.Same, b.clk)
			held := ctasHeld(len(cs), warps)
			run.Offer(i, b.share(k, warps, held))
			b.held += held
		} else { // a grid too large to pack (kidCTAs)
			b.held += ctasHeld(len(cs), t.recordRun(cs, b.clk))
		}
	}
	m.records += run.Read()
	cs := run.Records(run.Len() - 1)
	b.book.after = cs[len(cs)-1].CTA + 1 // passed: its child passed its CTA 0, and so its root
	return nil
}

// siblings files the children of run from i on that the CTA whose
// sites gather launched, where sharedChild filed its child last, and
// that another replay of b's clock filed, as sharedChild files each, and
// returns the index of the first it did not file. Their parent, its CTA
// and root are that child's, tested and found by sharedChild. BFS's
// launching CTAs launch some 100 children each (scale 16: 14,713 in 140
// runs), each had been a call of sharedChild. The loop holds no call
// (its kernels are the slab block's free ones, up to its end; an
// unordered trace's tree is set after it) and no slice grown (the tree's
// kids and the sites grown first for all of run), and a child's site is
// a copy of the filer's (sharedTable.site): scripts/instructions.sh
// --quick sweep8 E 1,517 -> 1,506 instructions a CTA. Its kids entry is
// stored for every child, the trace ordered or not (unordered: in scratch
// past the tree's kids, its table set after the loop), and the parent's
// id held, not loaded a child: E 1 a CTA fewer. The grown sites and kids
// are stored back first, not live through it: 4 stack loads a child fewer.
func (b *treeReader) siblings(run *trace.Kids, i int) int {
	g, clk, ks := &b.sites, b.clk, b.book.kernels.more.free(moreBlock)
	pid, cta, root, kind := g.k.id, g.cta, g.root, b.book.streams.own()
	n, kids := min(run.Len()-i, len(ks)), run.From(i) // up to the kernels' block's end; kids: indexed as the others
	g.recs, b.book.tree.kids = slices.Grow(g.recs, n), slices.Grow(b.book.tree.kids, n)
	// grown in place, not live through the loop; fk: the tree's kids, or, unordered, scratch past them (set after); [:n]: bounds proven
	sites, fk, ks, kids := g.recs[len(g.recs):][:n], b.book.tree.kids[len(b.book.tree.kids):][:n], ks[:n], kids[:n]
	j, held := 0, 0 // held: the bytes of its children's filings, added once
	for ; j < n; j++ {
		h, p := kids.HeadFiled(j)
		l := &h.Launch
		st := (*sharedTable)(p) // every offer a sharedTable's self: its first field (nil: none)
		if h.Parent.Kernel != pid || h.Parent.CTA != cta || st == nil || st.ratio != clk.ratio {
			break
		}
		child, s := &ks[j], &sites[j]
		fk[j] = filed{k: child, root: root} // indexed when first missed (treeTable)
		*s = st.site                        // the trace's lane, the clock's times
		s.child = child
		child.shareWords(st.words)
		child.id, child.parentID, child.decl, child.total = l.Kernel, pid, st.decl, h.CTAs
		// (child and s stored first, near where they are made: 10 stack loads and stores an iteration fewer, E 1,390 -> 1,385)
		s.kind = kind // s.creates st.site's: false, as kind's (own)
		held += st.held
	}
	if j > 0 {
		b.book.kernels.more.used, g.recs, b.held = b.book.kernels.more.used+j, g.recs[:len(g.recs)+j], b.held+held
		if b.seg.ordered {
			b.book.tree.kids = b.book.tree.kids[:len(b.book.tree.kids)+j]
		}
		for c := 0; c < j && !b.seg.ordered; c++ {
			b.book.tree.Set(fk[c].k.id, fk[c])
		}
		b.book.last = filed{k: &ks[j-1], root: root}
		b.book.declared.last = ks[j-1].decl
		g.sortedTo(run.Filed(i + j - 1).(*sharedTable).sorted)
	}
	return i + j
}

// sharedChild is child for a child whose filing another replay of b's
// clock offered (st): its kernel shares st's words, and it and its site
// take st's declaration and times, where child makes them again. The
// declaration is the one b hands out last (declCache.last), as child's
// caller would have made it: the next child, declared alike, has it.
//
// A CTA's launches come together: a child of the CTA whose sites are
// gathering, where sharedChild found that CTA's kernel and root itself
// (siteGather.rootOf), takes them from there, with no lookup of its
// parent, no test of its grid and no test that its sites gather.
func (b *treeReader) sharedChild(l *trace.Launch, ctas uint64, st *sharedTable) error {
	p, root := b.sites.k, b.sites.root
	if g := &b.sites; g.of == nil || g.rootOf != g.of || p.id != l.Parent.Kernel || l.Parent.CTA != g.cta {
		pf := b.book.known(&b.book.parent, l.Parent.Kernel)
		if pf.k == nil || l.Parent.CTA >= pf.k.total {
			return b.orphan(l)
		}
		p, root = pf.k, pf.root
		if b.seg.ordered && p == b.seg.host {
			root = l.Parent.CTA
		}
		if g.of == nil || p != g.k || l.Parent.CTA != g.cta {
			if err := b.gather(p, l.Parent.CTA); err != nil {
				return err
			}
		}
		g.root, g.rootOf = root, g.of
	}
	child := b.book.kernels.sharedKernel(st.words)
	child.id, child.parentID, child.decl, child.total = l.Kernel, p.id, st.decl, ctas
	b.book.declared.last = st.decl
	cf := filed{k: child, root: root}
	if b.seg.ordered {
		b.book.tree.kids = append(b.book.tree.kids, cf) // indexed when first missed (treeTable)
		b.seg.rootPast = root + 1                       // passed (fileKids sets book.after)
	} else {
		b.book.tree.Set(child.id, cf)
	}
	b.book.last = cf // its CTAs' records come next, as a rule
	kind, creates := b.book.streams.of(l)
	if len(b.sites.recs) == cap(b.sites.recs) {
		b.sites.recs = slices.Grow(b.sites.recs, 1)
	}
	b.sites.recs = b.sites.recs[:len(b.sites.recs)+1]
	s := &b.sites.recs[len(b.sites.recs)-1]
	s.warp, s.lane, s.kind, s.creates, s.stream = int32(l.Parent.Warp), int16(l.Parent.Lane), kind, creates, l.Stream
	s.at, s.child, s.workload, s.inline = st.site.at, child, l.Workload, st.site.inline
	b.sites.sortedTo(st.sorted)
	return nil
}

// kidCTAs files the child's cta records read with its launch (its
// first and the run after it: trace.Child.Records) in one call, and the
// runs of its records after them (trace.Validator.CTAs), as step and
// runCTAs file them: an error of a run's is left in runErr, for step.
// The records Child read keep the trace's rules, CTAs 0, 1, … of the
// child's grid, so they are filed as ctaRun files a run in the grid of
// the kernel filed last (child: a device kernel, never windowed), with
// no test of their kernel and CTAs. The kernel is the one child made
// for them, its packed table fresh (newDeviceKernel), so they go straight
// to its words (appendPacked), with no call of recordRun and its test
// that they come next in CTA order (BFS --quick: 17 instructions a
// child fewer); a grid too large to pack has specs (recordRun's).
func (b *treeReader) kidCTAs(m *treeMsg) error {
	kid, f := b.feed.kid.Head(), b.book.last
	cs := b.feed.kid.Records()
	m.records += len(cs)
	b.passed(f, cs[len(cs)-1].CTA)
	if t := &f.k.ctas; t.isPacked() {
		*t.header() += int64(len(cs)) // fresh (child): CTAs 0, 1, … in order
		b.held += ctasHeld(len(cs), t.appendPacked(cs, b.clk))
	} else {
		b.held += ctasHeld(len(cs), t.recordRun(cs, b.clk))
	}
	if !kid.More {
		if kid.Err != nil {
			b.feed.run, b.feed.runAt, b.feed.runErr = b.feed.run[:0], 0, kid.Err
		}
		return nil // no run: a call of CTAs that found none cost BFS (--quick) 19 instructions a CTA
	}
	run := b.feed.run[:runLen]
	for {
		n, err := b.feed.runs.CTAs(kid.Kernel.ID, run, b.feed.runWarps)
		m.records += n
		if err := b.ctaRun(run[:n]); err != nil {
			return err
		}
		if err != nil || n < runLen {
			b.feed.run, b.feed.runAt, b.feed.runErr = b.feed.run[:0], 0, err
			return nil
		}
	}
}

// known is kernel id as filed: *c (k.parent) when it is id's, else
// looked up in the tree (and kept in *c; a zero filed if id is not there).
func (k *kernelBook) known(c *filed, id uint64) filed {
	if c.k == nil || c.k.id != id {
		*c, _ = k.tree.Get(id)
	}
	return *c
}

// gather starts gathering the sites of CTA i of k, after giving the CTA
// whose sites were gathering its own. child asks for it only when a
// launch's CTA is not the one gathering: a CTA's launches come together,
// and a call of extra a launch to find that CTA cost BFS --quick 5
// instructions a CTA.
func (b *treeReader) gather(k *Kernel, i uint64) error {
	x, err := b.extra(k, i)
	if err != nil {
		return err
	}
	b.flushSites()
	b.sites.of, b.sites.k, b.sites.cta, b.sites.rootOf = x, k, i, nil // root not yet known (sharedChild)
	b.sites.recs, b.sites.checked = append(b.sites.recs, x.sites...), x.sitesChecked
	return nil
}

// flushSites gives the CTA whose sites are gathering its sites.
func (b *treeReader) flushSites() {
	if b.sites.of == nil {
		return
	}
	b.sites.of.sites, b.sites.of.sitesChecked = b.sites.carve(), b.sites.checked
	// recs, not cleared, hold a CTA's children until overwritten: clearing cost BFS 3 a CTA
	b.sites.recs, b.sites.of = b.sites.recs[:0], nil
}

// cta records one CTA's cost in its kernel.
func (b *treeReader) cta(c *trace.CTA) error {
	f := b.book.last
	if f.k == nil || f.k.id != c.Kernel {
		f, _ = b.book.tree.Get(c.Kernel)
		b.book.last = f
	}
	k := f.k
	if k == nil {
		return fmt.Errorf("cta %d of kernel %d: kernel not launched in this launch tree", c.CTA, c.Kernel)
	}
	if c.CTA >= k.total {
		return fmt.Errorf("cta %d of kernel %d: outside the grid of %d CTAs", c.CTA, c.Kernel, k.total)
	}
	b.passed(f, c.CTA)
	if !b.windowed(k) {
		b.held += ctaHeld(k.ctas.record(c, b.clk))
		return nil
	}
	if b.seg.win.appendPlain(c, b.clk) {
		b.held += ctaHeld(0)
		return nil
	}
	var r ctaRecord
	r.readOwned(c, b.clk)
	b.held += ctaHeld(len(r.warps))
	return b.seg.win.record(c.CTA, &r)
}

// windowed reports whether k's CTAs are filed in the spec window, not
// in k's table: k is the host kernel of an ordered_trees trace.
func (b *treeReader) windowed(k *Kernel) bool { return k == b.seg.host && b.seg.ordered }

// extra returns CTA i of k's rare parts, creating them on first use.
func (b *treeReader) extra(k *Kernel, i uint64) (*ctaExtra, error) {
	if b.sites.of != nil && k == b.sites.k && i == b.sites.cta {
		return b.sites.of, nil // a CTA's launches come together
	}
	if b.windowed(k) {
		return b.seg.win.extra(i)
	}
	return k.extra(i), nil
}

// passed notes that a record of CTA cta of kernel f is read: the CTA after
// it, and (ordered_trees' open segment) how far host or device records got.
func (b *treeReader) passed(f filed, cta uint64) {
	b.book.after = cta + 1
	switch k := f.k; {
	case !b.seg.ordered || k == nil:
	case k == b.seg.host:
		b.seg.hostPast = cta + 1
	case !k.host:
		b.seg.rootPast = f.root + 1
	}
}

// ref files an access or pages record as the CTA's page references when the
// scoreboard needs them.
func (b *treeReader) ref(r trace.Record) error {
	kid, cta := recordCTA(r)
	if b.seg.ordered {
		f, _ := b.book.tree.Get(kid)
		b.passed(f, cta)
	}
	if b.io.refs == nil {
		return nil
	}
	isRef := b.io.refs.counts(r) && !b.io.irregular[kid]
	isTouch := b.io.touches == touchAll || b.io.touches == touchIrregular && b.io.irregular[kid] && r.Kind() == trace.KindPages
	if !isRef && !isTouch {
		return nil
	}
	f := b.book.last
	if f.k == nil || f.k.id != kid {
		f, _ = b.book.tree.Get(kid)
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
		x.refs = b.io.refs.appendRanges(r, x.refs)
	}
	if isTouch {
		x.touches = b.io.refs.appendTouches(r, x.touches)
	}
	b.held += refHeld(r)
	return nil
}

// ended reports whether the last cta record filed was kernel's grid's
// last CTA, as a kernel's records in CTA order end: a run of its records
// would find none (readRun), and Next reads what follows. Asked, a
// child kernel of BFS's tried a run once more, which read no record
// (scripts/instructions.sh --quick bfs: 39 instructions a CTA fewer).
func (b *treeReader) ended(kernel uint64) bool {
	f := b.book.last
	return f.k != nil && f.k.id == kernel && b.book.after >= f.k.total
}

// ctaRun files cs, cta records of one kernel in a run (trace.Validator's
// CTAs), as cta files each, with the kernel found and its filing chosen
// once a run, not a record, and no call of cta a record, where the
// kernel is the last one filed and not windowed (a child kernel's
// runs after those Child read, kidCTAs: scripts/instructions.sh --quick bfs,
// 3,673 to 3,661 and 3,662 a CTA); else, and from a record outside the
// grid on, through cta, which says what is wrong. The records before
// that are filed in one call (ctaTable.recordRun) and passed once, as
// their last: the kernel's table and the reader's marks end as filing
// each would leave them, with no call of record and passed a record
// (scripts/instructions.sh bfs, full size: 11 instructions a CTA fewer).
func (b *treeReader) ctaRun(cs []trace.CTA) error {
	f := b.book.last
	if len(cs) == 0 || f.k == nil || f.k.id != cs[0].Kernel || b.windowed(f.k) {
		return b.ctaEach(cs)
	}
	k, n := f.k, len(cs)
	for i := range cs {
		if cs[i].CTA >= k.total {
			n = i
			break
		}
	}
	if n > 0 {
		b.passed(f, cs[n-1].CTA)
		b.held += ctasHeld(n, k.ctas.recordRun(cs[:n], b.clk))
	}
	if n < len(cs) {
		return b.ctaEach(cs[n:])
	}
	return nil
}

// ctaEach files cs as cta files each.
func (b *treeReader) ctaEach(cs []trace.CTA) error {
	for i := range cs {
		if err := b.cta(&cs[i]); err != nil {
			return err
		}
	}
	return nil
}
