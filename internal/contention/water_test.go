package contention

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// passes is the DRAM factor as the package doc defines it, computed in
// full from every SM's state the way the model computed it before it kept
// the water's state: the SMs' shares and demands summed in SM order, then
// the passes over all SMs, each taking the SMs it holds in SM order. The
// model's factor must be this float64 to the bit.
func passes(m *Model) float64 {
	share := func(s *smState) float64 {
		if s.demand.Issue > m.width {
			return m.width / s.demand.Issue
		}
		return 1
	}
	var order []int
	var want, rest float64
	for i := range m.sms {
		s := &m.sms[i]
		if s.demand.DRAM > 0 {
			want += share(s) * s.demand.DRAM
			rest += s.demand.DRAM
			order = append(order, i)
		}
	}
	if want <= m.bw {
		return math.Inf(1)
	}
	left := m.bw
	for {
		g := left / rest
		var free []int
		for _, i := range order {
			s := &m.sms[i]
			if share(s) < g {
				left -= share(s) * s.demand.DRAM
				rest -= s.demand.DRAM
				continue
			}
			free = append(free, i)
		}
		if len(free) == len(order) {
			return g
		}
		if len(free) == 0 || !(rest > 0) {
			return math.Inf(1)
		}
		order = free
	}
}

// route is which of level's ways a bound factor took: whether its rest
// came from the grid, whether it summed the loads in SM order (near the
// margin), and how many passes held SMs.
type route struct {
	grid, nearMargin bool
	holding          int
}

// routeOf is the way level took to m.g.
func routeOf(m *Model) route {
	w := &m.water
	ls := loadSum(w.sms)
	r := route{
		grid:       w.exact && w.offGrid == 0 && w.gridSum < gridExact,
		nearMargin: !(ls >= m.bw*(1+1e-9)),
	}
	h := 0
	for h < len(w.byShare) && w.sms[w.byShare[h]].share < m.g {
		h++
	}
	if h > 0 {
		r.holding = 1
	}
	return r
}

// checkWater compares m's factor with passes' bit for bit, and each SM's
// rate with the one its share and demand give under it, and, when the
// water has caught up with the SMs (none stale, none owed), checks its own
// state against theirs: byShare in (share, SM) order, each SM's place, the
// grid's sum and count.
func checkWater(m *Model) error {
	want := passes(m)
	if math.Float64bits(m.g) != math.Float64bits(want) && !(math.IsNaN(m.g) && math.IsNaN(want)) {
		return fmt.Errorf("DRAM factor %v (%#x), the passes give %v (%#x)", m.g, math.Float64bits(m.g), want, math.Float64bits(want))
	}
	for i := range m.sms {
		s := &m.sms[i]
		if want := pace(m.issueShare(s.demand.Issue), s.demand.DRAM, m.g); math.Float64bits(s.rate) != math.Float64bits(want) && !(math.IsNaN(s.rate) && math.IsNaN(want)) {
			return fmt.Errorf("SM %d: rate %v, its share and demand give %v", i, s.rate, want)
		}
	}
	w := &m.water
	if w.stales > 0 || m.water.owing {
		return nil
	}
	var sum int64
	var off, moving int
	for i := range m.sms {
		d := m.sms[i].demand.DRAM
		if d > 0 {
			moving++
			if p := w.sms[i].place; p < 0 || w.byShare[p] != int32(i) {
				return fmt.Errorf("SM %d moves DRAM bytes but is not in byShare at %d", i, p)
			}
		} else if w.sms[i].place >= 0 {
			return fmt.Errorf("SM %d moves no DRAM bytes but is in byShare", i)
		}
		switch g := w.sms[i].grid; {
		case g == offGridMark:
			off++
		case g != 0 && float64(g)*gridUnit != d:
			return fmt.Errorf("SM %d: grid %d units for demand %v", i, g, d)
		default:
			sum += g
		}
	}
	if moving != len(w.byShare) || sum != w.gridSum || off != w.offGrid {
		return fmt.Errorf("byShare %d SMs of %d, grid sum %d of %d, off the grid %d of %d", len(w.byShare), moving, w.gridSum, sum, w.offGrid, off)
	}
	for k := 1; k < len(w.byShare); k++ {
		i, j := w.byShare[k-1], w.byShare[k]
		if a, b := w.sms[i].share, w.sms[j].share; !(a < b || a == b && i < j) {
			return fmt.Errorf("byShare out of order at %d: %v", k, w.byShare)
		}
	}
	return nil
}

// playChecked plays starts, checking the water at the end of every cycle,
// and returns the routes bound factors took.
func playChecked(t testing.TB, s *sim, starts []start) map[route]int {
	t.Helper()
	routes := map[route]int{}
	s.play(starts, func(at int64) {
		if err := checkWater(s.m); err != nil {
			t.Fatalf("cycle %d: %v", at, err)
		}
		if !math.IsInf(s.m.g, 1) {
			routes[routeOf(s.m)]++
		}
	})
	return routes
}

