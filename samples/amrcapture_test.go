package samples

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/trace"
)

// amrLevel is one refinement level of an AMR CDP run: the child kernels
// that compute its cells (one per refining cell of the level above),
// their CTAs and the CTAs' summed cycles as the trace records them.
type amrLevel struct {
	children, ctas int
	ctaCycles      int64
}

// amrLevels groups a CDP trace's device-launched kernels by their depth
// below the host kernel (level 1: the host kernel's children) and
// returns the levels and the host kernels' CTA cycles, the kernels named
// with host (the capture's amrCdpRefineKernel, the model's
// amr_cdp_refine); other host kernels (the capture's two memsets) are
// left out. A kernel deeper than last is counted in level last and in
// deeper: the code launches no deeper (amrCdpThread.h:95-96 at
// 1397e03), so it is the importer's choice among same-named parents.
func amrLevels(t *testing.T, recs []trace.Record, host string, last int) (levels []amrLevel, hostCTAs []int64, deeper int) {
	t.Helper()
	depth, orphan := kernelDepths(recs, host)
	if orphan != nil {
		t.Fatalf("kernel %d launched by kernel %d, which is neither %s nor its descendant", orphan.Kernel, orphan.Parent.Kernel, host)
	}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Launch:
			d, ok := depth[r.Kernel]
			if !ok || d == 0 {
				continue
			}
			if d > last {
				deeper++
				d = last
			}
			for len(levels) < d {
				levels = append(levels, amrLevel{})
			}
			levels[d-1].children++
		case *trace.CTA:
			d, ok := depth[r.Kernel]
			switch {
			case !ok:
			case d == 0:
				hostCTAs = append(hostCTAs, r.Cycles)
			default:
				levels[min(d, last)-1].ctas++
				levels[min(d, last)-1].ctaCycles += r.Cycles
			}
		}
	}
	return levels, hostCTAs, deeper
}

// kernelDepths gives each kernel of a CDP trace its depth below the host
// kernels named with host (0), and the first launch whose parent is
// neither such a kernel nor a descendant of one (nil if none). Other host
// kernels have no depth.
func kernelDepths(recs []trace.Record, host string) (depth map[uint64]int, orphan *trace.Launch) {
	names := map[uint64]string{}
	depth = map[uint64]int{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.Launch:
			if r.Parent == nil {
				if strings.Contains(names[r.Kernel], host) {
					depth[r.Kernel] = 0
				}
			} else if d, ok := depth[r.Parent.Kernel]; ok {
				depth[r.Kernel] = d + 1
			} else if orphan == nil {
				orphan = r
			}
		}
	}
	return depth, orphan
}

