package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/gpureplay/gpureplay/tables"
)

// ctaRowsVia writes rows of several runs (more than a spool chunk, with
// and without a group and a slowdown, a slowdown of 0 among them) through
// CTA, or through CTAFields where fields is set.
func ctaRowsVia(fields bool) func(*Writer) {
	return func(w *Writer) {
		for r, n := range []int{2*spoolRows + 3, 5} {
			w.Begin(tables.Run{Trace: "t", Policy: []string{"cdp", "flat"}[r]})
			for i := 0; i < n; i++ {
				c := tables.CTA{KernelID: uint64(r), CTA: uint64(i), SM: int32(i % 13), DispatchCycle: int64(i),
					StartCycle: int64(i + 1), EndCycle: int64(i + 2), StallCycles: int64(i % 5), Name: "k"}
				if i%7 == 0 {
					c.GroupID = u64(uint64(i / 7))
				}
				if i%3 == 0 {
					c.Slowdown = f64p(float64(i%9) / 8)
				}
				if !fields {
					w.CTA(c)
					continue
				}
				v := 0.25 // read only where there is a slowdown
				if c.Slowdown != nil {
					v = *c.Slowdown
				}
				w.CTAFields(c.KernelID, c.CTA, c.SM, c.DispatchCycle, c.StartCycle, c.EndCycle, c.StallCycles, c.GroupID, v, c.Slowdown != nil)
			}
		}
	}
}

// A ctas row written as its fields (tables.CTAFieldSink) is the row CTA
// writes: the same files byte for byte, from a Recorder's spool and from
// a Writer's own rows, in both formats.
func TestCTAFieldsSameRows(t *testing.T) {
	var _ tables.CTAFieldSink = (*Writer)(nil)
	for _, f := range []Format{Parquet, CSV} {
		dirs := [2]string{}
		for k, fields := range []bool{false, true} {
			dirs[k] = t.TempDir()
			w, err := create(dirs[k], f, memory.DefaultAllocator, batchRows)
			if err != nil {
				t.Fatal(err)
			}
			ctaRowsVia(fields)(w)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		sameFiles(t, f, "written", dirs)
	}
	dirs := [2]string{t.TempDir(), t.TempDir()}
	replayInto(t, dirs[0], batchRows, ctaRowsVia(false))
	replayInto(t, dirs[1], batchRows, ctaRowsVia(true))
	sameFiles(t, Parquet, "recorded", dirs)
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
			t.Errorf("%s %s: rows through CTAFields differ from rows through CTA", how, name)
		}
	}
}
