package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// The ways a ctas row reaches a Writer: CTA, CTAFields, and blocks
// (tables.CTABlockSink) for the rows that may be in one.
const (
	viaCTA = iota
	viaFields
	viaBlocks
)

// ctaRowsVia writes rows of several runs (more than a spool chunk, with
// and without a group, a stall and a slowdown, a slowdown of 0 among
// them, and occupancy rows among them, so that chunks fill at other
// rows) the way via says. viaBlocks writes the rows a block may hold
// (dispatch its start, no stall, no group) in blocks of up to 40 rows or
// a full one, the others through CTAFields once the block is written.
func ctaRowsVia(via int) func(*Writer) {
	return func(w *Writer) {
		var b tables.CTABlock
		flush := func() {
			if b.N > 0 {
				w.CTAs(&b)
				b.N = 0
			}
		}
		for r, n := range []int{2*spoolRows + 3, 5, 3*tables.CTABlockRows + 9} {
			w.Begin(tables.Run{Trace: "t", Policy: []string{"cdp", "flat", "dtbl"}[r]})
			for i := 0; i < n; i++ {
				c := tables.CTA{KernelID: uint64(r), CTA: uint64(i), SM: int32(i % 13), DispatchCycle: int64(i),
					StartCycle: int64(i + 1), EndCycle: int64(i + 2), StallCycles: int64(i % 5), Name: "k"}
				if i%4 != 0 {
					c.DispatchCycle, c.StallCycles = c.StartCycle, 0
				}
				if i%7 == 0 {
					c.GroupID = u64(uint64(i / 7))
				}
				if i%3 == 0 || r == 2 {
					c.Slowdown = f64p(float64(i%9) / 8)
				}
				if i%11 == 0 {
					w.Occupancy(tables.Occupancy{Cycle: int64(i), WindowCycles: 5, SM: int32(i % 3), ActiveWarps: 1, ActiveCTAs: 0.5})
				}
				if via == viaCTA {
					w.CTA(c)
					continue
				}
				v := 0.25 // read only where there is a slowdown
				if c.Slowdown != nil {
					v = *c.Slowdown
				}
				if via == viaBlocks && c.DispatchCycle == c.StartCycle && c.StallCycles == 0 && c.GroupID == nil {
					j := b.N
					b.KernelID[j], b.CTA[j], b.SM[j], b.Start[j], b.End[j] = c.KernelID, c.CTA, c.SM, c.StartCycle, c.EndCycle
					b.Slowdown[j], b.HasSlowdown[j] = v, c.Slowdown != nil
					if b.N++; b.N == tables.CTABlockRows || (r < 2 && b.N == 40) {
						flush()
					}
					continue
				}
				flush()
				w.CTAFields(c.KernelID, c.CTA, c.SM, c.DispatchCycle, c.StartCycle, c.EndCycle, c.StallCycles, c.GroupID, v, c.Slowdown != nil)
			}
			flush()
		}
	}
}

// A ctas row written as its fields (tables.CTAFieldSink), or in a block
// (tables.CTABlockSink), is the row CTA writes: the same files byte for
// byte, from a Recorder's spool and from a Writer's own rows, in each
// format.
func TestCTAFieldsSameRows(t *testing.T) {
	var _ tables.CTABlockSink = (*Writer)(nil)
	for _, f := range []Format{Parquet, CSV, Arrow} {
		for _, via := range []int{viaFields, viaBlocks} {
			dirs := [2]string{}
			for k, via := range []int{viaCTA, via} {
				dirs[k] = t.TempDir()
				w, err := create(dirs[k], f, memory.DefaultAllocator, batchRows)
				if err != nil {
					t.Fatal(err)
				}
				ctaRowsVia(via)(w)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			sameFiles(t, f, fmt.Sprintf("written (way %d)", via), dirs)
		}
	}
	for _, f := range []Format{Parquet, CSV, Arrow} {
		for _, via := range []int{viaFields, viaBlocks} {
			dirs := [2]string{t.TempDir(), t.TempDir()}
			recordInto(t, dirs[0], f, batchRows, ctaRowsVia(viaCTA))
			recordInto(t, dirs[1], f, batchRows, ctaRowsVia(via))
			sameFiles(t, f, fmt.Sprintf("recorded (way %d)", via), dirs)
		}
	}
}

func sameFiles(t *testing.T, f Format, how string, dirs [2]string) {
	t.Helper()
	for _, name := range finalNames(f) {
		x, errx := os.ReadFile(filepath.Join(dirs[0], name))
		y, erry := os.ReadFile(filepath.Join(dirs[1], name))
		if errx != nil || erry != nil {
			t.Fatalf("%s %s: %v, %v", how, name, errx, erry)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s %s: rows differ from rows through CTA", how, name)
		}
	}
}
