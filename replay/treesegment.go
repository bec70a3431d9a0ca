package replay

// The tree reader's segments: a host launch opens one (begin), and its host
// CTAs are handed over to the engine, with their trees, as the records pass
// them (handOver, under ordered_trees) or when the segment ends; the reader then forgets their kernels.

import (
	"github.com/gpureplay/gpureplay/internal/gallop"
	"github.com/gpureplay/gpureplay/internal/idtab"
	"github.com/gpureplay/gpureplay/trace"
)

// begin opens a segment at host launch l.
func (b *treeReader) begin(m *treeMsg, l *trace.Launch) error {
	b.io.launched = true
	d, err := b.takeDecl(l)
	if err != nil {
		return err
	}
	h := &Kernel{id: l.Kernel, host: true, decl: d.decl, total: d.ctas}
	if !b.seg.ordered {
		h.ctas = newCTATable(h.total) // else its specs gather in the window
	}
	b.book.tree.Set(h.id, filed{k: h})
	b.book.last = filed{k: h}
	if b.seg.ordered {
		b.seg.win.reset() // its specs gather here, not in a table
		b.seg.hostPast, b.seg.rootPast, b.seg.due = 0, 0, 0
	}
	b.seg.host = h
	m.events = append(m.events, treeEvent{start: &treeStart{kernel: h.id, total: h.total, decl: h.decl}})
	return nil
}

// end closes the open segment, if any: what is left of it is handed over
// and its kernels forgotten. It reports false, having done nothing else,
// while more of its host CTAs wait to be handed over than m takes.
func (b *treeReader) end(m *treeMsg) bool {
	h := b.seg.host
	if h == nil {
		return true
	}
	b.flushSites()
	ev := treeEvent{end: true}
	if b.seg.ordered {
		if b.handOverTo(m, h.total); b.seg.win.from < h.total {
			return false
		}
	} else {
		ev.table = h.ctas
	}
	m.events = append(m.events, ev)
	b.seg.host = nil
	b.book.tree.clear()
	b.book.last, b.book.parent = filed{}, filed{}
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
	if past := min(b.seg.hostPast, b.seg.rootPast); past > b.seg.win.from+1 {
		b.handOverTo(m, past-1)
	}
}

// handOverTo hands over the open segment's host CTAs up to n (exclusive),
// as many as m has room for (the rest wait for the next messages: a
// message carries msgSpecs specs at most, however many CTAs a record
// completes, such as a host kernel's whole grid where its trees come after
// all its CTAs' records), and forgets their trees' device kernels.
func (b *treeReader) handOverTo(m *treeMsg, n uint64) {
	b.seg.due = max(b.seg.due, n)
	if b.seg.due <= b.seg.win.from {
		return
	}
	b.flushSites()
	at := len(m.specs)
	room := msgSpecs - at
	if room == 0 {
		return
	}
	if need := at + int(min(uint64(min(room, b.seg.win.len())), b.seg.due-b.seg.win.from)); need > cap(m.specs) {
		// Grown by doubling, but never past msgSpecs (append's
		// growth would): a reused message keeps its storage.
		grown := make([]slimSpec, at, min(max(2*cap(m.specs), need), msgSpecs))
		copy(grown, m.specs)
		m.specs = grown
	}
	rare := len(m.rare)
	m.specs, m.rare, n = b.seg.win.take(m.specs, m.rare, b.seg.due, room)
	m.events = append(m.events, treeEvent{specs: len(m.specs) - at, rare: len(m.rare) - rare, upTo: n})
	t, kids := &b.book.tree, b.book.tree.kids
	last, parent, indexed := b.book.last, b.book.parent, b.book.tree.indexed // forget's, drop's
	i := 0
	for ; i < indexed && i < len(kids) && kids[i].root < n; i++ {
		b.handedOver(kids[i].k, i)
	}
	if i < len(kids) && kids[i].root < n { // kids in root order: those before n are handed over
		i = gallop.End(i, len(kids), func(j int) bool { return kids[j].root < n }) // galloped, not scanned: BFS --quick 2,405 -> 2,403 a CTA
	}
	if handed(last, n) {
		b.forget(last.k)
	}
	if handed(parent, n) {
		b.forget(parent.k)
	}
	t.indexed = max(t.indexed-i, 0)
	k := copy(t.kids, t.kids[i:])
	// kids[k:] not cleared: overwritten as kids are filed, no more than the most in flight
	t.kids = t.kids[:k]
}

// forget drops a kernel the engine now holds from what the reader keeps
// filed apart from its tree. Small enough to inline: a call each device
// kernel handed over, with its table's part (drop) in it, cost BFS
// --quick 5 instructions a CTA.
func (b *treeReader) forget(k *Kernel) {
	if b.book.last.k == k {
		b.book.last = filed{}
	}
	if b.book.parent.k == k {
		b.book.parent = filed{}
	}
}

// treeTable is the open segment's kernels by id. Under ordered_trees a
// device kernel joins the table only when a lookup first misses there,
// with the others launched since (kids[indexed:]): a launch-heavy
// trace's records find their kernel without it (the one filed last, or
// the parent named last), and setting each child in the table and taking
// it out again at its hand-over cost BFS (--quick) about 40 instructions
// a CTA. The Validator's tree does the same (trace.Validator.treeGet).
type treeTable struct {
	idtab.Table[filed]
	// kids are, under ordered_trees, the device kernels of the trees
	// not yet handed over, in the order they were launched; the table
	// holds kids[:indexed].
	kids    []filed
	indexed int
}

// Get is the kernel of the segment with id id, and whether there is one.
func (t *treeTable) Get(id uint64) (filed, bool) {
	if f, ok := t.Table.Get(id); ok || t.indexed == len(t.kids) {
		return f, ok
	}
	for _, f := range t.kids[t.indexed:] {
		t.Set(f.k.id, f)
	}
	t.indexed = len(t.kids)
	return t.Table.Get(id)
}

// drop takes indexed kernel k out of the table, unless its id now names
// another kernel.
func (t *treeTable) drop(k *Kernel) {
	if f, ok := t.Take(k.id); ok && f.k != k {
		t.Set(k.id, f) // another kernel's id now: it stays
	}
}

// clear forgets the segment's kernels.
func (t *treeTable) clear() {
	t.Clear()
	clear(t.kids)
	t.kids, t.indexed = t.kids[:0], 0
}

// handedOver drops k, the tree's kids[i], handed over, from the tree's
// table where it is indexed there, and forgets it. handOverTo calls it
// only for a kernel it finds indexed or filed apart (forget's): a test
// and a call of forget for each device kernel handed over cost BFS
// --quick 3 instructions a CTA.
func (b *treeReader) handedOver(k *Kernel, i int) {
	if i < b.book.tree.indexed {
		b.book.tree.drop(k)
	}
	b.forget(k)
}

// handed reports whether f, the kernel filed last or the parent named
// last, is a device kernel of a tree handOverTo hands over, up to host
// CTA n: its root before n, as those of the kids it hands over (in root
// order). handOverTo so forgets it with no test of each kid against the
// two (some 10 instructions a device kernel a replay).
func handed(f filed, n uint64) bool {
	return f.k != nil && !f.k.host && f.root < n
}
