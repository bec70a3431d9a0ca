package replay

import (
	"slices"
	"unsafe"

	"github.com/gpureplay/gpureplay/trace"
)

// ctaTable holds what the trace says about a kernel's CTAs, by index. A
// kernel of up to flatCTAs CTAs gets one slice; a larger one gets chunks
// allocated as its cta records arrive, so memory follows the records
// read, never a declared grid (a header-only kernel of 2^32 CTAs costs
// nothing until its records prove it).
//
// A device kernel's table starts packed: its cta records are kept as they
// come, packed in one slice of words (ctacodec.go: each the spec it
// makes, a third of a ctaSpec where every warp runs the CTA's cycles,
// the rest of it implied), and made specs only when a spec is first
// asked for — its first CTA placed, a launch site or page reference
// filed on one of its CTAs. Under CDP a
// launch-heavy trace has tens of thousands of children launched and
// waiting for a Kernel Distributor entry at once (BFS scale 20: most of
// a level's), whose specs nobody reads until then.
//
// A packed table whose records came one a CTA in CTA order (as every
// generator writes them) need not unpack at all: its CTAs are placed in
// that order, each placed CTA's spec decoded from the next record into its
// own state (streams, nextSpec): a child's specs are never all held.
//
// A table is packed or has specs, flat or in chunks. The specs are
// behind a pointer and the packed words are not, so a device kernel's
// table costs no allocation beside its packed words (newDeviceKernel: for
// a small grid, not even those); a kernel with specs (a host kernel, a
// device kernel that unpacks) pays one allocation more. One pointer
// names either (ref), the words' length and capacity kept as uint32s, so
// the table takes 24 bytes of its Kernel, where a slice and a pointer
// took 40, while hundreds of thousands are pending (BFS scale 22: 612K
// launched while 8K had completed).
type ctaTable struct {
	// ref is the packed words' first, where n > 0, else the specs
	// (*ctaSpecs), or nil for neither. The words are a header word, then
	// the records. The header holds a flag (outOfOrder), the grid's size
	// (headerGrid) and, in its low 32 bits, the CTA a record of which
	// names none (the CTA after the last such record's). Once filed, the
	// words are only read: nextSpec keeps its place in next, not in
	// them, so that the replays of one clock may read one table's words
	// (sharedTable), each at its own place.
	ref unsafe.Pointer
	// n and c are the packed words' length and capacity: 0 while the
	// table is not packed (a packed table has its header at least).
	n, c uint32
	// next is where the record nextSpec gives next starts in the words,
	// less one (0: the first, at 1): no max(next, 1) a CTA.
	next int32
	// shared is set where the words are read by other replays too
	// (sharedTable): a record filed later copies them first (own).
	shared bool
}

// specTable is a table of the specs s.
func specTable(s *ctaSpecs) ctaTable {
	var t ctaTable
	t.setSpecs(s)
	return t
}

// setSpecs makes s the table's specs, in place of any packed words, which
// it no longer shares: with setWords, the only writers of ref.
func (t *ctaTable) setSpecs(s *ctaSpecs) {
	t.ref, t.n, t.c, t.shared = unsafe.Pointer(s), 0, 0, false
}

// isPacked reports whether the table keeps its records packed.
func (t *ctaTable) isPacked() bool { return t.n > 0 }

// words is the packed words, nil where the table is not packed: of
// their length, which is all a reader needs (appends go through push1,
// push2 and setWords, which know the capacity). The words are sliced
// from a pointer to an array of 2^32, which n cannot pass, so the slice
// takes no check: unsafe.Slice's of a nil pointer and of the length
// cost placePacked 8 instructions a CTA (BFS --quick 2,738 → 2,726).
// checkptr (on under -race) knows the form and checks the n words
// sliced, not the array (go test -race ./replay passes).
func (t *ctaTable) words() []int64 {
	if t.n == 0 {
		return nil
	}
	return (*[1 << 32]int64)(t.ref)[:t.n:t.n] // n < 2^32: no bounds check
}

// header is the packed words' first, the header; the table must be
// packed.
func (t *ctaTable) header() *int64 { return (*int64)(t.ref) }

