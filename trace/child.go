package trace

// A device kernel's declaration and launch, read as a pair. A
// launch-heavy trace declares each child kernel right before its device
// launch (BFS: every kernel but the host ones), and through Next the two
// records were two calls down every layer (Validator, Reader), two type
// switches at each, and a pending declaration set and taken between
// them. Child reads and checks them in one call.

import (
	"sync/atomic"
	"unsafe"
)

// Child is where Validator.Child reads a device kernel's declaration
// and its launch (Head), and the child's cta records it read with them
// (Records): both valid after a call that returned true, until the
// next call with the same Child.
//
// Head is the Child's own storage where the Validator read the records,
// and the answer on its tape where a Share's reader was answered: every
// reader of a Share points at the one answer, with nothing copied (a
// copy of the kernel, launch and parent into each reader cost four
// replays of BFS --quick some 100 instructions a child each).
type Child struct {
	own    ChildHead  // the answer where the Validator read it itself
	head   *ChildHead // the answer: &own, or a Share's tape
	n      int        // the records read: room[:n]
	shared []CTA      // where a Share's reader answered, the records on its tape, in place of room[:n]
	// slot, where a Share's reader answered, is the tape's place for what
	// a reader made of the child's records (Offer, Filed); nil where the
	// Validator read them.
	slot  *unsafe.Pointer
	room  [ChildRun]CTA
	warps [ChildRun * RunWarps]int64
}

// ChildHead is a child's declaration and launch as Validator.Child read
// them: Launch.Parent is &Parent. More is true where the records Child
// read with them fill ChildRun and do not end at the grid's last CTA:
// CTAs may read on (where false, the child's later records, if any, come
// through Next). Err is the error of the record after them where it
// broke a rule, as CTAs returns it: every later call to Next returns it
// too, and Child reads no more (it stays set). Alike is true where
// Kernel is declared as the kernel record read before it: its name,
// block, registers and shared memory are that one's. CTAs is
// Kernel.CTAs(), which Child computes anyway: its reader need not
// multiply the grid again. Where Err is nil, bit i of Same is set only
// where Records()[i] is the record before it, byte for byte, of the next
// CTA: where it is, but for a run whose records are checked one by one
// (checkCTAOf: a record with an at before them), which reads it as any.
type ChildHead struct {
	Kernel Kernel
	CTAs   uint64
	Launch Launch
	Parent Parent
	More   bool
	Err    error
	Alike  bool
	Same   uint64
}

// Head is the child's declaration and launch that the last call of
// Validator.Child with c read (one that returned true). It is read-only:
// a Share's readers share it.
func (c *Child) Head() *ChildHead { return c.head }

// OnTape reports whether c is the answer of a Share's tape, which its
// other readers read too: what a reader makes of it it may offer them
// (Offer).
func (c *Child) OnTape() bool { return c.slot != nil }

// Offer offers *v, what the caller made of the child's records, to the
// other readers of the Share whose tape answered c (Filed), unless a
// reader offered something before; where c is no answer of a tape
// (OnTape) it does nothing. *v and what it holds are read by the readers
// at once, on their own goroutines: nothing may write to them after. v
// is the caller's, not a copy, so that an offer takes no allocation
// (one a child, the any boxed for its slot, cost BFS --quick's four
// policies some 7M instructions). The tape holds it as long as it holds
// the answer, so a reader's memory for it stays bounded as the tape's is.
func (c *Child) Offer(v *any) {
	if c.slot != nil {
		atomic.CompareAndSwapPointer(c.slot, nil, unsafe.Pointer(v))
	}
}

// Filed is what a reader of the Share whose tape answered c offered
// (Offer) for it, or nil: none has yet, or c is no answer of a tape.
func (c *Child) Filed() any {
	if c.slot == nil {
		return nil
	}
	if p := atomic.LoadPointer(c.slot); p != nil {
		return *(*any)(p)
	}
	return nil
}

// Records are the child's cta records Child read: its first, where it
// comes next in the form ctaFastInto reads, and the run after it as CTAs
// reads one, up to ChildRun, their warp_cycles in c's own storage
// (read-only: a record that repeats the one before it shares that one's,
// as CTAs's do). They keep the trace's rules: CTAs 0, 1, … of the
// child's grid, in order.
func (c *Child) Records() []CTA {
	if c.shared != nil {
		return c.shared
	}
	return c.room[:c.n]
}

