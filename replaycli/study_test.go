package replaycli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// study status reads every part's footer: a part overwritten with
// garbage makes its replay corrupt and the study incomplete (exit 1),
// and rerunning the shard writes it anew.
func TestStudyStatusChecksParts(t *testing.T) {
	dir := t.TempDir()
	manifest, out := filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"study", "plan", "--policy=cdp,flat", sample, "-o", manifest},
		{"study", "run", "--quiet", manifest, "--out", out},
	} {
		if code, _, stderr := replayCmd(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, stdout, stderr := replayCmd(t, "study", "status", out); code != 0 || !strings.Contains(stdout, "complete") {
		t.Fatalf("status of a whole study: exit %d\n%s%s", code, stdout, stderr)
	}
	part := filepath.Join(out, "ctas", "policy=flat", "shard=0", "part-1.parquet")
	if err := os.WriteFile(part, []byte("garbage, not Parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := replayCmd(t, "study", "status", out)
	if code != 1 || !strings.Contains(stdout, "  corrupt  1\n    replay 1 (group 0): ") || !strings.Contains(stdout, "part-1.parquet: not a whole Parquet file") ||
		!strings.Contains(stderr, "is incomplete: rerun the shards that hold groups 0") {
		t.Fatalf("status with a garbage part: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := replayCmd(t, "study", "run", "--quiet", manifest, "--out", out); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := replayCmd(t, "study", "status", out); code != 0 || !strings.Contains(stdout, "  corrupt  0\n") {
		t.Fatalf("status after the rerun: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A manifest planned by a binary with a policy of its own, run by the
// stock replay, names the missing policy (it said "unknown key mine.k").
func TestStudyRunNamesAMissingPolicy(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(sample)
	manifest := filepath.Join(dir, "m.jsonl")
	os.WriteFile(manifest, []byte(`{"id":0,"group":0,"trace":"`+abs+`","name":"bfs-kron12","gpu":"k20c","sets":["mine.k=2"],"policy":"mine"}`+"\n"), 0o644)
	code, _, stderr := replayCmd(t, "study", "run", manifest, "--out", filepath.Join(dir, "out"))
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "replay 0 runs policy mine, which this replay binary does not have") {
		t.Errorf("exit %d: %q", code, stderr)
	}
}

// study slurm's closing line counts in the right number and quotes the
// script for the shell it is to be pasted into: a script named with a
// space and a quote was suggested as "sbatch job s'.sbatch", which bash
// cannot run.
func TestSlurmSuggestsAQuotedScript(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "study.jsonl")
	if code, _, stderr := replayCmd(t, "study", "plan", sample, "-o", manifest); code != 0 {
		t.Fatal(stderr)
	}
	script, bin := filepath.Join(dir, "job s'.sbatch"), filepath.Join(dir, "replay")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755) // the binary the tasks would run (--replay): not run here
	code, _, stderr := replayCmd(t, "study", "slurm", manifest, "--out", filepath.Join(dir, "out"), "--replay", bin, "-o", script)
	want := "1 array task of 1 replay; submit it with sbatch '" + strings.ReplaceAll(script, "'", `'\''`) + "'"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want %q", code, stderr, want)
	}
}
