package replay

import "github.com/gpureplay/gpureplay/internal/eventq"

// Plain ends: a CTA placed by placePlain is no more than its room on
// its SM and its kernel, and, where its end is an event, its length, all
// known as it is placed; its stall is none. It takes no CTA record. Its
// end event names its SM (Ref) and its kernel (Aux, 1 + the kernel's
// place in plainKernels, kept in ctaRuns), and its warp-cycles are
// counted as it is placed (it ends its length later). Where it is a job
// of the contention model, the job names the same (jobRef: the kernel's
// number negated as the run, the SM as the warp), and its warp-cycles
// are counted by parts, its warps times the cycle it is placed at taken
// away, times the cycle it ends at added. Its end is engine.ctaEnded's (jobEnded's for a job).

// plainKernels names by a small number the kernels that hold a Kernel
// Distributor entry (nums), for their readiness and plain ends' events
// and jobs (by a slot of slots.Table each: bfs 2,409 -> 2,393 a CTA).
type plainKernels struct {
	ks   []*Kernel // by number, from 1: newKernelDistributor makes ks[0], no kernel's, so that a number indexes ks as it is (BFS --quick 0.7 a CTA fewer)
	free []int32   // numbers let go, for reuse
}

// add gives k, just entered, its number: its parts' (partsNumbers, below).
func (p *plainKernels) add(k *Kernel) {
	if k.plain == 0 { // its parts have none
		p.addNew(k) // out of line: add is inlined
		return
	}
	p.ks[k.plain] = k
}

// addNew gives k, whose parts have no number, one let go or a new one.
//
//go:noinline
func (p *plainKernels) addNew(k *Kernel) {
	if n := len(p.free); n > 0 {
		x := p.free[n-1] // a local: k.plain, stored, was loaded again
		p.free, k.plain = p.free[:n-1], x
		p.ks[x] = k
		return
	}
	p.ks, k.plain = append(p.ks, k), int32(len(p.ks))
}

// release lets a host operation's number go as it leaves (a device's stays).
func (p *plainKernels) release(k *Kernel) {
	if k.host {
		p.free, k.plain = append(p.free, k.plain), 0
	}
}

// numbered is the kernel numbered n (its plain field), which holds an
// entry: a plain end's kernel (ctaEnded, jobEnded, swapPlain, plainrows.go), or
// one whose readiness event has come (evReady). A kernel's CTAs all end
// before it leaves (drained), and its readiness comes before them.
func (d *kernelDistributor) numbered(n int32) *Kernel { return d.nums.ks[n] }

// ctaEnded is a CTA's end event: a plain end's (n names its kernel and
// ref is its SM; a job's of the contention model, and an evRowEnd, are
// jobEnded's) or a record's (n 0: ref is its record, for ctaEnd). It
// frees the plain end's room and counts it, what ctaEnd does for a
// record's CTA in a plain run, in the same order. Not inlined, as ctaEnd
// is not. (Its lines keep their places, where the PGO profile keys the
// calls inlined here, and in plainKernelDone, by: docs/performance.md.)
//
// An end event's CTA is most often one of a wave that ends in one cycle
// (CTAs of one length placed together), whose events the queue keeps in
// its ties run: it takes the rest of them itself (eventq's Wave: read
// one by one, popped together), as the loop would next, counting each
// towards the loop's checkpoint (eventClock.left) and stopping short of
// it. Those it has read are popped before anything that may schedule an
// event (a record's end, a kernel's last CTA's) and before it returns.
//
//go:noinline
func (e *engine) ctaEnded(ref, n int32) {
	c := &e.clock
	var w eventq.Wave // the rest of the wave, its first j read but not yet popped
	j := 0
	for {
		if n == 0 {
			c.left -= c.q.PopWave(j)
			w, j = nil, 0
			e.ctaEnd(e.ctas.at(ref))
		} else {
			k, s, now := e.kd.numbered(n), e.sms.at(int(ref)), c.t
			// (its warp-cycles were counted as it was placed: a job's,
			// whose length is known only at its end, are counted by parts
			// at it, in jobEnded)
			if s.release(k.decl.need); e.sms.leavePlain(s, s.id) {
				e.kd.leftSM(e.sms.vacate(s))
			}
			e.out.ctaEnded(now, 0)
			e.sites.ctaEnded(!k.host)
			if k.done++; k.done >= k.total {
				c.left -= c.q.PopWave(j) // drained may schedule events
				w, j = nil, 0
				plainKernelDone(e, k)
			}
		}
		// (a job's end is one a wake-up: jobEnded takes it, not asking
		// whether it is one, here, after each end, or as the first end
		// begins)
		if j == len(w) { // its read events popped, the wave's rest taken
			if c.left -= c.q.PopWave(j); c.left <= 1 {
				return // the loop looks up after this event
			}
			if w, j = c.q.TieWave(c.left-1), 0; len(w) == 0 {
				return
			}
		}
		kind, r, a := w.At(j)
		if kind != uint8(evCTAEnd) {
			c.left -= c.q.PopWave(j)
			return
		}
		ref, n, j = r, a, j+1
	}
}

// plainKernelDone ends plain kernel k, whose last CTA ctaEnded has just
// ended. Once a kernel, so kept out of line (noinline): inlined, the
// drained check's code sat in ctaEnded's loop, which every plain CTA's
// end runs, and cost a run of many CTAs a kernel with the contention
// model off some 10 instructions a CTA (scripts/instructions.sh
// uniform).
//
//go:noinline
func plainKernelDone(e *engine, k *Kernel) {
	// (its number goes as it leaves the Kernel Distributor: plainKernels)
	e.drained(k)
}

// partsNumbers: a device kernel's number is its running parts'
// (kernelRun.plain), which keep it as they go from a completed kernel to
// one entering (kernelRuns.start) and outlive their kernel's entry, so
// that no two holders share one: an entry stores the kernel in its
// number's slot, and its leaving stores nothing. A number taken from the
// free list at each entry and given back as the kernel left cost some 15
// instructions a kernel (scripts/instructions.sh --quick: bfs 2,369 ->
// 2,358 a CTA, sweep8 E 1,340 -> 1,334). New parts, and a host
// operation's, never reused, take a number let go or a new one (addNew);
// a host operation's goes back as it leaves (release).

// jobEnded is ctaEnded for a plain end that is a job of the contention
// model (shareWake's) or an evRowEnd, whose row endRow wrote: what it
// does for such an end, its length known only now (its warp-cycles by
// parts: endedAt), without the loop that takes the rest of an end
// event's wave (a job's ends come a wake-up each). Not inlined, as
// ctaEnded is not; a function, as plainKernelDone is (the engine keeps
// to 50 methods: components_test). Apart from ctaEnded, which asked job
// where it began and as it looked for the next end:
// scripts/instructions.sh bfs 1,710 -> 1,697 a CTA; --quick bfs 2,275
// -> 2,260, sweep8 E 1,287 -> 1,273, uniform 481 -> 476 (its events'
// ends no longer ask job), synth 877.
//
//go:noinline
func jobEnded(e *engine, ref, n int32) {
	k, s, now := e.kd.numbered(n), e.sms.at(int(ref)), e.clock.t
	e.sms.endedAt(k.decl.need, now)
	if s.release(k.decl.need); e.sms.leavePlain(s, int(ref)) {
		e.kd.leftSM(e.sms.vacate(s))
	}
	e.out.ctaEnded(now, 0)
	e.sites.ctaEnded(!k.host)
	if k.done++; k.done >= k.total {
		plainKernelDone(e, k)
	}
}
