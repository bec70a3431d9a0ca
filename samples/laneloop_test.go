package samples

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/trace"
)

// TestLaneLoopGolden runs testdata/laneloop.txt: each case a directive,
// its input lines, "----", the inline_cycles worked by hand, "====".
//
//	rule: lines "threads cycles", a child CTA each, priced by laneLoop
//	port ITEMS LANES ACCESSES: laneLoopPortCycles
//	bfs, gc, sa, spmm, join-probe, join-output, bfs-dl, sssp-dl ARGS: a
//	  launch site's inline_cycles from that generator's child (the file
//	  names the args)
func TestLaneLoopGolden(t *testing.T) {
	f, err := os.Open("testdata/laneloop.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var directive string
	var input []string
	want, line, cases := "", 0, 0
	inWant := false
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case s == "" || strings.HasPrefix(s, "#"):
		case directive == "":
			directive = s
		case s == "----":
			inWant = true
		case s == "====":
			cases++
			got, err := laneLoopCase(directive, input)
			if err != nil {
				t.Errorf("line %d: %s: %v", line, directive, err)
			} else if fmt.Sprint(got) != want {
				t.Errorf("line %d: %s: %d cycles, want %s", line, directive, got, want)
			}
			directive, input, want, inWant = "", nil, "", false
		case inWant:
			want = s
		default:
			input = append(input, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 5 || directive != "" {
		t.Fatalf("%d cases read, %q unfinished", cases, directive)
	}
}

// laneLoopCase is one golden case's inline_cycles.
func laneLoopCase(directive string, input []string) (int64, error) {
	fields := strings.Fields(directive)
	var ints []int
	for _, f := range fields[1:] {
		if v, err := strconv.Atoi(f); err == nil {
			ints = append(ints, v)
		}
	}
	switch fields[0] {
	case "rule":
		var l laneLoop
		for _, in := range input {
			var threads int
			var cycles int64
			if _, err := fmt.Sscanf(in, "%d %d", &threads, &cycles); err != nil {
				return 0, fmt.Errorf("input %q: %v", in, err)
			}
			l.add(threads, cycles)
		}
		return l.cycles(), nil
	case "port":
		if len(ints) != 3 {
			break
		}
		return laneLoopPortCycles(ints[0], ints[1], int64(ints[2])), nil
	case "bfs-dl":
		if len(ints) != 2 {
			break
		}
		return (&bfsTrace{dragonli: true}).inline(ints[0], dragonliChildBlock, ints[1]), nil
	case "sssp-dl":
		if len(ints) != 2 {
			break
		}
		return (&ssspTrace{dragonli: true}).inline(make([]bool, ints[0]), dragonliChildBlock, ints[1]), nil
	case "bfs":
		if len(ints) != 2 {
			break
		}
		return (&bfsTrace{}).inline(ints[0], ints[1], 1), nil
	case "gc":
		if len(fields) != 4 || len(ints) != 2 {
			break
		}
		s := gcSite{degree: ints[0], scanned: ints[1], colored: fields[3] == "colored"}
		return (&gcTrace{}).inline(ceilDiv(s.degree, gcChildBlock), s), nil
	case "sa":
		steps := make([]int32, len(ints))
		for i, v := range ints {
			steps[i] = int32(v)
		}
		return saVerifyInline(steps), nil
	case "spmm":
		if len(ints) != 2 {
			break
		}
		return spmmColInline(ints[0], ints[1]), nil
	case "join-probe":
		if len(ints) < 1 {
			break
		}
		bucket := make([]int32, ints[0])
		for i := range bucket {
			bucket[i] = int32(1000 + i)
		}
		for _, at := range ints[1:] {
			bucket[at] = 7
		}
		return joinProbeInline(bucket, 7), nil
	case "join-output":
		if len(ints) != 1 {
			break
		}
		return (&mergeTrace{}).inline(ints[0]), nil
	default:
		return 0, fmt.Errorf("unknown directive")
	}
	return 0, fmt.Errorf("wrong arguments")
}

// TestLaneLoopCapped checks that a child too long to sum has its threads'
// cycles capped at the trace's cycle limit, 2^40, instead of overflowing:
// the lane pays 0.452 of it, 496979255755.
func TestLaneLoopCapped(t *testing.T) {
	var l laneLoop
	l.add(1<<30, 1<<40)
	l.add(1<<30, 1<<40)
	if got := l.cycles(); got != 496979255755 {
		t.Errorf("%d cycles, want 0.452 of the cap 2^40", got)
	}
	if got := laneLoopCycles(0, 64, func(int) int64 { return 1000 }); got != 0 {
		t.Errorf("no items: %d cycles", got)
	}
	// The load/store unit's part: 31 further lanes of 2^20 accesses over
	// 2^30 iterations is past the cap; one access over 2^20 is not.
	if got := laneLoopPortCycles(1<<30, 32, 1<<20); got != trace.MaxCycles {
		t.Errorf("port: %d cycles, want the cap 2^40", got)
	}
	if got := laneLoopPortCycles(1<<20, 32, 1); got != 27_418_321 {
		t.Errorf("port: %d cycles, want 31 · 2^20 · 706/837 = 27,418,321", got)
	}
}

// ruleInlines checks every device launch of recs against the lane-loop
// rule worked from the trace itself (ruleWants). It returns how many
// launches it checked.
func ruleInlines(t *testing.T, what string, recs []trace.Record, threads func(l *trace.Launch, k *trace.Kernel) int64) int {
	t.Helper()
	launches, wants := ruleWants(recs, threads)
	for id, l := range launches {
		if l.InlineCycles != wants[id] {
			t.Errorf("%s: launch of kernel %d: inline %d, want %d by the lane-loop rule", what, id, l.InlineCycles, wants[id])
		}
	}
	return len(launches)
}

// ruleWants is each device launch of recs, by child kernel, and its
// inline_cycles by the lane-loop rule worked from the trace itself: its
// child's CTA records, CTA i holding min(n − i·block, block) threads of n
// = threads(launch, child kernel), each costing 0.452·(c − 114) for its
// CTA's c, the sum rounded; and, for a trace of code=dragonli, the n
// threads' wait at the load/store unit for the k − 1 other lanes of the
// launch's warp launching at its cycle (its parent's kernel, CTA and warp
// and its At), RegLoopAccesses of the generator's code a lane each,
// (k − 1)·A·n·706/837 rounded.
func ruleWants(recs []trace.Record, threads func(l *trace.Launch, k *trace.Kernel) int64) (map[uint64]*trace.Launch, map[uint64]int64) {
	type at struct {
		kernel, cta uint64
		warp        int
		at          int64
	}
	kernels := map[uint64]*trace.Kernel{}
	launches := map[uint64]*trace.Launch{}
	sums := map[uint64]int64{}
	lanes := map[at]int64{}
	var accesses int64
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Header:
			if r.Meta["code"] == "dragonli" {
				accesses = RegLoopAccesses(strings.TrimPrefix(r.Source, "gen:"))
			}
		case *trace.Kernel:
			kernels[r.ID] = r
		case *trace.Launch:
			if !r.Host() {
				launches[r.Kernel] = r
				lanes[at{r.Parent.Kernel, r.Parent.CTA, r.Parent.Warp, r.Parent.At}]++
			}
		case *trace.CTA:
			l, ok := launches[r.Kernel]
			if !ok {
				continue
			}
			k := kernels[r.Kernel]
			block := int64(k.Threads())
			n := min(max(threads(l, k)-int64(r.CTA)*block, 0), block)
			sums[r.Kernel] += n * max(r.Cycles-114, 0)
		}
	}
	wants := map[uint64]int64{}
	for id, l := range launches {
		wants[id] = int64(math.Round(0.452 * float64(sums[id])))
		further := min(lanes[at{l.Parent.Kernel, l.Parent.CTA, l.Parent.Warp, l.Parent.At}], 32) - 1
		port := further * accesses * threads(l, kernels[id])
		wants[id] += (2*port*706 + 837) / (2 * 837)
	}
	return launches, wants
}