// setWords makes p, its header at least, the table's packed words.
// A packed table has at most flatCTAs (2^22) CTAs of a few dozen words
// each (a head, a demand, a name, a warp's cycles each), so its words'
// length and capacity fit a uint32.
func (t *ctaTable) setWords(p []int64) {
	t.ref, t.n, t.c = unsafe.Pointer(unsafe.SliceData(p)), uint32(len(p)), uint32(cap(p))
}

// push1 and push2 append one word, or two, to the packed words: where
// they have room, stored at the words' end, past the length, with no
// bounds check and no store of the pointer (which takes the write
// barrier's test), as append stores only a slice's length back;
// elsewhere into words grown by grow.
func (t *ctaTable) push1(a int64) {
	if t.n == t.c {
		t.grow()
	}
	*(*int64)(unsafe.Add(t.ref, uintptr(t.n)*8)) = a
	t.n++
}

func (t *ctaTable) push2(a, b int64) {
	if t.c-t.n < 2 {
		t.grow()
	}
	p := (*[2]int64)(unsafe.Add(t.ref, uintptr(t.n)*8))
	p[0], p[1] = a, b
	t.n += 2
}

// grow moves the packed words to a slice with room for two more, at
// least, as append grows one (kept out of push1's and push2's line: it
// runs once a slice's doubling).
//
//go:noinline
func (t *ctaTable) grow() {
	w := t.words()
	t.setWords(append(w, 0, 0)[:len(w)]) // w's capacity is its length: append moves it
}

// specs is the table's specs, nil where it is packed or has none.
func (t *ctaTable) specs() *ctaSpecs {
	if t.n > 0 {
		return nil
	}
	return (*ctaSpecs)(t.ref)
}

// ctaSpecs are a table's specs: one slice, or chunks for a grid over
// flatCTAs (flat nil), or a queue (both nil).
//
// A host kernel of an ordered_trees trace has a queue: its CTAs' specs
// come in CTA order (bodyCursor.install) and its CTAs are placed in that
// order, each taking its spec out as it is placed (into ctaRun.own), so
// the kernel holds only the specs installed and not yet placed, not its
// grid's: installed as each CTA is placed, unless another kernel's load
// reads through its segment first.
type ctaSpecs struct {
	flat   []ctaSpec
	chunks map[uint64]*[ctaChunk]ctaSpec
	queue  *specQueue
}

// specQueue is a host kernel's specs installed and not yet placed, in CTA
// order: those of the CTAs from the next to be placed up to end. CTAs
// with no record between two that have one are queued empty (the tree
// reader's window held them so); those after the last are not. The specs
// wait as the window holds them (specWindow): slims, pointer-free, and
// apart, in order, the rare parts of those whose rare is set. So the
// engine's pop, once a CTA placed, reads 24 bytes and clears nothing, and
// the collector scans none of it. Both are slices read from a head and
// moved down as put adds to them once the head passes half (compact):
// pointer-free items move with no write barrier, and a slice's pop is an
// index, where a fifo.Queue's (block and count checks, the item copied
// out through a result and its place cleared) cost 63 instructions a CTA
// on synth against 51 for a whole ctaSpec.
//
// A queue past spillAt specs keeps the rest packed (spill, spill.go): a
// host kernel waits whole here when a later one's body is read before
// its CTAs are placed (kernels of many streams), and ten grids of 1M CTAs
// held as slims took 240 MB.
type specQueue struct {
	specs    []slimSpec // queued from specs[head] on
	head     int
	rare     []rareSpec // queued from rare[rareHead] on
	rareHead int
	end      uint64
	spill    specSpill // queued after specs, packed
}

// put queues specs as those of CTAs i, i+1, …, with rare the rare parts
// of those whose rare is set, in order; i is not before end (the CTAs
// between are queued empty) unless specs is empty.
func (q *specQueue) put(i uint64, specs []slimSpec, rare []rareSpec) {
	if len(specs) == 0 {
		return
	}
	q.compact()
	gap := int(i - q.end)
	if q.spill.held() || len(q.specs)-q.head+gap+len(specs) > spillAt {
		q.spill.put(gap, specs)
	} else {
		if gap > 0 {
			q.specs = append(q.specs, make([]slimSpec, gap)...)
		}
		q.specs = append(q.specs, specs...)
	}
	q.rare = append(q.rare, rare...)
	q.end = i + uint64(len(specs))
}

