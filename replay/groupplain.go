package replay

import (
	"math"

	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
)

// Plain group CTAs. Under DTBL nearly every CTA is an aggregated group's
// (BFS scale 20: 533,689 of 536,231), and a group's CTA took the general
// path (place, startCTA, shareWake, ctaEnd): a CTA record, its reset, its
// group's spec decoded into it, the tests of what a plain run leaves out,
// and the model's Start and the end's calls out of line. Where the run is
// plain but for its numbered slots (Dispatch.groups: DTBL's decider
// numbers them, for the Aggregated Group Table's hash of a launching
// thread) and the CTA is one job of the contention model, placeGroup
// places it as the general path would, with no record: its SM's room and
// slot (smArray.enter), its group's next CTA (pool.take), its kernel's
// start, its job. The job names its group (groupTable.plainOf, negated,
// as a plain end names its kernel) and its SM and slot (groupRef: a
// negative warp, where a plain end's is its SM); its end (groupCTAEnded,
// from shareWake) is ctaEnd's for a group's CTA. Its warp-cycles are
// counted by parts, as a plain end's job's are (smArray.placedAt,
// endedAt).
//
// A CTA of a group whose Aggregated Group Table entry spilled waits for
// the group's metadata (dtbl.spill_loads: every CTA, or the first), as
// place has it wait: it starts dtbl.agt_spill cycles after its placement
// (an evGroupStart, in the queue's run of that delay, as place's evStart
// is), and that wait is its stall, which its groupRef records. Any other
// plain group CTA starts where it is placed and stalls none.
//
// A run that keeps rows places group CTAs so where its sink takes CTA
// rows as fields (results' writers): a CTA's index in its group and its
// placement wait in groupTable.held for its end, which writes its row as
// ctaRow would (recorder.groupRow: its group, stall and slowdown), its
// SM's occupancy integrated at its placement (enter) and its end
// (leaveSlot), as enter and leave do.
//
// A group CTA whose spec is no packed record (a group whose child has
// launch sites: they unpack its table), or that demands nothing of the
// model (its end an event), takes the general path, as do the run's
// native CTAs.

// groupsPlain is off only in a test that compares replays with and
// without plain group CTAs (SetGroupsPlain).
var groupsPlain = true

// groupRef is the warp field of a plain group CTA's job: its SM, its
// slot on it and whether it waited for its group's metadata (its stall),
// complemented, so that it is negative where a plain end's (its SM, or
// its row's slotRef) is not. model.MaxSMs is 1<<16 and a slot is below
// 64 (Dispatch.groups): they fit below bit 29.
func groupRef(sm, slot int, stalled bool) int32 {
	x := int32(sm | slot<<16)
	if stalled {
		x |= 1 << 29
	}
	return ^x
}

// groupSM, groupSlot and groupStalled read a groupRef back.
func groupSM(ref int32) int       { return int(uint16(^ref)) }
func groupSlot(ref int32) int     { return int(^ref>>16) & (1<<13 - 1) }
func groupStalled(ref int32) bool { return ^ref&(1<<29) != 0 }

// groupCTA is what a plain group CTA needs of its own where it waits
// for its group's metadata (a spilled group's) or its row is kept: its
// spec, decoded as it was placed, as the general path decodes it into
// the CTA's record, and for its row its index in its group and the cycle
// it was placed at. groupTable.held holds them by SM and slot (SM i's
// slot j at i<<6 | j: Dispatch.setPlain places no group CTA so on an SM
// that may hold more than 64), which its evGroupStart and its job name:
// no pointer, and no table to take a place in.
type groupCTA struct {
	alone    int64
	d        contention.Demand
	idx      uint64
	dispatch int64
}