// ssspWarmChildren is recs with each sssp_relax_child CTA's cold start
// taken out (ssspChildColdCycles, in the run's order): a lane that runs
// the child's work in its own loop runs sssp_relax's code, not the
// child's, so its inline_cycles are the warm child's.
func ssspWarmChildren(recs []trace.Record) []trace.Record {
	out := make([]trace.Record, len(recs))
	child := map[uint64]bool{}
	var firstID uint64
	n := 0
	for i, r := range recs {
		out[i] = r
		switch r := r.(type) {
		case *trace.Kernel:
			if r.Name == "sssp_relax_child" {
				child[r.ID] = true
				if len(child) == 1 {
					firstID = r.ID
				}
			}
		case *trace.CTA:
			if child[r.Kernel] {
				c := *r
				c.Cycles -= ssspChildColdCycles(n, int(r.CTA), r.Kernel == firstID)
				out[i] = &c
				n++
			}
		}
	}
	return out
}

// workloadThreads is a child of one thread per work item.
func workloadThreads(l *trace.Launch, _ *trace.Kernel) int64 { return l.Workload }

// TestLaneLoopSites checks every launch of the generators whose child is
// one thread per work item against the rule, at the default loop_cycles,
// and, with loop_cycles given, that the rule is not what prices them.
func TestLaneLoopSites(t *testing.T) {
	for _, c := range []struct {
		gen string
		kv  []string
	}{
		{"bfs", []string{"scale=9", "site_threshold=12", "seed=3"}},
		{"bfs", []string{"scale=9", "code=dragonli", "site_threshold=31", "seed=3"}},
		{"sssp", []string{"scale=9", "site_threshold=12", "seed=3"}},
		{"sssp", []string{"scale=9", "code=dragonli", "site_threshold=31", "seed=3"}}, // warm children (ssspWarmChildren), without their waits at the counter
		{"join", nil},
		{"join", []string{"algo=hash"}},
		{"sa", nil},
	} {
		what := fmt.Sprintf("%s %v", c.gen, c.kv)
		dragonliSSSP := c.gen == "sssp" && slices.Contains(c.kv, "code=dragonli")
		recs := func() []trace.Record {
			ssspChildWaits = !dragonliSSSP
			defer func() { ssspChildWaits = true }()
			return generate(t, c.gen, c.kv...)
		}()
		if dragonliSSSP {
			recs = ssspWarmChildren(recs)
		}
		if n := ruleInlines(t, what, recs, workloadThreads); n == 0 {
			t.Errorf("%s: no launch sites", what)
		}
	}
	spmm := generate(t, "spmm")
	cols, err := strconv.Atoi(spmm[0].(*trace.Header).Meta["cols"])
	if err != nil {
		t.Fatal(err)
	}
	if n := ruleInlines(t, "spmm", spmm, func(*trace.Launch, *trace.Kernel) int64 { return int64(cols) }); n == 0 {
		t.Error("spmm: no launch sites")
	}
}

