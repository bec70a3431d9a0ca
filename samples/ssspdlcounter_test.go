package samples

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDlCounterMeasured holds the frontier counter's rule to the log it
// was measured on: dragonli-sssp-tree3-cdp's rerun with each atomic
// transaction printed as the L2 does it (validation/gpgpusim/whatif,
// dragonli-sssp-tree3-cdp-atomics.txt.xz: "ATOM cycle sub-partition SM
// warp address lanes", lanes as a bit string, lane 31 first). The
// counter is the word most of them hit. It does one append a cycle (no
// two in one cycle, most one after another), and a warp's first append
// is done dlClaimLagCycles after its last atomicMin, at 837 MHz.
func TestDlCounterMeasured(t *testing.T) {
	type atom struct {
		t        int64
		sm, warp int
		addr     string
	}
	var atoms []atom
	hits := map[string]int{}
	sc := xzLines(t, filepath.Join(whatifDir, "dragonli-sssp-tree3-cdp-atomics.txt.xz"), 1<<16)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 7 || f[0] != "ATOM" {
			t.Fatalf("want ATOM cycle sub-partition SM warp address lanes, got %q", sc.Text())
		}
		c, err1 := strconv.ParseInt(f[1], 10, 64)
		sm, err2 := strconv.Atoi(f[3])
		w, err3 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%q: a field is not a number", sc.Text())
		}
		atoms = append(atoms, atom{c, sm, w, f[5]})
		hits[f[5]]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var counter string
	for a, n := range hits {
		if n > hits[counter] {
			counter = a
		}
	}
	// One a cycle.
	var appends, next int
	last := int64(-1)
	for _, a := range atoms {
		if a.addr != counter {
			continue
		}
		if a.t == last {
			t.Fatalf("two appends done in cycle %d", a.t)
		}
		if a.t == last+1 {
			next++
		}
		appends, last = appends+1, a.t
	}
	t.Logf("counter %s: %d appends (the run's 11,000 vertices), %d one cycle after the one before", counter, appends, next)
	if appends != 11000 || float64(next) < 0.9*float64(appends) {
		t.Errorf("the log's counter: %d appends, %d back to back; measured 11,000 and 10,629", appends, next)
	}
	// The lag: a warp's last atomicMin to its first append, where the
	// counter did nothing the cycle before (the append did not wait).
	type key struct{ sm, warp int }
	lastMin := map[key]int64{}
	var lags []int64
	prev := int64(-2)
	for _, a := range atoms {
		k := key{a.sm, a.warp}
		if a.addr != counter {
			lastMin[k] = a.t
			continue
		}
		if m, ok := lastMin[k]; ok {
			if a.t > prev+1 {
				lags = append(lags, a.t-m)
			}
			delete(lastMin, k)
		}
		prev = a.t
	}
	slices.Sort(lags)
	median := lags[len(lags)/2]
	t.Logf("%d warps' first appends that did not wait: lag %d to %d cycles, median %d at 837 MHz", len(lags), lags[0], lags[len(lags)-1], median)
	if got := roundDiv(median*706, 837); got != dlClaimLagCycles {
		t.Errorf("dlClaimLagCycles is %d; the log's median lag %d is %d at 706 MHz", dlClaimLagCycles, median, got)
	}
}
