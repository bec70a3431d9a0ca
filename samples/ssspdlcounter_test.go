package samples

import (
	"math"
	"math/rand/v2"
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

// TestDlCounterAgainstCycles holds dlCounter to a cycle-by-cycle
// counter: warps issue batches of appends at random times (in time
// order, as the clock does), and the counter, served as dlLoops serves
// it (up to each next issue), must do the same appends at the same
// cycles as one that each cycle does the earliest to have reached it (in
// the order issued), and give each batch the wait of its last append.
func TestDlCounterAgainstCycles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		type issue struct {
			t int64
			n int
		}
		var issues []issue
		at := int64(0)
		for range 1 + rng.IntN(12) {
			at += int64(rng.IntN(40))
			issues = append(issues, issue{at, 1 + rng.IntN(32)})
		}
		// The counter under test, served between issues as dlLoops does.
		total := 0
		for _, is := range issues {
			total += is.n
		}
		r := &dlRun{s: &ssspSolver{lowered: make([]bool, total)}}
		batches := make([]*dlBatch, len(issues))
		flag := 0
		for i, is := range issues {
			for {
				n, ok := r.count.next()
				if !ok || n >= is.t {
					break
				}
				r.serve(n, is.t)
			}
			lanes := make([]dlLowered, is.n)
			for k := range lanes {
				lanes[k] = dlLowered{int32(flag), flag}
				flag++
			}
			batches[i] = &dlBatch{}
			r.count.claim(is.t, lanes, batches[i])
		}
		for {
			n, ok := r.count.next()
			if !ok {
				break
			}
			r.serve(n, math.MaxInt64)
		}
		// The reference: every append's arrival and issue order, and each
		// cycle the earliest arrived.
		type ref struct {
			at, seq int64
			u       int32
			batch   int
		}
		var pend []ref
		seq := int64(0)
		u := int32(0)
		for i, is := range issues {
			for k := range is.n {
				pend = append(pend, ref{is.t + dlClaimLagCycles + int64(k), seq, u, i})
				seq, u = seq+1, u+1
			}
		}
		var order []int32
		lastServed := make([]int64, len(issues))
		for cyc := int64(0); len(pend) > 0; cyc++ {
			best := -1
			for j, p := range pend {
				if p.at <= cyc && (best < 0 || p.at < pend[best].at || p.at == pend[best].at && p.seq < pend[best].seq) {
					best = j
				}
			}
			if best < 0 {
				continue
			}
			order = append(order, pend[best].u)
			lastServed[pend[best].batch] = cyc
			pend = append(pend[:best], pend[best+1:]...)
		}
		if !slices.Equal(r.next, order) {
			t.Fatalf("trial %d: issues %v: appends %v, cycle by cycle %v", trial, issues, r.next, order)
		}
		for i, is := range issues {
			last := is.t + dlClaimLagCycles + int64(is.n) - 1
			if want := lastServed[i] - last; batches[i].delay != want || batches[i].left != 0 {
				t.Fatalf("trial %d: batch %d: left %d, delay %d, cycle by cycle %d", trial, i, batches[i].left, batches[i].delay, want)
			}
		}
	}
}