// placeGroup places k's next CTA on s where it is the next CTA of an
// aggregated group in k's pool that runs as one job of the contention
// model, on the general path's terms (see above), and reports whether it
// did. It changes nothing where it does not: place places the CTA then.
// A spilled group's CTA starts after its metadata's load (place's
// ctaDelayed, evStart): an evGroupStart in the run of that delay, naming
// its SM and slot, where groupTable.held keeps its spec.
func placeGroup(e *engine, k *Kernel, s *sm) bool {
	p, sh := k.pool, e.sms.contention()
	if k.next < k.total || p == nil || p.next >= len(p.groups) || sh == nil {
		return false // a native CTA, or no group's
	}
	g := p.groups[p.next]
	t := &g.src.ctas
	if !t.streams() {
		return false
	}
	words, at := t.words(), max(int(t.next), 1)
	if at+1 >= len(words) {
		return false // a CTA past the last record: it has no spec
	}
	// nextSpec's spec as startCTA reads it (alone, demand), read in place
	// as placePacked reads it: decoded, BFS-20's four policies took 13M more.
	head, demand := words[at], uint64(words[at+1])
	d := contention.Demand{Issue: float64(math.Float32frombits(uint32(demand))), DRAM: float64(math.Float32frombits(uint32(demand >> 32)))}
	if !(d.Issue > 0 || d.DRAM > 0) {
		return false // its end an event: startCTA's
	}
	alone, at := head&headCycles, at+2
	if nw := int(head >> headWarpShift); nw > 0 {
		alone = 0
		for _, w := range words[at : at+nw] {
			alone = max(alone, w)
		}
		at += nw
	}
	t.next = int32(at)
	now := e.clock.now()
	slot, _ := e.sms.enter(k, s, now) // no L1 flush in a plain run
	stalled := g.spilled && (g.next == 0 || e.cfg.DTBL.SpillLoads == model.SpillLoadsCTA)
	_, idx := p.take()
	e.sms.placedAt(k.decl.need, now)
	if stalled || e.out.keepsRows() {
		e.groups.hold(s.id, slot, groupCTA{alone, d, idx, now}, e.sms.count())
	}
	if stalled {
		delay := e.cfg.DTBL.AGTSpill
		e.clock.q.PushDelayed(delay, eventq.Event{At: now + delay, Kind: uint8(evGroupStart), Ref: groupRef(s.id, slot, true), Aux: e.groups.plainOf(g)})
		return true
	}
	if k.startCycle < 0 {
		startKernel(e, k, now)
	}
	sh.start(now, s.id, jobRef{run: -e.groups.plainOf(g), warp: groupRef(s.id, slot, false)}, alone, d)
	return true
}

// startGroup is a spilled group's plain CTA starting, its metadata
// loaded (evGroupStart): startCTA's for it.
func startGroup(e *engine, ev eventq.Event) {
	sm := groupSM(ev.Ref)
	if k := e.groups.plainGroup(ev.Aux).target; k.startCycle < 0 {
		startKernel(e, k, ev.At)
	}
	c := e.groups.heldAt(sm, groupSlot(ev.Ref))
	e.sms.contention().start(ev.At, sm, jobRef{run: -ev.Aux, warp: ev.Ref}, c.alone, c.d)
}

// groupCTAEnded is the end of plain group CTA j's job (placeGroup), from
// shareWake: ctaEnd's for a group's CTA, in its order, its row (where
// rows are kept) ctaRow's.
func groupCTAEnded(e *engine, j jobRef) {
	g, s, now := e.groups.plainGroup(-j.run), e.sms.at(groupSM(j.warp)), e.clock.now()
	k, slot := g.target, groupSlot(j.warp)
	e.sms.endedAt(k.decl.need, now)
	if e.sms.leaveSlot(s, k.decl.need, slot, now) {
		e.kd.leftSM(e.sms.vacate(s))
	}
	stall := int64(0)
	if groupStalled(j.warp) {
		stall = e.cfg.DTBL.AGTSpill
	}
	e.out.ctaEnded(now, stall)
	if e.out.keepsRows() {
		c := e.groups.heldAt(s.id, slot)
		e.out.groupRow(k, g, c.idx, int32(s.id), c.dispatch, c.dispatch+stall, now, c.alone)
	}
	e.sites.ctaEnded(true)
	if g.done++; g.done == g.src.total {
		e.groupCTAsDone(g)
	}
}