// putOwned is put where the caller gives up specs' storage: a queue that
// holds nothing takes it as its own, with no copy, and returns its own
// storage, emptied, for the caller to use in its place; else it copies
// them (put) and returns specs' storage, emptied. It takes only storage
// at least as large as its own, so a message (bodyCursor.install) never
// gets more storage than it had. A host kernel's specs come in messages
// of msgSpecs and are installed as its CTAs are placed, mostly into a
// queue they have emptied (scripts/instructions.sh --quick synth and
// uniform: 3 instructions a CTA fewer each).
func (q *specQueue) putOwned(i uint64, specs []slimSpec, rare []rareSpec) []slimSpec {
	if len(specs) == 0 || q.head < len(q.specs) || q.spill.held() || i != q.end || cap(q.specs) > cap(specs) || len(specs) > spillAt {
		q.put(i, specs, rare)
		return specs[:0]
	}
	own := q.specs[:0]
	q.specs, q.head = specs, 0
	q.rare, q.rareHead = append(q.rare[:0], rare...), 0 // every rare part queued is taken: none left
	q.end = i + uint64(len(specs))
	return own
}

// compact moves what is queued to the front of each slice once the head
// has passed half of it, so the storage follows what is queued (at most
// twice it) and the moves are amortised over the pops. The places the
// rare parts leave are cleared, so that the collector keeps nothing
// alive through them; the slims' are not (shiftDown).
func (q *specQueue) compact() {
	q.specs, q.head = shiftDown(q.specs, q.head)
	n := len(q.rare)
	q.rare, q.rareHead = shiftDown(q.rare, q.rareHead)
	clear(q.rare[len(q.rare):n])
}

// shiftDown moves s[head:], what a slice read from a head holds, to the
// front of s once head has passed half of s, and returns s and head
// after: the storage stays within twice what is held, and each move is
// paid for by the reads before it. The places it leaves, past the
// slice's length, keep what they held: a caller whose items hold
// pointers clears them. Slims, whose storage past its length is written
// before it is read (append), are not cleared, here or in
// specWindow.take (scripts/instructions.sh --quick: synth and uniform 8
// and 9 instructions a CTA fewer).
func shiftDown[T any](s []T, head int) ([]T, int) {
	if head <= len(s)/2 {
		return s, head
	}
	k := copy(s, s[head:])
	return s[:k], 0
}

// pop moves the spec of CTA i, the next to be placed, into *dst, all of
// it (past the specs queued, an empty one): *dst is the last CTA's spec
// in a reused record, which ctaEnd leaves (ctaRun.dropSpec).
func (q *specQueue) pop(i uint64, dst *ctaSpec) {
	if i >= q.end {
		q.end = i + 1
		*dst = ctaSpec{}
		return
	}
	if q.head == len(q.specs) {
		q.specs, q.head = q.spill.take(q.specs[:0], spillAt), 0
	}
	e := &q.specs[q.head]
	q.head++
	e.expand(dst)
	if e.rare != 0 {
		q.popRare(dst)
	} else if dst.warps != nil || dst.x != nil {
		dst.warps, dst.x = nil, nil
	}
}

// nextPlain is the spec of CTA i, the next to be placed, where it is
// queued in specs (not spilled) with no rare parts: taken out of the
// queue, as pop would. Elsewhere it is nil and the queue is left as it
// was, for pop.
func (q *specQueue) nextPlain(i uint64) *slimSpec {
	if i >= q.end || q.head == len(q.specs) || q.specs[q.head].rare != 0 {
		return nil
	}
	q.head++
	return &q.specs[q.head-1]
}

// popRare moves the next rare parts into *dst.
func (q *specQueue) popRare(dst *ctaSpec) {
	r := &q.rare[q.rareHead]
	r.expand(dst)
	*r = rareSpec{}
	q.rareHead++
}