// mixedStarts is n jobs on sms SMs whose demands are on the grid, off it
// (random float64s, and a CTA's demand split over three warps), or none,
// with issue demands from well under the width to ten times it, so that
// SMs' shares fall below the level and passes hold them.
func mixedStarts(r *rand.Rand, n, sms int, offGrid float64) []start {
	starts := make([]start, n)
	for i := range starts {
		d := Demand{Issue: float64(r.IntN(40)) / 2, DRAM: float64(r.IntN(64))}
		if r.Float64() < offGrid {
			d = Demand{Issue: 20 * r.Float64(), DRAM: 40 * r.Float64()}
			if r.IntN(2) == 0 {
				d = Demand{Issue: 6, DRAM: 64}.Scale(1.0 / 3)
			}
		}
		starts[i] = start{at: int64(r.IntN(n)), sm: r.IntN(sms), work: float64(50 + r.IntN(500)), d: d}
	}
	return starts
}

// The model's DRAM factor is the passes' float64 at the end of every cycle
// of random runs: demands on the grid and off it, bandwidth bound or not,
// one pass or several, on 13 SMs and on 100. Every way through level is
// taken.
func TestWaterMatchesPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	all := map[route]int{}
	for trial := range 60 {
		sms := 13
		if trial%3 == 2 {
			sms = 100
		}
		bw := float64(sms) * (2 + 60*r.Float64())
		off := []float64{0, 0.02, 1}[trial%3]
		s := newSim(sms, 4, bw)
		for rt, n := range playChecked(t, s, mixedStarts(r, 30*sms, sms, off)) {
			all[rt] += n
		}
		// The old random runs: float64 demands, DRAM rarely binding.
		s = newSim(13, 4, 50+400*r.Float64())
		for rt, n := range playChecked(t, s, randomStarts(r, 300, 13)) {
			all[rt] += n
		}
	}
	for _, rt := range []route{{grid: true}, {grid: true, holding: 1}, {}, {holding: 1}} {
		if all[rt] == 0 {
			t.Errorf("no bound factor took the route %+v (routes: %v)", rt, all)
		}
	}
}

// Near the margin the sum in SM order decides: three SMs each moving 100
// bytes a cycle unslowed fit in exactly 300 (g = +Inf), and 10⁻⁷ less
// binds them all at g = (300−10⁻⁷)/300; loadSum is within the margin both
// times.
func TestWaterNearMargin(t *testing.T) {
	for _, c := range []struct {
		bw, g float64
	}{{300, math.Inf(1)}, {300 - 1e-7, (300 - 1e-7) / 300}} {
		m := New(3, 4, c.bw, func(int, int64, uint32) {})
		for sm := range 3 {
			m.Start(0, sm, 100, Demand{Issue: 1, DRAM: 100}, uint64(sm))
		}
		m.Settle(0)
		if m.g != c.g {
			t.Errorf("bw %v: g %v, want %v", c.bw, m.g, c.g)
		}
		if err := checkWater(m); err != nil {
			t.Errorf("bw %v: %v", c.bw, err)
		}
		if !routeOf(m).nearMargin {
			t.Errorf("bw %v: not near the margin", c.bw)
		}
	}
}

// The loads' rises find the level without summing the loads while they
// fit in the room the last sum left, and not once they pass it: an SM
// moving 100 bytes a cycle of 300 leaves room for 200; rises of 100 and
// 50 fit, one of 60 more does not, and DRAM binds at 300/310.
func TestWaterRises(t *testing.T) {
	m := New(2, 4, 300, func(int, int64, uint32) {})
	for _, st := range []struct {
		sm    int
		dram  float64
		skips int
		g     float64
	}{{0, 100, 0, math.Inf(1)}, {1, 100, 1, math.Inf(1)}, {0, 50, 2, math.Inf(1)}, {1, 60, 0, 300.0 / 310}} {
		m.Start(0, st.sm, 100, Demand{Issue: 1, DRAM: st.dram}, 0)
		m.Settle(0)
		if err := checkWater(m); err != nil {
			t.Fatal(err)
		}
		if m.water.skips != st.skips || m.g != st.g {
			t.Fatalf("SM %d +%v: %d skips, g %v; want %d, %v", st.sm, st.dram, m.water.skips, m.g, st.skips, st.g)
		}
	}
}

// A demand on the grid whose sum leaves it (past 2²¹ bytes a cycle in
// all), one too large for an SM's grid, and one below its unit: rest is
// summed in SM order, as the passes sum it.
func TestWaterOffGrid(t *testing.T) {
	for _, d := range [][]float64{{1 << 20, 1 << 20, 3}, {1 << 15, 1}, {0x1p-33, 5, 7}, {1e300, 1}} {
		m := New(len(d), 4, 1, func(int, int64, uint32) {})
		for sm, x := range d {
			m.Start(0, sm, 100, Demand{Issue: float64(sm + 1), DRAM: x}, uint64(sm))
		}
		m.Settle(0)
		if err := checkWater(m); err != nil {
			t.Errorf("demands %v: %v", d, err)
		}
		if routeOf(m).grid {
			t.Errorf("demands %v: on the grid", d)
		}
	}
}

