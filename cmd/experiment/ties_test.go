package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A row's spread is its largest makespan over its smallest, less one.
func TestTieSpread(t *testing.T) {
	r := tieRow{makespans: []int64{110, 100, 125}}
	if got := r.spread(); got != 0.25 {
		t.Errorf("spread of 110, 100, 125 is %v, want 0.25", got)
	}
	if got := (tieRow{makespans: []int64{7, 7}}).spread(); got != 0 {
		t.Errorf("spread of 7, 7 is %v, want 0", got)
	}
	lo, hi := gapRange(tieRow{makespans: []int64{150, 120, 100}}, tieRow{makespans: []int64{100, 80, 80}})
	if lo != 0.25 || hi != 0.5 {
		t.Errorf("gaps 150/100, 120/80, 100/80: min %v, max %v; want 0.25, 0.5", lo, hi)
	}
}

// On a small SpMM (one parent site per row, every child launched in one
// cycle) the ties experiment's seed 0 reproduces the plain experiment's
// makespans exactly, the other seeds reorder the simultaneous launches
// (some run moves), and the table prints a row with a spread per policy.
func TestTiesSmall(t *testing.T) {
	x := &experiment{
		gpu: "k20c", policies: []string{"cdp", "dtbl"},
		benchmarks: []benchmark{{name: "spmm-2000", gen: "spmm", params: []string{"rows=2000", "nnz_per_row=8", "site_threshold=10"}}},
	}
	plain, err := x.run(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := x.ties(t.TempDir(), 3, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (one per policy)", len(rows))
	}
	moved := false
	for i, r := range rows {
		if r.makespans[0] != plain[i].stats.MakespanCycles {
			t.Errorf("%s: tie seed 0 gives %d cycles, the default %d", r.policy, r.makespans[0], plain[i].stats.MakespanCycles)
		}
		if len(r.makespans) != 3 {
			t.Errorf("%s: %d makespans, want 3", r.policy, len(r.makespans))
		}
		moved = moved || r.spread() > 0
	}
	if !moved {
		t.Errorf("no policy's makespan moved with the tie seed: %+v", rows)
	}
	var out bytes.Buffer
	printTies(&out, x.policies, rows)
	want := "| spmm-2000 | " + pct(rows[0].spread()) + " | " + pct(rows[1].spread()) + " |"
	if !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
}
