package replaycli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/results"
)

// genTraces writes small generated traces into dir and returns their paths.
func genTraces(t *testing.T, dir string, gens ...[]string) []string {
	t.Helper()
	var paths []string
	for _, g := range gens {
		path := filepath.Join(dir, g[0]+".trace.zst")
		args := append([]string{"gen"}, g...)
		if code, _, stderr := replayCmd(t, append(args, "-o", path)...); code != 0 {
			t.Fatalf("gen %v: exit %d: %s", g, code, stderr)
		}
		paths = append(paths, path)
	}
	return paths
}

// Replays that run side by side give the same tables, byte for byte, and
// the same summary as one at a time: rows reach each table in plan order
// and speedups are against each group's first replay.
func TestJobsGiveTheSameTables(t *testing.T) {
	dir := t.TempDir()
	traces := genTraces(t, dir, []string{"bfs", "--param", "scale=10"}, []string{"sssp", "--param", "scale=9"})
	var outs []string
	for _, jobs := range []string{"1", "3"} {
		for _, format := range []string{"parquet", "csv"} {
			out := filepath.Join(dir, "out-"+jobs+"-"+format)
			args := append([]string{"--jobs", jobs, "--format", format, "--policy=cdp,flat,dtbl",
				"--sweep", "gpu.sms=8,13", "--out", out}, traces...)
			code, stdout, stderr := replayCmd(t, args...)
			if code != 0 {
				t.Fatalf("--jobs %s: exit %d: %s", jobs, code, stderr)
			}
			if format == "parquet" {
				summary, _, _ := strings.Cut(stdout, "tables written to")
				outs = append(outs, summary)
			}
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("summaries differ:\n--jobs 1:\n%s\n--jobs 3:\n%s", outs[0], outs[1])
	}
	if n := strings.Count(outs[0], "\n"); n < 13 {
		t.Errorf("summary has %d lines, want 12 replays:\n%s", n, outs[0])
	}
	for _, format := range []string{"parquet", "csv"} {
		for _, table := range results.Tables() {
			name := table + "." + format
			a, err := os.ReadFile(filepath.Join(dir, "out-1-"+format, name))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "out-3-"+format, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between --jobs 1 and --jobs 3", name)
			}
		}
	}
	// The replays of a trace share its decode: the tables are the same
	// with each replay decoding on its own, and with a tape of a byte,
	// whose head waits at every chunk for the replays behind (they read
	// in lockstep, all at once, on any number of workers).
	defer func() { shareBytes = 0 }()
	for _, share := range []int64{-1, 1} {
		shareBytes = share
		for _, jobs := range []string{"1", "3", "8"} {
			out := filepath.Join(dir, fmt.Sprintf("out-share%d-%s", share, jobs))
			args := append([]string{"--jobs", jobs, "--format", "csv", "--policy=cdp,flat,dtbl",
				"--sweep", "gpu.sms=8,13", "--out", out}, traces...)
			if code, _, stderr := replayCmd(t, args...); code != 0 {
				t.Fatalf("--jobs %s, shareBytes %d: exit %d: %s", jobs, share, code, stderr)
			}
			for _, table := range results.Tables() {
				a, err := os.ReadFile(filepath.Join(dir, "out-3-csv", table+".csv"))
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(out, table+".csv"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s.csv differs between a shared decode and shareBytes %d, --jobs %s", table, share, jobs)
				}
			}
		}
	}
	csvSummary, err := os.ReadFile(filepath.Join(dir, "out-3-csv", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csvSummary)), "\n"); len(lines) != 13 || !strings.HasPrefix(lines[1], "bfs,cdp,gpu.sms=8,") || !strings.HasPrefix(lines[12], "sssp,dtbl,gpu.sms=13,") {
		t.Errorf("summary.csv is not in plan order:\n%s", csvSummary)
	}
}

// A replay that fails stops the others and leaves no table behind.
func TestJobsFailureLeavesNoTables(t *testing.T) {
	dir := t.TempDir()
	traces := genTraces(t, dir, []string{"bfs", "--param", "scale=10"})
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"header","version":1,"gpu":"k20c","clock_mhz":706}`+"\n"+`{"type":"kernel_launch","t":0,"kernel_id":1,"name":"k","grid":[1,1,1],"block":[64,1,1]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := replayCmd(t, "--jobs", "2", "--policy=cdp,flat", "--out", out, traces[0], bad)
	if code != 2 || !strings.Contains(stderr, "bad.jsonl") {
		t.Fatalf("exit %d, stderr %q; want 2 naming bad.jsonl", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a failed run left %d files in --out", len(entries))
	}
}
