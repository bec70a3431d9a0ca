package study

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// genTrace writes generator name's trace with these parameters to dir.
func genTrace(t testing.TB, dir, name string, params ...string) string {
	t.Helper()
	g, ok := samples.Lookup(name)
	if !ok {
		t.Fatalf("no generator %s", name)
	}
	p, err := g.ParseParams(params)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".trace.zst")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := trace.NewWriter(f)
	if err := g.Run(p, w); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// runMerged runs plan with opt, its replays' rows merged in plan order
// into CSV tables in the folder out, and returns out.
func runMerged(t *testing.T, plan []Replay, out string, opt Options) string {
	t.Helper()
	w, err := results.Create(out, results.CSV)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMerge(w, len(plan))
	opt.Open = func(r Replay, _ string) (Output, error) { return m.Output(r.ID), nil }
	if _, err := Run(plan, opt); err != nil {
		m.Abort()
		t.Fatalf("%s: %v", filepath.Base(out), err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("%s: %v", filepath.Base(out), err)
	}
	return out
}

// differingTables is the tables whose CSV in the folder got is not want's
// byte for byte, or is empty in want (a CSV table has its header at
// least).
func differingTables(t *testing.T, want, got string) []string {
	t.Helper()
	var differ []string
	for _, table := range results.Tables() {
		a, err := os.ReadFile(filepath.Join(want, table+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(got, table+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			differ = append(differ, table)
		}
	}
	return differ
}

// The replays of one trace run in lockstep on its tape, on any number of
// workers, and give the tables of replays that each decode the trace on
// their own, byte for byte: with a tape that holds the whole trace, with
// one of a byte (every head waits for the readers behind at every chunk)
// and with a merge that holds a byte of rows a replay at most (the
// replays after the first park once their rows pass the Recorder's
// spool, and their tape lets them go).
func TestSetsGiveTheSameTables(t *testing.T) {
	dir := t.TempDir()
	// More CTAs than two of a Recorder's batches (65,536 rows each), so
	// that a replay hands rows to the merge while it reads its tape, some
	// of them launching children.
	synth := genTrace(t, dir, "synth", "kernels=4", "ctas=40000", "site_rate=0.05", "cycles=500")
	plan := Expand(Spec{Traces: []string{synth}, GPU: "k20c",
		Sweeps:   []Axis{{Key: "gpu.sms", Values: []string{"6", "13"}}},
		Policies: []string{"cdp", "dtbl", "spawn"}})
	run := func(name string, opt Options) string {
		t.Helper()
		return runMerged(t, plan, filepath.Join(dir, name), opt)
	}
	want := run("alone", Options{Jobs: 1, ShareBytes: -1})
	jobsList := []int{1, 2, 8}
	if testing.Short() {
		jobsList = []int{2}
	}
	defer func(n int64) { queueBytes = n }(queueBytes)
	for _, queue := range []int64{QueueBytes, 1} {
		queueBytes = queue
		for _, share := range []int64{0, 1} {
			if queue == 1 && share == 0 {
				continue
			}
			for _, jobs := range jobsList {
				name := fmt.Sprintf("queue%d-share%d-jobs%d", queue, share, jobs)
				got := run(name, Options{Jobs: jobs, ShareBytes: share})
				for _, table := range differingTables(t, want, got) {
					t.Errorf("%s: %s.csv differs from the replays' decoding alone", name, table)
				}
				os.RemoveAll(got) // some 100 MB of CSV a run
			}
		}
	}
}

// A trace's replays are cut into sets of at most SetWidth, in plan
// order, each its own decode; where not in lockstep, one piece a trace.
// Engines counts what the slots let hold state at once.
func TestSharesCutSets(t *testing.T) {
	var plan []Replay
	for i := range 10 {
		plan = append(plan, Replay{ID: i, Trace: "a"})
	}
	plan = append(plan, Replay{ID: 10, Trace: "b"}, Replay{ID: 11, Trace: "a"})
	s := newShares(plan, true, 8)
	want := [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 11}, {10}}
	for _, w := range want {
		k := s.key[w[0]]
		if got := s.sets[k]; fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("set of replay %d: %v, want %v", w[0], got, w)
		}
		for seat, i := range w {
			if s.key[i] != k || s.seat[i] != seat {
				t.Errorf("replay %d: seat %d in %q, want %d in %q", i, s.seat[i], s.key[i], seat, k)
			}
		}
	}
	if n := len(s.sets); n != 3 {
		t.Errorf("%d pieces, want 3", n)
	}
	if n := newShares(plan, false, 8).largest(); n != 11 {
		t.Errorf("not in lockstep, trace a's piece has %d replays, want 11", n)
	}
	for _, tc := range []struct{ jobs, want int }{{1, 8}, {2, 8}, {8, 12}} {
		if got := Engines(plan, tc.jobs); got != tc.want {
			t.Errorf("Engines(plan, %d) = %d, want %d", tc.jobs, got, tc.want)
		}
	}
	if got := Engines(plan[9:11], 4); got != 2 {
		t.Errorf("Engines of two traces' lone replays on 4 workers = %d, want 2", got)
	}
}

// A trace with more replays than a set holds is decoded once a set: the
// tables are those of the replays decoding alone.
func TestWideSweepGivesTheSameTables(t *testing.T) {
	var points []string
	for n := 4; n <= 14; n++ {
		points = append(points, fmt.Sprint(n))
	}
	plan := Expand(Spec{Traces: []string{"../samples/bfs-kron12.trace.zst"}, GPU: "k20c",
		Sweeps: []Axis{{Key: "gpu.sms", Values: points}}, Policies: []string{"cdp"}})
	dir := t.TempDir()
	run := func(name string, opt Options) string {
		t.Helper()
		return runMerged(t, plan, filepath.Join(dir, name), opt)
	}
	want := run("alone", Options{Jobs: 1, ShareBytes: -1})
	for _, jobs := range []int{1, 3} {
		got := run(fmt.Sprint("jobs", jobs), Options{Jobs: jobs, ShareBytes: 1})
		for _, table := range differingTables(t, want, got) {
			t.Errorf("--jobs %d: %s.csv differs from the replays' decoding alone", jobs, table)
		}
	}
}

// The replays of one clock in a set read one filing of each child's CTA
// table (replay's sharedTable, over trace.Child.Offer): BFS's children,
// under four policies, two SM counts and two clocks (so that a replay of
// the other clock files its own), give with a shared decode the tables
// of the replays each decoding and filing alone.
func TestSharedFilingGivesTheSameTables(t *testing.T) {
	dir := t.TempDir()
	bfs := genTrace(t, dir, "bfs", "scale=12")
	plan := Expand(Spec{Traces: []string{bfs}, GPU: "k20c",
		Sweeps: []Axis{{Key: "gpu.sms", Values: []string{"6", "13"}},
			{Key: "gpu.clock_mhz", Values: []string{"706", "1000"}}},
		Policies: []string{"cdp", "flat", "dtbl", "spawn"}})
	run := func(name string, opt Options) string {
		t.Helper()
		return runMerged(t, plan, filepath.Join(dir, name), opt)
	}
	want := run("alone", Options{Jobs: 1, ShareBytes: -1})
	got := run("shared", Options{Jobs: 2})
	if n := len(plan); n != 16 {
		t.Fatalf("%d replays planned, want 16", n)
	}
	if kernels, err := os.ReadFile(filepath.Join(want, "kernels.csv")); err != nil || bytes.Count(kernels, []byte("\n")) < 12*200 {
		t.Fatalf("kernels.csv: %d lines, want some hundreds a replay but flat (%v)", bytes.Count(kernels, []byte("\n")), err)
	}
	for _, table := range differingTables(t, want, got) {
		t.Errorf("%s.csv differs from the replays' filing alone", table)
	}
}

// A run of many replays holds what is in flight, not what has run: each
// piece of replays sharing a decode let its decoders go as its last
// replay closed, where they were held to the run's end (BFS scale 12,
// a sweep of 1,000 replays: some 110 KB a replay, peak resident 132 MB
// against 36 MB). Between the 160th replay's start and the 1,912th's
// (each its set's first) the live heap grows by less than half of what
// the 1,752 replays between held then (over 100 MB); what is in flight
// (two sets' engines and their tape) moves it by up to some 25 MB.
func TestManyReplaysHoldWhatRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("1,920 replays take a few seconds")
	}
	var points []string
	for n := 1; n <= 1920; n++ {
		points = append(points, fmt.Sprint(n))
	}
	plan := Expand(Spec{Traces: []string{"../samples/bfs-kron12.trace.zst"}, GPU: "k20c",
		Sweeps: []Axis{{Key: "lat.host_issue", Values: points}}, Policies: []string{"cdp"}})
	w, err := results.Create(filepath.Join(t.TempDir(), "out"), results.CSV)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMerge(w, len(plan))
	live := map[int]uint64{160: 0, 1912: 0}
	opt := Options{Jobs: 2, Open: func(r Replay, _ string) (Output, error) {
		if _, ok := live[r.ID]; ok {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live[r.ID] = ms.HeapInuse
		}
		return m.Output(r.ID), nil
	}}
	if _, err := Run(plan, opt); err != nil {
		m.Abort()
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	grew := int64(live[1912]) - int64(live[160])
	t.Logf("live heap: %.1f MB at replay 160, %.1f MB at 1912", float64(live[160])/(1<<20), float64(live[1912])/(1<<20))
	if grew > 48<<20 {
		t.Errorf("the live heap grew %.1f MB over 1,752 replays (%.1f MB at replay 160, %.1f MB at 1912): replays that ran are held", float64(grew)/(1<<20), float64(live[160])/(1<<20), float64(live[1912])/(1<<20))
	}
}
