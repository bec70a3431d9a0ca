package replay

import (
	"github.com/gpureplay/gpureplay/internal/contention"
	"github.com/gpureplay/gpureplay/internal/eventq"
)

// Plain CTAs with rows. A replay that keeps rows (--out) in a sink that
// takes CTA rows as fields (tables.CTAFieldSink: results' writers, not
// the timeline) and has nothing else watching its CTAs (no mechanism,
// watcher, page gate or task runtime) takes the plain paths as one
// without rows does (placePlain, placePacked, swapPlain, ctaEnded, jobEnded), where
// the contention model runs. A plain end names its kernel and its SM
// (plainend.go); the row needs the CTA's index in its kernel, its start
// and its time alone besides. A plain CTA keeps them in a slot of its SM
// (rowSlots), and its end names the slot too: the SM field of its job's
// ref, or of its end event's, holds 1 + the slot above the SM's 16 bits
// (model.MaxSMs is 1<<16), which jobEnded and swapPlain read off
// (slotSM). Without rows that field is the SM alone.
//
// Its row is the one the general path writes (place, startCTA, ctaEnd):
// a plain CTA waits for nothing, so its dispatch is its start and its
// stall none, and its slowdown is its run over its time alone where it
// ran as a job of the model. Its SM's occupancy is integrated at its
// placement and its end (occupancy.change), as enter and leave do.
//
// A plain CTA's end writes its row (endRow) and then goes on as a plain
// end without a row does (ctaEnded), whether its end is a job's
// (shareWake) or an event's, an evRowEnd (no demand), which jobEnded
// takes as a job's end: one end, and no wave of ends after it
// (plainend.go's wave is evCTAEnd's). Its warp-cycles are counted by
// parts too (smArray.placedAt, endedAt, ran), as without rows, and not
// read (occupancy.parts). A replay without rows carries none of this
// but the tests of where each end's branch goes: placePlain's and
// placePacked's under the contention model, swapPlain's and shareWake's.

// plainRowsOn is off only in a test that compares replays that keep
// rows on the plain paths with replays that keep them on the general one
// (SetPlainRows).
var plainRowsOn = true

// plainRow is what a plain CTA's row needs that its end does not name.
type plainRow struct {
	idx   uint64 // its index in its kernel
	start int64  // its placement and start
	alone int64  // its time alone, for its slowdown; -1 where it ran as no job (it has none)
}

// keepPlainRows has e keep its rows on the plain paths: its SMs' slots,
// and the handler of the ends that are no job's (evRowEnd), each a job's
// end (jobEnded) once its row is written.
func keepPlainRows(e *engine) {
	e.sms.keepRows()
	e.clock.on(evRowEnd, func(ev eventq.Event) {
		jobEnded(e, e.sms.endRow(&e.out, e.kd.numbered(ev.Aux), ev.Ref, ev.At), ev.Aux)
	})
}

// rowSlots holds the rows of the plain CTAs resident on the SMs: SM i's
// slot j at i<<6 | j (a slot of sm.takeSlot, below 64: Dispatch.setPlain
// takes no plain path with rows on an SM that may hold more).
type rowSlots []plainRow

// keepRows gives the SMs their rows' slots; rowsKept: they have them.
func (a *smArray) keepRows()      { a.rows = make(rowSlots, len(a.sms)<<6) }
func (a *smArray) rowsKept() bool { return a.rows != nil }

// slotRef is the SM field of a plain end's ref for slot on SM sm;
// slotSM and slotOf read it back. Above 0xffff for every slot: ctaEnded
// tells a row's end by it.
func slotRef(sm, slot int) int32 { return int32(sm | (slot+1)<<16) }
func slotSM(ref int32) int       { return int(uint16(ref)) }
func slotOf(ref int32) int       { return int(ref>>16) - 1 }

// hasSlot reports whether a plain end's SM field names a slot (a row).
func hasSlot(ref int32) bool { return ref > 0xffff }

// slowdown is the row's slowdown at end, and whether it has one: as
// slowdownOf's for a CTA record (no pause: a plain CTA runs in no
// segments).
func (r *plainRow) slowdown(end int64) (float64, bool) {
	switch {
	case r.alone > 0:
		return float64(end-r.start) / float64(r.alone), true
	case r.alone == 0:
		return 1, true
	}
	return 0, false
}

