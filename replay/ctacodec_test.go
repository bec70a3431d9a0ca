package replay

import (
	"bytes"
	"encoding/binary"
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
		r.read(&c.cta, clock{ratio: c.ratio})
		if !reflect.DeepEqual(r, c.want) {
			t.Errorf("%+v at x%g: read %+v, want %+v", c.cta, c.ratio, r, c.want)
		}
	}
}

// A cta record decodes from the packed form, short or not, naming its CTA
// or not, into the spec fill makes of the ctaRecord read makes of it,
// after the bytes before it and with those after it left: its own warps
// in the buffer given, rescaled.
func TestPackedRecordRoundTrip(t *testing.T) {
	ctas := []trace.CTA{
		{Cycles: 0},
		{Cycles: 5, WarpCycles: []int64{1, 5, 1 << 40}},
		{Cycles: 7, WarpCycles: []int64{7, 7}},
		{Cycles: 1 << 40, Insts: math.MaxUint64 >> 1, DRAMBytes: 3},
		{Cycles: 9, WarpCycles: []int64{4}, Insts: 1},
		{Cycles: 9, WarpCycles: []int64{4, 9}, Insts: 100, DRAMBytes: 30},
		{Cycles: 0, Insts: 5},
		{Cycles: 1<<16 - 1, WarpCycles: []int64{1<<16 - 1, 0}, Insts: 1<<16 - 1, DRAMBytes: 1<<16 - 1}, // short
		{Cycles: 1 << 16, WarpCycles: []int64{1 << 16, 0}, Insts: 1},                                   // not
		{Cycles: 9, Insts: 1 << 16},
	}
	for n, c := range ctas {
		for _, clk := range []clock{{ratio: 1}, {ratio: 1.5}} {
			for _, named := range []bool{false, true} {
				c.CTA = uint64(n) * 1000
				c.WarpCycles = slices.Clone(ctas[n].WarpCycles) // read rescales them in place
				p, nw := appendPacked([]byte{0xff}, &c, clk, named)
				p = append(p, 0xee)
				var r ctaRecord
				r.read(&c, clk)
				buf := make([]int64, 4)
				next := c.CTA // where the record names none
				if named {
					next = 7
				}
				tag, gi, body := recordHead(p, 1, &next)
				var got, want ctaSpec
				at := got.decode(tag, p, body, buf)
				r.fill(&want)
				if gi != c.CTA || named != (next == 7) || !reflect.DeepEqual(got, want) || tagWarps(tag) != nw || nw != len(r.warps) || at != len(p)-1 {
					t.Errorf("record %d at x%g, named %v: decoded CTA %d (next %d), %+v (want %+v), %d warps (appended %d), %d bytes left", n, clk.ratio, named, gi, next, got, want, tagWarps(tag), nw, len(p)-at)
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

// uvarintAt and varint (unzigzag over uvarintAt, as decode reads a
// varint) decode every value as encoding/binary does, at both sides of
// each byte boundary.
func TestPackedVarints(t *testing.T) {
	for shift := 0; shift < 64; shift++ {
		for _, d := range []int64{-1, 0, 1} {
			u := uint64(1)<<shift + uint64(d)
			p := binary.AppendUvarint(nil, u)
			p = binary.AppendVarint(p, int64(u))
			p = binary.AppendVarint(p, -int64(u))
			gu, at := uvarintAt(p, 0)
			gp, at := varint(p, at)
			gn, at := varint(p, at)
			if gu != u || gp != int64(u) || gn != -int64(u) || at != len(p) {
				t.Errorf("%d: decoded %d, %d, %d with %d bytes left", u, gu, gp, gn, len(p)-at)
			}
		}
	}
	p := binary.AppendVarint(binary.AppendUvarint(nil, math.MaxUint64), math.MinInt64)
	if u, at := uvarintAt(p, 0); u != math.MaxUint64 {
		t.Errorf("decoded %d, want MaxUint64", u)
	} else if x, _ := varint(p, at); x != math.MinInt64 {
		t.Errorf("decoded %d, want MinInt64", x)
	}
}

// varint decodes binary.Varint's encoding at p[i:] as decode does.
func varint(p []byte, i int) (int64, int) {
	ux, i := uvarintAt(p, i)
	return unzigzag(ux), i
}

// appendPacked's appendUvarint and zigzagOf write what binary.AppendUvarint
// and binary.AppendVarint do, at every byte boundary, after bytes already
// there.
func TestPackedAppends(t *testing.T) {
	head := []byte{1, 2, 3}
	for shift := 0; shift < 64; shift++ {
		for _, d := range []int64{-1, 0, 1} {
			u := uint64(1)<<shift + uint64(d)
			for _, v := range []int64{int64(u), -int64(u)} {
				if got, want := appendUvarint(slices.Clip(head), zigzagOf(v)), binary.AppendVarint(slices.Clip(head), v); !bytes.Equal(got, want) {
					t.Errorf("varint %d: % x, want % x", v, got, want)
				}
			}
			if got, want := appendUvarint(slices.Clip(head), u), binary.AppendUvarint(slices.Clip(head), u); !bytes.Equal(got, want) {
				t.Errorf("uvarint %d: % x, want % x", u, got, want)
			}
		}
	}
}