// Child reads the next two records into c where they are a kernel
// record and the device launch of that kernel, each in its fast form
// (kernelFast, launchFast), and both keep to the rules Next checks them
// by; it reports whether it read them. Where the record after them is
// the child's first cta record, in the form ctaFastInto reads, it reads
// that too, and the run after it (c.Records): a child's records follow
// its launch, and read through Next the first was a call down every
// layer again (BFS --quick, 35 instructions a CTA). Child never fails: it leaves records of any
// other kind or form, a launch that moves on to another host CTA's tree
// under ordered_trees (enterRoot), and records that break a rule, to
// Next, which reads them or says what is wrong with them; a cta record
// that breaks a rule it reports as Next does, with every later call to
// Next (CTAs does so too; and in Head().Err, where it is one after the first).
//
// c is the caller's, valid until it passes c again. Where Child leaves
// the pair to Next it puts back the reader's place, its deltas and the
// declaration's id (kernelTail.id), against which a kernelalike record's
// id is read. (The lines below keep their places in the function:
// default.pgo names the calls by line.)
func (v *Validator) Child(c *Child) bool {
	if v.runner == nil || v.err != nil || !v.header {
		return v.tapeChild(c)
	}
	// The pair decoded here, a kernel record kernelFast reads and a
	// device launch of that kernel launchFast reads, the Reader moved
	// past them but for their count and position (set below once they
	// are checked): in a Reader method of its own, a call a
	// child kernel cost BFS --quick 8 instructions a CTA.
	r := v.runner
	in := r.in
	const skips = 1<<KindKernel | 1<<KindLaunch
	if r.err != nil || r.skip&skips != 0 || r.skipDevice || in.r >= in.w || in.buf[in.r]&^tagExtended != byte(KindKernel) {
		return false
	}
	at, delta, id := in.r, r.delta, r.tail.id // id: see the doc
	in.r++
	ok, alike := r.declFast(&c.own.Kernel, in.buf[at] == tagKernelAlike)
	c.own.Alike = alike
	launchAt := in.r
	if !ok || in.r >= in.w || in.buf[in.r] != byte(KindLaunch) && (in.buf[in.r] != tagLaunchAlike || !r.delta.rebase(tagLaunchAlike)) {
		in.r, r.tail.id = at, id
		return false
	}
	in.r++
	if !r.launchFast(&c.own.Launch, &c.own.Parent) || c.own.Launch.Parent == nil || c.own.Launch.Kernel != c.own.Kernel.ID {
		r.in.r, r.delta, r.tail.id = at, delta, id
		return false
	}
	// The rules checkKernel and checkLaunch hold the pair to, in one
	// condition (a function of its own cost BFS --quick 7
	// more a CTA), a kernel Alike with its grid's alone (alikeOK).
	// parentRoot changes nothing but the lookups' caches (l is k's: child);
	// a parent CTA of the host kernel, nearly every one, is checked with
	// no call of it (hostParent). A kernel Alike has the block of the
	// tail it matched, and so its warps (kernelTail.warps), and k's id is
	// added to the declared ones last, the test that it was not one of
	// them, so that nothing is added where Next is left the pair: with
	// shapeOf's sum of the block a child and a test of the id before its
	// addition, BFS --quick 10 instructions a CTA more.
	k, l := &c.own.Kernel, &c.own.Launch
	root, err := l.Parent.CTA, error(nil)
	if !v.hostParent(l.Parent) {
		root, err = v.parentRoot(l.Kernel, l.Parent)
	}
	sh := shape{ctas: k.CTAs(), warps: r.tail.warps}
	if !c.own.Alike {
		sh = shapeOf(k)
	}
	if err != nil || !(c.own.Alike && alikeOK(k, sh.ctas) || kernelOK(k)) || !ownStreamOK(l) || v.ordered && (root != v.rootCTA || !v.hostK.seen.has(root)) || !v.declared.add(k.ID) {
		r.in.r, r.delta, r.tail.id = at, delta, id
		return false
	}
	r.record += 2
	r.offset = r.in.base + int64(launchAt)
	v.record += 2
	v.last, c.own.CTAs, c.head, c.slot = v.addDevice(k.ID, sh, root), sh.ctas, &c.own, nil
	// The record after the launch where it is a cta record of k, of its
	// CTA 0, that ctaFastInto reads, checked as Next would check it: a
	// record that keeps its own fields' rules (fieldsKeep) counted as
	// CTAs counts one, with no call of checkCTAOf (BFS --quick: 10 a CTA
	// fewer), and of keepsFrom's tests only the at check's (kk is new:
	// not the host kernel, nothing seen, CTA 0 in its grid; bfs 1,625 to
	// 1,618 a CTA). Its head is read here as a child's first record's
	// nearly always is, another left to Next: a kernel delta to k in at
	// most three bytes, a CTA delta of 0. Tested before ctaFastInto, it
	// needs no copy of the reader's deltas to go back to, and the tag is
	// read once (BFS --quick: 3,558 to 3,553 a CTA), with no call of
	// ctaHead (3,553 to 3,541). Read here, not in a function of its own
	// (firstCTA): BFS 2,352 to 2,345 instructions a CTA.
	if c.n, c.own.More, c.own.Same = 0, false, 0; r.skipped(KindCTA) || in.w-in.r <= ctaRoom {
		return true // not surely a whole record
	}
	at, tag := in.r, in.buf[in.r]
	if tag&^(tagExtended|tagLaunched) != byte(KindCTA) || !r.delta.rebaseCTA(tag) {
		return true
	}
	p := in.buf[at+1 : at+1+ctaRoom] // of a constant length: no bounds checks below
	u, n := short3At((*[fastRoom]byte)(p), 0)
	if dk := int64(k.ID - r.delta.kernel); n == 0 || p[n] != 0 || zigzag(u) != dk || !r.ctaFastInto(&c.room[0], tag&tagExtended != 0, c.warps[:RunWarps], p, dk, 0, n+1) {
		return true
	}
	in.r++ // the tag, past which ctaFastInto moved the reader
	r.record++
	r.offset = in.base + int64(at)
	v.record++
	kk, cta := v.last, &c.room[0]
	if v.at.latest == 0 && kk.fieldsKeep(cta, r.warpsOK) { // keepsFrom(kk, 0): see above
		kk.seen.dense++ // as CTAs counts a record that keeps the rules
		v.at.ctaRecord(cta)
	} else if err := v.checkCTAOf(kk, cta); err != nil {
		v.err = v.errorAt(KindCTA, err)
		return true
	}
	if c.n = 1; cta.CTA+1 >= kk.ctas {
		return true // the grid's last CTA: no run, and no call (BFS: 100K of 165K children)
	}
	// The run after it, as CTAs reads one (ctaRun): up to ChildRun
	// records in all. A run ends at the grid's last CTA: none is read
	// after it but one it fails at, as Next does (a look at the next
	// record's bytes cost BFS --quick 6 instructions a CTA more). Read
	// so, a child's records come to the replay with it, filed in one
	// call, where the run after the first was a call of CTAs and of the
	// replay's filing of its own: BFS (scripts/instructions.sh bfs) 2,427
	// to 2,416 instructions a CTA. Err is not reset a child (2,410 to
	// 2,406): it is set once, at the error after which nothing more is
	// read. Read here, not in a function of its own (childRun), a call
	// fewer: BFS 2,345 to 2,344.
	var rep repeat
	rep.setBody(tag&^tagLaunched, p[n+1:n+1+repeatMax-3], in.r-at-n-2, cta)
	m, err := v.ctaRun(r, kk, c.room[1:], c.warps[RunWarps:], rep)
	if c.n, c.own.Same = c.n+m, v.same<<1; err != nil {
		c.own.Err = err
		return true
	}
	c.own.More = c.n == ChildRun && c.room[c.n-1].CTA+1 < kk.ctas
	return true
}

