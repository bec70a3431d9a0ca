package samples

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// fetchWait is one wait of a warp for its next instructions in a warp
// scheduler trace: from the cycle it was first found with an empty
// instruction buffer (its request) for cycles cycles, ended by the
// instruction at a PC of line line.
type fetchWait struct {
	line       int
	at, cycles int64
}

// fetchWaitMin is the shortest run of `fails as ibuffer_empty` counted as
// a wait for a line: a warp between two fetches of a line it holds
// stalls a few cycles, a miss (a whole one 275–318 cycles in the
// excerpts) far longer, and the shortest partial wait in them is 97.
const fetchWaitMin = 20

var (
	fetchEmptyRE = regexp.MustCompile(`^GPGPU-Sim Cycle (\d+): WARP_SCHEDULER .*dynamic_warp_id (\d+)\) fails as ibuffer_empty`)
	fetchValidRE = regexp.MustCompile(`^GPGPU-Sim Cycle (\d+): WARP_SCHEDULER .*dynamic_warp_id (\d+)\) has valid instruction \( PC=0x([0-9a-f]+)`)
)

// fetchWaits reads an excerpt of a warp scheduler trace
// (validation/gpgpusim/whatif/README.md, the fetch traces) and returns
// each dynamic warp's waits for lines, in order.
func fetchWaits(t *testing.T, name string) map[int][]fetchWait {
	t.Helper()
	type run struct{ from, to int64 }
	open := map[int]*run{}
	out := map[int][]fetchWait{}
	sc := xzLines(t, filepath.Join(whatifDir, name), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if m := fetchEmptyRE.FindStringSubmatch(sc.Text()); m != nil {
			c, _ := strconv.ParseInt(m[1], 10, 64)
			w, _ := strconv.Atoi(m[2])
			if o := open[w]; o != nil {
				o.to = c
			} else {
				open[w] = &run{c, c}
			}
			continue
		}
		if m := fetchValidRE.FindStringSubmatch(sc.Text()); m != nil {
			w, _ := strconv.Atoi(m[2])
			pc, err := strconv.ParseInt(m[3], 16, 64)
			if err != nil {
				t.Fatalf("%s:%d: PC %q: %v", name, n, m[3], err)
			}
			if o := open[w]; o != nil && o.to-o.from+1 >= fetchWaitMin {
				out[w] = append(out[w], fetchWait{line: int(pc / coldLineBytes), at: o.from, cycles: o.to - o.from + 1})
			}
			delete(open, w)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// waitFor is w's wait for line, if it has one.
func waitFor(w []fetchWait, line int) (fetchWait, bool) {
	for _, x := range w {
		if x.line == line {
			return x, true
		}
	}
	return fetchWait{}, false
}

// fetchWaitsOf is one warp's waits, in order.
type fetchWaitsOf []fetchWait

// lines is the lines the warp waits for, in order.
func (f fetchWaitsOf) lines() []int {
	var l []int
	for _, x := range f {
		l = append(l, x.line)
	}
	return l
}

// lagAt is how far warp lags the earliest of the others at line: its
// request's cycle less theirs, and its own wait.
func lagAt(t *testing.T, waits map[int][]fetchWait, warp, line int) (lag, wait int64) {
	t.Helper()
	mine, ok := waitFor(waits[warp], line)
	if !ok {
		t.Fatalf("warp %d does not wait for line %d", warp, line)
	}
	first := int64(-1)
	for w, ws := range waits {
		if x, ok := waitFor(ws, line); ok && w != warp && (first < 0 || x.at < first) {
			first = x.at
		}
	}
	if first < 0 {
		t.Fatalf("no warp but %d waits for line %d", warp, line)
	}
	return mine.at - first, mine.cycles
}

// TestColdStartLagsFetchTraces holds coldstart.go's rule to the warp
// scheduler's traces, all three held out (nothing is fitted on them):
// which lines each warp waits for, and, for a line another warp asked
// for first, how far the lagging warp lags (coldLag: its instructions at
// joinIssueCycles and its loads at coldLoadCycles) and the rest of the
// miss it waits (coldPartialCycles). Cycles are the captures' 837 MHz.
func TestColdStartLagsFetchTraces(t *testing.T) {
	const scale = 837.0 / 706
	// An SM of empty sssp_relax CTAs: every warp waits for each line of
	// the empty path, 8–11, 13 and 15, ssspRelaxColdLines of them.
	empty := fetchWaits(t, "dragonli-sssp-sample-cdp-fetch-sm1.txt.xz")
	if len(empty) != 8 {
		t.Fatalf("sm1: %d warps, want 8", len(empty))
	}
	for w, ws := range empty {
		if got := fetchWaitsOf(ws).lines(); !slices.Equal(got, []int{8, 9, 10, 11, 13, 15}) || len(got) != ssspRelaxColdLines {
			t.Errorf("sm1 warp %d waits for lines %v, want the empty path's 8–11, 13, 15", w, got)
		}
	}
	// CTA 0's SM: the vertex warp (dynamic 56) waits for 8–10 and its
	// loop's 14 whole, the rest of 11's and 13's misses, and not 15.
	cta0 := fetchWaits(t, "dragonli-sssp-sample-cdp-fetch-sm6.txt.xz")
	const vertex = 56
	if got := fetchWaitsOf(cta0[vertex]).lines(); !slices.Equal(got, []int{8, 9, 10, 11, 13, 14}) {
		t.Errorf("sm6 vertex warp waits for lines %v, want 8–11, 13, 14", got)
	}
	lag11, wait11 := lagAt(t, cta0, vertex, 11)
	lag13, wait13 := lagAt(t, cta0, vertex, 13)
	// join_main's first-wave CTA on SM 1: warp 0 (dynamic 4) waits for
	// 23 lines, warps 1–3 for their path's 20, all whole but where
	// another CTA of the SM asked first; line 133 in part, after warp 0's
	// writes (joinMainWriteInsts: its lanes write two matches, rem 2).
	join := fetchWaits(t, "dragonli-join-1024-fetch-sm1.txt.xz")
	if n := len(join[4]); n != joinMainPathLines-joinMainAheadLines {
		t.Errorf("join warp 0 waits for %d lines, want %d", n, joinMainPathLines-joinMainAheadLines)
	}
	for w := 5; w <= 7; w++ {
		if n := len(join[w]); n != 20 {
			t.Errorf("join warp %d waits for %d lines, want 20", w-4, n)
		}
	}
	lag133, wait133 := lagAt(t, join, 4, 133)
	issue := joinIssueCycles
	heldOutRows(t, "fetch traces, ", []heldOutRow{
		{"sssp CTA 0's vertex warp, line 11: lag", scale * float64(coldLag(ssspRelaxVertexLoads, ssspRelaxVertexInsts, issue)), float64(lag11), 1.33},              // 0.76× today
		{"sssp CTA 0's vertex warp, line 11: wait", scale * float64(ssspRelaxVertexCold(issue)), float64(wait11), 1.32},                                            // 1.30× today
		{"sssp CTA 0's vertex warp, line 13: lag", scale * float64(coldLag(ssspRelaxRangeLoads, ssspRelaxRangeInsts, issue)), float64(lag13), 1.24},                // 0.82× today
		{"sssp CTA 0's vertex warp, line 13: wait", scale * float64(ssspRelaxSiteAheadCycles(issue)), float64(wait13), 1.08},                                       // 1.06× today
		{"join_main's warp 0, line 133: lag", scale * float64(coldLag(0, joinMainWriteInsts(2, 0), issue)), float64(lag133), 1.43},                                 // 1.41× today
		{"join_main's warp 0, line 133: wait", scale * float64(joinMainTailCold(2, 0, issue)), float64(wait133), 1.28},                                             // 0.79× today
		{"sssp CTA 0's vertex warp, lines 11 and 13", scale * float64(ssspRelaxVertexCold(issue)+ssspRelaxSiteAheadCycles(issue)), float64(wait11 + wait13), 1.18}, // 1.16× today
	})
}