// TestAMRLevelsCapture holds amr code=dragonli against GPGPU-Sim's run
// of the code it models, Dragon_li's AmrCdp at testAmr's defaults
// (capture dragonli-amr-cdp, validation/gpgpusim/whatif). The tree must
// be the code's, level by level (the same arithmetic on the same start
// cell: 1, 32 and 756 children at levels 1 to 3, one CTA each); each
// level's child CTA and the host kernel's CTAs may come no further from
// the capture than today (level 3's is TestAMRFitsCapture's fit, the
// others held out).
func TestAMRLevelsCapture(t *testing.T) {
	var sink sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(whatifDir, "dragonli-amr-cdp.log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	// testAmr's default -r 4: children at levels 1 to 3.
	const last = 3
	want, wantHost, deeper := amrLevels(t, sink.recs, "amrCdpRefineKernel", last)
	got, gotHost, _ := amrLevels(t, generate(t, "amr", "code=dragonli"), "amr_cdp_refine", last)
	if len(got) != len(want) {
		t.Fatalf("model %d levels of children, capture %d", len(got), len(want))
	}
	// Every child is one CTA named amrCdpThreadRefineKernel, so a launch's
	// line (parent name, CTA 0, thread) fits every running child; the
	// importer rules out the level-3 children that started after the
	// launch's cudaGetParameterBufferV2 less its stall (convert/gpgpusim
	// parentOf, step 3), which placed 22 under level-3 siblings before.
	if deeper > 0 {
		t.Errorf("capture: %d children placed below level %d, where the code launches none", deeper, last)
	}
	// The model's cycles are the K20c's (706 MHz), the capture's the
	// Kepler Titan's (837 MHz): compared as time, at 837 MHz.
	const scale = 837.0 / 706
	for i := range got {
		g, w := got[i], want[i]
		if g.children != w.children || g.ctas != w.ctas {
			t.Errorf("level %d: model %d children in %d CTAs, capture %d in %d", i+1, g.children, g.ctas, w.children, w.ctas)
			continue
		}
		gm := float64(g.ctaCycles) / float64(g.ctas) * scale
		wm := float64(w.ctaCycles) / float64(w.ctas)
		t.Logf("level %d: %d children; a child CTA model %.0f cycles at 837 MHz, captured %.0f (%.2f×)", i+1, g.children, gm, wm, gm/wm)
		heldOut(t, fmt.Sprintf("AMR level %d child CTA", i+1), gm/wm, amrChildWorst[i])
	}
	var g, w int64
	for _, c := range gotHost {
		g = max(g, c)
	}
	for _, c := range wantHost {
		w = max(w, c)
	}
	gs := float64(g) * scale
	t.Logf("host kernel's longest CTA: model %.0f cycles at 837 MHz, captured %d (%.2f×)", gs, w, gs/float64(w))
	heldOut(t, "AMR host kernel's longest CTA", gs/float64(w), amrHostWorst)
}

// Today's misses and a little (TestAMRLevelsCapture): the model over
// the capture 0.43×, 0.72× and 1.00× for the child CTAs of levels 1 to
// 3 (level 3's is the fit's, TestAMRFitsCapture), 0.30× for the host
// kernel's longest CTA. Levels 1 and 2 and the host kernel's CTA 0 hold
// their launching warps' device-runtime work beyond the stalls the
// importer takes out (the parameter buffer's stores, one lane's call
// after another's), which the generator leaves to the replay's policy.
// Level 2's was 0.09× while the importer gave a launch of its 32
// same-named one-CTA kernels to the oldest of them (some took two sites
// and their own cycles went to 0, others none and kept their whole
// span, up to 83,113 cycles); it now gives it to the first of them to
// finish (convert/gpgpusim, siblings.go), one site each.
var (
	amrChildWorst = []float64{2.4, 1.45, 1.02}
	amrHostWorst  = 3.4
)

// regKernels returns the CTAs' cycles of each kernel whose name holds
// name, in launch order.
func regKernels(recs []trace.Record, name string) [][]int64 {
	idx := map[uint64]int{}
	var ks [][]int64
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			if strings.Contains(r.Name, name) {
				idx[r.ID] = len(ks)
				ks = append(ks, nil)
			}
		case *trace.CTA:
			if i, ok := idx[r.Kernel]; ok {
				ks[i] = append(ks[i], r.Cycles)
			}
		}
	}
	return ks
}

// meanOf is the mean of cs.
func meanOf(cs []int64) float64 {
	var s float64
	for _, c := range cs {
		s += float64(c)
	}
	return s / float64(len(cs))
}

