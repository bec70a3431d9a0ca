package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/trace"
)

// A signal in the middle of an experiment removes the trace it was
// generating and the tables it was writing, exits as the shell reports a
// process the signal killed, and says so in one line; the traces it had
// finished stay, each whole.
func TestSignalLeavesNothingHalfWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs an experiment")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "experiment")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "dtbl", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(strings.Join(temps(out), " "), ".trace.zst.tmp-") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no trace was being generated within a minute")
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := -1
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	}
	if last := stderr.String()[strings.LastIndex(strings.TrimSuffix(stderr.String(), "\n"), "\n")+1:]; code != 130 || !strings.HasPrefix(last, "experiment: interrupt: stopped; removed ") {
		t.Errorf("exit %d (want 130), last line %q", code, last)
	}
	if left := temps(out); len(left) > 0 {
		t.Errorf("left %v", left)
	}
	traces, _ := filepath.Glob(filepath.Join(out, "traces", "*.trace.zst"))
	for _, p := range traces {
		src, err := trace.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		v := trace.NewValidator(src)
		for err == nil {
			_, err = v.Next()
		}
		if err != io.EOF {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
		src.Close()
	}
}

// temps lists the temporary files under dir (internal/tempfile's names).
func temps(dir string) []string {
	var found []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
			found = append(found, path)
		}
		return nil
	})
	return found
}
