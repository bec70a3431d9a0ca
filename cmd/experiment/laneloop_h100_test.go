package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// laneLoopRow is one line of validation/laneloop-h100/laneloop-h100.tsv.
type laneLoopRow struct {
	code, memory string
	n, lanes     int
	child, loop  float64
}

func readLaneLoopH100(t *testing.T) []laneLoopRow {
	t.Helper()
	path := filepath.Join("..", "..", validationDir, "laneloop-h100", "laneloop-h100.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []laneLoopRow
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(fs[0], "#") || fs[0] == "code" {
			continue
		}
		if len(fs) != 6 {
			t.Fatalf("%s:%d: %d fields, want 6", path, line, len(fs))
		}
		var v [4]float64
		for i, s := range fs[2:] {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		rows = append(rows, laneLoopRow{fs[0], fs[1], int(v[0]), int(v[1]), v[2], v[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLaneLoopOnH100 holds docs/calibration.md's "The lane loop on an
// H100" to the measurement it quotes: the importer's two equations
// (solveLoopRule) solved from a one-warp child CTA and a lone lane's loop
// over 32 edges, SSSP's and BFS's, give the constants the page states;
// and a lone lane's cycles an edge stay flat as the child's CTA grows
// from one warp to 32 while the CTA's own cycles do not, which is why the
// rule is priced from a child's lone warp rather than its CTA.
func TestLaneLoopOnH100(t *testing.T) {
	rows := readLaneLoopH100(t)
	find := func(code, mem string, n, lanes int) laneLoopRow {
		for _, r := range rows {
			if r.code == code && r.memory == mem && r.n == n && r.lanes == lanes {
				return r
			}
		}
		t.Fatalf("no row %s %s n=%d lanes=%d", code, mem, n, lanes)
		return laneLoopRow{}
	}
	for _, tc := range []struct {
		memory string
		once   int64
		share  float64
	}{{"l2", 322, 0.791}, {"dram", 677, 0.620}} {
		s, b := find("sssp", tc.memory, 32, 1), find("bfs", tc.memory, 32, 1)
		once, share, err := solveLoopRule([2]float64{s.child, b.child}, [2]float64{s.loop / 32, b.loop / 32})
		if err != nil {
			t.Fatal(err)
		}
		if once != tc.once || share != tc.share {
			t.Errorf("%s: cta_once %d, loop_share %g; docs/calibration.md says %d and %g", tc.memory, once, share, tc.once, tc.share)
		}
	}
	small, big := find("sssp", "l2", 32, 1), find("sssp", "l2", 1024, 1)
	edgeRatio := (big.loop / 1024) / (small.loop / 32)
	ctaRatio := big.child / small.child
	if edgeRatio < 0.95 || edgeRatio > 1.05 || ctaRatio < 1.7 {
		t.Errorf("sssp l2, 32 → 1024 threads: a lone lane's cycles an edge ×%.2f, the child CTA's ×%.2f; the page says flat and ×1.77", edgeRatio, ctaRatio)
	}
}
