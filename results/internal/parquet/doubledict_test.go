package parquet

import (
	"bytes"
	"io"
	"math"
	"slices"
	"testing"
)

// A Double chunk's pages are dictionary-encoded while its values repeat
// (each value's bits kept: -0, +0 and a NaN apart), and PLAIN from the
// first page that would make the dictionary too large; the dictionary
// page then holds only the earlier pages' values, and every row reads
// back with its bits.
func TestDoubleDictionary(t *testing.T) {
	var vs []float64
	for i := range PageRows { // a page of few values: a dictionary
		vs = append(vs, []float64{1.5, math.Copysign(0, -1), 0, math.NaN(), 4}[i%5])
	}
	for i := range PageRows + 9 { // then of many: PLAIN, as the rest
		vs = append(vs, float64(i)/3)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []Column{{Name: "x", Type: Double}})
	if err != nil {
		t.Fatal(err)
	}
	w.Doubles(0, vs, Bitmap{})
	c := &w.chunks[0]
	if !c.plainDoubles || len(c.ddict.vals) != 5 {
		t.Fatalf("plain %v, dictionary of %d values, want PLAIN after 5", c.plainDoubles, len(c.ddict.vals))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m := w.meta.rowGroups[0].columns[0]
	if m.dictPageOffset == 0 || !slices.Contains(m.encodings, encRLEDict) || !slices.Contains(m.encodings, encPlain) {
		t.Fatalf("dictionary page at %d, encodings %v", m.dictPageOffset, m.encodings)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadColumn(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Doubles) != len(vs) {
		t.Fatalf("read %d rows, want %d", len(got.Doubles), len(vs))
	}
	for i, v := range vs {
		if math.Float64bits(got.Doubles[i]) != math.Float64bits(v) {
			t.Fatalf("row %d: %v, want %v", i, got.Doubles[i], v)
		}
	}
}

// A dictionary finds each value it holds, after it grows and after it is
// cut back.
func TestDoubleDictIndex(t *testing.T) {
	var d doubleDict
	for round := range 2 {
		for i := range 5000 {
			if got := d.index(float64(i) * 1.25); got != uint32(i) {
				t.Fatalf("round %d: index of value %d = %d", round, i, got)
			}
		}
		d.truncate(3000)
		if got := d.index(2999 * 1.25); got != 2999 || len(d.vals) != 3000 {
			t.Fatalf("after truncate: index %d, %d values", got, len(d.vals))
		}
		d.truncate(0)
	}
}

// A Double chunk's bounds are those of its values in row order (NaN
// left out, the first of -0 and +0 kept), whether its pages are
// dictionary-encoded, which takes a run's value once, or PLAIN, from a
// page given up on after some of its values.
func TestDoubleBounds(t *testing.T) {
	neg0, nan := math.Copysign(0, -1), math.NaN()
	for _, c := range []struct {
		name string
		vs   []float64
	}{
		{"nan first", []float64{nan, nan, neg0, 0, 0, neg0, 5, 5, -3, nan}},
		{"+0 first", []float64{0, 0, neg0, nan, neg0, 0}},
		{"only nan", []float64{nan, nan}},
		{"given up", append([]float64{neg0, 0, 7}, ramp(PageRows)...)},
	} {
		var want chunk
		for _, v := range c.vs {
			want.boundDouble(v)
		}
		w, err := NewWriter(io.Discard, []Column{{Name: "x", Type: Double}})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // pages of runs, and a page's end inside one
			w.Doubles(0, c.vs, Bitmap{})
		}
		got := &w.chunks[0]
		w.endPage(got)
		if got.hasBounds != want.hasBounds || math.Float64bits(got.dlo) != math.Float64bits(want.dlo) || math.Float64bits(got.dhi) != math.Float64bits(want.dhi) {
			t.Errorf("%s: bounds %v %v (%v), want %v %v (%v)", c.name, got.dlo, got.dhi, got.hasBounds, want.dlo, want.dhi, want.hasBounds)
		}
	}
}

// ramp is n values, each its own.
func ramp(n int) []float64 {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = float64(i) / 3
	}
	return vs
}
