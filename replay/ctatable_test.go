package replay

import (
	"reflect"
	"testing"
)

// A packed table unpacks to exactly the specs the same records give a flat
// one: out of order, repeated (the later record wins what it sets), with
// per-warp cycles and demand, and records filed after unpacking.
func TestPackedCTATable(t *testing.T) {
	recs := []struct {
		i uint64
		r ctaRecord
	}{
		{3, ctaRecord{cycles: 1 << 40, warps: []int64{5, -1, 1 << 40}}},
		{0, ctaRecord{cycles: 700, demand: true, insts: 1400, bytes: 1 << 50}},
		{5, ctaRecord{cycles: 9, warps: []int64{4, 9}, demand: true, insts: 3, bytes: 0}},
		{0, ctaRecord{cycles: 350}}, // keeps the first record's demand
		{3, ctaRecord{cycles: 2, demand: true, insts: 10}},
		{1, ctaRecord{}},
	}
	const n = 6
	for split := 0; split <= len(recs); split++ {
		flat, packed := newCTATable(n), newPackedCTATable(n)
		if packed.other == nil || packed.other.packed == nil {
			t.Fatal("a device kernel's table is not packed")
		}
		for j, rec := range recs {
			if j == split {
				packed.at(0) // unpacks: what follows is filed directly
			}
			flat.record(rec.i, clone(rec.r))
			packed.record(rec.i, clone(rec.r))
		}
		for i := uint64(0); i < n; i++ {
			if got, want := *packed.at(i), *flat.at(i); !reflect.DeepEqual(got, want) {
				t.Errorf("unpacked after %d records: cta %d = %+v, want %+v", split, i, got, want)
			}
		}
		if packed.other != nil {
			t.Errorf("unpacked after %d records: still packed", split)
		}
	}
}

func clone(r ctaRecord) ctaRecord {
	if r.warps != nil {
		r.warps = append([]int64(nil), r.warps...)
	}
	return r
}

// Empty grids and grids too large for one slice are not packed.
func TestPackedCTATableKinds(t *testing.T) {
	if tb := newPackedCTATable(0); tb.other != nil {
		t.Error("an empty grid got a packed table")
	}
	if tb := newPackedCTATable(flatCTAs + 1); tb.other == nil || tb.other.chunks == nil || tb.other.packed != nil {
		t.Error("a grid over flatCTAs did not get chunks")
	}
}
