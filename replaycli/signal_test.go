package replaycli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT and SIGTERM in the middle of writing tables, a timeline and a
// generated trace leave no temporary file, keep the tables of an earlier
// run intact, exit 130 and 143, and say what was removed.
func TestSignalsLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and replays a large trace")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "replay")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/replay").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	big := filepath.Join(dir, "big.trace.zst")
	if out, err := exec.Command(bin, "gen", "synth", "--param", "kernels=300", "--param", "ctas=10000", "-o", big).CombinedOutput(); err != nil {
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
	} {
		cmd := exec.Command(bin, tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the command has its temporary files open.
		deadline := time.Now().Add(20 * time.Second)
		for len(temps(t, dir)) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(temps(t, dir)) == 0 {
			cmd.Process.Kill()
			t.Fatalf("%v: no temporary file appeared", tc.args)
		}
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		code := -1
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		}
		if code != tc.code || !strings.Contains(stderr.String(), "stopped; removed") {
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
