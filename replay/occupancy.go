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
// below 2^53), so the rows and the average are the same.
type occAccum struct {
	last   int64 // cycle of the last change
	window int64 // start of the current window
	warps  int64 // warp·cycles in the current window
	ctas   int64 // CTA·cycles in the current window
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
		o.change(s, now)
		return
	}
	o.warpCycles += int64(warps) * (now - since)
}

// ran counts into parts a CTA of warps that runs cycles on an SM, as it
// is placed (a plain end's: plainend.go); or, by parts, -warps at the
// cycle it is placed at and warps at the cycle it ends at
// (smArray.placedAt, endedAt). Read only where no rows are kept.
func (o *occupancy) ran(warps int32, cycles int64) { o.parts += int64(warps) * cycles }

func (o *occupancy) move(s *sm, warps int, now int64) {
	if o.rows {
		o.change(s, now)
		return
	}
	o.warpCycles -= int64(warps) * now
}

// change must be called just before an SM's resident counts change at now.
// The window it was in is closed when now is past it; the whole windows
// from there to now, in which the SM's counts did not change, make one
// row of their total width, so a replay's rows grow with its state
// changes, not with simulated time (an idle gap of seconds is one row per
// SM).
//
// A second change in the cycle of the last (a CTA ending and another
// taking its place, most of a replay's) has nothing to add: the last
// left now inside the current window. Without rows it returns at once:
// a CTA's placement calls it all the same, inlined there, where a call
// that tested for rows first was not (synth-csv 28 instructions a CTA
// more); the others (end, move, close) call it only with rows.
func (o *occupancy) change(s *sm, now int64) {
	a := &s.occ
	if !o.rows || now == a.last {
		return
	}
	if now >= a.window+o.width {
		o.add(s, a.window+o.width)
		o.flush(s)
		if k := (now - a.window) / o.width; k > 0 {
			d := k * o.width
			o.add(s, a.window+d)
			o.emit(s, d)
		}
	}
	o.add(s, now)
}

// same is change for SM s where its counts do not change at now (a swap:
// one CTA's end and a like one's placement, swapPlain): it closes the
// windows now passes, whose rows change would write now, and leaves the
// rest to the SM's next change, as the counts' integral over an interval
// is the same taken whole or in parts (integers). Where the window goes
// on, the test alone (--quick synth --out parquet 1,369 → 1,364
// instructions a CTA).
func (o *occupancy) same(s *sm, now int64) {
	if now >= s.occ.window+o.width {
		o.change(s, now)
	}
}

// entered is change for SM s just after a CTA needing n entered it at
// now: s's counts up to now are those without the CTA (placePlain
// reserves a CTA's room before it asks whether its row is kept).
func (o *occupancy) entered(s *sm, n need, now int64) {
	s.ctas--
	s.warps -= int(n.warps)
	o.change(s, now)
	s.ctas++
	s.warps += int(n.warps)
}

// add accumulates the SM's current counts from a.last to t (within the
// current window).
func (o *occupancy) add(s *sm, t int64) {
	a := &s.occ
	d := t - a.last
	a.warps += int64(s.warps) * d
	a.ctas += int64(s.ctas) * d
	o.warpCycles += int64(s.warps) * d
	a.last = t
}

// flush writes the current window's row and opens the next window.
func (o *occupancy) flush(s *sm) { o.emit(s, o.width) }

// emit writes the row of the width cycles from the current window's start
// and opens the next window after them.
func (o *occupancy) emit(s *sm, width int64) {
	a := &s.occ
	w := float64(width)
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
			o.move(s, -s.warps, end)
			continue
		}
		o.change(s, end)
		a := &s.occ
		if end > a.window {
			width := end - a.window
			o.sink.Occupancy(tables.Occupancy{
				Cycle:        a.window,
				WindowCycles: width,
				SM:           int32(s.id),
				ActiveWarps:  float64(a.warps) / float64(width),
				ActiveCTAs:   float64(a.ctas) / float64(width),
			})
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
