package main

import (
	"bytes"
	"strings"
	"testing"
)

// klapFindings: KLAP's speedups over CDP per granularity, the best of the
// three per benchmark, and their geometric means over all benchmarks and
// over those whose algorithm KLAP's paper runs, computed by hand:
// bfs-citation (BFS): warp 1600/800 = 2×, block 1600/400 = 4×, kernel 1×;
// sa (none): warp 1×, block 1×, kernel 800/200 = 4×. All: warp √2 =
// 1.41×, block 2×, kernel 2×, best 4×; BFS alone: 2×, 4×, 1×, 4×.
func TestKLAPFindings(t *testing.T) {
	bfs, sa := benchmark{name: "bfs-citation"}, benchmark{name: "sa", group: spawnInDTBL}
	outs := []outcome{
		stat(bfs, "cdp", 1600, 100), stat(bfs, "klap-warp", 800, 20), stat(bfs, "klap-block", 400, 5), stat(bfs, "klap-kernel", 1600, 2),
		stat(sa, "cdp", 800, 50), stat(sa, "klap-warp", 800, 10), stat(sa, "klap-block", 800, 4), stat(sa, "klap-kernel", 200, 1),
	}
	var buf bytes.Buffer
	klapFindings(&buf, outs)
	got := buf.String()
	for _, row := range []string{
		"| bfs-citation | BFS (SHOC) | 2.00× | 4.00× | 1.00× | 4.00× | 100 / 20 / 5 / 2 |",
		"| sa | — | 1.00× | 1.00× | 4.00× | 4.00× | 50 / 10 / 4 / 1 |",
		"| **geometric mean, all** | | **1.41×** | **2.00×** | **2.00×** | **4.00×** | |",
		"| **geometric mean, KLAP's algorithms** | BFS, GC, SSSP | **2.00×** | **4.00×** | **1.00×** | **4.00×** | |",
		"| paper (aggregation, its benchmarks) | | — | — | — | 6.58× | |",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("klapFindings lacks %q:\n%s", row, got)
		}
	}
}