// ownStreamOK reports whether device launch l goes into a stream of its
// own and keeps to checkLaunch's rules for its workload, inline_cycles
// and stream kind (launchError): one condition, inlined in Child, where
// launchError's call cost more. A launch into another stream is left to
// Next.
func ownStreamOK(l *Launch) bool {
	return l.Workload >= 0 && uint64(l.InlineCycles) <= MaxCycles && l.DeviceStream == OwnStream && !l.CreatesStream && l.Stream == 0
}

// alikeOK reports whether kernel record k, declared as the kernel record
// read before it (Child.Alike), keeps to kernelOK's rules: that record
// kept them (the Validator stops at one that does not) and all but grid
// x is that record's, so only what grid x changes is left to test (its
// grid y and z come to at most MaxKernelCTAs, so k's CTAs do not
// overflow). kernelOK, a call, cost BFS --quick 22 instructions a CTA.
// ctas is k's CTAs, which Child keeps for its shape.
func alikeOK(k *Kernel, ctas uint64) bool {
	return k.Grid[0] > 0 && ctas <= MaxKernelCTAs
}

// ChildRun is the most cta records Child reads of a child kernel: BFS
// scale 20's children have 3.2 CTAs on average and at most 62. With 16,
// the 6K children of more took a call of CTAs more each: BFS
// (scripts/instructions.sh bfs) 2,406 to 2,402 instructions a CTA with
// 64, for 20 KB of room in the caller's Child.
const ChildRun = 64

