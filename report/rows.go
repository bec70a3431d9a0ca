package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// The report checks every row it reads before it uses it: a table
// written by replay never holds a negative cycle or a value that is not
// finite, and one edited or damaged by hand must fail with one line
// naming its file and row, not a panic deep in a figure (issue 75: a
// negative occupancy cycle indexed a bin at -2114).

// maxRuns bounds the runs one report covers: every run costs the page a
// summary row, a names table, a wait row, a comparison and a tile in each
// small-multiples figure (about 50 KB), and memory its bounded samples
// (its kernels for the Gantt chart, estimates, page readiness: up to
// about 1.5 MB), so a page past it would be too large to open and its
// build too large to hold. More runs are refused, not aggregated: the
// summary of many runs is a query over their tables (docs/tables.md).
const maxRuns = 256

// maxWarps bounds a row's resident warps (an SM holds at most 64 today;
// far above any GPU, far below where warp·cycles stop being finite).
const maxWarps = 1 << 30

// rowCheck is what is wrong with row i of a table's batch, or "".
type rowCheck func(c colset, i int) string

// rowChecks are the checks of each table the report reads, by the
// columns it uses.
var rowChecks = map[string]rowCheck{
	"summary": func(c colset, i int) string {
		return first(
			cycles(c, i, 4, "makespan_cycles"),
			finite(c, i, 5, "makespan_us"), finite(c, i, 6, "speedup"),
			count(c, i, 7, "kernels"), count(c, i, 9, "ctas"), count(c, i, 10, "launch_sites"),
			count(c, i, 11, "launched"), count(c, i, 12, "inlined"), count(c, i, 13, "coalesced"),
			finite(c, i, 14, "avg_occupancy"), cycles(c, i, 16, "stall_cycles"),
			optFinite(c, i, 18, "issue_utilization"), optFinite(c, i, 19, "dram_utilization"))
	},
	"kernels": func(c colset, i int) string {
		return first(cycles(c, i, 10, "launch_cycle"), cycles(c, i, 11, "ready_cycle"),
			cycles(c, i, 12, "start_cycle"), cycles(c, i, 13, "end_cycle"))
	},
	"occupancy": func(c colset, i int) string {
		if s := first(cycles(c, i, 3, "cycle"), cycles(c, i, 4, "window_cycles"), finite(c, i, 6, "active_warps")); s != "" {
			return s
		}
		if start, width := c.i64(3, i), c.i64(4, i); start > math.MaxInt64-width {
			return fmt.Sprintf("cycle %d and window_cycles %d end past 2^63-1", start, width)
		}
		if w := c.f64(6, i); w > maxWarps {
			return fmt.Sprintf("active_warps %g; want at most 2^30", w)
		}
		return ""
	},
	"stages": func(c colset, i int) string {
		return first(cycles(c, i, 4, "start_cycle"), cycles(c, i, 5, "end_cycle"))
	},
	"pages": func(c colset, i int) string { return cycles(c, i, 7, "cycle") },
	"launches": func(c colset, i int) string {
		return first(optFinite(c, i, 13, "est_child_cycles"), optFinite(c, i, 14, "est_parent_cycles"))
	},
	"syncs": func(c colset, i int) string {
		return first(cycles(c, i, 8, "call_cycle"), cycles(c, i, 9, "return_cycle"))
	},
}

func first(problems ...string) string {
	for _, p := range problems {
		if p != "" {
			return p
		}
	}
	return ""
}

// cycles and count: a cycle or a count is never negative.
func cycles(c colset, i, col int, name string) string {
	if v := c.i64(col, i); v < 0 {
		return fmt.Sprintf("%s %d; want 0 or more", name, v)
	}
	return ""
}

func count(c colset, i, col int, name string) string { return cycles(c, i, col, name) }

// finite: a value is a finite number, not negative (every float the
// report reads is a time, a ratio or a level).
func finite(c colset, i, col int, name string) string {
	if v := c.f64(col, i); math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Sprintf("%s %v; want a finite number, 0 or more", name, v)
	}
	return ""
}

func optFinite(c colset, i, col int, name string) string {
	if c.rec.Column(col).IsNull(i) {
		return ""
	}
	return finite(c, i, col, name)
}

// rowError names the file of table in dir that Scan reads (the first of
// NAME.parquet, NAME.arrow and NAME.csv there) and its row, from 1.
func rowError(dir, table string, row int64, problem string) error {
	path := filepath.Join(dir, table+".parquet")
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		if _, err := os.Stat(filepath.Join(dir, table+ext)); err == nil {
			path = filepath.Join(dir, table+ext)
			break
		}
	}
	return fmt.Errorf("%s: row %d: %s", path, row, problem)
}
