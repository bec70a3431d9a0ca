package parquet

import (
	"bytes"
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
