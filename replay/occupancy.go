package replay

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
)

// occAccum integrates one SM's resident warps and CTAs over time, window by
// window.
//
// The integrals are whole numbers, kept in integers: the engine changes
// an SM's counts twice for every CTA (BFS scale 20: 1.07M times), and
// each change converted and multiplied floats into sums whose additions
// waited on one another. Floats held these sums exactly (they stay far
// below 2^53), so the rows and the average are the same. They are kept
// by parts: a change of the counts by d at t adds -d·t, so that with the
// SM's counts c times t added they are the integrals up to t from the
// window's start (the window's start at its opening, -c·start). A change
// is two multiply-adds, where integrating the counts since the last
// change took a subtraction, three multiply-adds and a store, and a CTA's
// placement after its room was reserved took the counts down and up
// again around it (scripts/instructions.sh bfs-parquet: +792 → +771 a CTA).
type occAccum struct {
	window int64 // start of the current window
	warps  int64 // warp·cycles in the current window, by parts
	ctas   int64 // CTA·cycles in the current window, by parts
}

// occupancy turns SM state changes into occupancy-table rows and the run's
// time-averaged occupancy.
type occupancy struct {
	width      int64
	sink       tables.Sink
	warpCycles int64 // warp·cycles over the whole run, all SMs
	// parts is the plain CTAs' warp·cycles, counted by parts (ran): read
	// only where the SMs' counts are not integrated for rows, which count
	// those CTAs too (a plain CTA whose row is kept: plainrows.go).
	parts int64
	rows  bool // the sink keeps rows: each SM's counts are integrated (change)
}

// newOccupancy gives a sink that keeps no rows (tables.Discards) no
// windows at all: only warpCycles is added up (end, move, close), where
// closing a window every OccupancyWindow cycles built and wrote a row
// nobody kept (--quick synth, with a window closed at a third of its
// changes: 31 instructions a CTA fewer, uniform 6).
func newOccupancy(cfg model.Config, sink tables.Sink) occupancy {
	return occupancy{width: cfg.Output.OccupancyWindow, sink: sink, rows: !tables.Discards(sink)}
}

// end and move must be called just before SM s's resident counts change
// at now: a CTA of warps placed at since ending, and a narrow-task
// runtime's threadblocks changing the warps by warps (where a CTA is
// placed, change). With rows they integrate the SM's counts (change).
// Without, only the run's warp·cycles count: a CTA's are its warps over
// its time on the SM, added at its end; the threadblocks' are summed by
// parts, -warps·now at each change and, at the run's end (close), each
// SM's warps·end, when no CTA is left. That is a multiplication where a
// CTA ends, in place of integrating its SM's counts where it is placed
// and where it ends (change, a call at the end): scripts/instructions.sh
// --quick synth 38 instructions a CTA fewer, BFS 53, uniform 6 more (its
// CTAs end and are placed in the same cycles, where change returned at
// once), synth-csv 13 more (the tests for rows).
func (o *occupancy) end(s *sm, warps int, since, now int64) {
	if o.rows {
		o.change(s, now, -1, -warps)
		return
	}
	o.warpCycles += int64(warps) * (now - since)
}

// ran counts into parts a CTA of warps that runs cycles on an SM, as it
// is placed (a plain end's: plainend.go); or, by parts, -warps at the
// cycle it is placed at and warps at the cycle it ends at
// (smArray.placedAt, endedAt). Read only where no rows are kept.
func (o *occupancy) ran(warps int32, cycles int64) { o.parts += int64(warps) * cycles }

func (o *occupancy) move(s *sm, ctas, warps int, now int64) {
	if o.rows {
		o.change(s, now, ctas, warps)
		return
	}
	o.warpCycles -= int64(warps) * now
}

// change must be called just before SM s's resident counts change by
// ctas and warps at now. The window it was in is closed when now is past
// it (pass); the change is then added by parts (by). Without rows it
// returns at once: a CTA's placement calls it all the same, inlined
// there, where a call that tested for rows first was not (synth-csv 28
// instructions a CTA more); the others (end, move, close) call it only
// with rows.
func (o *occupancy) change(s *sm, now int64, ctas, warps int) {
	if !o.rows {
		return
	}
	o.pass(s, now, s.ctas, s.warps)
	o.by(s, now, ctas, warps)
}

