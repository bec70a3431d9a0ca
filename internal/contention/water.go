package contention

import (
	"math"
	"slices"
)

// water is the state the DRAM factor g is computed from, kept as the SMs'
// issue shares and DRAM demands change, so that finding g at the end of a
// cycle costs what the cycle changed, not a walk over every SM.
//
// The level is defined by passes (the package doc's rule): with rest the
// SMs' summed DRAM demand and left the bandwidth, g = left/rest; an SM
// whose share is below g is held at its share, which takes its a_j·D_j
// from left and its D_j from rest, and the next pass finds the level of
// the SMs not held; the passes stop when a pass holds no new SM. The
// results must be the same float64s as those passes computed over every
// SM in SM order, because the replay's tables are. Three things make that
// cheap:
//
//   - The SMs held after a pass are those whose share is below the
//     highest level found so far: a prefix of the SMs ordered by share.
//     byShare keeps that order, brought up to date for the SMs set since
//     (catchUp) only when the passes are to run, so a pass looks at the
//     SMs it holds and one more; the SMs it holds are taken from left and rest
//     in SM order, as the passes over all SMs took them, with the products
//     a_j·D_j written as they wrote them (a platform that fuses
//     multiply-adds fuses both alike).
//   - rest starts as Σ D_j summed in SM order. When every D_j is a whole
//     number of 2⁻³² bytes per cycle and the sum is under 2⁵³ of them (so
//     under 2²¹ bytes per cycle), every partial sum is such a number too,
//     which a float64 holds exactly: each addition is exact, in any order,
//     and the sum is the integer sum of the units, kept in grid and
//     brought up to date with byShare. Hardware CTAs' demands are float32 values of whole
//     or fractional bytes per cycle, whole 2⁻³² units from 2⁻⁹ up; a
//     demand split over warps (1/n of it) is generally not, and then rest
//     is summed in SM order as before.
//   - The passes run only when Σ a_j·D_j > B summed in SM order. load's
//     sum in any order (loadSum) is within (n−1)·2⁻⁵³ of the exact sum
//     relative, as that one is, for n SMs of non-negative loads: when it
//     is more than B·(1+10⁻⁹), so is the sum in SM order for any n up to
//     maxExactSMs, and that sum is not needed; nearer B it is computed.
type water struct {
	sms []waterSM

	// The loads' rises since level last summed them (rise), the room
	// that sum left under the bandwidth less a margin (room), and the
	// levels found since without summing them (skips, at most maxSkips).
	rise, room      float64
	skips, maxSkips int

	byShare []int32 // the SMs moving DRAM bytes, by (a_j, j)
	pending []int32 // the stale SMs, pending[:stales]; room for every SM (see set)
	stales  int

	gridSum int64 // Σ grid over the SMs on the grid
	offGrid int   // SMs moving DRAM bytes whose D_j is off the grid
	exact   bool  // the SMs are few enough for the sums' arguments (maxExactSMs)

	held []int32 // scratch: the SMs a pass holds, in SM order

	// Whether some SM's share and demand wait for the water to record
	// them (owing), and how far the loads can have risen with them
	// (bound): see Model.owe.
	owing bool
	bound float64
}

// waterSM is an SM's part of the water: one record an SM, not a slice a
// field, so that set, which runs for every SM whose jobs changed at every
// Settle, checks one bound and reads and writes one record (BFS scale 16
// under CDP, where a share or demand changes at nearly every set: 5,277
// → 5,255 instructions a CTA, --quick, medians of 3 callgrind runs;
// synth 1,933 → 1,932).
type waterSM struct {
	share float64 // a_j
	dram  float64 // D_j when positive, else 0
	load  float64 // a_j·D_j while it moves DRAM bytes, else 0
	grid  int64   // D_j in units of 2⁻³² bytes per cycle; offGridMark when not whole
	place int32   // its index in byShare; -1 when not there
	stale bool    // set since byShare and grid last caught up
}

const (
	// gridUnit is the grid's unit, 2⁻³² bytes per cycle.
	gridUnit = 0x1p-32
	// gridMax bounds one SM's D_j on the grid (2¹⁵ bytes per cycle), so
	// that gridSum of maxExactSMs SMs cannot overflow.
	gridMax = 1 << 47
	// gridExact bounds the sum whose float64 is exact.
	gridExact = 1 << 53
	// maxExactSMs is the most SMs the arguments hold for (model.MaxSMs).
	maxExactSMs = 1 << 16
	// offGridMark is grid's value for a D_j off the grid.
	offGridMark = -1
	// maxRises bounds the rises level adds up between two sums of the
	// loads: their roundings stay under 2²⁰·2⁻⁵³ < 10⁻⁹ of the bandwidth.
	maxRises = 1 << 20
)

func newWater(sms int) water {
	w := water{sms: make([]waterSM, sms), pending: make([]int32, sms), exact: sms <= maxExactSMs, room: -1, maxSkips: maxRises / max(sms, 1)}
	for i := range w.sms {
		w.sms[i] = waterSM{share: 1, place: -1}
	}
	return w
}

