package study

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// genTrace writes generator name's trace with these parameters to dir.
func genTrace(t *testing.T, dir, name string, params ...string) string {
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
		out := filepath.Join(dir, name)
		w, err := results.Create(out, results.CSV)
		if err != nil {
			t.Fatal(err)
		}
		m := NewMerge(w, len(plan))
		opt.Open = func(r Replay, _ string) (Output, error) { return m.Output(r.ID), nil }
		if _, err := Run(plan, opt); err != nil {
			m.Abort()
			t.Fatalf("%s: %v", name, err)
		}
		if err := m.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
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
				for _, table := range results.Tables() {
					a, err := os.ReadFile(filepath.Join(want, table+".csv"))
					if err != nil {
						t.Fatal(err)
					}
					b, err := os.ReadFile(filepath.Join(got, table+".csv"))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a, b) {
						t.Errorf("%s: %s.csv differs from the replays' decoding alone", name, table)
					}
				}
			}
		}
	}
}
