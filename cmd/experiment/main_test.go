package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The dtbl experiment runs end to end: every benchmark gets a row, the
// tables are written, and DTBL beats CDP on average.
func TestDTBLExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and replays eleven benchmarks")
	}
	dir := t.TempDir()
	var out, log bytes.Buffer
	if err := run([]string{"dtbl", "--out", dir}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, b := range dtblExperiment.benchmarks {
		if !strings.Contains(out.String(), "| "+b.name+" |") {
			t.Errorf("no row for %s:\n%s", b.name, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tables", "summary.parquet")); err != nil {
		t.Error(err)
	}
	var cdp, dtbl float64
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| **geometric mean**") {
			f := strings.Split(line, "|")
			cdp, dtbl = speedup(t, f[4]), speedup(t, f[5]) // after flat (cycles) and inlined
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "traces", "bfs-citation-flat.trace.zst")); err != nil {
		t.Errorf("no faithful flat trace: %v", err)
	}
	// The flat column replays the original BFS, the inlined column the DP
	// trace with every site inlined, in which a hub's lane loops alone
	// over its whole list: the original BFS is faster. Its row of the
	// speedups table is the first (the CDP floors' table has one too).
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| bfs-citation |") {
			if inl := speedup(t, strings.Split(line, "|")[3]); inl >= 1 {
				t.Errorf("bfs-citation: inlined %.2f× over flat; want the original BFS faster", inl)
			}
			break
		}
	}
	if !(dtbl > cdp && cdp > 0) {
		t.Errorf("geometric means: cdp %.2f, dtbl %.2f; want dtbl > cdp", cdp, dtbl)
	}
}

func speedup(t *testing.T, cell string) float64 {
	var v float64
	s := strings.Trim(strings.TrimSpace(cell), "*×")
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatalf("cell %q: %v", cell, err)
	}
	return v
}

// The contention knee experiment: every measured run time matches the
// processor-sharing prediction, and the knees sit where the issue width and
// the DRAM bandwidth put them.
func TestContentionKnee(t *testing.T) {
	var out, log bytes.Buffer
	if err := run([]string{"contention-knee", "--out", t.TempDir()}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 8 || strings.Contains(line, "---") || strings.Contains(line, "CTAs/SM") {
			continue
		}
		rows++
		var n int
		var issue, issueWant, dram, dramWant float64
		fmt.Sscan(f[1], &n)
		fmt.Sscan(f[3], &issue)
		fmt.Sscan(f[4], &issueWant)
		fmt.Sscan(f[5], &dram)
		fmt.Sscan(f[6], &dramWant)
		if d := issue - issueWant; d > 0.002 || d < -0.002 {
			t.Errorf("%d CTAs/SM: issue-bound %.3f, predicted %.3f", n, issue, issueWant)
		}
		if d := dram - dramWant; d > 0.002 || d < -0.002 {
			t.Errorf("%d CTAs/SM: DRAM-bound %.3f, predicted %.3f", n, dram, dramWant)
		}
		if (n <= 4) != (issue == 1) {
			t.Errorf("%d CTAs/SM: issue-bound run/alone %.3f; the knee is at 4", n, issue)
		}
		if (n <= 5) != (dram == 1) {
			t.Errorf("%d CTAs/SM: DRAM-bound run/alone %.3f; the knee is at 5.67", n, dram)
		}
	}
	if rows != 16 {
		t.Errorf("%d rows, want 16:\n%s", rows, out.String())
	}
}

// The pipelines' kernel_cost defaults reproduce the stage shares the CRCS
// paper states for its baselines (docs/experiments.md, CRCS, "Calibration"): HotSpot's kernels
// take 9.0% of the run with 5 kernels and 66% with 100 (§5.3), PathFinder's
// prelude 95% (§5.2). A change to the cost model, the I/O model or the GPU
// preset that moves them fails here, before it moves the CRCS tables.
func TestCRCSStageShares(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and replays three pipelines")
	}
	x := &experiment{
		gpu: crcsExperiment.gpu, sets: crcsExperiment.sets, policies: []string{"baseline"},
		benchmarks: []benchmark{
			{name: "hsp-5", gen: "hotspot", params: []string{"iterations=5"}},
			{name: "hsp-100", gen: "hotspot", params: []string{"iterations=100"}},
			{name: "path", gen: "pathfinder"},
		},
	}
	outs, err := x.run(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		stage    string
		pct, tol float64
	}{{"kernels", 9.0, 0.5}, {"kernels", 66, 1}, {"prelude", 95, 1}} {
		st := outs[i].stats
		part := st.KernelsCycles
		if want.stage == "prelude" {
			part = st.PreludeCycles
		}
		got := 100 * float64(part) / float64(st.MakespanCycles)
		if got < want.pct-want.tol || got > want.pct+want.tol {
			t.Errorf("%s: %s take %.1f%% of the baseline, want %.1f%% ± %.1f", outs[i].bench.name, want.stage, got, want.pct, want.tol)
		}
	}
}

// --param reaches a generator's parameters, invented costs among them,
// and refuses one the generator does not declare.
func TestGenParams(t *testing.T) {
	got, err := genParams([]string{"bfs:level_base_cycles=400", "bfs:scale=8", "tasks:dram_cycles=800"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got["bfs"], []string{"level_base_cycles=400", "scale=8"}) || !slices.Equal(got["tasks"], []string{"dram_cycles=800"}) {
		t.Errorf("got %v", got)
	}
	for _, bad := range []string{"bfs:no_such=1", "nogen:x=1", "bfs:level_base_cycles", "level_base_cycles=1"} {
		if _, err := genParams([]string{bad}); err == nil {
			t.Errorf("--param %q accepted", bad)
		}
	}
}
