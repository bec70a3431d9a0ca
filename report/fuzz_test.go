package report

import (
	"io"
	"math"
	"testing"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/tables"
)

// FuzzLoad writes a run's tables with the fuzzer's cycles, widths, warps,
// makespan and estimates (with the project's writer, so the values reach
// the report as a table holds them) and loads and renders them: a row the
// report cannot use is refused with an error, and nothing panics or runs
// on. The seeds are issue 75's shapes: a negative occupancy cycle,
// estimates one ulp apart, values that are not finite, extremes.
func FuzzLoad(f *testing.F) {
	f.Add(int64(0), int64(500), 8.0, int64(1000), 1.0, 100.0, 200.0, int64(20), int64(600))
	f.Add(int64(-2114000), int64(500), 8.0, int64(1000), 1.0, 1.0, 1.0000000000000002, int64(20), int64(600))
	f.Add(int64(0), int64(math.MaxInt64), 1e300, int64(1), 1e-300, math.Inf(1), math.NaN(), int64(-1), int64(math.MaxInt64))
	f.Add(int64(math.MaxInt64-1), int64(1), 5e-324, int64(math.MaxInt64), 1e308, -1.0, 1e308, int64(math.MaxInt64), int64(0))
	f.Add(int64(7), int64(0), 0.0, int64(0), 0.0, 1.0, 1.0, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, cycle, width int64, warps float64, makespan int64, us, estChild, estParent float64, start, end int64) {
		dir := writeTables(t, results.CSV, func(w *results.Writer) {
			oneRun(w, func(r *runRows) {
				r.summary.MakespanCycles, r.summary.MakespanUS = makespan, us
				r.occupancy = append(r.occupancy, tables.Occupancy{Cycle: cycle, WindowCycles: width, ActiveWarps: warps})
				r.launches = append(r.launches, tables.Launch{Decision: "inline", Outcome: "inlined", EstChildCycles: &estChild, EstParentCycles: &estParent})
				r.kernels = append(r.kernels, tables.Kernel{KernelID: 3, Name: "c", Origin: "device", LaunchCycle: start, ReadyCycle: start, StartCycle: start, EndCycle: end})
				r.pages = append(r.pages, tables.Page{Event: "ready", Cycle: end})
			})
		})
		d, err := Load([]string{dir})
		if err != nil {
			return
		}
		if err := d.Write(io.Discard, []string{dir}, ""); err != nil {
			t.Fatal(err)
		}
	})
}