// set records SM i's issue share a and summed DRAM demand d, and reports
// whether either changed: when no SM's did, the level has not moved (it is
// a function of the shares and demands alone). Its place in byShare and on
// the grid wait for level to need them (catchUp): the SMs mostly fit the
// bandwidth, and then neither is looked at.
//
// s is SM i's record, w.sms[i], which the model keeps with its own record
// of the SM: looked up here, it cost a bounds check and the record's
// address at every Settle of every SM marked (--quick: synth 1,547 →
// 1,540 instructions a CTA, bfs 3,703 → 3,690, medians of 3).
//
// An SM is stale at most once between two catchUps, so pending has room
// for every SM (newWater) and set writes in place: with append's growth,
// a call however rare, Settle's loop over the marked SMs had Settle save
// its arguments on the stack at every call (see Model.markDirty).
// same reports whether set(i, s, a, d) would find that nothing changed.
func (w *water) same(s *waterSM, a, d float64) bool {
	if !(d > 0) {
		d = 0
	}
	return a == s.share && d == s.dram
}

func (w *water) set(i int32, s *waterSM, a, d float64) bool {
	if !(d > 0) {
		d = 0 // and the load a·0 = 0: a is finite
	}
	if a == s.share && d == s.dram {
		return false // a CTA's end and the next one's start in one cycle, alike
	}
	l := a * d
	if !(l <= s.load) {
		w.rise += l - s.load
	}
	s.share, s.dram, s.load = a, d, l
	if !s.stale {
		s.stale = true
		w.pending[w.stales] = i // room for every SM: see newWater
		w.stales++
	}
	return true
}

// catchUp brings byShare and the grid up to the SMs set since the last
// time: one SM moves to its place; more are taken out and put back in.
func (w *water) catchUp() {
	pending := w.pending[:w.stales]
	if len(pending) == 1 {
		w.replace(pending[0])
	} else if len(pending) > 1 {
		by := w.byShare[:0]
		for _, j := range w.byShare {
			if s := &w.sms[j]; !s.stale {
				s.place = int32(len(by))
				by = append(by, j)
			}
		}
		w.byShare = by
		for _, i := range pending {
			w.sms[i].place = -1
			w.replace(i)
		}
	}
	for _, i := range pending {
		s := &w.sms[i]
		w.setGrid(s)
		s.stale = false
	}
	w.stales = 0
}

// replace puts SM i in its place in byShare, or takes it out when it
// moves no DRAM bytes, the other SMs there being in order.
func (w *water) replace(i int32) {
	p, moving := w.sms[i].place, w.sms[i].dram > 0
	switch {
	case p < 0 && moving:
		w.sms[i].place = int32(len(w.byShare))
		w.byShare = append(w.byShare, i)
		w.resort(i)
	case moving:
		w.resort(i)
	case p >= 0:
		copy(w.byShare[p:], w.byShare[p+1:])
		w.byShare = w.byShare[:len(w.byShare)-1]
		for k := p; k < int32(len(w.byShare)); k++ {
			w.sms[w.byShare[k]].place = k
		}
		w.sms[i].place = -1
	}
}

// setGrid records the units of s's demand on the grid.
func (w *water) setGrid(s *waterSM) {
	switch old := s.grid; {
	case old == offGridMark:
		w.offGrid--
	default:
		w.gridSum -= old
	}
	s.grid = 0
	d := s.dram
	if !(d > 0) {
		return
	}
	if x := d / gridUnit; x < gridMax && x == math.Trunc(x) {
		s.grid = int64(x)
		w.gridSum += s.grid
		return
	}
	s.grid = offGridMark
	w.offGrid++
}

// resort moves SM i, whose share changed, to its place in byShare.
func (w *water) resort(i int32) {
	by, sms := w.byShare, w.sms
	a := sms[i].share
	p := sms[i].place
	for ; p > 0; p-- {
		j := by[p-1]
		if b := sms[j].share; !(a < b || a == b && i < j) {
			break
		}
		by[p], sms[j].place = j, p
	}
	for ; int(p)+1 < len(by); p++ {
		j := by[p+1]
		if b := sms[j].share; !(b < a || b == a && j < i) {
			break
		}
		by[p], sms[j].place = j, p
	}
	by[p], sms[i].place = i, p
}