// The flags in a packed table's header word, and where its grid is.
const (
	outOfOrder = -1 << 63 // a record came for another CTA than the one after the last record's
	headerGrid = 32       // the grid's size is the header shifted right so (and masked: gridOf)
	headerLow  = 1<<32 - 1
)

const (
	flatCTAs = 1 << 22
	ctaChunk = 1 << 12
)

func newCTATable(total uint64) ctaTable {
	if total <= flatCTAs {
		return specTable(&ctaSpecs{flat: make([]ctaSpec, total)})
	}
	return specTable(&ctaSpecs{chunks: map[uint64]*[ctaChunk]ctaSpec{}})
}

// newQueuedCTATable is an empty queue of specs (ctaSpecs).
func newQueuedCTATable() ctaTable {
	return specTable(&ctaSpecs{queue: &specQueue{}})
}

// queued is the table's queue, or nil; packedRun for a packed table
// (packed), which queues nothing: a plain run's placePlain takes a
// packed table's CTAs from its words (placePacked), with no line of
// RoundRobin.Place's loop or Dispatch.plainQueue, inlined in it,
// changed (a test of its own in either cost synth 5 to 9 instructions a
// CTA, scripts/instructions.sh --quick: its loop compiled anew).
func (t *ctaTable) queued() *specQueue {
	if t.n > 0 {
		return &packedRun
	}
	if t.ref == nil {
		return nil
	}
	return (*ctaSpecs)(t.ref).queue
}

// specQueue is the queue of a table that has one, else nil (a packed
// table, or specs with no queue), for a kernel with CTAs in flight,
// whose table is never the zero one (no words, no specs): one test, as
// queued's of a table's specs was before the words and the specs shared
// ref (swapPlain, at every swap: synth --quick 916 → 915).
func (t *ctaTable) specQueue() *specQueue {
	if t.n > 0 {
		return nil
	}
	return (*ctaSpecs)(t.ref).queue
}

// packedRun is a packed table's queue (queued): it queues none.
var packedRun specQueue

// newPackedCTATable is a table of total CTAs that keeps its records packed
// until a spec is asked for, in a slice of packedRoom (records past its
// capacity move to a larger one as they come). Grids too large for one
// slice are not packed: their chunks already follow the records.
func newPackedCTATable(total uint64) ctaTable {
	if total > flatCTAs || total == 0 {
		return newCTATable(total)
	}
	p := make([]int64, 1, packedRoom(total))
	p[0] = int64(total) << headerGrid
	var t ctaTable
	t.setWords(p)
	return t
}

// packedRoom is the words a packed table of total CTAs starts with room
// for: its header, a record per CTA (up to 64) and one CTA's two
// per-warp cycles of its own (BFS's children: their last CTA's). Up to
// 16, BFS scale 20's children of 20 to 62 CTAs outgrew it, 6K of them.
func packedRoom(total uint64) int {
	return 1 + int(min(total, 64))*2 + 2
}

// gridOf is the grid's size a packed table's header holds.
func gridOf(header int64) int { return int(header>>headerGrid) & (2*flatCTAs - 1) }

// at is CTA i's spec, created empty on first use; i must be inside the
// grid.
func (t *ctaTable) at(i uint64) *ctaSpec {
	if t.isPacked() {
		t.unpack()
	}
	s := t.specs()
	if s.chunks == nil {
		return &s.flat[i]
	}
	chunks := s.chunks
	c := chunks[i/ctaChunk]
	if c == nil {
		c = new([ctaChunk]ctaSpec)
		chunks[i/ctaChunk] = c
	}
	return &c[i%ctaChunk]
}

// record files cta record c, rescaled with clk, as CTA c.CTA's: packed
// while the table is, else into its spec (fill). It returns how many
// per-warp cycles it keeps. The record is the trace reader's, which
// reuses it and its warps once the tree filer's call (one a CTA) is
// done: what a table keeps of it, it copies.
func (t *ctaTable) record(c *trace.CTA, clk clock) int {
	return t.recordRun(unsafe.Slice(c, 1), clk) // a run of c alone, no copy
}

