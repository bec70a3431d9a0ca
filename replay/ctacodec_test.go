package replay

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// A cta record reads as its rescaled cycles and demand, with its per-warp
// cycles, rescaled, only where some warp's differ from the CTA's.
func TestCTARecordRead(t *testing.T) {
	for _, c := range []struct {
		cta   trace.CTA
		ratio float64
		want  ctaRecord
	}{
		{trace.CTA{Cycles: 100}, 1, ctaRecord{cycles: 100}},
		{trace.CTA{Cycles: 100, WarpCycles: []int64{100, 100}}, 2, ctaRecord{cycles: 200}},
		{trace.CTA{Cycles: 100, WarpCycles: []int64{100, 60}}, 2, ctaRecord{cycles: 200, warps: []int64{200, 120}}},
		{trace.CTA{Cycles: 7, Insts: 70, DRAMBytes: 0}, 1, ctaRecord{cycles: 7, demand: true, insts: 70}},
		{trace.CTA{Cycles: 7, DRAMBytes: 64}, 1, ctaRecord{cycles: 7, demand: true, bytes: 64}},
	} {
		var r ctaRecord
		r.read(&c.cta, clockOf(c.ratio))
		if !reflect.DeepEqual(r, c.want) {
			t.Errorf("%+v at x%g: read %+v, want %+v", c.cta, c.ratio, r, c.want)
		}
	}
}

// A cta record decodes from the packed form, naming its CTA or not, into
// the spec fill makes of the ctaRecord read makes of it, its own warps
// rescaled, with the words after it left. The records keep the trace's
// rules: with warp_cycles, the longest is the CTA's cycles.
func TestPackedRecordRoundTrip(t *testing.T) {
	ctas := []trace.CTA{
		{Cycles: 0},
		{Cycles: 1 << 40, WarpCycles: []int64{1, 5, 1 << 40}},
		{Cycles: 7, WarpCycles: []int64{7, 7}},
		{Cycles: 1 << 40, Insts: math.MaxUint64 >> 1, DRAMBytes: 3},
		{Cycles: 4, WarpCycles: []int64{4}, Insts: 1},
		{Cycles: 9, WarpCycles: []int64{4, 9}, Insts: 100, DRAMBytes: 30},
		{Cycles: 0, Insts: 5},
		{Cycles: 9, WarpCycles: []int64{0, 9}, Insts: 1 << 16},
	}
	for n, c := range ctas {
		for _, clk := range []clock{clockOf(1), clockOf(1.5), clockOf(MaxClockRatio)} {
			for _, named := range []bool{false, true} {
				tb := newPackedCTATable(8)
				c.CTA = 0
				if named {
					c.CTA = 5
				}
				c.WarpCycles = slices.Clone(ctas[n].WarpCycles) // read rescales them in place
				nw := tb.record(&c, clk)
				p := append(tb.words(), -1)
				var r ctaRecord
				r.read(&c, clk)
				at := 1
				if named {
					at = 2
				}
				var got, want ctaSpec
				at = got.decode(p, at)
				r.fill(&want)
				if !reflect.DeepEqual(got, want) || nw != len(r.warps) || at != len(p)-1 || named != (p[1] < 0) || named && int(p[1]&^namesCTA) != 5 {
					t.Errorf("record %d at x%g, named %v: decoded %+v (want %+v), %d warps appended (want %d), %d words left, words %x", n, clk.ratio, named, got, want, nw, len(r.warps), len(p)-at, p)
				}
			}
		}
	}
}

// A spec split into its slim and rare parts expands to itself.
func TestSlimSpecRoundTrip(t *testing.T) {
	x := &ctaExtra{}
	for _, s := range []ctaSpec{
		{cycles: 5, issue: 0.5, dram: 2},
		{cycles: 6, warps: []int64{1, 2}},
		{cycles: 7, x: x},
	} {
		var e slimSpec
		e.slim(&s)
		var got ctaSpec
		e.expand(&got)
		if s.hasRare() {
			var r rareSpec
			r.setRare(&s)
			r.expand(&got)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("%+v: expands to %+v", s, got)
		}
	}
}

// A child's records with the bits of their repeats (trace.ChildHead.Same)
// pack to the words appendPacked makes of them, each repeat of a record
// with warps of its own or none, and the same with a bit 0, which repeats
// nothing: appendKid's copies are those records' words.
func TestAppendKidIsAppendPacked(t *testing.T) {
	full := trace.CTA{Cycles: 224, WarpCycles: []int64{224, 224}, Insts: 92, DRAMBytes: 256}
	own := trace.CTA{Cycles: 208, WarpCycles: []int64{208, 20}, Insts: 47, DRAMBytes: 130}
	plain := trace.CTA{Cycles: 7}
	for _, recs := range [][]trace.CTA{
		{full},
		{full, full, full, own},
		{own, own, full, full, plain, plain},
		{plain, full, own, own, own, full},
	} {
		var same uint64 = 1 // bit 0 repeats nothing
		for i := 1; i < len(recs); i++ {
			if reflect.DeepEqual(recs[i], recs[i-1]) {
				same |= 1 << i
			}
		}
		for _, clk := range []clock{clockOf(1), clockOf(1.5)} {
			cs := slices.Clone(recs)
			for i := range cs {
				cs[i].CTA = uint64(i)
			}
			want, got := newPackedCTATable(uint64(len(cs))), newPackedCTATable(uint64(len(cs)))
			wantWarps, gotWarps := want.appendPacked(cs, clk), got.appendKid(cs, same, clk)
			if !slices.Equal(got.words(), want.words()) || gotWarps != wantWarps {
				t.Errorf("%d records, same %b, x%g: words %x, %d warps; want %x, %d", len(cs), same, clk.ratio, got.words(), gotWarps, want.words(), wantWarps)
			}
		}
	}
}