// Kids is a run of children a Share's tape answered (Validator.Kids):
// Child's answers, each a child whose records all came with it
// (Head(i).More false, Err nil, at least one record), in the tape's
// chunk, valid until the caller's next call to the Validator. It is a
// view of the tape, with nothing copied a child: read through it, a
// child costs its reader a few loads.
type Kids struct {
	calls []tapeCall
	ctas  []CTA
	read  int // the records they are
	// (what a reader made of each, Offer and Filed, is in its call)
}

// Read is how many records the children of k are: two a child (its
// declaration and launch) and its cta records, as Child counts them.
func (k *Kids) Read() int { return k.read }

// Len is how many children k holds.
func (k *Kids) Len() int { return len(k.calls) }

// Head is child i's declaration and launch, as Child.Head.
func (k *Kids) Head(i int) *ChildHead { return k.calls[i].head }

// Records are child i's cta records, all of them, as Child.Records.
func (k *Kids) Records(i int) []CTA {
	c := &k.calls[i]
	return k.ctas[c.lo:c.hi:c.hi]
}

// Offer offers *v to the other readers of the Share for child i, as
// Child.Offer does.
func (k *Kids) Offer(i int, v *any) {
	atomic.CompareAndSwapPointer(&k.calls[i].filed, nil, unsafe.Pointer(v))
}

// Filed is what a reader of the Share offered for child i (Offer,
// Child.Offer), or nil.
func (k *Kids) Filed(i int) any {
	if p := atomic.LoadPointer(&k.calls[i].filed); p != nil {
		return *(*any)(p)
	}
	return nil
}

// KidAnswers are a run's children from one on (Kids.From), indexed from
// 0: a loop over them holds one index, not the Kids and its sum with the
// first's (replay's siblings: sweep8 E 1,378 -> 1,376).
type KidAnswers []tapeCall

// From is k's children from i on.
func (k *Kids) From(i int) KidAnswers { return KidAnswers(k.calls[i:]) }

// Kids is, for a Share's reader, Child's answers that its tape holds
// next, up to the first that is not a child whose records all came with
// it and up to the end of what the reader has seen of the tape: it
// makes k a view of them and moves the reader past them, as as many
// calls of Child would, and reports whether it found any. Where it finds
// none (any other Validator, a reader that reads alone, a tape whose next
// answer is none such, or one the reader has not seen yet) it moves
// nothing, and Child reads on as ever.
//
// A launch level's children come so (BFS: all but a few), and a replay
// that reads the tape files them from k with no call a child: each had
// been Child's call down to the tape's (Child, tapeChild,
// shareReader.child), the answer's pointers written into the Child and
// read back out of it (Head, Records, OnTape, Filed). The answers are
// the tape's, in the chunk the reader is in, which is not recycled
// before its next call.
func (v *Validator) Kids(k *Kids) bool {
	if v.tape == nil {
		return false
	}
	return v.tape.kidRun(k)
}

// HeadFiled is child i's Head and the pointer Offer took for it, or nil:
// one index, not Head's and Filed's two, and no interface to unbox, for
// readers of one type's offers (replay's siblings: sweep8 E 1,404 -> 1,401).
func (a KidAnswers) HeadFiled(i int) (*ChildHead, unsafe.Pointer) {
	c := &a[i]
	return c.head, atomic.LoadPointer(&c.filed)
}

// HeadFiled is child i's Head and the pointer Offer took for it, or nil,
// as KidAnswers.HeadFiled (replay's fileKids).
func (k *Kids) HeadFiled(i int) (*ChildHead, unsafe.Pointer) {
	return KidAnswers(k.calls).HeadFiled(i)
}
