package samples

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// ssspLevel is one relaxation of a Dragon_li SSSP run as its trace
// shows it: the children its kernel launched and their CTAs.
type ssspLevel struct {
	children, childCTAs int
	childCycles         int64 // the children's CTAs' cycles, summed
	// sites is how many launching lanes each parent warp held, by
	// (CTA, warp).
	sites map[[2]uint64]int
}

// ssspLevels reads the relaxations of recs, the host-launched kernels
// whose name holds parent, in launch order, with their children.
func ssspLevels(recs []trace.Record, parent string) []ssspLevel {
	names := map[uint64]string{}
	level := map[uint64]int{} // a relaxation's index; a child's is -1-its parent's
	var out []ssspLevel
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.Launch:
			if r.Parent == nil {
				if strings.Contains(names[r.Kernel], parent) {
					level[r.Kernel] = len(out)
					out = append(out, ssspLevel{sites: map[[2]uint64]int{}})
				}
			} else if l, ok := level[r.Parent.Kernel]; ok && l >= 0 {
				level[r.Kernel] = -1 - l
				out[l].children++
				out[l].sites[[2]uint64{r.Parent.CTA, uint64(r.Parent.Warp)}]++
			}
		case *trace.CTA:
			if l, ok := level[r.Kernel]; ok && l < 0 {
				out[-1-l].childCTAs++
				out[-1-l].childCycles += r.Cycles
			}
		}
	}
	return out
}