// TestLaneLoopSitesAgainstReg replays the CDP trace code=dragonli writes
// for a captured graph under the flat policy, every site inlined at its
// inline_cycles, against GPGPU-Sim's run of Dragon_li's Reg build on that
// graph (validation/gpgpusim/whatif): held out, as the importer's lane
// loop is on the CDP captures (docs/validation.md). Every prediction is
// short, and by more where more of a warp's lanes loop, since the Reg
// kernel's diverged lanes run their loops in turn
// (simt_stack::update, src/abstract_hardware_model.cc:1046-1183 at
// 667834cf), which a site's price does not hold: the generator's own Reg
// trace (variant=flat), which runs them so, comes to 0.99× to 1.06× of
// these runs (TestSSSPHeldOut*, TestBFSHeldOut*). The load/store unit's
// wait for a site's other looping lanes (laneLoopPortCycles) took them
// from 0.36×, 0.46×, 0.49×, 0.54× (SSSP) and 0.74×, 0.76× (BFS) to
// today's. Guards are today's error and a little.
func TestLaneLoopSitesAgainstReg(t *testing.T) {
	for _, c := range []struct {
		run, graph string
		kv         []string
		worst      float64
	}{
		{"dragonli-sssp-rmat11-reg", "rmat-11-16-1.gr.xz", []string{"code=dragonli", "site_threshold=31"}, 1 / 0.37},                         // 0.382× today
		{"dragonli-sssp-rmat9-reg", "rmat-9-12-2.gr.xz", []string{"code=dragonli", "site_threshold=31"}, 1 / 0.46},                           // 0.476×
		{"dragonli-sssp-uniform9-reg", "uniform-512-32-3.gr.xz", []string{"code=dragonli", "site_threshold=31"}, 1 / 0.48},                   // 0.498×
		{"dragonli-sssp-tree3-reg", "dragonli-tree-200-40x140-20x260.gr.xz", []string{"code=dragonli", "site_threshold=31"}, 1 / 0.58},       // 0.591×
		{"dragonli-bfs-tree3-reg", "dragonli-tree-200-40x140-20x260.gr.xz", append([]string{"site_threshold=127"}, bfsTestBfs...), 1 / 0.87}, // 0.880×
		{"dragonli-bfs-tree400-reg", "dragonli-tree-400-100x130.gr.xz", append([]string{"site_threshold=127"}, bfsTestBfs...), 1 / 0.82},     // 0.832×
	} {
		var sink sliceSink
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, c.run+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		cfg := capturedConfig(t, sink.recs)
		_, b := recorded(t, sink.recs, cfg, "cdp")
		graph := filepath.Join(t.TempDir(), strings.TrimSuffix(c.graph, ".xz"))
		unxz(t, filepath.Join(whatifDir, c.graph), graph)
		gen := strings.SplitN(strings.TrimPrefix(c.run, "dragonli-"), "-", 2)[0]
		_, a := recorded(t, generate(t, gen, append([]string{"graph=" + graph}, c.kv...)...), cfg, "flat")
		r := float64(a.MakespanCycles) / float64(b.MakespanCycles)
		t.Logf("%s: the CDP trace inlined %d cycles, the Reg run %d (%.3f×)", c.run, a.MakespanCycles, b.MakespanCycles, r)
		heldOut(t, c.run+" inlined", r, c.worst)
	}
}
