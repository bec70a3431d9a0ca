package replaycli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/results"
)

// buildReplay builds the command into dir and generates a trace there
// large enough to take seconds to replay; it returns both paths.
func buildReplay(t *testing.T, dir string) (bin, big string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command and replays a large trace")
	}
	bin = filepath.Join(dir, "replay")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/replay").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	big = filepath.Join(dir, "big.trace.zst")
	if out, err := exec.Command(bin, "gen", "synth", "--param", "kernels=300", "--param", "ctas=10000", "-o", big).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	return bin, big
}

// SIGINT, SIGTERM and SIGHUP in the middle of writing tables, a timeline,
// a generated trace and a converted one leave no temporary file, keep the
// tables of an earlier run intact, exit 130, 143 and 129, and say what
// was removed.
func TestSignalsLeaveNothingBehind(t *testing.T) {
	dir := t.TempDir()
	bin, big := buildReplay(t, dir)
	bigJSONL := filepath.Join(dir, "big.jsonl")
	if out, err := exec.Command(bin, "gen", "synth", "--param", "kernels=100", "--param", "ctas=10000", "-o", bigJSONL).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	if err := exec.Command(bin, "--quiet", "--out", out, sample).Run(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, "summary.parquet"))

	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		args []string
	}{
		{syscall.SIGINT, 130, []string{"--policy=cdp,flat", "--out", out, "--timeline", filepath.Join(dir, "t.json"), big}},
		{syscall.SIGTERM, 143, []string{"--policy=cdp,flat", "--out", out, big}},
		{syscall.SIGINT, 130, []string{"gen", "synth", "--param", "kernels=3000", "--param", "ctas=10000", "-o", filepath.Join(dir, "gen.trace.zst")}},
		{syscall.SIGHUP, 129, []string{"--policy=cdp,flat", "--out", out, "--timeline", filepath.Join(dir, "t.json"), big}},
		{syscall.SIGHUP, 129, []string{"convert", "--from=jsonl", bigJSONL, "-o", filepath.Join(dir, "conv.trace.zst")}},
		// An --out directory the run created goes with its files.
		{syscall.SIGTERM, 143, []string{"--policy=cdp,flat", "--out", filepath.Join(dir, "new", "out"), big}},
	} {
		cmd := exec.Command(bin, tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitTemps(t, dir, cmd, 1)
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		code := -1
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		}
		// One line, not an empty one and then the message (issue 75).
		if code != tc.code || !strings.HasPrefix(stderr.String(), "replay: ") || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "stopped; removed") {
			t.Errorf("%v on %v: exit %d (want %d), stderr %q", tc.sig, tc.args[:2], code, tc.code, stderr.String())
		}
		if left := temps(t, dir); len(left) > 0 {
			t.Errorf("%v on %v left %v", tc.sig, tc.args[:2], left)
		}
	}
	after, _ := os.ReadFile(filepath.Join(out, "summary.parquet"))
	if !bytes.Equal(before, after) {
		t.Error("an interrupted run changed the earlier run's summary table")
	}
	if _, err := os.Stat(filepath.Join(dir, "t.json")); err == nil {
		t.Error("an interrupted run left a timeline")
	}
	// The directory it made is gone; the one above it, which --out's
	// MkdirAll made too, is not the writer's to know of and stays.
	if _, err := os.Stat(filepath.Join(dir, "new", "out")); err == nil {
		t.Error("an interrupted run left the --out directory it created")
	}
}

// temps lists the temporary files under dir.
func temps(t *testing.T, dir string) []string {
	var found []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// A run killed outright (SIGKILL) leaves its temporary files; the next
// run writing into that directory removes them and says so, but never
// the files of a writer still running there, even ones old enough.
func TestKilledRunsAreSweptNotLiveOnes(t *testing.T) {
	dir := t.TempDir()
	bin, big := buildReplay(t, dir)
	out := filepath.Join(dir, "out")
	// A long replay, live while others write into its directory.
	live := exec.Command(bin, "--quiet", "--jobs=1", "--policy=cdp,flat,dtbl", "--out", out, big)
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- live.Wait() }()
	waitTemps(t, out, live, len(results.Tables()))
	age(t, out)
	liveTemps := temps(t, out)
	// Another run into the same directory leaves the live run's files.
	if o, err := exec.Command(bin, "--quiet", "--out", out, sample).CombinedOutput(); err != nil || len(o) > 0 {
		t.Fatalf("a run beside a live one: %v %s", err, o)
	}
	select {
	case <-done:
		t.Fatal("the long replay ended before the check; make it longer")
	default:
	}
	if got := temps(t, out); !reflect.DeepEqual(got, liveTemps) {
		t.Errorf("a live run's temporary files changed: %v, were %v", got, liveTemps)
	}
	live.Process.Kill()
	<-done
	if len(temps(t, out)) == 0 {
		t.Fatal("SIGKILL left no temporary file: nothing to test")
	}
	age(t, out) // as if staleAge had passed since the kill
	o, err := exec.Command(bin, "--quiet", "--out", out, sample).CombinedOutput()
	if err != nil || !strings.Contains(string(o), "unfinished files in "+out+" left by a stopped run") {
		t.Errorf("the run after a kill: %v %q", err, o)
	}
	if left := temps(t, out); len(left) > 0 {
		t.Errorf("left %v", left)
	}

	// A study rerun sweeps the directories of its parts.
	plan := filepath.Join(dir, "study.jsonl")
	ds := filepath.Join(dir, "ds")
	for _, args := range [][]string{{"study", "plan", sample, "-o", plan}, {"study", "run", "-q", plan, "--out", ds}} {
		if o, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", args, err, o)
		}
	}
	parts := filepath.Join(ds, "summary", "policy=cdp", "shard=0")
	gone := exec.Command("true")
	gone.Run()
	orphan := filepath.Join(parts, fmt.Sprintf(".part-0.parquet.tmp-%d-7", gone.Process.Pid))
	os.WriteFile(orphan, []byte("half"), 0o644)
	age(t, parts)
	if o, err := exec.Command(bin, "study", "run", "-q", plan, "--out", ds).CombinedOutput(); err != nil {
		t.Fatalf("study rerun: %v %s", err, o)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("a study rerun left a killed run's temporary file")
	}
}

// waitTemps waits until cmd has n temporary files open in dir.
func waitTemps(t *testing.T, dir string, cmd *exec.Cmd, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(temps(t, dir)) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(temps(t, dir)) < n {
		cmd.Process.Kill()
		t.Fatalf("%d temporary files appeared, want %d", len(temps(t, dir)), n)
	}
}

// age sets the times of the temporary files in dir an hour back.
func age(t *testing.T, dir string) {
	old := time.Now().Add(-time.Hour)
	for _, p := range temps(t, dir) {
		os.Chtimes(p, old, old)
	}
}

// Output lost on the way to standard output fails the command.
func TestStdoutWriteErrorsFail(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	bin, _ := buildReplay(t, dir)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for _, args := range [][]string{{sample}, {"--timeline", "-", sample}, {"dump", sample}} {
		cmd := exec.Command(bin, args...)
		cmd.Stdout = full
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if e, ok := err.(*exec.ExitError); !ok || e.ExitCode() != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v > /dev/full: %v, %q; want exit 1 saying why", args, err, stderr.String())
		}
	}
}
