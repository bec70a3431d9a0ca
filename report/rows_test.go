package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/tables"
)

// writeTables writes the rows rows gives in format f to a new directory,
// with the project's own writer, and returns the directory.
func writeTables(t testing.TB, f results.Format, rows func(w *results.Writer)) string {
	t.Helper()
	dir := t.TempDir()
	w, err := results.Create(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	rows(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// oneRun is a small, sound run: a summary, two kernels, occupancy, a
// stage, a page, an estimate and a sync; edit mutates its rows first.
func oneRun(w *results.Writer, edit func(*runRows)) {
	r := runRows{
		summary: tables.Summary{GPU: "g", MakespanCycles: 1000, MakespanUS: 1, Speedup: 1, Kernels: 2, CTAs: 4, LaunchSites: 1, Launched: 1, AvgOccupancy: 0.5},
		kernels: []tables.Kernel{
			{KernelID: 1, Name: "a", Origin: "host", LaunchCycle: 0, ReadyCycle: 10, StartCycle: 20, EndCycle: 600},
			{KernelID: 2, Name: "b", Origin: "device", LaunchCycle: 100, ReadyCycle: 110, StartCycle: 120, EndCycle: 900},
		},
		occupancy: []tables.Occupancy{{Cycle: 0, WindowCycles: 500, ActiveWarps: 8}, {Cycle: 500, WindowCycles: 500, ActiveWarps: 4}},
		stages:    []tables.Stage{{Stage: "kernels", StartCycle: 0, EndCycle: 1000}},
		pages:     []tables.Page{{Page: 1, Event: "ready", Cycle: 50}},
		launches:  []tables.Launch{{Decision: "launch", Outcome: "launched", EstChildCycles: ptr(100.0), EstParentCycles: ptr(200.0)}},
		syncs:     []tables.Sync{{Seq: 1, Call: "device", CallCycle: 10, ReturnCycle: 900}},
	}
	if edit != nil {
		edit(&r)
	}
	r.write(w)
}

type runRows struct {
	summary   tables.Summary
	kernels   []tables.Kernel
	occupancy []tables.Occupancy
	stages    []tables.Stage
	pages     []tables.Page
	launches  []tables.Launch
	syncs     []tables.Sync
}

func (r *runRows) write(w *results.Writer) {
	w.Begin(tables.Run{Trace: "t", Policy: "spawn"})
	w.Summary(r.summary)
	for _, k := range r.kernels {
		w.Kernel(k)
	}
	for _, o := range r.occupancy {
		w.Occupancy(o)
	}
	for _, s := range r.stages {
		w.Stage(s)
	}
	for _, p := range r.pages {
		w.Page(p)
	}
	for _, l := range r.launches {
		w.Launch(l)
	}
	for _, s := range r.syncs {
		w.Sync(s)
	}
}

func ptr[T any](v T) *T { return &v }

// Every row the report reads is checked before it is used: a negative
// cycle or a value that is not finite fails Load with one line naming the
// table's file and the row (issue 75: a negative occupancy cycle panicked
// with "index out of range [-2114]" in addOccupancy). Each format, as
// each is read through its own reader.
func TestLoadChecksRows(t *testing.T) {
	for _, tc := range []struct {
		file, want string
		edit       func(*runRows)
	}{
		{"occupancy", "row 2: cycle -2114000", func(r *runRows) { r.occupancy[1].Cycle = -2114000 }},
		{"occupancy", "row 1: window_cycles -1", func(r *runRows) { r.occupancy[0].WindowCycles = -1 }},
		{"occupancy", "row 2: cycle 9223372036854775707 and window_cycles 500 end past", func(r *runRows) { r.occupancy[1].Cycle = math.MaxInt64 - 100 }},
		{"occupancy", "row 1: active_warps NaN", func(r *runRows) { r.occupancy[0].ActiveWarps = math.NaN() }},
		{"occupancy", "row 1: active_warps 1e+300; want at most 2^30", func(r *runRows) { r.occupancy[0].ActiveWarps = 1e300 }},
		{"summary", "row 1: speedup +Inf", func(r *runRows) { r.summary.Speedup = math.Inf(1) }},
		{"summary", "row 1: makespan_cycles -5", func(r *runRows) { r.summary.MakespanCycles = -5 }},
		{"summary", "row 1: issue_utilization NaN", func(r *runRows) { r.summary.IssueUtilization = ptr(math.NaN()) }},
		{"kernels", "row 2: start_cycle -1", func(r *runRows) { r.kernels[1].StartCycle = -1 }},
		{"stages", "row 1: end_cycle -3", func(r *runRows) { r.stages[0].EndCycle = -3 }},
		{"pages", "row 1: cycle -7", func(r *runRows) { r.pages[0].Cycle = -7 }},
		{"launches", "row 1: est_child_cycles -Inf", func(r *runRows) { r.launches[0].EstChildCycles = ptr(math.Inf(-1)) }},
		{"syncs", "row 1: return_cycle -9", func(r *runRows) { r.syncs[0].ReturnCycle = -9 }},
	} {
		for _, f := range []results.Format{results.Parquet, results.Arrow, results.CSV} {
			dir := writeTables(t, f, func(w *results.Writer) { oneRun(w, tc.edit) })
			_, err := Load([]string{dir})
			want := filepath.Join(dir, tc.file+"."+string(f)) + ": " + tc.want
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v; want one line with %q", f, err, want)
			}
		}
	}
	// The same run unedited loads and writes.
	dir := writeTables(t, results.CSV, func(w *results.Writer) { oneRun(w, nil) })
	d, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(io.Discard, []string{dir}, ""); err != nil {
		t.Fatal(err)
	}
}

// More runs than a page shows are refused, as soon as the summary passes
// maxRuns, not after holding them all (issue 75: 100,000 runs took 397 MB
// and wrote a 74 MB page; 1,000,000 ran out of memory). maxRuns load.
func TestLoadRefusesTooManyRuns(t *testing.T) {
	summaries := func(n int) func(w *results.Writer) {
		return func(w *results.Writer) {
			for i := range n {
				w.Begin(tables.Run{Trace: fmt.Sprint("t", i), Policy: "cdp"})
				w.Summary(tables.Summary{GPU: "g", MakespanCycles: 10, MakespanUS: 1, Speedup: 1})
			}
		}
	}
	dir := writeTables(t, results.Parquet, summaries(maxRuns))
	d, err := Load([]string{dir})
	if err != nil || len(d.runs) != maxRuns {
		t.Fatalf("%d runs: %v", maxRuns, err)
	}
	// Two directories of maxRuns/2+1 each pass it together.
	half := writeTables(t, results.Parquet, summaries(maxRuns/2+1))
	for _, dirs := range [][]string{{writeTables(t, results.Parquet, summaries(maxRuns+1))}, {half, half}} {
		_, err := Load(dirs)
		if !errors.Is(err, ErrTooManyRuns) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d runs", maxRuns)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want ErrTooManyRuns", dirs, err)
		}
	}
}