// FuzzWater plays jobs decoded from the input, eight bytes each, and
// compares the DRAM factor with the passes' at the end of every cycle.
func FuzzWater(f *testing.F) {
	f.Add(uint8(13), uint16(300), []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x10\x21\x32\x43\x54\x65\x76\x87"))
	f.Add(uint8(3), uint16(100), []byte("\x00\x00\x28\x40\x00\x01\x10\x00\x01\x01\x04\x40\x00\x02\x10\x00\x02\x02\x00\x40\x00\x03\x10\x00"))
	f.Fuzz(func(t *testing.T, sms uint8, bw uint16, data []byte) {
		n := int(sms%64) + 1
		s := newSim(n, 4, float64(bw)/4)
		var starts []start
		for ; len(data) >= 8 && len(starts) < 2000; data = data[8:] {
			starts = append(starts, start{
				at:   int64(binary.LittleEndian.Uint16(data[0:])) % 512,
				sm:   int(data[2]) % n,
				work: float64(1 + int(data[3])*4),
				d:    Demand{Issue: fuzzValue(data[4], data[5]), DRAM: fuzzValue(data[6], data[7])},
			})
		}
		playChecked(t, s, starts)
	})
}

// fuzzValue is a demand from two bytes: whole, halves, thirds, tiny or
// huge, by the first byte's top bits.
func fuzzValue(kind, x byte) float64 {
	v := float64(x)
	switch kind >> 5 {
	case 0:
		return 0
	case 1:
		return v / 2
	case 2:
		return v / 3
	case 3:
		return v * 0x1p-40
	case 4:
		return v * 0x1p20
	default:
		return v + float64(kind&31)/32
	}
}

// While the level is +Inf with room to spare, a cycle's changes wait
// (Model.owe): the second SM's 100 bytes a cycle fit in the 200 the
// first left, and the water records them only when a Settle cannot tell
// the level without them: one of no marked SM whose skips have run out,
// then 150 more, past the room, after which DRAM binds at 300/350.
func TestOwedWater(t *testing.T) {
	m := New(2, 4, 300, func(int, int64, uint32) {})
	check := func(step string, owing bool, g float64) {
		t.Helper()
		if err := checkWater(m); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if m.water.owing != owing || m.g != g {
			t.Fatalf("%s: owing %v, g %v; want %v, %v", step, m.water.owing, m.g, owing, g)
		}
	}
	m.Start(0, 0, 100, Demand{Issue: 1, DRAM: 100}, 0)
	m.Settle(0)
	check("first SM", false, math.Inf(1))
	m.Start(1, 1, 100, Demand{Issue: 1, DRAM: 100}, 1)
	m.Settle(1)
	check("second SM", true, math.Inf(1))
	m.water.maxSkips = m.water.skips
	m.Settle(2)
	check("no SM marked, skips run out", false, math.Inf(1))
	if m.water.sms[1].dram != 100 {
		t.Fatalf("SM 1 recorded %v bytes a cycle, want 100", m.water.sms[1].dram)
	}
	m.water.maxSkips = maxRises
	m.Start(3, 1, 100, Demand{Issue: 1, DRAM: 150}, 2)
	m.Settle(3)
	check("150 more", false, 300.0/350)
}

// owe bounds the loads' rise by the loads themselves: an SM whose issue
// share is below 1 owes nothing at a Settle that marks it with its share
// and demand as they were (by its DRAM demand, it owed D(1−a) at each).
// Where nothing is owed, paying resets only the SMs marked. Demands of
// +Inf or a NaN make the bound fit nothing, and the water stays as the
// passes have it.
func TestOweBound(t *testing.T) {
	m := New(3, 4, 300, func(int, int64, uint32) {})
	m.Start(0, 0, 100, Demand{Issue: 8, DRAM: 100}, 0) // share 0.5: load 50
	m.Settle(0)
	if err := checkWater(m); err != nil {
		t.Fatal(err)
	}
	m.markDirty(&m.sms[0])
	if b := m.owe(); b != m.water.bound {
		t.Fatalf("an SM marked as it was owes %v; want nothing (bound %v)", b-m.water.bound, m.water.bound)
	}
	m.Settle(0)
	for i := range m.sms {
		if s := &m.sms[i]; s.acct < s.water.load {
			t.Fatalf("SM %d's acct %v is under its recorded load %v", i, s.acct, s.water.load)
		}
	}
	inf := math.Inf(1)
	for _, d := range []Demand{{inf, inf}, {inf, 5}, {1, inf}, {math.NaN(), 5}, {5, math.NaN()}} {
		m := New(3, 4, 300, func(int, int64, uint32) {})
		m.Start(0, 0, 100, Demand{Issue: 1, DRAM: 10}, 0)
		m.Settle(0)
		m.Start(1, 1, 100, Demand{Issue: 1, DRAM: 10}, 1)
		m.Settle(1)
		m.Start(2, 2, 100, d, 2)
		m.Settle(2)
		if err := checkWater(m); err != nil {
			t.Errorf("demand %v: %v", d, err)
		}
	}
}
