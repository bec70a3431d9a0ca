package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/trace"
)

// TestDTBLForkFlatDecomposition holds the named differences of
// validation-dtbl-fork's flat table (docs/validation.md, the DTBL fork's
// "Named differences") to the fork's captures, so the doc cannot drift
// from them. Each Dragon_li CDP → Reg prediction outside 15% is split by
// host kernel (the prediction's span of each, from capture A converted
// with inline=loop and the fork's loop rule and replayed under flat,
// against the Reg run's measured span) and the host's part (the gaps
// between kernels); the parts add up to the makespans' difference. Then
// the numbers each mechanism rests on:
//
//   - BFS: A's expansion CTAs with no frontier entry against B's (the CDP
//     kernel runs its CTA body on every CTA, the Reg kernel skips it); B's
//     root CTA on the three trees as once-only cycles plus a lone lane's
//     edge (fitted on two, the third held within 2%); and the second
//     expansion's CTAs whose many lanes loop side by side, per iteration
//     of the loop against the lone lane's edge.
//   - SSSP on R-MAT 11: the source's child priced per edge against B's
//     lone lane, and B's second relaxation run as SIMT runs the Reg loop
//     (the group iterations of TestDragonliRmat11Decomposition's model,
//     from the graph), on the fork's cycles.
//   - JOIN: the keys made again (glibc's rand(), seed 1), held to the
//     Reg run's rows and capture A's launches CTA by CTA; B's main join
//     CTAs against the rows each writes in turn; what A's launching lanes
//     are charged side by side and in turn; the kernels' registers.
//   - The loop rule calibrated on the replay's span instead: what it does
//     to every pair.
func TestDTBLForkFlatDecomposition(t *testing.T) {
	dir := t.TempDir()
	t.Chdir("../..")
	f, err := newForkStudy(&experiment{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := forkNamedDifferences(filepath.Join("docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	say := func(format string, a ...any) { want = append(want, fmt.Sprintf(format, a...)) }

	trees := make([]*grGraph, len(bfsTrees))
	for i, tr := range bfsTrees {
		if trees[i], err = readGR(filepath.Join(validationDir, "gpgpusim", tr.graph)); err != nil {
			t.Fatal(err)
		}
		if trees[i].degree(0) != tr.root {
			t.Fatalf("%s: the root has %d arcs, want %d", tr.graph, trees[i].degree(0), tr.root)
		}
	}

	runs := map[string]forkFlatRun{}
	for _, name := range []string{"dragonli-bfs-tree", "dragonli-bfs-tree400", "dragonli-bfs-tree1000", "dragonli-sssp-rmat11", "dragonli-join-30720"} {
		r, err := forkFlatKernels(f, name)
		if err != nil {
			t.Fatal(err)
		}
		runs[name] = r
		t.Logf("%s: predicted %d, B %d (%+d, %s); host's part %+d", name, r.predicted, r.b.end, r.total(), relErr(float64(r.predicted), float64(r.b.end)), r.host)
		for i := range r.pred {
			t.Logf("  %d %s: predicted %d, B %d (%+d)", i, kernelFunc(r.names[i]), r.pred[i], r.meas[i], r.pred[i]-r.meas[i])
		}
		say("%s cycles (%s against %s)", signed(r.total()), commas(r.predicted), commas(r.b.end))
	}

	// BFS: host kernels memset, memset, then expansion and contraction
	// three times.
	for _, name := range []string{"dragonli-bfs-tree", "dragonli-bfs-tree400", "dragonli-bfs-tree1000"} {
		r := runs[name]
		if len(r.pred) != 8 {
			t.Fatalf("%s: %d host kernels, want 8 (2 memsets, 3 expansions, 3 contractions)", name, len(r.pred))
		}
		var memsets, contractions int64
		for _, i := range []int{0, 1} {
			memsets += r.pred[i] - r.meas[i]
		}
		for _, i := range []int{3, 5, 7} {
			contractions += r.pred[i] - r.meas[i]
		}
		if memsets+contractions+r.host+(r.pred[2]-r.meas[2])+(r.pred[4]-r.meas[4])+(r.pred[6]-r.meas[6]) != r.total() {
			t.Fatalf("%s: parts do not add up to %d", name, r.total())
		}
		// The third expansion (the leaves) launches nothing.
		if _, _, err := childrenOf(r.a.trace, 6); err == nil {
			t.Errorf("%s: the third expansion launches children", name)
		}
		say("the expansions %s, %s and %s, the contractions %s, the memsets %s, the host's part %s",
			signed(r.pred[2]-r.meas[2]), signed(r.pred[4]-r.meas[4]), signed(r.pred[6]-r.meas[6]), signed(contractions), signed0(memsets), signed(r.host))
	}
	// Empty CTAs: the first expansion's frontier is the root alone, so
	// every CTA but CTA 0 has no entry.
	var emptyA, emptyB [3]int64
	var root [3]int64 // B's CTA 0 of its first expansion
	var aOwn, aInline [3]int64
	for i, name := range []string{"dragonli-bfs-tree", "dragonli-bfs-tree400", "dragonli-bfs-tree1000"} {
		r := runs[name]
		ca, err := hostKernelCTAs(r.a.trace, 2)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := hostKernelCTAs(r.b.trace, 2)
		if err != nil {
			t.Fatal(err)
		}
		emptyA[i], emptyB[i] = medianBut0(ca), medianBut0(cb)
		root[i] = cb[0]
		own, inl, err := ctaInline(r.a.trace, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		aOwn[i], aInline[i] = own, inl
		t.Logf("%s first expansion: empty CTAs a median %d (A) and %d (B); CTA 0: A's own %d, inlined %d; B's %d", name, emptyA[i], emptyB[i], own, inl, root[i])
	}
	say("a median %s, %s and %s cycles on the three trees against the Reg kernel's %s, %s and %s",
		commas(emptyA[0]), commas(emptyA[1]), commas(emptyA[2]), commas(emptyB[0]), commas(emptyB[1]), commas(emptyB[2]))
	third := [3]int64{}
	for i, name := range []string{"dragonli-bfs-tree", "dragonli-bfs-tree400", "dragonli-bfs-tree1000"} {
		third[i] = runs[name].pred[6] - runs[name].meas[6]
		if emptyA[i] < 2*emptyB[i] {
			t.Errorf("%s: A's empty expansion CTAs a median %d cycles, B's %d: not the CDP body's cost", name, emptyA[i], emptyB[i])
		}
	}
	// The third expansion's frontier: the leaves, the root's children's
	// arcs. Its turns hold 128 entries a CTA, 240 CTAs a round.
	var leaves [3]int64
	for i, gr := range trees {
		for _, v := range gr.to[0] {
			leaves[i] += int64(gr.degree(v))
		}
		// CTAs whose last turn holds no entry.
		last := (leaves[i] + 127) / 128 % 240
		if last != 0 && 240-last < 120 {
			t.Errorf("%s: %d leaves leave %d of 240 CTAs' last turns empty, not most", bfsTrees[i].graph, leaves[i], 240-last)
		}
	}
	say("the third (the leaves, %s, %s and %s entries, the last turn of most CTAs empty) is predicted %s, %s and %s cycles long",
		commas(leaves[0]), commas(leaves[1]), commas(leaves[2]), signed(third[0]), signed(third[1]), signed(third[2]))
	// B's root CTA: x + d·e on the trees' root degrees 200, 400, 1,000.
	var degs [3]int64
	for i, tr := range bfsTrees {
		degs[i] = int64(tr.root)
	}
	edge := float64(root[2]-root[0]) / float64(degs[2]-degs[0])
	once := round(float64(root[0]) - float64(degs[0])*edge)
	fit400 := round(float64(once) + float64(degs[1])*edge)
	t.Logf("B's root CTA: %d once + %.1f an edge; tree400 %d against %d", once, edge, fit400, root[1])
	if d := float64(fit400-root[1]) / float64(root[1]); d < -0.02 || d > 0.02 {
		t.Errorf("B's root CTA on tree400: %d cycles, the fit on the other two trees gives %d", root[1], fit400)
	}
	ruleEdge := float64(root[0]) / float64(degs[0])
	say("%s cycles once and %.1f an edge", commas(once), edge)
	say("the 400-edge root's %s against %s", commas(fit400), commas(root[1]))
	say("%.1f an edge on the BFS tree", ruleEdge)
	say("A's CTA 0 has %s cycles of its own and %s inlined (B's %s)", commas(aOwn[0]), commas(aInline[0]), commas(root[0]))
	// The calibration pair's first expansion: the rule charges the 128
	// child threads 128/200 of B's root CTA, once-only cycles and all,
	// and A's CTA 0 keeps its own once-only cycles and its lane's loop
	// over the 72 edges past the child's.
	_, kids, err := childrenOf(runs["dragonli-bfs-tree"].a.trace, 2)
	if err != nil {
		t.Fatal(err)
	}
	again := round(float64(kids) * float64(once) / float64(degs[0]))
	beyond := aOwn[0] - once - round(float64(degs[0]-kids)*edge)
	t.Logf("bfs-tree first expansion: %d child threads; B's once-only cycles charged again %d; A's own beyond B's once-only cycles and %d edges %d; sum %d against %d",
		kids, again, degs[0]-kids, beyond, again+beyond, runs["dragonli-bfs-tree"].pred[2]-runs["dragonli-bfs-tree"].meas[2])
	if d := again + beyond - (runs["dragonli-bfs-tree"].pred[2] - runs["dragonli-bfs-tree"].meas[2]); d < -50 || d > 50 {
		t.Errorf("bfs-tree's first expansion: %d + %d does not make its %+d", again, beyond, runs["dragonli-bfs-tree"].pred[2]-runs["dragonli-bfs-tree"].meas[2])
	}
	say("%s child threads carry %s of B's once-only cycles again", commas(kids), commas(again))
	say("A's own cycles exceed B's once-only cycles and %s edges by %s", commas(degs[0]-kids), commas(beyond))
	// The rule's equation on the replay's span instead: each calibration
	// pair's launched threads priced at (B's root CTA − A's root CTA's
	// own cycles) over their number, so the root's expansion is exact.
	alt, err := newForkStudy(&experiment{}, filepath.Join(dir, "span-rule"))
	if err != nil {
		t.Fatal(err)
	}
	var c, e [2]float64
	for i, lr := range loopRuns {
		a, err := alt.conv(lr.pair+"-cdp", "loop")
		if err != nil {
			t.Fatal(err)
		}
		b, err := alt.conv(lr.pair+"-reg", "loop")
		if err != nil {
			t.Fatal(err)
		}
		med, err := firstChildMedian(a.trace)
		if err != nil {
			t.Fatal(err)
		}
		longest, err := firstLongestCTA(b.trace, lr.regKernel)
		if err != nil {
			t.Fatal(err)
		}
		// The root's expansion: the first after the memsets (SSSP's one,
		// BFS's two).
		k := 1
		if lr.regKernel == "bfsRegExpandKernel" {
			k = 2
		}
		own, _, err := ctaInline(a.trace, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, kids, err := childrenOf(a.trace, k)
		if err != nil {
			t.Fatal(err)
		}
		c[i], e[i] = float64(med), float64(longest-own)/float64(kids)
	}
	if alt.loopOnce, alt.loopShare, err = solveLoopRule(c, e); err != nil {
		t.Fatal(err)
	}
	var spanErrs []string
	for _, p := range dtblForkFlat {
		if p.inline != "loop" {
			continue
		}
		a, err := alt.convRule(p.cdp, p.inline)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := alt.replayOn(a, "flat")
		if err != nil {
			t.Fatal(err)
		}
		spanErrs = append(spanErrs, strings.Replace(relErr(float64(m), float64(f.cycles[p.flat]-1)), "-", "−", 1))
	}
	t.Logf("the rule on the replay's span: once %d, share %g: %v", alt.loopOnce, alt.loopShare, spanErrs)
	var now []string
	for _, name := range []string{"dragonli-bfs-tree400", "dragonli-bfs-tree1000", "dragonli-sssp-rmat11", "dragonli-join-30720"} {
		now = append(now, strings.Replace(relErr(float64(runs[name].predicted), float64(runs[name].b.end)), "-", "−", 1))
	}
	say("cta_once %d and loop_share %g put the two calibration pairs at %s and %s and the others at %s, %s, %s and %s (from %s, %s, %s and %s)",
		alt.loopOnce, alt.loopShare, spanErrs[0], spanErrs[1], spanErrs[2], spanErrs[3], spanErrs[4], spanErrs[5], now[0], now[1], now[2], now[3])
	_, kids400, err := childrenOf(runs["dragonli-bfs-tree400"].a.trace, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, kids1000, err := childrenOf(runs["dragonli-bfs-tree1000"].a.trace, 2)
	if err != nil {
		t.Fatal(err)
	}
	say("the 400- and 1,000-edge roots give %s and %s (B's %s) and %s and %s (B's %s): their children's %s and %s threads at %.1f and %.1f an edge",
		commas(aOwn[1]), commas(aInline[1]), commas(root[1]), commas(aOwn[2]), commas(aInline[2]), commas(root[2]),
		commas(kids400), commas(kids1000), float64(aInline[1])/float64(kids400), float64(aInline[2])/float64(kids1000))
	// Side by side: the second expansion's CTAs whose lanes hold the
	// children of 130 (150) edges.
	for i, p := range []struct {
		name  string
		edges int64
	}{{"dragonli-bfs-tree", 150}, {"dragonli-bfs-tree400", 130}, {"dragonli-bfs-tree1000", 130}} {
		cb, err := hostKernelCTAs(runs[p.name].b.trace, 4)
		if err != nil {
			t.Fatal(err)
		}
		s := slices.Clone(cb)
		slices.Sort(s)
		longest := s[len(s)-1]
		iter := float64(longest-once) / float64(p.edges)
		t.Logf("%s second expansion: B's longest CTA %d, next %d: %.0f an iteration past the once-only cycles, %.1f× the lone lane's edge", p.name, longest, s[len(s)-2], iter, iter/edge)
		switch i {
		case 0:
			say("the tree's 4 lanes of 150 edges take %s cycles, %s an iteration", commas(longest), commas(round(iter)))
		case 1:
			say("CTA 0 takes %s cycles and the others at most %s: %s an iteration, %.1f× the lone lane's edge", commas(longest), commas(s[len(s)-2]), commas(round(iter)), iter/edge)
			// The Reg run's statistics for the kernel (cumulative
			// counters, so the kernel's less the one before): one global
			// write a lane's edge, none coalesced.
			log := filepath.Join(f.simDir, "dragonli-bfs-tree400-reg.log.xz")
			writes, err := statsDelta(log, 4, "gpgpu_n_mem_write_global")
			if err != nil {
				t.Fatal(err)
			}
			reads, err := statsDelta(log, 4, "gpgpu_n_mem_read_global")
			if err != nil {
				t.Fatal(err)
			}
			laneEdges := leaves[1] // the root's children's edges
			t.Logf("tree400 second expansion: %d lane-edges, %d global writes, %d reads", laneEdges, writes, reads)
			if writes < laneEdges {
				t.Errorf("tree400's second expansion: %d global writes for %d lane-edges: some coalesced", writes, laneEdges)
			}
			say("its statistics count %s global writes for its %s lane-edges and %s reads", commas(writes), commas(laneEdges), commas(reads))
			// A warp's 32 lanes in turn, each a lone lane's edge.
			say("32 lone lanes take 32 × %.1f = %s an iteration", edge, commas(round(32*edge)))
			if q := 32 * edge / iter; q < 1.5 || q > 2.5 {
				t.Errorf("tree400: 32 lone lanes' edges %.0f cycles against %.0f an iteration (%.2f×, want about twice)", 32*edge, iter, q)
			}
		case 2:
			say("the longest of 7 such CTAs %s, %s an iteration", commas(longest), commas(round(iter)))
		}
	}

	// SSSP on R-MAT 11: host kernels a memset and 8 relaxations.
	r := runs["dragonli-sssp-rmat11"]
	if len(r.pred) != 9 {
		t.Fatalf("dragonli-sssp-rmat11: %d host kernels, want 9", len(r.pred))
	}
	var restP, restM int64
	for i := 3; i < 9; i++ {
		restP, restM = restP+r.pred[i], restM+r.meas[i]
	}
	if (r.pred[0]-r.meas[0])+(r.pred[1]-r.meas[1])+(r.pred[2]-r.meas[2])+(restP-restM)+r.host != r.total() {
		t.Fatal("dragonli-sssp-rmat11: parts do not add up")
	}
	say("the first relaxation %s (%s against %s), the second %s (%s against %s), the other six %s, the memset %s, the host's part %s",
		signed(r.pred[1]-r.meas[1]), commas(r.pred[1]), commas(r.meas[1]), signed(r.pred[2]-r.meas[2]), commas(r.pred[2]), commas(r.meas[2]),
		signed(restP-restM), signed0(r.pred[0]-r.meas[0]), signed(r.host))
	srcInline, srcEdges, err := childrenOf(r.a.trace, 1)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := readGR(filepath.Join(validationDir, "gpgpusim", "whatif", "rmat-11-16-1.gr.xz"))
	if err != nil {
		t.Fatal(err)
	}
	logged, err := firstFrontier(filepath.Join(f.simDir, "dragonli-sssp-rmat11-reg.log.xz"))
	if err != nil {
		t.Fatal(err)
	}
	s := gr.regSecond()
	if s.frontier != logged {
		t.Fatalf("the Reg code's first relaxation from the graph leaves %d entries, the fork's Reg run logs %d", s.frontier, logged)
	}
	c1, c2, err := cta0Cycles(r.b.trace)
	if err != nil {
		t.Fatal(err)
	}
	lone := float64(c1) / float64(gr.degree(0))
	step := float64(c2) / float64(s.steps)
	longPer := float64(c2) / float64(s.longest)
	t.Logf("rmat11: source's child %d threads priced %d, %.0f an edge; B's lone lane %.0f an edge; second relaxation's CTA 0 %d cycles: %d group iterations, %.0f each, %.0f an iteration of its longest lane (%d edges)",
		srcEdges, srcInline, float64(srcInline)/float64(srcEdges), lone, c2, s.steps, step, longPer, s.longest)
	say("priced at %s an edge where the Reg run's lone lane takes %s", commas(round(float64(srcInline)/float64(srcEdges))), commas(round(lone)))
	srcCTAs, srcMedian, err := childCTAs(r.a.trace, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rmat11: the source's child: %d CTAs, a median %d cycles", srcCTAs, srcMedian)
	say("its %d CTAs a median %s cycles", srcCTAs, commas(srcMedian))
	say("CTA 0 takes %s cycles: %s group iterations, %s cycles each", commas(c2), commas(s.steps), commas(round(step)))
	say("%s an iteration of its longest lane (%s edges)", commas(round(longPer)), commas(int64(s.longest)))
	if q := step / lone; q < 0.5 || q > 1.2 {
		t.Errorf("rmat11 on the fork: a group iteration %.0f cycles, the lone lane %.0f an edge (%.2f×, want 0.5 to 1.2)", step, lone, q)
	}

	// JOIN: host kernels find bounds, a scan (3), the main join, a scan
	// (3), the gather.
	r = runs["dragonli-join-30720"]
	if len(r.pred) != 9 || !strings.Contains(r.names[4], "MainJoin") {
		t.Fatalf("dragonli-join-30720: %d host kernels, the fifth %q; want 9, the fifth the main join", len(r.pred), kernelFunc(r.names[min(4, len(r.names)-1)]))
	}
	var otherP, otherM int64
	for i := range r.pred {
		if i != 4 {
			otherP, otherM = otherP+r.pred[i], otherM+r.meas[i]
		}
	}
	if (r.pred[4]-r.meas[4])+(otherP-otherM)+r.host != r.total() {
		t.Fatal("dragonli-join-30720: parts do not add up")
	}
	say("the main join %s (%s against %s), the other eight kernels %s, the host's part %s",
		signed(r.pred[4]-r.meas[4]), commas(r.pred[4]), commas(r.meas[4]), signed(otherP-otherM), signed(r.host))
	ownA, inTurn, side, err := mainJoinCTAs(r.a.trace)
	if err != nil {
		t.Fatal(err)
	}
	ownB, _, _, err := mainJoinCTAs(r.b.trace)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := logInt(filepath.Join(f.simDir, "dragonli-join-30720-reg.log.xz"), regexp.MustCompile(`^Join output size (\d+)$`))
	if err != nil {
		t.Fatal(err)
	}
	regsA, err := logInt(filepath.Join(f.simDir, "dragonli-join-30720-cdp.log.xz"), regexp.MustCompile(`^GPGPU-Sim PTX: Kernel '\w*MainJoin\w*' : regs=(\d+),`))
	if err != nil {
		t.Fatal(err)
	}
	regsB, err := logInt(filepath.Join(f.simDir, "dragonli-join-30720-reg.log.xz"), regexp.MustCompile(`^GPGPU-Sim PTX: Kernel '\w*MainJoin\w*' : regs=(\d+),`))
	if err != nil {
		t.Fatal(err)
	}
	priced := float64(inTurn) / float64(runs["dragonli-join-30720"].childThreads)
	perRow := float64(ownB-ownA) / float64(rows)
	t.Logf("join main: A's CTAs %d own + %d side by side (%d in turn), priced %.1f a child thread; B's %d; %d rows: %.1f a row beyond A's own; registers %d and %d",
		ownA, side, inTurn, priced, ownB, rows, perRow, regsA, regsB)
	// The keys again, and the Reg code's passes per CTA.
	blocks, joined, err := joinBlocks(30720, 64, 16)
	if err != nil {
		t.Fatal(err)
	}
	if joined != rows {
		t.Fatalf("the keys made again join %d rows, the Reg run's log %d", joined, rows)
	}
	launchesA, err := launchesByCTA(r.a.trace, 4)
	if err != nil {
		t.Fatal(err)
	}
	cyclesB, err := hostKernelCTAs(r.b.trace, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(cyclesB) != len(blocks) {
		t.Fatalf("the Reg run's main join has %d CTAs, the partition %d", len(cyclesB), len(blocks))
	}
	var xs, ys []float64
	launched := 0
	for i, b := range blocks {
		if b.launches != launchesA[uint64(i)] {
			t.Errorf("main join CTA %d: the keys give %d launches, capture A has %d", i, b.launches, launchesA[uint64(i)])
		}
		launched += b.launches
		xs, ys = append(xs, float64(b.inTurn)), append(ys, float64(cyclesB[i]))
	}
	fixed, perRowTurn, r2 := linearFit(xs, ys)
	t.Logf("join: the keys give %d rows and %d launches; B's main join CTAs %.0f cycles once and %.1f a row in turn (r² %.2f)", joined, launched, fixed, perRowTurn, r2)
	if r2 < 0.85 {
		t.Errorf("join: B's CTA cycles against the rows copied in turn: r² %.2f, want 0.85 or more", r2)
	}
	say("the join's %s rows and, CTA by CTA, capture A's %s launches", commas(joined), commas(int64(launched)))
	say("%s cycles once and %.1f a row copied in turn (r² %.2f over its %d CTAs)", commas(round(fixed)), perRowTurn, r2, len(blocks))
	say("one of A's child threads at %.1f a thread", priced)
	say("in all B's CTAs take %s cycles, A's %s of their own and %s inlined side by side (%s in turn), %.1f cycles a row past A's own cycles for its %s rows",
		commas(ownB), commas(ownA), commas(side), commas(inTurn), perRow, commas(rows))
	// GPGPU-Sim 3.x's CTAs an SM by registers (shader_core_config::max_cta,
	// src/gpgpu-sim/shader.cc:2793 at 68e84ab): 32,768 registers over the
	// CTA's 128 threads' registers rounded up to 4.
	resident := func(regs int64) int64 { return 32768 / (128 * ((regs + 3) &^ 3)) }
	say("%d registers a thread against the CDP kernel's %d, %d CTAs an SM against %d", regsB, regsA, resident(regsB), resident(regsA))

	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("docs/validation.md's fork named differences do not say %q", w)
		}
	}
}

// signed0 is signed, but 0 for none.
func signed0(n int64) string {
	if n == 0 {
		return "0"
	}
	return signed(n)
}

// joinBlock is what one CTA of Dragon_li's main join does with its
// partition of the keys.
type joinBlock struct {
	launches int   // the CDP code's: threads that found CDP_THRESHOLD (128) rows or more
	rows     int64 // the rows the block joins
	passes   int   // the Reg code's stage-copy passes
	inTurn   int64 // the rows its threads write in turn: each pass's longest loop, summed
}

// joinBlocks makes testJoin's keys again (left then right, each rand() %
// m, unseeded, then sorted: joinData.h:33-40 and util/random.h at
// 1397e03) and runs each CTA's block of the main join as the Reg code
// does: 240 CTAs of 128 threads (testJoin.cu's settings), CTA c joining
// the left keys [128c, 128c+128) with the right keys between their
// bounds (joinRegThreadFindBounds), a thread a right key counting its
// matches (foundCount), and, where a block's rows outnumber the shared
// cache's 128 entries (JOIN_BLOCK_CACHE_SIZE = THREADS), the copy loop
// of joinRegDevice.h:227-259: each pass the threads whose rows fit the
// cache write them, the rest wait for the next. It returns the blocks
// and the join's rows in all.
func joinBlocks(left, right, m int) ([]joinBlock, int64, error) {
	const threads, ctas, cache = 128, 240, 128
	g := newGlibcRand(1)
	l, r := make([]int, left), make([]int, right)
	for i := range l {
		l[i] = int(g.next() % int32(m))
	}
	for i := range r {
		r[i] = int(g.next() % int32(m))
	}
	slices.Sort(l)
	slices.Sort(r)
	part := (left + ctas - 1) / ctas
	if part != threads {
		return nil, 0, fmt.Errorf("join: %d left keys make partitions of %d, the model has one block of %d", left, part, threads)
	}
	upper := func(xs []int, k int) int { i, _ := slices.BinarySearch(xs, k+1); return i }
	lower := func(xs []int, k int) int { i, _ := slices.BinarySearch(xs, k); return i }
	var out []joinBlock
	var all int64
	for c := 0; c < ctas; c++ {
		lb := l[c*part : (c+1)*part]
		lo, hi := lower(r, lb[0]), upper(r, lb[len(lb)-1])
		if hi-lo > threads {
			return nil, 0, fmt.Errorf("join: CTA %d has %d right keys, the model one block of %d", c, hi-lo, threads)
		}
		found := make([]int, threads)
		var b joinBlock
		total := 0
		for t := 0; t < hi-lo; t++ {
			k := r[lo+t]
			found[t] = upper(lb, k) - lower(lb, k)
			total += found[t]
			if found[t] >= 128 {
				b.launches++
			}
		}
		b.rows, all = int64(total), all+int64(total)
		index := make([]int, threads)
		for t, s := 0, 0; t < threads; t++ {
			index[t], s = s, s+found[t]
		}
		done := make([]bool, threads)
		shared := 0 // sharedCopiedThisTime: set by a thread, else as it was
		for copied := 0; copied < total || b.passes == 0; {
			b.passes++
			if b.passes > total+1 {
				return nil, 0, fmt.Errorf("join: CTA %d's copy loop does not end", c)
			}
			longest := 0
			for t := range found {
				if index[t]+found[t] <= cache && !done[t] {
					longest, done[t] = max(longest, found[t]), true
				}
				if index[t] <= cache && index[t]+found[t] > cache {
					shared = index[t]
				} else if t == threads-1 && done[t] {
					shared = index[t] + found[t]
				}
			}
			b.inTurn += int64(longest)
			if total <= cache {
				break // the block fits: one pass (joinRegDevice.h:204-219)
			}
			for t := range index {
				index[t] -= shared
			}
			copied += shared
		}
		out = append(out, b)
	}
	return out, all, nil
}

// glibcRand is glibc's rand(): random_r's TYPE_3 generator, 34 words
// seeded by the Lehmer generator 16807·x mod 2³¹−1 (Schrage's method),
// each next word the sum of the words 31 and 3 back, the first 310
// discarded, an output the word shifted right by one. Seed 1 is rand()
// unseeded; its first outputs are 1804289383, 846930886, 1681692777.
type glibcRand struct {
	w [34]int32
	i int
}

func newGlibcRand(seed int32) *glibcRand {
	g := &glibcRand{}
	g.w[0] = seed
	for i := 1; i < 31; i++ {
		hi, lo := g.w[i-1]/127773, g.w[i-1]%127773
		x := 16807*lo - 2836*hi
		if x < 0 {
			x += 2147483647
		}
		g.w[i] = x
	}
	for i := 31; i < 34; i++ {
		g.w[i] = g.w[i-31]
	}
	for range 310 {
		g.next()
	}
	return g
}

func (g *glibcRand) next() int32 {
	// w holds the last 34 words, the oldest at g.i: the word 31 back is
	// at g.i+3, the word 3 back at g.i+31.
	x := int32(uint32(g.w[(g.i+3)%34]) + uint32(g.w[(g.i+31)%34]))
	g.w[g.i], g.i = x, (g.i+1)%34
	return int32(uint32(x) >> 1)
}

// launchesByCTA is the device launches each CTA of the trace's n-th host
// kernel makes.
func launchesByCTA(path string, n int) (map[uint64]int, error) {
	id, err := nthHostKernel(path, n)
	if err != nil {
		return nil, err
	}
	out := map[uint64]int{}
	err = eachRecord(path, func(rec trace.Record) {
		if l, ok := rec.(*trace.Launch); ok && l.Parent != nil && l.Parent.Kernel == id {
			out[l.Parent.CTA]++
		}
	})
	return out, err
}

// linearFit is the least-squares line y = a + b·x and its r².
func linearFit(xs, ys []float64) (a, b, r2 float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy, syy float64
	for i := range xs {
		sx, sy = sx+xs[i], sy+ys[i]
		sxx, sxy, syy = sxx+xs[i]*xs[i], sxy+xs[i]*ys[i], syy+ys[i]*ys[i]
	}
	vx, vy, cxy := n*sxx-sx*sx, n*syy-sy*sy, n*sxy-sx*sy
	if vx == 0 || vy == 0 {
		return 0, 0, 0
	}
	b = cxy / vx
	return (sy - b*sx) / n, b, cxy * cxy / (vx * vy)
}

// bfsTrees are the fork's BFS out-trees, the pairs' order:
// dragonli-bfs-tree, -tree400, -tree1000 (the root's arcs).
var bfsTrees = []struct {
	graph string // under validation/gpgpusim
	root  int
}{
	{filepath.Join("whatif", "dragonli-tree-200-4x150.gr"), 200},
	{filepath.Join("whatif", "dragonli-tree-400-100x130.gr.xz"), 400},
	{filepath.Join("dtbl-sim", "dragonli-tree-1000-800x130.gr.xz"), 1000},
}

// forkFlatRun is one fork flat prediction split by host kernel.
type forkFlatRun struct {
	a, b         simRun
	names        []string // A's host kernels, in launch order
	pred, meas   []int64  // the prediction's span of each, B's
	predicted    int64    // the prediction's makespan
	host         int64    // the host's part: the gaps' difference
	childThreads int64    // A's device launches' threads
}

func (r forkFlatRun) total() int64 { return r.predicted - r.b.end }

// forkFlatKernels replays the fork's name-cdp capture under flat (as
// validation-dtbl-fork's flat table does) and pairs its host kernels with
// the name-reg run's in launch order; each pair must be the same code
// (the CDP build's kernel names "Cdp" where the Reg build's name "Reg").
func forkFlatKernels(f *forkStudy, name string) (forkFlatRun, error) {
	var r forkFlatRun
	var err error
	if r.a, err = f.convRule(name+"-cdp", "loop"); err != nil {
		return r, err
	}
	if r.b, err = f.conv(name+"-reg", "loop"); err != nil {
		return r, err
	}
	m, kernels, err := f.replayOn(r.a, "flat")
	if err != nil {
		return r, err
	}
	r.predicted = m
	var ids []uint64
	for id, k := range r.b.measured {
		if k.Parent == 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var sumP, sumM int64
	for _, k := range kernels {
		if k.Origin != "host" {
			continue
		}
		i := len(r.pred)
		if i >= len(ids) {
			return r, fmt.Errorf("%s: the prediction has more host kernels than the Reg run's %d", name, len(ids))
		}
		mk := r.b.measured[ids[i]]
		if strings.ReplaceAll(k.Name, "Cdp", "Reg") != mk.Name {
			return r, fmt.Errorf("%s: host kernel %d is %s in A, %s in B", name, i, kernelFunc(k.Name), kernelFunc(mk.Name))
		}
		r.names = append(r.names, k.Name)
		r.pred = append(r.pred, k.EndCycle-k.StartCycle)
		r.meas = append(r.meas, r.b.ends[ids[i]]-mk.Start)
		sumP, sumM = sumP+r.pred[i], sumM+r.meas[i]
	}
	if len(r.pred) != len(ids) {
		return r, fmt.Errorf("%s: %d host kernels predicted, the Reg run has %d", name, len(r.pred), len(ids))
	}
	r.host = (m - sumP) - (r.b.end - sumM)
	err = eachRecord(r.a.trace, func(rec trace.Record) {
		if l, ok := rec.(*trace.Launch); ok && l.Parent != nil {
			r.childThreads += l.Workload
		}
	})
	return r, err
}

// kernelFunc is a mangled kernel name's function: the last identifier
// before its template arguments (bfsCdpExpandKernel).
func kernelFunc(s string) string {
	if m := regexp.MustCompile(`([A-Za-z]+Kernel|scan[A-Za-z]+)`).FindString(s); m != "" {
		return m
	}
	return s
}

// hostKernelCTAs is the CTA cycles (by CTA index) of the trace's n-th
// host-launched kernel (0 the first).
func hostKernelCTAs(path string, n int) ([]int64, error) {
	id, err := nthHostKernel(path, n)
	if err != nil {
		return nil, err
	}
	var cycles []int64
	err = eachRecord(path, func(rec trace.Record) {
		if c, ok := rec.(*trace.CTA); ok && c.Kernel == id {
			for uint64(len(cycles)) <= c.CTA {
				cycles = append(cycles, 0)
			}
			cycles[c.CTA] = c.Cycles
		}
	})
	if err == nil && len(cycles) < 2 {
		err = fmt.Errorf("%s: host kernel %d has %d CTAs", path, n, len(cycles))
	}
	return cycles, err
}

// medianBut0 is the median of every CTA's cycles but CTA 0's.
func medianBut0(cycles []int64) int64 {
	s := slices.Clone(cycles[1:])
	slices.Sort(s)
	return s[len(s)/2]
}

// ctaInline is a CTA's own cycles in the trace's n-th host kernel and
// what its launching lanes are charged in all (inline_cycles).
func ctaInline(path string, n int, cta uint64) (own, inline int64, err error) {
	id, err := nthHostKernel(path, n)
	if err != nil {
		return 0, 0, err
	}
	err = eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.CTA:
			if r.Kernel == id && r.CTA == cta {
				own = r.Cycles
			}
		case *trace.Launch:
			if r.Parent != nil && r.Parent.Kernel == id && r.Parent.CTA == cta {
				inline += r.InlineCycles
			}
		}
	})
	return own, inline, err
}

// childrenOf is what the launches of the trace's n-th host kernel's CTAs
// are charged (inline_cycles) and their threads.
func childrenOf(path string, n int) (inline, threads int64, err error) {
	id, err := nthHostKernel(path, n)
	if err != nil {
		return 0, 0, err
	}
	err = eachRecord(path, func(rec trace.Record) {
		if l, ok := rec.(*trace.Launch); ok && l.Parent != nil && l.Parent.Kernel == id {
			inline, threads = inline+l.InlineCycles, threads+l.Workload
		}
	})
	if err == nil && threads == 0 {
		err = fmt.Errorf("%s: host kernel %d launched nothing", path, n)
	}
	return inline, threads, err
}

// childCTAs is the CTAs of the kernels the trace's n-th host kernel
// launches, and their median cycles.
func childCTAs(path string, n int) (ctas int, median int64, err error) {
	id, err := nthHostKernel(path, n)
	if err != nil {
		return 0, 0, err
	}
	kids := map[uint64]bool{}
	var cycles []int64
	err = eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.Launch:
			if r.Parent != nil && r.Parent.Kernel == id {
				kids[r.Kernel] = true
			}
		case *trace.CTA:
			if kids[r.Kernel] {
				cycles = append(cycles, r.Cycles)
			}
		}
	})
	if err != nil {
		return 0, 0, err
	}
	if len(cycles) == 0 {
		return 0, 0, fmt.Errorf("%s: host kernel %d's children have no CTAs", path, n)
	}
	slices.Sort(cycles)
	return len(cycles), cycles[len(cycles)/2], nil
}

// mainJoinCTAs is the main join's (the fifth host kernel's) CTA cycles
// in all, and what its CTAs' launching lanes are charged: in turn (their
// sum) and side by side (each warp's most, summed over warps).
func mainJoinCTAs(path string) (own, inTurn, side int64, err error) {
	id, err := nthHostKernel(path, 4)
	if err != nil {
		return 0, 0, 0, err
	}
	most := map[[2]uint64]int64{}
	err = eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.CTA:
			if r.Kernel == id {
				own += r.Cycles
			}
		case *trace.Launch:
			if r.Parent != nil && r.Parent.Kernel == id {
				inTurn += r.InlineCycles
				k := [2]uint64{r.Parent.CTA, uint64(r.Parent.Warp)}
				most[k] = max(most[k], r.InlineCycles)
			}
		}
	})
	for _, c := range most {
		side += c
	}
	return own, inTurn, side, err
}