// Ticks end for every finite range, and label it: SPAWN estimates of 1
// and 1.0000000000000002 made a step (5e-17) that adding to 1 left 1, and
// the loop grew until memory ran out (issue 75).
func TestTicksEndForEveryRange(t *testing.T) {
	for _, r := range [][2]float64{
		{1, 1.0000000000000002}, {1e300, math.Nextafter(1e300, math.Inf(1))}, {-1, math.Nextafter(-1, 0)},
		{0, 5e-324}, {-math.MaxFloat64, math.MaxFloat64}, {1 << 60, 1<<60 + 1024}, {0, 250}, {-3, 7},
	} {
		ticks := niceTicks{}.Ticks(r[0], r[1])
		if len(ticks) == 0 || len(ticks) > 50 {
			t.Errorf("%v: %d ticks", r, len(ticks))
		}
		labelled := 0
		for _, tk := range ticks {
			if tk.Label != "" {
				labelled++
			}
		}
		if labelled < 1 {
			t.Errorf("%v: no labelled tick", r)
		}
	}
	// An ordinary range keeps its 1-2-5 labels.
	var got []string
	for _, tk := range (niceTicks{}).Ticks(0, 250) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "0 50 100 150 200 250" {
		t.Errorf("0..250: %v", got)
	}
}

// The estimates figure of two estimates one ulp apart renders (issue 75:
// it never ended).
func TestEstimatesOneULPApart(t *testing.T) {
	dir := writeTables(t, results.CSV, func(w *results.Writer) {
		oneRun(w, func(r *runRows) {
			r.launches = []tables.Launch{
				{Decision: "launch", Outcome: "launched", EstChildCycles: ptr(1.0), EstParentCycles: ptr(1.0)},
				{Decision: "inline", Outcome: "inlined", EstChildCycles: ptr(1.0000000000000002), EstParentCycles: ptr(1.0000000000000002)},
			}
		})
	})
	d, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(io.Discard, []string{dir}, ""); err != nil {
		t.Fatal(err)
	}
}

// A sample keeps every value up to maxSample, and past it every
// stride-th in the order added, never more than maxSample: the task
// latencies of every kernel were kept, 8 bytes each (issue 75).
func TestSampleBounded(t *testing.T) {
	var s sample
	for i := range int64(maxSample - 1) {
		s.add(i)
	}
	if len(s.vals) != maxSample-1 || s.stride != 1 {
		t.Fatalf("%d values, stride %d; want all", len(s.vals), s.stride)
	}
	const n = 5*maxSample + 3
	for i := int64(maxSample - 1); i < n; i++ {
		s.add(i)
	}
	if len(s.vals) > maxSample || len(s.vals) < maxSample/2 {
		t.Fatalf("%d values of %d", len(s.vals), n)
	}
	for i, v := range s.vals {
		if v != int64(i)*s.stride {
			t.Fatalf("value %d is %d; want %d (stride %d)", i, v, int64(i)*s.stride, s.stride)
		}
	}
}

// Kernel names past the report's budget (count or bytes, across its
// runs) are summed as one, otherNames; the streams past it are not
// tracked; kept names are copies (issue 75: names and streams were kept
// without bound).
func TestNameAndStreamBudget(t *testing.T) {
	b := &budget{names: maxNameCount - 1}
	rd := &runData{names: map[string]*nameStats{}, budget: b}
	a := rd.name("a")
	if rd.name("a") != a || a.name != "a" {
		t.Fatal("a name within the budget is not its own")
	}
	for _, s := range []string{"b", "c"} {
		if n := rd.name(s); n.name != otherNames {
			t.Errorf("%s past the count: %q; want %q", s, n.name, otherNames)
		}
	}
	b2 := &budget{nameBytes: maxNameBytes - 3}
	rd2 := &runData{names: map[string]*nameStats{}, budget: b2}
	if rd2.name("abc").name != "abc" || rd2.name("d").name != otherNames {
		t.Error("the byte budget is not kept")
	}
	w := waitStats{budget: &budget{streams: maxStreams - 1}}
	w.addWait(kernelSpan{origin: "host", launch: 0, ready: 1, start: 2, end: 10}, 1)
	w.addWait(kernelSpan{origin: "host", launch: 0, ready: 1, start: 2, end: 10}, 2)
	if len(w.last) != 1 || w.budget.streams != maxStreams {
		t.Errorf("%d streams tracked; want 1", len(w.last))
	}
}