// TestAMRFitsCapture holds amr code=dragonli's measured costs
// (amrdlcost.go) to the CTAs they were solved from, within 2%: the mean
// of level 3's CDP children that hold no refining cell and of those that
// hold one (the tree says which: the shortest 290 and the other 466 of
// the capture's, whose cycles do not overlap), and the Reg run's second
// kernel's CTA 0, one warp looping over 32 sub-cells a lane. Held out,
// one way only (heldOut): the Reg run's first kernel's CTA 0 (one lane's
// loop, on the run's cold caches: 0.94×), the third's four busy CTAs
// (eight looping warps each, sharing the SM's four DP units: 0.78×), the
// fourth's 94 full CTAs (six or seven such CTAs an SM, bound by the DP
// units' division throughput, which no model here shares: 0.24×) and
// the warm kernels' CTAs without a chunk (0.41×: 810 cycles alone on an
// SM, up to 2,276 where eight share one, which the captured
// configuration's replay leaves to the CTAs' own cycles, as SSSP's empty
// CTAs).
func TestAMRFitsCapture(t *testing.T) {
	var cdp, reg sliceSink
	for _, c := range []struct {
		run  string
		sink *sliceSink
	}{{"dragonli-amr-cdp", &cdp}, {"dragonli-amr-reg", &reg}} {
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, c.run+".log.xz"), c.sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
	}
	const scale = 837.0 / 706 // the model's K20c cycles as time at 837 MHz
	in := func(what string, got, want float64) {
		r := got * scale / want
		t.Logf("%s: model %.0f cycles at 837 MHz, captured %.0f (%.3f×)", what, got*scale, want, r)
		if r < 0.98 || r > 1.02 {
			t.Errorf("%s (in sample): model over capture %.3f×, want within ±2%%", what, r)
		}
	}
	out := func(what string, got, want, worst float64) {
		t.Logf("%s: model %.0f cycles at 837 MHz, captured %.0f (%.2f×)", what, got*scale, want, got*scale/want)
		heldOut(t, what, got*scale/want, worst)
	}

	// Level 3: the children of level-2 kernels.
	leaves := func(recs []trace.Record, host string) []int64 {
		depth, _ := kernelDepths(recs, host)
		var cs []int64
		for _, r := range recs {
			if r, ok := r.(*trace.CTA); ok && depth[r.Kernel] == 3 {
				cs = append(cs, r.Cycles)
			}
		}
		slices.Sort(cs)
		return cs
	}
	want := leaves(cdp.recs, "amrCdpRefineKernel")
	got := leaves(generate(t, "amr", "code=dragonli"), "amr_cdp_refine")
	g, _, _ := buildAMRDLGrid([]float32{5041.126}, 100, 4, 1<<22)
	childless := 0
	for i := range g.values[2] {
		if !g.refines(2, i) {
			continue
		}
		any := false
		for j := int(g.first[2][i]); j < int(g.first[2][i])+amrDLRefine; j++ {
			any = any || g.refines(3, j)
		}
		if !any {
			childless++
		}
	}
	if len(got) != 756 || len(want) != 756 || childless != 290 {
		t.Fatalf("level 3: model %d children, capture %d, %d of them with no refining cell; want 756 and 290", len(got), len(want), childless)
	}
	if want[childless-1] >= want[childless] {
		t.Fatalf("capture: level 3's childless CTAs (up to %d cycles) overlap the others (from %d)", want[childless-1], want[childless])
	}
	in("level 3's children with no refining cell", meanOf(got[:childless]), meanOf(want[:childless]))
	in("level 3's children with a refining cell", meanOf(got[childless:]), meanOf(want[childless:]))

	rw := regKernels(reg.recs, "amrRegRefineKernel")
	rg := regKernels(generate(t, "amr", "code=dragonli", "variant=flat"), "amr_reg_refine")
	if len(rw) != 4 || len(rg) != 4 {
		t.Fatalf("Reg: model %d kernels, capture %d; want 4", len(rg), len(rw))
	}
	in("Reg's second kernel's CTA 0 (one warp's loops)", float64(rg[1][0]), float64(rw[1][0]))
	out("Reg's first kernel's CTA 0 (one lane's loop, cold)", float64(rg[0][0]), float64(rw[0][0]), 1.08)
	out("Reg's third kernel's CTAs 0-3 (eight looping warps each)", meanOf(rg[2][:4]), meanOf(rw[2][:4]), 1.3)
	out("Reg's fourth kernel's CTAs 0-93 (full chunks)", meanOf(rg[3][:94]), meanOf(rw[3][:94]), 4.4)
	var ge, we []int64
	for k := 1; k <= 2; k++ { // warm; CTAs 1-103 and 4-103 have no chunk
		from := 1
		if k == 2 {
			from = 4
		}
		ge, we = append(ge, rg[k][from:]...), append(we, rw[k][from:]...)
	}
	out("Reg's warm CTAs without a chunk", meanOf(ge), meanOf(we), 2.5)
}