// by adds to SM s's integrals a change of its counts by ctas and warps at
// now, by parts.
func (o *occupancy) by(s *sm, now int64, ctas, warps int) {
	s.occ.warps -= int64(warps) * now
	s.occ.ctas -= int64(ctas) * now
}

// pass closes the windows of SM s that now passes, the SM having held
// ctas and warps since its last change (cross): a test where the window
// goes on.
func (o *occupancy) pass(s *sm, now int64, ctas, warps int) {
	if now >= s.occ.window+o.width {
		o.cross(s, now, ctas, warps)
	}
}

// cross closes the window of SM s that now is past; the whole windows
// from there to now, in which the SM's counts (ctas and warps) did not
// change, make one row of their total width, so a replay's rows grow
// with its state changes, not with simulated time (an idle gap of
// seconds is one row per SM). The next window opens with the counts'
// integrals by parts at its start. Whole windows are counted by a
// division only where there are some: most crossings close one window
// (--quick synth-csv: --out adds 888 → 886 instructions a CTA).
func (o *occupancy) cross(s *sm, now int64, ctas, warps int) {
	a := &s.occ
	c, w := int64(ctas), int64(warps)
	end := a.window + o.width
	a.warps += w * end
	a.ctas += c * end
	o.flush(s)
	if now >= a.window+o.width { // whole windows to now
		d := (now - a.window) / o.width * o.width
		a.warps, a.ctas = w*d, c*d
		o.emit(s, d)
	}
	a.warps, a.ctas = -w*a.window, -c*a.window
}

// same is change for SM s where its counts do not change at now (a swap:
// one CTA's end and a like one's placement, swapPlain): it closes the
// windows now passes, and adds nothing by parts.
func (o *occupancy) same(s *sm, now int64) { o.pass(s, now, s.ctas, s.warps) }

// entered is change for SM s just after a CTA needing n entered it at
// now: s's counts up to now are those without the CTA (placePlain
// reserves a CTA's room before it asks whether its row is kept).
func (o *occupancy) entered(s *sm, n need, now int64) {
	o.pass(s, now, s.ctas-1, s.warps-int(n.warps))
	o.by(s, now, 1, int(n.warps))
}

// flush writes the current window's row and opens the next window.
func (o *occupancy) flush(s *sm) { o.emit(s, o.width) }

// emit writes the row of the width cycles from the current window's start
// (its integrals whole: the counts times the window's end added) and
// opens the next window after them. The run's warp·cycles are the rows'.
func (o *occupancy) emit(s *sm, width int64) {
	a := &s.occ
	w := float64(width)
	o.warpCycles += a.warps
	o.sink.Occupancy(tables.Occupancy{
		Cycle:        a.window,
		WindowCycles: width,
		SM:           int32(s.id),
		ActiveWarps:  float64(a.warps) / w,
		ActiveCTAs:   float64(a.ctas) / w,
	})
	a.window += width
	a.warps, a.ctas = 0, 0
}

// close accounts every SM up to the end of the run; the last window is
// reported with its true (shorter) width.
func (o *occupancy) close(sms []sm, end int64) {
	for i := range sms {
		s := &sms[i]
		if !o.rows {
			o.move(s, 0, -s.warps, end)
			continue
		}
		o.same(s, end)
		if a := &s.occ; end > a.window {
			a.warps += int64(s.warps) * end
			a.ctas += int64(s.ctas) * end
			o.emit(s, end-a.window)
		}
	}
}

// average is the run's warp·cycles over capacity warps held for end
// cycles: the time-averaged share of the warp slots in use.
func (o *occupancy) average(capacity int, end int64) float64 {
	w := o.warpCycles
	if !o.rows {
		w += o.parts
	}
	return float64(w) / (float64(capacity) * float64(end))
}

// integrates reports whether the SMs' counts are integrated into rows
// (change): not where the sink keeps none.
func (o *occupancy) integrates() bool { return o.rows }