// level is the DRAM factor g under bandwidth bw, +Inf when the SMs fit in
// it unslowed.
//
// Settle asks for it at the end of every cycle in which some SM's share
// or demand moved, and the SMs often fit (BFS scale 20 under CDP: 2,141
// of 381,784 times they do not), so what they would move unslowed, Σ a_j·D_j, is first summed from the
// loads in any order (loadSum): "clearly" under the bandwidth leaves a
// margin far above the rounding of a sum of up to maxExactSMs terms, so
// the sum's order does not matter there (nor does a platform that fuses
// the passes' multiply-adds); near the margin the sum in SM order decides,
// as the passes over all SMs did.
//
// Where that sum left room under the bandwidth, the loads' rises since
// (set adds them up; falls are left out) tell without it while they fit
// in the room, less a second margin of 10⁻⁹ for their roundings: the
// loads' sum is then at most what loadSum last gave plus the rises, so
// loadSum would find them clearly under the bandwidth too. Each rise and
// each addition rounds within 2⁻⁵³ of the whole, and between two sums
// there are at most maxRises of them (one a dirty SM a Settle, maxSkips
// Settles); the Model's owed Settles, counted among the skips, add as
// many to the bound, its subtractions and the sums with the rises, and
// paying what is owed as many rises again (Model.owe, fits): under
// 4·2²⁰·2⁻⁵³ < 10⁻⁹ in all, so they cannot eat the margin. BFS scale 16 under CDP finds
// 33,037 of its 33,327 levels so, 290 with the sum: 5,598 → 5,543
// instructions a CTA (--quick, median of 7 callgrind runs); synth,
// mostly bound, 2,230 → 2,227.
//
// A running sum of the loads, kept by set with a bound on its rounding
// (and summed afresh when the bound nears the margin), did not pay on
// k20c's 13 SMs: set outgrew the inliner's budget, and BFS scale 16
// under CDP changes a share or demand more often than it finds the level
// (callgrind: level 3.15M → 0.83M instructions, set's calls +3.3M, the
// run +0.7%; synth 500K +0.2%). The rises are a sum of one sign, whose
// rounding needs no bound kept: set adds a comparison and an addition,
// and stays inlined.
func (w *water) level(bw float64) float64 {
	if w.rise <= w.room && w.skips < w.maxSkips {
		w.skips++
		return math.Inf(1)
	}
	ls := loadSum(w.sms)
	w.rise, w.room, w.skips = 0, bw*(1-2e-9)-ls, 0
	if ls <= bw*(1-1e-9) {
		return math.Inf(1)
	}
	w.catchUp()
	if len(w.byShare) == 0 {
		return math.Inf(1)
	}
	if !w.exact || !(ls >= bw*(1+1e-9)) {
		var want float64
		for k := range w.sms {
			if s := &w.sms[k]; s.dram > 0 {
				want += s.share * s.dram
			}
		}
		if want <= bw {
			return math.Inf(1)
		}
	}
	left, rest := bw, w.demand()
	for h := 0; ; {
		g := left / rest
		e := h
		for e < len(w.byShare) && w.sms[w.byShare[e]].share < g {
			e++
		}
		if e == h {
			return g
		}
		held := append(w.held[:0], w.byShare[h:e]...)
		slices.Sort(held)
		for _, i := range held {
			s := &w.sms[i]
			left -= s.share * s.dram
			rest -= s.dram
		}
		w.held = held
		if e == len(w.byShare) || !(rest > 0) {
			return math.Inf(1)
		}
		h = e
	}
}

// demand is Σ D_j over the SMs moving DRAM bytes, the float64 that summing
// them in SM order gives.
func (w *water) demand() float64 {
	if w.exact && w.offGrid == 0 && w.gridSum < gridExact {
		return float64(w.gridSum) * gridUnit
	}
	var rest float64
	for k := range w.sms {
		if d := w.sms[k].dram; d > 0 {
			rest += d
		}
	}
	return rest
}

// loadSum is the sum of the SMs' loads in four running sums: one sum is a
// chain of dependent additions, each waiting for the last (13 SMs: some 50
// cycles at every Settle), where four overlap. The terms are not negative,
// so any order rounds the sum within a few ulps per term of the exact one.
// Its loop reslices sms rather than index it from a counter, which over
// these records cost the inliner 83, over its budget of 80 (this form:
// 69): level, inlined in Settle, then called it, 1.4 instructions a CTA
// on synth.
func loadSum(sms []waterSM) float64 {
	var a, b, c, d float64
	for ; len(sms) >= 4; sms = sms[4:] {
		a += sms[0].load
		b += sms[1].load
		c += sms[2].load
		d += sms[3].load
	}
	for k := range sms {
		a += sms[k].load
	}
	return (a + b) + (c + d)
}

// fits reports whether the loads clearly fit in the bandwidth with b
// more of rises than the water recorded, as level's test of the rises
// finds them; Settle then counts it among the skips and holds b as the
// bound of the SMs owed (owing: Model.owe), itself, on the line after
// its test of fits: with fits' true and false set in one function, they
// were tested again after it at every Settle (the replay's and model's
// own instructions, exact from run to run: bfs --quick 1,584.4 → 1,582.5
// a CTA, sweep8 11,662.8 → 11,646.7), and a call of a function of its
// own (owes), inlined with no instruction of its line, left a NOP there
// at every Settle that owed (with Model.markAt, --quick: bfs 2,405 →
// 2,398 instructions a CTA, sweep8's E 1,379 → 1,376).
func (w *water) fits(b float64) bool { return b+w.rise <= w.room && w.skips < w.maxSkips }