// enterRow takes a slot on s for plain CTA idx, placed at now with its
// room already reserved (enterPlain), alone its time alone (-1 where it
// runs as no job of the model): it integrates s's occupancy up to now
// without the CTA, and returns the SM field of the CTA's end (slotRef).
func (a *smArray) enterRow(s *sm, n need, idx uint64, now, alone int64) int32 {
	a.occ.entered(s, n, now)
	slot := s.takeSlot()
	a.rows[s.id<<6|slot] = plainRow{idx: idx, start: now, alone: alone}
	return slotRef(s.id, slot)
}

// endRow writes the row of the plain CTA of k whose end at now names the
// slot ref (slotRef), frees the slot and returns the CTA's SM, for
// jobEnded: before the CTA's room is released there, so that its SM's
// occupancy is integrated with the CTA, as leave does.
func (a *smArray) endRow(out *recorder, k *Kernel, ref int32, now int64) int32 {
	s := &a.sms[slotSM(ref)]
	a.occ.change(s, now, -1, -int(k.decl.need.warps))
	slot := slotOf(ref)
	out.plainRow(k, &a.rows[s.id<<6|slot], int32(s.id), now)
	s.freeSlot(slot)
	return int32(s.id)
}

// jobSM is the SM of plain job j's CTA, for jobEnded, once its row is
// written where j names its slot (endRow): shareWake's, on the line of
// its call of jobEnded (the PGO profile keys a call by its line).
func jobSM(e *engine, j jobRef) int32 {
	if hasSlot(j.warp) {
		return endJobRow(e, j)
	}
	return j.warp
}

// endJobRow is jobSM's endRow, out of line: jobSM is inlined into
// shareWake, with only its test.
func endJobRow(e *engine, j jobRef) int32 {
	return e.sms.endRow(&e.out, e.kd.numbered(-j.run), j.warp, e.clock.now())
}

// swapRow is endRow and enterRow in one, for swapPlain: the CTA in slot
// ref ends at now and k's CTA idx takes the slot, with the same need (s's
// counts do not change). Not inlined: swapPlain's nosplit frame passed
// its limit with it inlined. Nosplit as swapPlain: its calls check theirs.
//
//go:noinline
//go:nosplit
func (a *smArray) swapRow(out *recorder, k *Kernel, s *sm, ref int32, now int64, idx uint64, alone int64) {
	a.occ.same(s, now)
	r := &a.rows[s.id<<6|slotOf(ref)]
	out.plainRow(k, r, int32(s.id), now)
	r.idx, r.start, r.alone = idx, now, alone
}

// rowJob starts plain CTA idx of k, placed on s at now, as one job of
// the contention model of cycles alone and demand d, with its row's slot
// (placePlain's and placePacked's, where the run keeps rows: a call of
// its own, off their path without rows).
func rowJob(e *engine, k *Kernel, s *sm, idx uint64, now, cycles int64, d contention.Demand) bool {
	sm := e.sms.enterRow(s, k.decl.need, idx, now, cycles)
	e.sms.contention().start(now, s.id, jobRef{run: -k.plain, warp: sm}, cycles, d)
	return true
}

// rowEvent starts plain CTA idx of k, placed on s at now, whose end after
// cycles is an event (it demands nothing of the model), with its row's
// slot: rowJob's for such a CTA.
func rowEvent(e *engine, k *Kernel, s *sm, idx uint64, now, cycles int64) bool {
	e.sms.ran(k.decl.need, cycles)
	e.clock.rowEnd(now+cycles, e.sms.enterRow(s, k.decl.need, idx, now, -1), k.plain)
	return true
}

// rowEnd schedules the end at cycle at of a plain CTA whose row is kept
// and whose end is no job's: an evRowEnd, naming the slot's SM field
// (slotRef) and the CTA's kernel (its number: plainKernels).
func (c *eventClock) rowEnd(at int64, sm, kernel int32) {
	c.q.Push(eventq.Event{At: at, Kind: uint8(evRowEnd), Ref: sm, Aux: kernel})
}