// scanLog calls each with the lines of the log at path (plain or
// compressed, as gpgpusim.OpenLog reads it) in turn until it says stop;
// an error it returns comes back naming the path and the line.
func scanLog(path string, each func(line string) (stop bool, err error)) error {
	r, err := gpgpusim.OpenLog(path)
	if err != nil {
		return err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		stop, err := each(sc.Text())
		if err != nil {
			return fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
		}
		if stop {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// logInt is the number re's first group matches on the first line of the
// log at path that re matches.
func logInt(path string, re *regexp.Regexp) (int64, error) {
	var n int64
	found := false
	err := scanLog(path, func(line string) (bool, error) {
		m := re.FindStringSubmatch(line)
		if m == nil {
			return false, nil
		}
		var err error
		n, err = strconv.ParseInt(m[1], 10, 64)
		found = true
		return true, err
	})
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, fmt.Errorf("%s: no line matches %s", path, re)
	}
	return n, nil
}

// statsDelta is the counter key's value in the n-th (0 the first)
// kernel's statistics block of the GPGPU-Sim log at path less its value
// in the block before: the kernel's own count (the simulator's counters
// are the run's totals so far).
func statsDelta(path string, n int, key string) (int64, error) {
	named, block := 0, -1 // kernels' blocks so far; this block's index
	var vals []int64
	err := scanLog(path, func(line string) (bool, error) {
		if name, ok := strings.CutPrefix(line, "kernel_name = "); ok {
			block = -1 // a block with no kernel's name is none's
			if strings.TrimSpace(name) != "" {
				block, named = named, named+1
			}
			return false, nil
		}
		if block < 0 || block != len(vals) {
			return false, nil
		}
		v, ok := strings.CutPrefix(line, key+" = ")
		if !ok {
			return false, nil
		}
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return false, err
		}
		vals = append(vals, x)
		return block == n, nil
	})
	if err != nil {
		return 0, err
	}
	if n < 1 || len(vals) <= n {
		return 0, fmt.Errorf("%s: %d kernels' statistics give %s, want %d", path, len(vals), key, n+1)
	}
	return vals[n] - vals[n-1], nil
}

// forkNamedDifferences is the DTBL fork section's "Named differences"
// list in the doc at path: from the line after validation-dtbl-fork's
// generated block to the next section.
func forkNamedDifferences(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, "<!-- experiment: validation-dtbl-fork -->")
	if i < 0 {
		return "", fmt.Errorf("%s: no validation-dtbl-fork block", path)
	}
	s = s[i:]
	j := strings.Index(s, "<!-- end experiment -->")
	if j < 0 {
		return "", fmt.Errorf("%s: validation-dtbl-fork's block has no end", path)
	}
	s = s[j:]
	if k := strings.Index(s, "\n## "); k >= 0 {
		s = s[:k]
	}
	// The list is wrapped: compare its words, not its lines.
	return strings.Join(strings.Fields(s), " "), nil
}

// TestGlibcRand holds glibcRand to glibc's rand() unseeded.
func TestGlibcRand(t *testing.T) {
	g := newGlibcRand(1)
	for i, want := range []int32{1804289383, 846930886, 1681692777, 1714636915, 1957747793} {
		if got := g.next(); got != want {
			t.Fatalf("output %d: %d, want %d", i, got, want)
		}
	}
}
