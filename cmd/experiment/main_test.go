package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The dtbl experiment runs end to end: every benchmark gets a row, the
// tables are written, and DTBL beats CDP on average.
func TestDTBLExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and replays nine benchmarks")
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
			cdp, dtbl = speedup(t, f[3]), speedup(t, f[4])
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
