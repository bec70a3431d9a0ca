package replay

import (
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestAppendPlainIsRecord files the same cta records into two windows,
// one as the tree reader does (appendPlain where it takes the record,
// record where it does not) and one through record alone: the entries
// must be the same, and appendPlain must leave to record every record
// it cannot file as record would (another CTA's place, per-warp cycles
// of their own).
func TestAppendPlainIsRecord(t *testing.T) {
	recs := []struct {
		c     trace.CTA
		plain bool // appendPlain takes it
	}{
		{trace.CTA{CTA: 0, Cycles: 5000}, true},
		{trace.CTA{CTA: 1, Cycles: 4999, Insts: 5000, DRAMBytes: 40000}, true},
		{trace.CTA{CTA: 2, Cycles: 300, WarpCycles: []int64{300, 300}, Insts: 7, DRAMBytes: 3}, true},
		{trace.CTA{CTA: 3, Cycles: 0, Insts: 0, DRAMBytes: 0}, true},
		{trace.CTA{CTA: 4, Cycles: 300, WarpCycles: []int64{300, 20}, Insts: 9, DRAMBytes: 11}, false},
		{trace.CTA{CTA: 6, Cycles: 77, Insts: 1}, false}, // past the next entry
		{trace.CTA{CTA: 5, Cycles: 1 << 20, DRAMBytes: 1 << 30}, false},
		{trace.CTA{CTA: 7, Cycles: 123457, Insts: 99991, DRAMBytes: 12345}, true},
	}
	for _, ratio := range []float64{1, 745.0 / 706} {
		clk := clockOf(ratio)
		var fast, slow specWindow
		for _, r := range recs {
			c := r.c
			c.WarpCycles = slices.Clone(r.c.WarpCycles)
			if got := fast.appendPlain(&c, clk); got != r.plain {
				t.Fatalf("ratio %g: appendPlain(CTA %d) = %v, want %v", ratio, c.CTA, got, r.plain)
			}
			if !r.plain {
				fileRecord(t, &fast, &c, clk)
			}
			c.WarpCycles = slices.Clone(r.c.WarpCycles)
			fileRecord(t, &slow, &c, clk)
		}
		if !slices.Equal(fast.slims, slow.slims) {
			t.Errorf("ratio %g: entries\n%v\nwant\n%v", ratio, fast.slims, slow.slims)
		}
		if len(fast.rare) != len(slow.rare) {
			t.Errorf("ratio %g: %d rare parts, want %d", ratio, len(fast.rare), len(slow.rare))
		}
	}
}

func fileRecord(t *testing.T, w *specWindow, c *trace.CTA, clk clock) {
	t.Helper()
	var r ctaRecord
	r.read(c, clk)
	if err := w.record(c.CTA, &r); err != nil {
		t.Fatal(err)
	}
}

// appendPlains files plain records as appendPlain files each, rescaled or
// not.
func TestAppendPlainsIsAppendPlain(t *testing.T) {
	plains := []trace.PlainCTA{{Cycles: 5000}, {Cycles: 4999, Insts: 5000, DRAMBytes: 40000}, {}, {Cycles: 123457, Insts: 99991, DRAMBytes: 12345}}
	for _, ratio := range []float64{1, 745.0 / 706} {
		clk := clockOf(ratio)
		var each, run specWindow
		for i, p := range plains {
			if !each.appendPlain(&trace.CTA{CTA: uint64(i), Cycles: p.Cycles, Insts: p.Insts, DRAMBytes: p.DRAMBytes}, clk) {
				t.Fatalf("x%g: appendPlain did not take plain record %d", ratio, i)
			}
		}
		run.appendPlains(slices.Clone(plains), clk)
		if !slices.Equal(run.slims, each.slims) {
			t.Errorf("x%g: appendPlains filed %+v, appendPlain %+v", ratio, run.slims, each.slims)
		}
	}
}
