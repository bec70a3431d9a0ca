package samples

import (
	"fmt"
	"path/filepath"
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
	names := map[uint64]string{}
	depth := map[uint64]int{}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.Launch:
			if r.Parent == nil {
				if strings.Contains(names[r.Kernel], host) {
					depth[r.Kernel] = 0
				}
				continue
			}
			d, ok := depth[r.Parent.Kernel]
			if !ok {
				t.Fatalf("kernel %d launched by kernel %d, which is neither %s nor its descendant", r.Kernel, r.Parent.Kernel, host)
			}
			if d >= last {
				deeper++
				d = last - 1
			}
			depth[r.Kernel] = d + 1
			for len(levels) <= d {
				levels = append(levels, amrLevel{})
			}
			levels[d].children++
		case *trace.CTA:
			d, ok := depth[r.Kernel]
			switch {
			case !ok:
			case d == 0:
				hostCTAs = append(hostCTAs, r.Cycles)
			default:
				levels[d-1].ctas++
				levels[d-1].ctaCycles += r.Cycles
			}
		}
	}
	return levels, hostCTAs, deeper
}

// TestAMRLevelsCapture holds amr code=dragonli, all of whose costs are
// invented (amrdlcost.go), against GPGPU-Sim's run of the code it
// models, Dragon_li's AmrCdp at testAmr's defaults (capture
// dragonli-amr-cdp, validation/gpgpusim/whatif): held out, nothing
// fitted to it. The tree must be the code's, level by level (the same
// arithmetic on the same start cell: 1, 32 and 756 children at levels 1
// to 3, one CTA each); each level's child CTA and the host kernel's
// CTAs may come no further from the capture than today.
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
// the capture 0.23×, 0.05× and 0.53× for the child CTAs of levels 1 to
// 3, 0.21× for the host kernel's longest CTA. Level 2's capture figure
// is an importer's artefact: its 32 one-warp CTAs each launch once, but
// the importer gives some of them two sites (their own cycles go to 0)
// and others none (their whole span stays, up to 83,113 cycles), as the
// log cannot tell same-named CTAs apart (convert/gpgpusim parentOf).
var (
	amrChildWorst = []float64{4.6, 22.5, 1.95}
	amrHostWorst  = 4.9
)