// loggedFrontiers reads the frontier sizes Dragon_li's host loop prints
// after each relaxation ("Iteration N: frontier size M") from an xz log.
func loggedFrontiers(t *testing.T, path string) []int {
	t.Helper()
	var sizes []int
	sc := xzLines(t, path, 1<<20)
	for sc.Scan() {
		var it, n int
		if _, err := fmt.Sscanf(sc.Text(), "Iteration %d: frontier size %d", &it, &n); err == nil {
			sizes = append(sizes, n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sizes
}

// dragonliFrontiers runs code=dragonli's search on the .gr graph at path
// from vertex 1, as testSssp does, and returns each relaxation's next
// frontier size; threshold is the site threshold (noSites: the Reg code).
func dragonliFrontiers(t *testing.T, path string, threshold int) []int {
	t.Helper()
	s, wl := dragonliSearch(t, path, threshold)
	var sizes []int
	for len(wl) > 0 && len(sizes) < 100 {
		wl = s.relax(wl)
		sizes = append(sizes, len(wl))
	}
	return sizes
}

// dragonliSearch starts code=dragonli's search on the .gr graph at path
// from vertex 1, as testSssp does, with Dragon_li's CTAs of 256 threads;
// threshold is the site threshold (noSites: the Reg code).
func dragonliSearch(t *testing.T, path string, threshold int) (*ssspSolver, []int32) {
	t.Helper()
	gr, err := loadGR(path)
	if err != nil {
		t.Fatal(err)
	}
	s, wl := newSSSPSolver(gr.g, gr.weights, 0)
	tr := &ssspTrace{threshold: threshold, dragonli: true, block: 256, loop: ssspEdgeCycles}
	tr.dragonliSolver(s)
	return s, wl
}

// TestSSSPLevelsRmat11 compares sssp code=dragonli with Dragon_li's runs
// on the R-MAT graph of 2,048 vertices level by level: the frontier sizes
// the host loop logs, in the CDP and the Reg run, and, in the CDP run,
// the children each relaxation launched and their CTAs. The generator
// appends a vertex each time an atomicMin lowers it, as the code does
// (relaxDragonli), so a frontier holds a vertex as many times as it was
// lowered and a site launches once per copy: 1,526 children to the
// capture's 1,560 (a queued flag, one copy a level, gave 505). The
// capture's first frontier, 1,451 entries over the root's 565 distinct
// neighbours, is the child's warps lowering each parallel arc of a
// neighbour in turn, heaviest first, as GPGPU-Sim sends a warp's
// same-word atomics last lane first; the model, each child warp's
// atomics last lane first and its warps in turn, gives 1,393.
func TestSSSPLevelsRmat11(t *testing.T) {
	graph := filepath.Join(t.TempDir(), "rmat-11-16-1.gr")
	unxz(t, filepath.Join(whatifDir, "rmat-11-16-1.gr.xz"), graph)
	for _, run := range []struct {
		name      string
		threshold int
		within    float64
	}{{"cdp", dragonliMinThreshold, 0.05}, {"reg", noSites, 0.01}} {
		want := loggedFrontiers(t, filepath.Join(whatifDir, "dragonli-sssp-rmat11-"+run.name+".log.xz"))
		got := dragonliFrontiers(t, graph, run.threshold)
		if len(got) != len(want) {
			t.Fatalf("%s: model %d relaxations %v, logged %d %v", run.name, len(got), got, len(want), want)
		}
		for i := range got {
			t.Logf("%s relaxation %d: next frontier model %d, logged %d", run.name, i+1, got[i], want[i])
			// The CDP run's within 1% after its first, which is 4.0%
			// short (1,393 to 1,451: the root's child's warps' parallel
			// arcs, TestSSSPLevelsRmat11's doc): its loops and children
			// run in the clock (dlLoops, ssspdlchildren.go), 2,394 to
			// 2,404 and 1,002 to 1,004 (10% off when the loops took turns
			// and the children came after them). The Reg run's within
			// 1%: its warps interleave as the simulator's do (dlLoops),
			// 2,515 to 2,513 and 983 to 988 (the warps in turn gave 2,300
			// and 980).
			if e := relErr(float64(got[i]), float64(want[i])); e > run.within || e < -run.within {
				t.Errorf("%s relaxation %d: next frontier model %d, logged %d (%+.1f%%, allowed ±%.0f%%)", run.name, i+1, got[i], want[i], 100*e, 100*run.within)
			}
		}
	}

	var sink sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(whatifDir, "dragonli-sssp-rmat11-cdp.log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	want := ssspLevels(sink.recs, "ssspCdpExpandKernel")
	got := ssspLevels(generate(t, "sssp", "graph="+graph, "code=dragonli", "site_threshold=31"), "sssp_relax")
	if len(got) != len(want) {
		t.Fatalf("model %d relaxations, capture %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		mean := func(l ssspLevel, mhz float64) float64 {
			return float64(l.childCycles) / float64(max(l.childCTAs, 1)) * 837 / mhz
		}
		t.Logf("relaxation %d: children model %d, captured %d; child CTAs %d, %d; a child CTA %.0f, %.0f cycles at 837 MHz",
			i+1, g.children, w.children, g.childCTAs, w.childCTAs, mean(g, 706), mean(w, 837))
		// Children and their CTAs within 15% where ten or more launch
		// (relaxation 2: 922 to 979, -5.8%; child CTAs 4,426 to 5,020,
		// -11.8%), exactly where fewer do.
		for _, c := range []struct {
			what      string
			got, want int
		}{{"children", g.children, w.children}, {"child CTAs", g.childCTAs, w.childCTAs}} {
			tol := 0.15
			if c.want < 10 {
				tol = 0
			}
			if e := relErr(float64(c.got), float64(c.want)); e > tol || e < -tol {
				t.Errorf("relaxation %d: %s model %d, captured %d (%+.1f%%, allowed ±%.0f%%)", i+1, c.what, c.got, c.want, 100*e, 100*tol)
			}
		}
	}
}

// TestSSSPDlLoops runs the hand-worked relaxations of
// testdata/ssspdlorder.txt through dlLoops (relaxDragonli for the Reg
// code): the next frontier's order, each warp's loop and the edges that
// lowered.
func TestSSSPDlLoops(t *testing.T) {
	const path = "testdata/ssspdlorder.txt"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type dlCase struct {
		line        int
		block, step int
		site        int          // the site threshold: noSites for the Reg code
		arcs        [][][2]int32 // per vertex: (to, weight)
		dist        map[int32]int64
		worklist    []int32
		want        []string
	}
	var c *dlCase
	expect := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(line, "#"):
		case f[0] == "run" && c == nil:
			c = &dlCase{line: n, dist: map[int32]int64{}, site: noSites}
			if _, err := fmt.Sscanf(line, "run block=%d step=%d", &c.block, &c.step); err != nil {
				t.Fatalf("%s:%d: want run block=B step=S [site=T]: %v", path, n, err)
			}
			if len(f) == 4 {
				if _, err := fmt.Sscanf(f[3], "site=%d", &c.site); err != nil {
					t.Fatalf("%s:%d: %q: %v", path, n, f[3], err)
				}
			}
		case f[0] == "vertex" && c != nil && !expect:
			var v int
			if _, err := fmt.Sscanf(f[1], "%d:", &v); err != nil || v != len(c.arcs) {
				t.Fatalf("%s:%d: want vertex %d:, got %q", path, n, len(c.arcs), f[1])
			}
			var arcs [][2]int32
			for _, a := range f[2:] {
				// T/W is an arc to T of weight W; A-B/W one to each of A..B.
				var lo, hi, w int32
				if _, err := fmt.Sscanf(a, "%d-%d/%d", &lo, &hi, &w); err != nil {
					if _, err := fmt.Sscanf(a, "%d/%d", &lo, &w); err != nil {
						t.Fatalf("%s:%d: arc %q: %v", path, n, a, err)
					}
					hi = lo
				}
				for to := lo; to <= hi; to++ {
					arcs = append(arcs, [2]int32{to, w})
				}
			}
			c.arcs = append(c.arcs, arcs)
		case f[0] == "dist" && c != nil && !expect:
			for _, kv := range f[1:] {
				var v int32
				var d int64
				if _, err := fmt.Sscanf(kv, "%d=%d", &v, &d); err != nil {
					t.Fatalf("%s:%d: %q: %v", path, n, kv, err)
				}
				c.dist[v] = d
			}
		case f[0] == "worklist" && c != nil && !expect:
			for _, x := range f[1:] {
				v, err := strconv.Atoi(x)
				if err != nil {
					t.Fatalf("%s:%d: %q: %v", path, n, x, err)
				}
				c.worklist = append(c.worklist, int32(v))
			}
		case line == "----" && c != nil:
			expect = true
		case line == "====" && expect:
			if got, want := runDlCase(c.block, c.step, c.site, c.arcs, c.dist, c.worklist), strings.Join(c.want, "\n"); got != want {
				t.Errorf("%s:%d:\ngot\n%s\nwant\n%s", path, c.line, got, want)
			}
			c, expect = nil, false
		case expect:
			c.want = append(c.want, strings.Join(f, " "))
		default:
			t.Fatalf("%s:%d: unexpected %q", path, n, line)
		}
	}
	if c != nil {
		t.Fatalf("%s: case at line %d has no ====", path, c.line)
	}
}

// runDlCase relaxes worklist once on the graph of arcs (vertex by vertex,
// in order, every vertex up to the largest named) from dist, as the Reg
// code does (site noSites) or the CDP code with that site threshold, and
// prints what TestSSSPDlLoops's cases expect.
func runDlCase(block, step, site int, arcs [][][2]int32, dist map[int32]int64, worklist []int32) string {
	n := len(arcs)
	for _, a := range arcs {
		for _, e := range a {
			n = max(n, int(e[0])+1)
		}
	}
	g := &csr{offsets: make([]int32, n+1), directed: true}
	var weight []int32
	for v := range n {
		if v < len(arcs) {
			for _, e := range arcs[v] {
				g.cols = append(g.cols, e[0])
				weight = append(weight, e[1])
			}
		}
		g.offsets[v+1] = int32(len(g.cols))
	}
	s, _ := newSSSPSolver(g, weight, 0)
	for v := range s.dist {
		s.dist[v] = ssspUnreached
		if d, ok := dist[int32(v)]; ok {
			s.dist[v] = d
		}
	}
	tr := &ssspTrace{threshold: site, dragonli: true, block: block, loop: int64(step)}
	tr.dragonliSolver(s)
	next := s.relax(worklist)
	var b strings.Builder
	b.WriteString("next")
	for _, u := range next {
		fmt.Fprintf(&b, " %d", u)
	}
	b.WriteString("\nloops")
	los := slices.Sorted(maps.Keys(s.loops))
	for _, lo := range los {
		fmt.Fprintf(&b, " %d:%d", lo, s.loops[lo])
	}
	b.WriteString("\nlowered")
	e := 0
	for i, v := range worklist {
		fmt.Fprintf(&b, " %d:", i)
		for range g.degree(v) {
			b.WriteString(map[bool]string{true: "L", false: "."}[s.lowered[e]])
			e++
		}
	}
	if len(s.childWait) > 0 {
		// What each child CTA (item.cta) waited at the counter.
		b.WriteString("\nwaits")
		keys := slices.SortedFunc(maps.Keys(s.childWait), func(a, b [2]int) int {
			return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
		})
		for _, k := range keys {
			fmt.Fprintf(&b, " %d.%d:%d", k[0], k[1], s.childWait[k])
		}
	}
	return b.String()
}

// TestSSSPSitesByWarp compares, relaxation by relaxation, how the CDP
// code's launching lanes fall into its parent warps: a warp launches its
// lanes' children one after another, so a relaxation kernel is about its
// warp with the most, and which warp holds a vertex is its place in the
// frontier, the order the atomics reached the counter
// (ctaOutputAssignment.h:61-63 at 1397e03). The generator appends in the
// order the loops and the children's CTAs reach the counter in its
// clock (dlLoops, ssspdlchildren.go). Held out on every CDP capture with
// a relaxation of 20 sites or more, the model's most in one warp over
// the capture's, each guard today's and a little. tree3's third
// relaxation launches 20 from one warp, as captured: its 20 launching
// vertices are one child CTA's lanes, which the simulator ran alone on
// an SM late in the relaxation, their appends with no other CTA's
// between them; the model ran it so once a child of fewer than 14 CTAs
// took one an SM (dlChild.perSM) and the counter did the appends one a
// cycle (ssspdlcounter.go): 3 against 20 before. The misses are now
// rmat7's second (18 against 27), rmat9's third (10 against 14) and
// rmat11's fifth (7 against 5; 22, 11 and 6 before). Before the clock
// tree3's second relaxation was 24 against 10.
func TestSSSPSitesByWarp(t *testing.T) {
	most := func(m map[[2]uint64]int) (n, sites int) {
		for _, c := range m {
			n, sites = max(n, c), sites+c
		}
		return n, sites
	}
	for _, run := range []struct {
		capture, graph string
		worst          []float64 // by relaxation (those of fewer than 20 sites none)
	}{
		{"dragonli-sssp-tree3-cdp", "dragonli-tree-200-40x140-20x260.gr.xz", []float64{0, 1.03, 1.03}},                // 1.00×, 1.00× today
		{"dragonli-sssp-rmat9-cdp", "rmat-9-12-2.gr.xz", []float64{0, 1.03, 1.43}},                                    // 1.00×, 0.71×
		{"dragonli-sssp-uniform9-cdp", "uniform-512-32-3.gr.xz", []float64{0, 0, 1.03, 1.12, 1.08, 1.08, 1.09, 1.03}}, // 0.95× to 1.10×
		{"dragonli-sssp-rmat11-cdp", "rmat-11-16-1.gr.xz", []float64{0, 1.09, 1.14, 1.03, 1.43}},                      // 1.07×, 1.12×, 1.00×, 1.40×
		{"dragonli-sssp-rmat7-cdp", "rmat-7-8-1.gr.xz", []float64{0, 1.52}},                                           // 0.67×
	} {
		var sink sliceSink
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, run.capture+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		want := ssspLevels(sink.recs, "ssspCdpExpandKernel")
		graph := filepath.Join(t.TempDir(), strings.TrimSuffix(run.graph, ".xz"))
		unxz(t, filepath.Join(whatifDir, run.graph), graph)
		got := ssspLevels(generate(t, "sssp", "graph="+graph, "code=dragonli", "site_threshold=31"), "sssp_relax")
		if len(got) != len(want) {
			t.Fatalf("%s: model %d relaxations, capture %d", run.capture, len(got), len(want))
		}
		for i := range got {
			g, gs := most(got[i].sites)
			w, ws := most(want[i].sites)
			if ws < 20 {
				continue
			}
			t.Logf("%s relaxation %d: most sites in one warp: model %d (of %d in %d warps), captured %d (of %d in %d warps)", run.capture, i+1, g, gs, len(got[i].sites), w, ws, len(want[i].sites))
			if i >= len(run.worst) || run.worst[i] == 0 {
				t.Errorf("%s relaxation %d has %d sites and no guard", run.capture, i+1, ws)
				continue
			}
			heldOut(t, fmt.Sprintf("%s relaxation %d, most sites in one warp", run.capture, i+1), float64(g)/float64(w), run.worst[i])
		}
	}
}

// loggedAtomics reads, from a Dragon_li SSSP run's GPGPU-Sim log at path,
// each relaxation's atomic operations: the GLOBAL_ATOMIC transactions the
// cores sent to memory (traffic_breakdown_coretomem, one 40-byte packet
// a lane's atomic), which the simulator prints with each host kernel's
// statistics as a running total, absent while it is 0. kernel names the
// relaxation kernel.
func loggedAtomics(t *testing.T, path, kernel string) []int {
	t.Helper()
	var totals []int
	sc := xzLines(t, path, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "kernel_name = ") && strings.Contains(line, kernel):
			last := 0
			if len(totals) > 0 {
				last = totals[len(totals)-1]
			}
			totals = append(totals, last)
		case strings.HasPrefix(line, "traffic_breakdown_coretomem[GLOBAL_ATOMIC]") && len(totals) > 0:
			_, packets, ok := strings.Cut(line, "{40:")
			n, err := strconv.Atoi(strings.TrimSuffix(packets, ",}"))
			if !ok || err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			totals[len(totals)-1] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	per := make([]int, len(totals))
	for i, n := range totals {
		per[i] = n
		if i > 0 {
			per[i] -= totals[i-1]
		}
	}
	return per
}

// TestSSSPAtomicsHeldOut compares code=dragonli's relaxations with
// GPGPU-Sim's runs of Dragon_li's testSssp, relaxation by relaxation, in
// the atomics they issue: an atomicMin for each lane that takes the
// lowering branch, its own or a child's, and an atomicAdd for each that
// appends (ssspSolver.atomics). A lane that took the branch and found a
// lower value already pays the atomicMin and appends nothing, so the
// count holds the races the clock decides (dlLoops, ssspdlchildren.go)
// beside the frontier's size. Nothing was fitted on them. Each guard is
// today's and a little, on relaxations of 100 atomics or more.
func TestSSSPAtomicsHeldOut(t *testing.T) {
	for _, run := range []struct {
		capture, kernel, graph string
		threshold              int
		worst                  float64 // the worst relaxation of 100 atomics or more, today's and a little
	}{
		{"dragonli-sssp-sample-cdp", "ssspCdpExpandKernel", "", dragonliMinThreshold, 1.01},                                     // exact
		{"dragonli-sssp-sample-reg", "ssspRegExpandKernel", "", noSites, 1.01},                                                  // exact
		{"dragonli-sssp-rmat7-cdp", "ssspCdpExpandKernel", "rmat-7-8-1.gr.xz", dragonliMinThreshold, 1.06},                      // 1.043×
		{"dragonli-sssp-rmat7-reg", "ssspRegExpandKernel", "rmat-7-8-1.gr.xz", noSites, 1.01},                                   // exact
		{"dragonli-sssp-rmat9-cdp", "ssspCdpExpandKernel", "rmat-9-12-2.gr.xz", dragonliMinThreshold, 1.07},                     // 1.048×
		{"dragonli-sssp-rmat9-reg", "ssspRegExpandKernel", "rmat-9-12-2.gr.xz", noSites, 1.02},                                  // 1.008×
		{"dragonli-sssp-rmat11-cdp", "ssspCdpExpandKernel", "rmat-11-16-1.gr.xz", dragonliMinThreshold, 1.07},                   // 1.047×
		{"dragonli-sssp-rmat11-reg", "ssspRegExpandKernel", "rmat-11-16-1.gr.xz", noSites, 1.03},                                // 1.019×
		{"dragonli-sssp-uniform9-cdp", "ssspCdpExpandKernel", "uniform-512-32-3.gr.xz", dragonliMinThreshold, 1.08},             // 1.063×
		{"dragonli-sssp-uniform9-reg", "ssspRegExpandKernel", "uniform-512-32-3.gr.xz", noSites, 1.03},                          // 1.021×
		{"dragonli-sssp-tree3-cdp", "ssspCdpExpandKernel", "dragonli-tree-200-40x140-20x260.gr.xz", dragonliMinThreshold, 1.01}, // exact
		{"dragonli-sssp-tree3-reg", "ssspRegExpandKernel", "dragonli-tree-200-40x140-20x260.gr.xz", noSites, 1.01},              // exact
	} {
		want := loggedAtomics(t, filepath.Join(whatifDir, run.capture+".log.xz"), run.kernel)
		path := dragonliSampleGR
		if run.graph != "" {
			path = filepath.Join(t.TempDir(), strings.TrimSuffix(run.graph, ".xz"))
			unxz(t, filepath.Join(whatifDir, run.graph), path)
		}
		s, wl := dragonliSearch(t, path, run.threshold)
		s.countAtomics = true
		var got []int
		for len(wl) > 0 && len(got) < 100 {
			wl = s.relax(wl)
			got = append(got, s.atomics)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: model %d relaxations %v, logged %d %v", run.capture, len(got), got, len(want), want)
		}
		var g, w, worst float64
		for i := range got {
			g, w = g+float64(got[i]), w+float64(want[i])
			t.Logf("%s relaxation %d: atomics model %d, logged %d", run.capture, i+1, got[i], want[i])
			if want[i] >= 100 {
				r := float64(got[i]) / float64(want[i])
				worst = max(worst, r, 1/r)
			}
		}
		t.Logf("%s: atomics model %.0f, logged %.0f (%.3f×); worst relaxation off by %.3f×", run.capture, g, w, g/w, worst)
		if worst > run.worst {
			t.Errorf("%s: a relaxation's atomics off by %.3f×, allowed %.2f×", run.capture, worst, run.worst)
		}
	}
}

// TestDlLaunchCyclesIsK20c holds the clock's launch stall to preset
// k20c's device-runtime costs, DTBL Table 3's: for x lanes, the stream's
// creation, the parameter buffer and the launch.
func TestDlLaunchCyclesIsK20c(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []int64{1, 11, 32} {
		want := cfg.CDP.StreamCreate + cfg.CDP.ParamCost(x) + cfg.CDP.LaunchB + cfg.CDP.LaunchService(x)
		if got := dlLaunchCycles(int(x)); got != want || cfg.CDP.ClockMHz != 706 {
			t.Errorf("%d lanes: %d cycles, preset k20c %d at %g MHz", x, got, want, cfg.CDP.ClockMHz)
		}
	}
}

// TestSSSPWarpLoopsUniform9 holds the CDP code's warp loops, as the clock
// prices them, to GPGPU-Sim's, warp by warp, in the uniform graph's third
// relaxation: the rerun of dragonli-sssp-uniform9-cdp that logs each
// warp's issue and exit (validation/gpgpusim/whatif/README.md), whose
// launching warps loop from their launch's end to their exit. Held out:
// the slowest warp's loop, and the loops' mean. Pricing a warp on its
// lanes' appends alone gave its slowest 86,963 cycles against 147,488.
func TestSSSPWarpLoopsUniform9(t *testing.T) {
	var want []float64
	sc := xzLines(t, filepath.Join(whatifDir, "dragonli-sssp-uniform9-cdp-warps.txt.xz"), 1<<16)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		kv := map[string]int64{}
		for i := 1; i+1 < len(f); i += 2 {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				t.Fatalf("%q: %v", sc.Text(), err)
			}
			kv[f[i]] = n
		}
		if kv["kernel"] == 24 && kv["cdp_end"] > 0 {
			want = append(want, float64(kv["exit"]-kv["cdp_end"]))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "uniform-512-32-3.gr")
	unxz(t, filepath.Join(whatifDir, "uniform-512-32-3.gr.xz"), path)
	s, wl := dragonliSearch(t, path, dragonliMinThreshold)
	for range 3 {
		wl = s.relax(wl)
	}
	var got []float64
	for _, c := range s.loops {
		if c > 0 {
			got = append(got, float64(c)*837/706) // the capture's clock
		}
	}
	if len(want) != 19 || len(got) == 0 {
		t.Fatalf("%d logged launching warps (want 19), %d model warps", len(want), len(got))
	}
	mean := func(v []float64) float64 {
		var m float64
		for _, x := range v {
			m += x
		}
		return m / float64(len(v))
	}
	g, w := slices.Max(got), slices.Max(want)
	t.Logf("slowest warp's loop: model %.0f cycles, logged %.0f (%.2f×); mean %.0f, %.0f (%.2f×) over %d and %d warps",
		g, w, g/w, mean(got), mean(want), mean(got)/mean(want), len(got), len(want))
	heldOut(t, "uniform9 relaxation 3, the slowest warp's loop", g/w, 1.10)               // 0.92× today (0.96× before the frontier's counter)
	heldOut(t, "uniform9 relaxation 3, the mean warp's loop", mean(got)/mean(want), 1.08) // 0.95×
}
