package gpgpusim

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// workloadsDir holds GPGPU-Sim runs of the papers' public benchmark codes
// (PolyBench/GPU, the CUDA samples, Rodinia): its README.md says what ran.
const workloadsDir = "../../validation/gpgpusim/workloads"

// TestWorkloadCaptures converts every log in workloadsDir and replays it
// as `replay --gpu=captured --policy=cdp` does: each must convert without
// error and replay to the makespan GPGPU-Sim simulated, within 0.5%. The
// logs and times.tsv must name the same captures, so a log added without
// its provenance row, or a row whose log is missing, fails rather than
// being skipped.
func TestWorkloadCaptures(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join(workloadsDir, "*.log.xz"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range logs {
		names = append(names, strings.TrimSuffix(filepath.Base(l), ".log.xz"))
	}
	sort.Strings(names)
	if want := timesNames(t); strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("logs %v, times.tsv rows %v: each capture needs both", names, want)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			jsonl, sum := convertLog(t, filepath.Join(workloadsDir, name+".log.xz"))
			if sum.Kernels == 0 || sum.CTAs == 0 || sum.Cycles == 0 {
				t.Fatalf("empty capture: %v", sum)
			}
			makespan := replayCaptured(t, jsonl)
			// GPGPU-Sim's cycle count is one more than its last cycle's index.
			if d := float64(makespan-(sum.Cycles-1)) / float64(sum.Cycles); d > 0.005 || d < -0.005 {
				t.Errorf("replay makespan %d, GPGPU-Sim %d cycles (%+.2f%%)", makespan, sum.Cycles, 100*d)
			}
		})
	}
}

// timesNames is the first column of workloadsDir/times.tsv, sorted.
func timesNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(workloadsDir, "times.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		if first || sc.Text() == "" {
			continue // the column names
		}
		names = append(names, strings.SplitN(sc.Text(), "\t", 2)[0])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}