// recordRun files cs, a run of cta records of the table's CTAs, as record
// files each, and returns how many per-warp cycles it keeps. A run is at
// least one record, of CTAs c, c+1, … in order: trace.Validator's runs
// (CTAs, Child.Records) are so. So in a packed table, where its first is
// the CTA the header says comes next (the CTA after the last record's
// that named none), each of them is, and the header counts them once a
// run, not a record (scripts/instructions.sh bfs, full size: 2,416 to
// 2,410 instructions a CTA); else appendNamed files them.
func (t *ctaTable) recordRun(cs []trace.CTA, clk clock) (warps int) {
	if t.shared {
		t.own()
	}
	if p := t.words(); p != nil && uint64(p[0]&headerLow) == cs[0].CTA {
		p[0] += int64(len(cs))
		return t.appendPacked(cs, clk)
	}
	if t.isPacked() {
		return t.appendNamed(cs, clk)
	}
	for i := range cs {
		warps += t.fill(&cs[i], clk)
	}
	return warps
}

// own makes t's words its own, a copy of those it shares with other
// replays (treeReader.kidTable), so that it may file more records into
// them.
func (t *ctaTable) own() {
	t.setWords(slices.Clone(t.words()))
	t.shared = false
}

// unpack turns the packed records into specs. The words are the table's
// own encoding, so they decode without error; the specs' per-warp cycles
// stay in them.
func (t *ctaTable) unpack() {
	p := t.words()
	flat := make([]ctaSpec, gridOf(p[0]))
	t.setSpecs(&ctaSpecs{flat: flat})
	for next, at := 0, 1; at < len(p); {
		i := next
		if p[at] < 0 { // it names its CTA
			i, at = int(p[at]&^namesCTA), at+1
		} else {
			next++
		}
		at = flat[i].decode(p, at)
	}
}

// streams reports whether the table is packed with its records one a CTA
// in CTA order (CTAs past the last record have none): nextSpec gives its
// CTAs' specs in order without unpacking.
func (t *ctaTable) streams() bool {
	return t.n > 0 && *t.header() >= 0 // no outOfOrder
}

// nextSpec sets s to the spec of the CTA after the one it gave last (the
// first, at first), decoded from its record; the table must stream and be
// filed no further. It runs once per CTA placed (BFS scale 20: 536K
// times), so it reads each record once; the spec's per-warp cycles stay
// in the table's words (decode), so a CTA with them copies none. It
// writes t's place (next) and never the words, which other replays of
// the clock may read at their own places (sharedTable).
func (t *ctaTable) nextSpec(s *ctaSpec) {
	p, at := t.words(), int(t.next)+1 // at first, the first record
	if at == len(p) {
		*s = ctaSpec{} // a CTA past the last record: none
		return
	}
	t.next = int32(s.decode(p, at) - 1) // in CTA order: it names no CTA
}

// fill is record into a table of specs: the ctaRecord read makes of c,
// with a copy of its warps (the trace reader may reuse the slice).
func (t *ctaTable) fill(c *trace.CTA, clk clock) int {
	var r ctaRecord
	r.readOwned(c, clk)
	r.fill(t.at(c.CTA))
	return len(r.warps)
}

// reserve makes room in the packed words for ws, tested once, and
// returns ws, whose words put then appends with no test each (push1's):
// appendKid's per-warp cycles, BFS's children's last CTAs' two.
func (t *ctaTable) reserve(ws []int64) []int64 {
	if int(t.c-t.n) < len(ws) {
		t.growBy(len(ws))
	}
	return ws
}

// put appends a to the packed words, which have room for it (reserve).
func (t *ctaTable) put(a int64) {
	*(*int64)(unsafe.Add(t.ref, uintptr(t.n)*8)) = a
	t.n++
}

// growBy is grow for room for k more words, at least (reserve's): grow's
// two, again and again, would never pass what append gives the words
// grown by two from their length.
//
//go:noinline
func (t *ctaTable) growBy(k int) {
	t.setWords(slices.Grow(t.words(), k))
}
