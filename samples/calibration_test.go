package samples

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/internal/xztest"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/policies/policytest"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// The fitted costs against the GPGPU-Sim captures they were fitted to
// (docs/calibration.md, "Measured workload costs"; the captures'
// provenance is validation/gpgpusim/workloads/README.md). Each test reads
// the capture through the GPGPU-Sim importer, so a changed capture or
// importer moves the target, and a changed cost constant moves the model.

// workloadsDir holds the GPGPU-Sim captures of the papers' benchmark codes.
const workloadsDir = "../validation/gpgpusim/workloads"

// captureCTAs converts capture name and returns each kernel's CTA cycles,
// kernels in launch order.
func captureCTAs(t *testing.T, name string) [][]int64 {
	t.Helper()
	var order []uint64
	byKernel := map[uint64][]int64{}
	for _, r := range convertCapture(t, name) {
		if c, ok := r.(*trace.CTA); ok {
			if _, seen := byKernel[c.Kernel]; !seen {
				order = append(order, c.Kernel)
			}
			byKernel[c.Kernel] = append(byKernel[c.Kernel], c.Cycles)
		}
	}
	out := make([][]int64, len(order))
	for i, k := range order {
		out[i] = byKernel[k]
	}
	return out
}

// kernelTime is one replayed kernel: its cycles, start to end, and its
// CTAs' mean cycles.
type kernelTime struct{ kernel, cta float64 }

// replayKernels replays recs under policy on cfg and returns each
// kernel's times, in kernel id order.
func replayKernels(t *testing.T, recs []trace.Record, cfg model.Config, policy string) []kernelTime {
	t.Helper()
	rows, _ := recorded(t, recs, cfg, policy)
	out := make([]kernelTime, len(rows.Kernels))
	index := map[uint64]int{}
	for i, k := range rows.Kernels {
		out[i].kernel = float64(k.EndCycle - k.StartCycle)
		index[k.KernelID] = i
	}
	n := make([]int, len(out))
	for _, c := range rows.CTAs {
		i := index[c.KernelID]
		out[i].cta += float64(c.EndCycle - c.StartCycle)
		n[i]++
	}
	for i := range out {
		out[i].cta /= float64(n[i])
	}
	return out
}

// recorded replays recs under policy on cfg and returns its rows and
// totals.
func recorded(t *testing.T, recs []trace.Record, cfg model.Config, policy string) (*policytest.Recorder, *replay.Stats) {
	t.Helper()
	open := func() (trace.Source, error) { return &recordSource{recs: recs}, nil }
	pol, err := policies.New(policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := &policytest.Recorder{}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rows)
	if err != nil {
		t.Fatal(err)
	}
	return rows, st
}

// recordSource yields records from memory.
type recordSource struct {
	recs []trace.Record
	next int
}

func (s *recordSource) Next() (trace.Record, error) {
	if s.next == len(s.recs) {
		return nil, io.EOF
	}
	s.next++
	return s.recs[s.next-1], nil
}

// captured replays capture name on the GPU it records (--gpu=captured).
func captured(t *testing.T, name string) []kernelTime {
	t.Helper()
	recs := convertCapture(t, name)
	return replayKernels(t, recs, capturedConfig(t, recs), "cdp")
}

// convertCapture is capture name's records, through the GPGPU-Sim importer.
func convertCapture(t *testing.T, name string) []trace.Record {
	t.Helper()
	var sink sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(workloadsDir, name+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	return sink.recs
}

// modelled generates gen with kv and replays it under baseline on preset
// with sets applied.
func modelled(t *testing.T, preset string, sets []string, gen string, kv ...string) []kernelTime {
	t.Helper()
	cfg, err := model.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		k, v, _ := strings.Cut(s, "=")
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return replayKernels(t, generate(t, gen, kv...), cfg, "baseline")
}

// meanFrom is the mean kernel and CTA time of kernels[from:].
func meanFrom(ks []kernelTime, from int) kernelTime {
	var m kernelTime
	for _, k := range ks[from:] {
		m.kernel += k.kernel
		m.cta += k.cta
	}
	n := float64(len(ks) - from)
	return kernelTime{m.kernel / n, m.cta / n}
}

// relErr is (got − want) / want.
func relErr(got, want float64) float64 { return (got - want) / want }

// heldOut fails when a held-out ratio of model over capture is off by
// more than worst, either way (worst ≥ 1, today's miss and a little): a
// held-out error may shrink, not grow. An in-sample fit is held to its
// tolerance both ways instead.
func heldOut(t *testing.T, what string, r, worst float64) {
	t.Helper()
	if err := heldOutErr(what, r, worst); err != nil {
		t.Error(err)
	}
}

// heldOutRow is one held-out comparison, model over capture, held one
// way to worst (heldOut).
type heldOutRow struct {
	what      string
	got, want float64
	worst     float64 // today's and a little
}

// heldOutRows logs each row and holds it one way, its name after prefix.
func heldOutRows(t *testing.T, prefix string, rows []heldOutRow) {
	t.Helper()
	for _, r := range rows {
		t.Logf("%s%s: model %.0f, captured %.0f (%.2f×)", prefix, r.what, r.got, r.want, r.got/r.want)
		heldOut(t, prefix+r.what, r.got/r.want, r.worst)
	}
}

// heldOutErr is heldOut's check: an error when r is off by more than
// worst either way.
func heldOutErr(what string, r, worst float64) error {
	if f := max(r, 1/r); f > worst || math.IsNaN(r) || r <= 0 {
		return fmt.Errorf("%s (held out): model over capture %.2f×, off by %.2f×; it was at most %.2f×", what, r, f, worst)
	}
	return nil
}

// TestHeldOutGrows checks the guard itself: a held-out error that shrinks
// or stays passes, one that grows past today's either way fails, and so
// does a ratio that is no number.
func TestHeldOutGrows(t *testing.T) {
	for _, tc := range []struct {
		r, worst float64
		fails    bool
	}{
		{2.31, 2.35, false}, {1.5, 2.35, false}, {1 / 2.3, 2.35, false}, // today's, or smaller
		{2.5, 2.35, true}, {1 / 2.5, 2.35, true}, // grown, either way
		{math.NaN(), 2.35, true}, {0, 2.35, true},
	} {
		if err := heldOutErr("x", tc.r, tc.worst); (err != nil) != tc.fails {
			t.Errorf("ratio %.2f, worst %.2f: error %v, want failing %v", tc.r, tc.worst, err, tc.fails)
		}
	}
}

// keplerTitan is GPGPU-Sim's SM3_KEPLER_TITAN as gpu settings on the
// gk110-64 preset (14 SMs at 837 MHz, 16 CTAs and 2048 threads an SM,
// 288.4 GB/s), without the host stages: the GPU of captures 3mm-128,
// hotspot-256 and pathfinder-20k. The generators' 700 MHz cycles are
// rescaled to its clock by time, as every replay does: these kernels wait
// on DRAM, whose 1502 MHz clock both configurations share.
var keplerTitan = []string{"gpu.sms=14", "gpu.clock_mhz=837", "gpu.max_ctas_per_sm=16", "gpu.max_threads_per_sm=2048",
	"gpu.regs_per_sm=65536", "gpu.smem_per_sm=49152", "gpu.dram_gbps=288.4", "io.model=none"}

// crcs64 is the capture 3mm-256-k1-crcs's GPU: gk110-64 with GPGPU-Sim's
// 288.4 GB/s DRAM, without the host stages.
var crcs64 = []string{"gpu.dram_gbps=288.4", "io.model=none"}

// TestPipelinesFitCaptures replays each fitted pipeline generator on the
// captured GPU's shape and input and holds its warm kernels' mean CTA and
// kernel cycles to the capture's within the errors docs/calibration.md
// states. The first kernel of a Rodinia capture runs on cold caches and
// is left out, as it was from the fit.
func TestPipelinesFitCaptures(t *testing.T) {
	for _, tc := range []struct {
		capture, gen string
		kv           []string
		gpu          []string
		warm         int     // the capture's first warm kernel
		cta, kernel  float64 // the largest |error| allowed
	}{
		{"3mm-256-k1-crcs", "3mm", []string{"size=256"}, crcs64, 0, 0.02, 0.05},
		{"hotspot-256", "hotspot", []string{"size=256", "iterations=5", "kernel_cost=" + HotspotMeasuredKernelCost}, keplerTitan, 1, 0.02, 0.10},
		{"pathfinder-20k", "pathfinder", []string{"cols=20000", "rows=26"}, keplerTitan, 1, 0.02, 0.20},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			want := meanFrom(captured(t, tc.capture), tc.warm)
			got := meanFrom(modelled(t, "gk110-64", tc.gpu, tc.gen, tc.kv...), tc.warm)
			ce, ke := relErr(got.cta, want.cta), relErr(got.kernel, want.kernel)
			t.Logf("CTA %.0f cycles, captured %.0f (%+.1f%%); kernel %.0f, captured %.0f (%+.1f%%)",
				got.cta, want.cta, 100*ce, got.kernel, want.kernel, 100*ke)
			if ce > tc.cta || ce < -tc.cta || ke > tc.kernel || ke < -tc.kernel {
				t.Errorf("CTA error %+.1f%% (allowed ±%.0f%%), kernel error %+.1f%% (allowed ±%.0f%%)",
					100*ce, 100*tc.cta, 100*ke, 100*tc.kernel)
			}
		})
	}
}

// Test3MMFitOnTheTitan holds what the 3MM fit gives on the other capture,
// 3mm-128 on the 14-SM Kepler Titan, which it was not fitted to: a k step
// there waits ~510 cycles at 837 MHz where the 64-SM GPU's queues make it
// ~970 at 700, so the fitted rounds overstate it. The model's CTAs and
// kernels run 2.31× and 2.23× the capture's: a held-out miss, which may
// shrink but not grow past 2.35× (heldOut).
func Test3MMFitOnTheTitan(t *testing.T) {
	want := meanFrom(captured(t, "3mm-128"), 0)
	got := meanFrom(modelled(t, "gk110-64", keplerTitan, "3mm", "size=128"), 0)
	t.Logf("CTA %.0f cycles, captured %.0f (%.2f×); kernel %.0f, captured %.0f (%.2f×)",
		got.cta, want.cta, got.cta/want.cta, got.kernel, want.kernel, got.kernel/want.kernel)
	heldOut(t, "3mm-128 CTAs", got.cta/want.cta, 2.35)
	heldOut(t, "3mm-128 kernels", got.kernel/want.kernel, 2.35)
}

// meanCTA is the mean of the CTA cycles of kernels[from:to].
func meanCTA(kernels [][]int64, from, to int) float64 {
	var sum, n float64
	for _, k := range kernels[from:to] {
		for _, c := range k {
			sum += float64(c)
			n++
		}
	}
	return sum / n
}

// TestMatmulFitsCaptures holds the SDK matrixMul's CTA, one 16×16 output
// tile with 256 threads, to the model: the warp start, the first DRAM
// touch, ks k steps (matmulKStep) and the store. The captures run 64×K by
// K×64 products, K = 64, 128, 256 (4, 8, 16 k steps); kernels 2–5 are
// warm (the warm-up kernel before them brought the operands into the L2).
// Cycles are compared as cycles (taskscost.go).
func TestMatmulFitsCaptures(t *testing.T) {
	for _, tc := range []struct {
		capture string
		ks      int64
	}{{"matrixmul-64", 4}, {"matrixmul-64-k128", 8}, {"matrixmul-64-k256", 16}} {
		want := meanCTA(captureCTAs(t, tc.capture), 1, 5)
		got := float64(tasksWarpStartCycles + tasksDRAMCycles + tc.ks*matmulKStep(1, false) + tasksStreamCycles)
		e := relErr(got, want)
		t.Logf("%s: %d k steps, model %.0f cycles, captured %.0f (%+.1f%%)", tc.capture, tc.ks, got, want, 100*e)
		if e > 0.02 || e < -0.02 {
			t.Errorf("%s: model %.0f cycles, captured %.0f: %+.1f%%, allowed ±2%%", tc.capture, got, want, 100*e)
		}
	}
}

// TestDCTFitsCapture holds the SDK's CUDAkernel2DCT CTA (64 threads, eight
// 8×8 blocks: one dctWarps round of 8 groups) to the model; the fit is on
// the warm-up kernel, and the timed one (kernel 2, the same kernel again)
// is held to ±1% as well. The inverse transform (kernel 4,
// CUDAkernel2IDCT, which the model does not tell apart) is held out: its
// error, −4.0% today, may shrink but not grow (heldOut).
func TestDCTFitsCapture(t *testing.T) {
	kernels := captureCTAs(t, "dct8x8-128")
	got := float64(tasksWarpStartCycles + dctRound(1, false))
	for _, tc := range []struct {
		kernel int
		name   string
		tol    float64
	}{{0, "CUDAkernel2DCT, warm-up", 0.01}, {1, "CUDAkernel2DCT", 0.01}} {
		want := meanCTA(kernels, tc.kernel, tc.kernel+1)
		e := relErr(got, want)
		t.Logf("%s: model %.0f cycles, captured %.0f (%+.1f%%)", tc.name, got, want, 100*e)
		if e > tc.tol || e < -tc.tol {
			t.Errorf("%s: model %.0f cycles, captured %.0f: %+.1f%%, allowed ±%.0f%%", tc.name, got, want, 100*e, 100*tc.tol)
		}
	}
	want := meanCTA(kernels, 3, 4)
	t.Logf("CUDAkernel2IDCT: model %.0f cycles, captured %.0f (%+.1f%%)", got, want, 100*relErr(got, want))
	heldOut(t, "CUDAkernel2IDCT", got/want, 1.045) // 0.96× today
}

// dlKernelTimes is one replayed kernel of a Dragon_li trace: its span, its
// CTA 0's (which holds the whole of a small worklist) and its other CTAs'
// mean.
type dlKernelTimes struct {
	span, cta0, others float64
}

// replayDragonli replays recs under cdp on cfg and returns the times of
// the host-launched kernels whose name contains parent, and of the
// device-launched ones, each in creation order.
func replayDragonli(t *testing.T, recs []trace.Record, cfg model.Config, parent string) (host, device []dlKernelTimes) {
	t.Helper()
	rows, _ := recorded(t, recs, cfg, "cdp")
	slices.SortFunc(rows.Kernels, func(a, b tables.Kernel) int { return cmp.Compare(a.KernelID, b.KernelID) })
	for _, k := range rows.Kernels {
		var kt dlKernelTimes
		var n float64
		for _, c := range rows.CTAs {
			switch {
			case c.KernelID != k.KernelID:
			case c.CTA == 0:
				kt.cta0 = float64(c.EndCycle - c.StartCycle)
			default:
				kt.others += float64(c.EndCycle - c.StartCycle)
				n++
			}
		}
		kt.span = float64(k.EndCycle - k.StartCycle)
		if n > 0 {
			kt.others /= n
		}
		switch {
		case k.Origin == "device":
			device = append(device, kt)
		case strings.Contains(k.Name, parent):
			host = append(host, kt)
		}
	}
	return host, device
}

// capturedConfig is the GPU a capture's header (recs[0]) records, as
// --gpu=captured reads it.
func capturedConfig(t *testing.T, recs []trace.Record) model.Config {
	t.Helper()
	base, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.FromHeader(base, recs[0].(*trace.Header))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSSSPFitsCapture replays sssp code=dragonli on Dragon_li's sample
// graph (the capture's input) on the captured GPU and holds each kernel,
// relaxation and child, to GPGPU-Sim's: the one-lane kernels without a
// launch and the two children were the fit's (ssspcost.go, with the tree's
// root, TestSSSPFitsTreeRoot), the launching ones and the two-lane
// relaxation 2 check it.
// The capture's CTAs count cudaStreamCreateWithFlags's 7200-cycle stall in
// the launching warp's time, where the generator leaves stream creation to
// the policy: the model replays with cdp.stream_create=7200, the rest of
// the device runtime's costs as captured.
func TestSSSPFitsCapture(t *testing.T) {
	recs := convertCapture(t, "dragonli-sssp-sample")
	cfg := capturedConfig(t, recs)
	want, wantChild := replayDragonli(t, recs, cfg, "ssspCdpExpandKernel")
	if err := cfg.Set("cdp.stream_create", "7200"); err != nil {
		t.Fatal(err)
	}
	got, gotChild := replayDragonli(t, generate(t, "sssp", "graph="+dragonliSampleGR, "code=dragonli", "site_threshold=31"), cfg, "sssp_relax")
	if len(got) != 6 || len(want) != 6 || len(gotChild) != 2 || len(wantChild) != 2 {
		t.Fatalf("model %d relaxations and %d children, capture %d and %d; want 6 and 2", len(got), len(gotChild), len(want), len(wantChild))
	}
	check := func(what string, got, want, tol float64) {
		e := relErr(got, want)
		t.Logf("%s: model %.0f cycles, captured %.0f (%+.1f%%)", what, got, want, 100*e)
		if e > tol || e < -tol {
			t.Errorf("%s: %+.1f%%, allowed ±%.0f%%", what, 100*e, 100*tol)
		}
	}
	// In sample, ±1%: the one-lane CTAs without a launch that the
	// constants were solved from (relaxation 5, relaxation 6's CTA 0).
	// Held out, each may shrink but not grow past today's miss
	// (heldOut): relaxation 1 ran on cold caches (its empty CTAs took 2016
	// cycles against 303 warm), which the cold start (coldstart.go)
	// prices, CTA 0 the 4 lines its looping warp waits for in full and
	// the rest of two the empty warps asked for less than a miss before
	// it (1.01×; 0.94× with those two free); relaxation
	// 2's warp holds two lanes lowering one edge each (the fit before
	// took its constants from it); 3 and 4 launch, and their launching
	// warp reaches the launch ~800 cycles later than the model's
	// prologue; relaxation 6's kernel ends with its last empty CTAs,
	// queued behind seven others on their SM (idleQueueWait).
	check("relaxation 5 kernel", got[4].span, want[4].span, 0.01)
	check("relaxation 5 CTA 0", got[4].cta0, want[4].cta0, 0.01)
	check("relaxation 6 CTA 0", got[5].cta0, want[5].cta0, 0.01)
	// The children's warm part, fitted: ssspChildBaseCycles and
	// ssspLowerLaneCycles are solved on the children's CTAs in the
	// capture's rerun with a perfect instruction cache
	// (dragonli-sssp-sample-cdp-perfect-icache), whose cycles ssspcost.go
	// holds; the model's CTAs less their cold start (ssspChildColdCycles)
	// within 1% (child 2) and 2% (child 1: the model's solver lowers 29
	// of its lanes, the capture 30).
	var perfect sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(whatifDir, "dragonli-sssp-sample-cdp-perfect-icache.log.xz"), &perfect, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	warmCapt := childLaunchCTAs(perfect.recs, "ThreadExpand")
	if len(warmCapt) != 2 || len(warmCapt[0]) != 1 || len(warmCapt[1]) != 1 ||
		warmCapt[0][0] != ssspChildLowerWarmCaptured || warmCapt[1][0] != ssspChildWarmCaptured {
		t.Fatalf("the perfect-cache rerun's children %v, want [[%d] [%d]] (ssspcost.go)", warmCapt, ssspChildLowerWarmCaptured, ssspChildWarmCaptured)
	}
	warmModel := childLaunchCTAs(generate(t, "sssp", "graph="+dragonliSampleGR, "code=dragonli", "site_threshold=31"), "sssp_relax_child")
	if len(warmModel) != 2 || len(warmModel[0]) != 1 || len(warmModel[1]) != 1 {
		t.Fatalf("model children %v, want one CTA each of two", warmModel)
	}
	for i, first := range []bool{true, false} {
		warmModel[i][0] -= ssspChildColdCycles(i, 0, first)
	}
	check("child 2, warm", float64(warmModel[1][0])*837/706, float64(warmCapt[1][0]), 0.01)
	check("child 1, warm", float64(warmModel[0][0])*837/706, float64(warmCapt[0][0]), 0.02)
	// Held out, the children whole: their warm part and their cold start
	// (ssspChildFetch): child 1, the run's first, fetched the child's 3
	// lines from DRAM, 695 cycles over its rerun's (the model's
	// coldStartCycles(3), 858 at 837 MHz: a line's whole miss, 286, where
	// child 1 paid 232 a line); child 2, on another SM, from
	// the L2, 416 (joinRefetchCycles(3), 356). Both were solved on the
	// captured children before, cold start and all (−1.8% and −0.1%).
	heldOutRows(t, "sample ", []heldOutRow{
		{"child 2 (L2's lines)", gotChild[1].span, wantChild[1].span, 1.08}, // 0.93× today
		{"child 1 (DRAM's)", gotChild[0].span, wantChild[0].span, 1.08},     // 1.07× (0.94× at 202 a line, the fitted price)
	})
	for _, h := range []struct {
		i     int
		worst float64
	}{{0, 1.02}, {1, 1.16}, {2, 1.05}, {3, 1.06}} { // 1.01×, 0.88×, 0.97×, 0.96× today
		t.Logf("relaxation %d: model %.0f cycles, captured %.0f", h.i+1, got[h.i].span, want[h.i].span)
		heldOut(t, fmt.Sprintf("relaxation %d kernel", h.i+1), got[h.i].span/want[h.i].span, h.worst)
		heldOut(t, fmt.Sprintf("relaxation %d CTA 0", h.i+1), got[h.i].cta0/want[h.i].cta0, h.worst)
	}
	t.Logf("relaxation 6 kernel: model %.0f cycles, captured %.0f", got[5].span, want[5].span)
	heldOut(t, "relaxation 6 kernel", got[5].span/want[5].span, 1.04) // 1.02× today (0.89× before the empty CTAs' queue)
	// The empty CTAs: a lone one's pass (303 cycles, fitted) and their
	// queue behind the older CTAs on their SM (76.3 cycles an older CTA,
	// ssspIdleQueueCycles, fitted on this capture's per-SM staircases;
	// held out on rmat7's and rmat11's, TestSSSPIdleQueueHeldOut). Their
	// means differ by the SMs' count: 13 in the generator's K20c (3.5
	// older CTAs on average), 14 in the capture (3.2). They were 0.54×
	// before the queue.
	var g, w float64
	for i := 1; i < 6; i++ {
		g += got[i].others / 5
		w += want[i].others / 5
	}
	t.Logf("empty CTAs: model %.0f cycles, captured mean %.0f (%+.1f%%)", g, w, 100*relErr(g, w))
	heldOut(t, "empty CTAs", g/w, 1.04) // +2.6% today
}

// TestJoinFitsCapture replays join (algo=merge) on the capture's input,
// Dragon_li testJoin's defaults: 1024 × 1024 uniform keys below 1024, its
// 240 × 128 grid, no launch (no key fills a 128-tuple block). The keys
// are this generator's draw, not the C library's, of the same
// distribution. Fitted: join_bounds (its global binary-search step),
// join_main's CTAs after its first wave (a warp instruction's issue,
// joinissue.go) and a CTA's base (the least empty join_gather CTA, what a
// join_output CTA costs); the second, warm, join_scan_blocks, on which
// prefixSumCta's step is solved beside them, leaves the step no latency
// past its instructions and reads 1.04×; the others are held where the
// fit leaves them, which docs/calibration.md states (a change that moves
// them out of their range changes what it says).
func TestJoinFitsCapture(t *testing.T) {
	recs := convertCapture(t, "dragonli-join-1024")
	cfg := capturedConfig(t, recs)
	want := replayKernels(t, recs, cfg, "cdp")
	g := generate(t, "join", "dist=uniform", "r_tuples=1024", "s_tuples=1024", "max_key=1024")
	if h := g[0].(*trace.Header).Meta; h["sites"] != "0" {
		t.Errorf("join: %s sites, want none, as the capture", h["sites"])
	}
	got := replayKernels(t, g, cfg, "cdp")
	if len(got) != 9 || len(want) != 9 {
		t.Fatalf("model %d kernels, capture %d; want 9", len(got), len(want))
	}
	// Fitted: a CTA's base (joinCTABaseCycles), the least join_gather CTA
	// of an empty partition (blockIdx 205 on: 240 partitions of 5 keys).
	ctas := captureCTAs(t, "dragonli-join-1024")
	if empty := slices.Min(ctas[8][205:]); empty != joinCTABaseCaptured {
		t.Errorf("the least empty join_gather CTA takes %d cycles, joinCTABaseCaptured says %d", empty, joinCTABaseCaptured)
	}
	// Held out: the first wave's empty CTAs (blockIdx 205–223; the wave is
	// 16 CTAs on each of 14 SMs), which only load their offsets: a CTA's
	// base and the two queues (joinGatherWaveCycles), no constant fitted
	// on them.
	var wave float64
	for _, c := range ctas[8][205:224] {
		wave += float64(c) / 19
	}
	emptyModel := float64(joinCTABaseCycles+joinGatherWaveCycles(coldWave(128, joinGatherRegs), 128)) * 837 / 706
	t.Logf("join_gather's first-wave empty CTAs: model %.0f cycles, captured mean %.0f (%.2f×)", emptyModel, wave, emptyModel/wave)
	heldOut(t, "join_gather's first-wave empty CTAs", emptyModel/wave, 1.05) // 1.03× today
	// Fitted: join_main's CTAs with a partition after its first wave
	// (56 CTAs, 4 an SM on 14, run on a cold instruction cache: its cold
	// start, coldstart.go), the issue cost's fit (joinIssueFit).
	rows, _ := recorded(t, generate(t, "join", "dist=uniform", "r_tuples=1024", "s_tuples=1024", "max_key=1024"), cfg, "cdp")
	var main uint64
	for _, k := range rows.Kernels {
		if k.Name == "join_main" {
			main = k.KernelID
		}
	}
	var gw, ww float64
	for _, c := range rows.CTAs {
		if c.KernelID == main && c.CTA >= 56 && c.CTA < 204 {
			gw += float64(c.EndCycle - c.StartCycle)
		}
	}
	for _, c := range ctas[4][56:204] {
		ww += float64(c)
	}
	first := 0.0
	for _, c := range ctas[4][:56] {
		first += float64(c) / 56
	}
	t.Logf("join_main after its first wave: CTA %.0f cycles, captured %.0f (%.2f×); the first wave captured %.0f", gw/148, ww/148, gw/ww, first)
	if r := gw / ww; r < 0.98 || r > 1.02 {
		t.Errorf("join_main after its first wave: model over capture %.2f×, want 0.98–1.02× (fitted)", r)
	}
	for _, tc := range []struct {
		i      int
		name   string
		fitted bool
		worst  float64 // held out: the factor its mean CTA cycles may be off by, today's and a little
	}{
		{0, "join_bounds (fitted)", true, 0},
		{5, "join_scan_blocks, warm (the prefix step's fit: none)", false, 1.06}, // 1.04×: its refetch and instructions leave the step nothing
		{1, "join_scan_blocks, cold", false, 1.08},                               // 1.06×: DRAM's part of a line, 141 cycles, where its cold run shows 130
		{2, "join_scan_totals, cold", false, 1.17},                               // 1.15×: 141 a line from DRAM, where its cold run shows 108
		{3, "join_scan_distribute, cold", false, 1 / 0.86},                       // 0.88×
		{6, "join_scan_totals, warm", false, 1.09},                               // 1.07×: its two divisions, refetch and instructions
		{7, "join_scan_distribute, warm", false, 1 / 0.93},                       // 0.95×: its code refetched from the L2 (docs/calibration.md)
		{4, "join_main", false, 1.03},                                            // 1.01×: its first wave's cold start (coldstart.go)
		{8, "join_gather", false, 1 / 0.89},                                      // 0.91×: its first wave's queues, the SM's memory port and the histogram's banks (joinGatherWaveCycles; 0.39× before)
	} {
		r := got[tc.i].cta / want[tc.i].cta
		t.Logf("%s: CTA %.0f cycles, captured %.0f (%.2f×); kernel %.0f, captured %.0f (%.2f×)", tc.name,
			got[tc.i].cta, want[tc.i].cta, r, got[tc.i].kernel, want[tc.i].kernel, got[tc.i].kernel/want[tc.i].kernel)
		switch {
		case tc.fitted && (r < 0.98 || r > 1.02):
			t.Errorf("%s: model over capture %.2f×, want 0.98–1.02× (fitted)", tc.name, r)
		case !tc.fitted:
			heldOut(t, tc.name, r, tc.worst)
		}
	}
}

// TestSSSPHeldOutRmat11 replays sssp code=dragonli, its costs fitted on
// Dragon_li's 38-vertex sample graph (TestSSSPFitsCapture), on the
// R-MAT graph of capture dragonli-sssp-rmat11-cdp (2,048 vertices,
// 32,582 arcs; validation/gpgpusim/whatif), against GPGPU-Sim's run of
// the CDP build on it: held out, as the calibration rule asks of a fit.
// Both run 8 relaxations and launch about as many children (1,526 to
// 1,560; TestSSSPLevelsRmat11 compares them level by level); the
// relaxation kernels take 0.99× the capture's (1.03× while the replay
// packed a small child's CTAs onto the SMs that drained first, which put
// the capture's own second relaxation at 0.77× GPGPU-Sim's; 0.99×
// before the frontier's counter did the appends one a cycle, ssspdlcounter.go;
// 0.94× before the loops ran beside the children, each warp priced on
// its own steps in the clock, ssspdlchildren.go; 0.84× before the
// one-lane refit, 0.69× before a warp's diverged lanes ran in turn).
// The warm children: TestSSSPWarmChildrenRmat11.
func TestSSSPHeldOutRmat11(t *testing.T) {
	got, want, gotChild, wantChild := ssspAgainstCapture(t, "dragonli-sssp-rmat11-cdp", "ssspCdpExpandKernel", "rmat-11-16-1.gr.xz", "site_threshold=31")
	// Each relaxation's kernel too, today's factor and a little.
	// Relaxation 1 holds its cold start (coldstart.go), the term in this
	// capture too (the run's first relaxation): CTA 0's launching and
	// looping warp fetches 8 lines (0.98× when it was charged the empty
	// path's 6).
	g, w := heldOutRelaxations(t, "rmat11", got, want, []float64{1.03, 1.07, 1.07, 1.05, 1.03, 1.03, 1.03, 1.04}) // 1.01, 0.95, 1.05, 0.97, 1.01, 0.99, 0.99, 1.02× today
	t.Logf("relaxation kernels: model %.0f cycles, captured %.0f (%.2f×); children: model %d, captured %d", g, w, g/w, len(gotChild), len(wantChild))
	heldOut(t, "rmat11 relaxation kernels", g/w, 1.03)                                  // 0.99× today (1.03× against the packed replay, 0.99× before the counter, 0.94× before the CDP clock)
	heldOut(t, "rmat11 children", float64(len(gotChild))/float64(len(wantChild)), 1.05) // 0.97× today
}

// TestSSSPHeldOutRmat11Reg replays sssp code=dragonli variant=flat, the
// Reg code (each lane loops over its vertex's edges, a diverged warp's
// lanes in turn, every warp of the grid at once: dlLoops), on the same
// R-MAT graph, against GPGPU-Sim's run of the Reg build
// (dragonli-sssp-rmat11-reg): held out, no constant fitted on it. This is
// the what-if pair the replay of the CDP capture misses by -28.7%
// (docs/validation.md names SIMT divergence, which capture A does not
// hold); predicted from the graph, where the generator knows which lanes
// lower at each edge, the relaxation kernels come to 1.02×.
func TestSSSPHeldOutRmat11Reg(t *testing.T) {
	got, want, _, _ := ssspAgainstCapture(t, "dragonli-sssp-rmat11-reg", "ssspRegExpandKernel", "rmat-11-16-1.gr.xz", "variant=flat")
	// Relaxation 4 runs 1.36× (1.65× when each warp's loop ran after the
	// one before it): its 985 to 988 items fill four CTAs, a kernel is
	// its slowest warp, and which of the frontier's ~30 copies of
	// vertices of 60 to 176 edges share a warp is the order the atomics
	// reach the frontier's counter ("SizeType globalOffset =
	// ctaOutputAssignment.getCtaOutputAssignment(1);",
	// ssspRegDevice.h:83 at 1397e03). The model's relaxation-4 warp of
	// items 704-735 holds five of them; the simulator's frontier, as the
	// run below logs it, two. The simulator itself moves there: the same
	// run with the host reading each frontier between kernels
	// (dragonli-sssp-rmat11-reg-frontiers) takes 192,991 cycles in
	// relaxation 4 and 119,200 in relaxation 5 (165,711 and 170,699
	// here), and priced on that run's frontiers the model comes to
	// 1.01× in both (TestSSSPRegMeasuredFrontiers); from its own
	// relaxation-3 frontier, built from that run's second, 0.95×. An
	// iteration priced 1 cycle off its 422 puts relaxation 4 at 1.35×
	// to 1.38×, relaxation 5 at 0.58× to 0.68× and relaxation 6 at 0.82×
	// to 1.04× (1.36× to 1.50×, 0.69× to 0.85× and 1.02× before the
	// frontier's counter, ssspdlcounter.go).
	g, w := heldOutRelaxations(t, "rmat11 reg", got, want, []float64{1.03, 1.05, 1.05, 1.53, 1.72, 1.23, 1.05, 1.11}) // 1.01, 1.03, 1.02, 1.36, 0.63, 0.83, 1.03, 1.09× today
	t.Logf("relaxation kernels: model %.0f cycles, captured %.0f (%.2f×)", g, w, g/w)
	heldOut(t, "rmat11 reg relaxation kernels", g/w, 1.04) // 1.02× today
}

// TestSSSPRegMeasuredFrontiers prices the Reg code's relaxations on the
// worklists GPGPU-Sim's run had, which dragonli-sssp-rmat11-reg-frontiers
// and dragonli-sssp-uniform9-reg-frontiers log (Dragon_li's testSssp
// --v2 prints each frontier in its offset order:
// validation/gpgpusim/whatif/README.md), against that run's relaxation
// kernels: the generator's pricing (its warps' loops as dlLoops runs
// them) apart from its frontiers. Each run is its capture again, the
// host reading each frontier between kernels; on rmat11 that alone
// moves relaxation 4 from 165,711 cycles to 192,991 and relaxation 5
// from 170,699 to 119,200: which heavy vertices share a warp there is
// set by the order the atomics reach the frontier's counter, and a
// 256-item chunk's slowest warp follows it.
func TestSSSPRegMeasuredFrontiers(t *testing.T) {
	for _, run := range []struct {
		name, graph string
		worst       []float64 // by relaxation: today's and a little
		sum         float64
	}{
		// 1.01, 1.03, 1.02, 1.01, 1.01, 1.00, 1.03, 1.09× today; with each
		// warp's loop run after the one before it, 1.01, 1.12, 0.94, 0.91,
		// 1.01, 1.00, 1.03, 1.09× (1.06×).
		{"dragonli-sssp-rmat11-reg-frontiers", "rmat-11-16-1.gr.xz", []float64{1.03, 1.05, 1.04, 1.03, 1.03, 1.02, 1.05, 1.11}, 1.04}, // 1.02× today
		// 1.01, 1.01, 1.02, 1.02, 1.02, 1.01, 1.01, 1.01, 1.00, 1.00, 1.02×
		// today: where the generator's own frontiers put relaxations 5 to
		// 7 at 1.13×, 1.31× and 1.12× (TestSSSPHeldOutNewInputs), the
		// pricing on the run's is within 2%.
		{"dragonli-sssp-uniform9-reg-frontiers", "uniform-512-32-3.gr.xz", []float64{1.03, 1.03, 1.04, 1.04, 1.04, 1.03, 1.03, 1.03, 1.02, 1.02, 1.04}, 1.03}, // 1.01× today
	} {
		var sink sliceSink
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, run.name+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		cfg := capturedConfig(t, sink.recs)
		want, _ := replayDragonli(t, sink.recs, cfg, "ssspRegExpandKernel")
		tr := regTraceOn(t, run.graph)
		tr.frontiers = loggedFrontierLists(t, filepath.Join(whatifDir, run.name+".log.xz"))
		var gen sliceSink
		if err := writeTallied(&gen, tr.records, func() *trace.Header { return k20cHeader("gen:sssp", map[string]string{}) }); err != nil {
			t.Fatal(err)
		}
		got, _ := replayDragonli(t, gen.recs, cfg, "sssp_relax")
		if len(got) != len(want) {
			t.Fatalf("%s: model %d relaxations, run %d", run.name, len(got), len(want))
		}
		g2, w := heldOutRelaxations(t, run.name+", measured frontiers,", got, want, run.worst)
		t.Logf("%s: relaxation kernels: model %.0f cycles, run %.0f (%.2f×)", run.name, g2, w, g2/w)
		heldOut(t, run.name+" relaxation kernels, measured frontiers", g2/w, run.sum)
	}
}

// TestSSSPRegRunsSpan holds the Reg code's relaxations, predicted from
// the graph (TestSSSPHeldOutRmat11Reg, TestSSSPHeldOutNewInputs), to
// the span of GPGPU-Sim's runs of the same kernels on the same graph:
// the capture, its rerun whose host reads each frontier back between
// kernels (…-frontiers), and two whose host sizes the frontier arrays
// larger (testSssp --sf 1.5 and 2: maxFrontierSize = edgeCount · sf,
// ssspBase.h:145 at 1397e03), which puts the output frontier and the
// frontier's counter at other addresses
// (validation/gpgpusim/whatif/README.md). The device code, the graph,
// the frontiers' sizes (no run overflows) and the distances are the same
// in all four. In the relaxations where a 256-item chunk's slowest warp
// is wherever the atomics' order puts the heavy vertices, the runs
// themselves spread by up to 1.43× (rmat11's fifth: 119,198 to 170,697
// cycles), so a prediction of one run's is held to the span: its error
// is 1 inside it, else the model over the nearer end.
func TestSSSPRegRunsSpan(t *testing.T) {
	for _, g := range []struct {
		graph string
		runs  []string // the capture first
		worst []float64
	}{
		// The model over the span: 1.01, 1.03, 1.02, 1.12, 0.91, 0.98,
		// 1.03, 1.09× today (over the capture alone 1.36, 0.63, 0.83× in
		// relaxations 4 to 6).
		{"rmat-11-16-1.gr.xz", []string{"dragonli-sssp-rmat11-reg", "dragonli-sssp-rmat11-reg-frontiers", "dragonli-sssp-rmat11-reg-sf15", "dragonli-sssp-rmat11-reg-sf2"},
			[]float64{1.03, 1.05, 1.04, 1.14, 1 / 0.89, 1.03, 1.05, 1.11}},
		{"uniform-512-32-3.gr.xz", []string{"dragonli-sssp-uniform9-reg", "dragonli-sssp-uniform9-reg-frontiers", "dragonli-sssp-uniform9-reg-sf15", "dragonli-sssp-uniform9-reg-sf2"},
			// 1.01, 1.01, 0.98, 1.00, 1.13, 1.20 (1.197), 1.00, 1.00, 1.05,
			// 1.00, 1.02× today (over the capture alone 1.13, 1.31,
			// 1.13× in relaxations 5 to 7): the model's own frontiers
			// drift past the runs' spread there, where priced on a run's
			// frontiers it comes to 1.01× to 1.02×
			// (TestSSSPRegMeasuredFrontiers). Relaxation 6's guard is the
			// bound issue 77 sets, 1.20.
			[]float64{1.03, 1.03, 1 / 0.96, 1.03, 1.15, 1.20, 1.03, 1.03, 1.07, 1.03, 1.04}},
	} {
		var spans [][]float64 // by run, by relaxation
		for _, run := range g.runs {
			var sink sliceSink
			if _, err := gpgpusim.Convert(filepath.Join(whatifDir, run+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			times, _ := replayDragonli(t, sink.recs, capturedConfig(t, sink.recs), "ssspRegExpandKernel")
			var s []float64
			for _, k := range times {
				s = append(s, k.span)
			}
			if len(spans) > 0 && len(s) != len(spans[0]) {
				t.Fatalf("%s: %d relaxations, the capture %d", run, len(s), len(spans[0]))
			}
			spans = append(spans, s)
		}
		got, _, _, _ := ssspAgainstCapture(t, g.runs[0], "ssspRegExpandKernel", g.graph, "variant=flat")
		for i, m := range got {
			lo, hi := spans[0][i], spans[0][i]
			each := make([]string, len(spans))
			for j, s := range spans {
				lo, hi, each[j] = min(lo, s[i]), max(hi, s[i]), strconv.FormatFloat(s[i], 'f', 0, 64)
			}
			r := 1.0
			switch {
			case m.span > hi:
				r = m.span / hi
			case m.span < lo:
				r = m.span / lo
			}
			t.Logf("%s relaxation %d: model %.0f cycles, the runs %s (%.2f× apart): %.2f× the span", g.runs[0], i+1, m.span, strings.Join(each, ", "), hi/lo, r)
			heldOut(t, fmt.Sprintf("%s relaxation %d against the runs' span", g.runs[0], i+1), r, g.worst[i])
		}
	}
}

// loggedFrontierLists reads the frontiers Dragon_li's host loop prints
// with --v2 ("Frontier: 5, 9, ") from an xz log, in order.
func loggedFrontierLists(t *testing.T, path string) [][]int32 {
	t.Helper()
	var out [][]int32
	sc := xzLines(t, path, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "Frontier: ")
		if !ok {
			continue
		}
		var fr []int32
		for _, x := range strings.Split(line, ",") {
			if x = strings.TrimSpace(x); x == "" {
				continue
			}
			v, err := strconv.ParseInt(x, 10, 32)
			if err != nil {
				t.Fatalf("%s: frontier %d: %v", path, len(out)+1, err)
			}
			fr = append(fr, int32(v))
		}
		out = append(out, fr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSSSPWarmChildrenRmat11 holds the model's warm sssp_relax_child
// CTAs, every child's after the run's first launch (ssspChildFetch: each
// SM has the code by then), to dragonli-sssp-rmat11-cdp's: held out, the
// child's constants solved on the sample's two children warm (a perfect
// instruction cache). The rerun of the capture with that cache
// (…-perfect-icache) shows those CTAs warm already: their mean moves
// from 597 to 602 cycles. Before the child's cold start was taken out of
// its constants the model's came to 994, 1.66×.
func TestSSSPWarmChildrenRmat11(t *testing.T) {
	later := func(launches [][]int64, scale float64) []float64 {
		var out []float64
		for _, l := range launches[1:] {
			for _, c := range l {
				out = append(out, float64(c)*scale)
			}
		}
		slices.Sort(out)
		return out
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	quart := func(v []float64) string {
		return fmt.Sprintf("min %.0f, quartiles %.0f %.0f %.0f, max %.0f", v[0], v[len(v)/4], v[len(v)/2], v[3*len(v)/4], v[len(v)-1])
	}
	capt := map[string][]float64{}
	for _, name := range []string{"dragonli-sssp-rmat11-cdp", "dragonli-sssp-rmat11-cdp-perfect-icache"} {
		var sink sliceSink
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, name+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		capt[name] = later(childLaunchCTAs(sink.recs, "ThreadExpand"), 1)
	}
	graph := filepath.Join(t.TempDir(), "rmat-11-16-1.gr")
	unxz(t, filepath.Join(whatifDir, "rmat-11-16-1.gr.xz"), graph)
	model := later(childLaunchCTAs(generate(t, "sssp", "graph="+graph, "code=dragonli", "site_threshold=31"), "sssp_relax_child"), 837.0/706)
	w, p := capt["dragonli-sssp-rmat11-cdp"], capt["dragonli-sssp-rmat11-cdp-perfect-icache"]
	t.Logf("warm child CTAs at 837 MHz: model %d, %s, mean %.0f", len(model), quart(model), mean(model))
	t.Logf("captured %d, %s, mean %.0f", len(w), quart(w), mean(w))
	t.Logf("perfect-cache rerun %d, mean %.0f", len(p), mean(p))
	heldOutRows(t, "rmat11 ", []heldOutRow{{"a warm child CTA, mean", mean(model), mean(w), 1.06}}) // 0.96× today
}

// ssspAgainstCapture replays the capture named (under whatifDir, .log.xz)
// on its own GPU, and sssp code=dragonli with kv on the graph named
// (whatifDir, xz-compressed) on the same GPU, and gives each one's
// relaxation kernels and child kernels. The generated trace's children
// pay the capture's stream creation (cdp.stream_create 7200: each
// Dragon_li child launches into a stream its thread creates).
func ssspAgainstCapture(t *testing.T, capture, kernel, graphXZ string, kv ...string) (got, want, gotChild, wantChild []dlKernelTimes) {
	t.Helper()
	var sink sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(whatifDir, capture+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	cfg := capturedConfig(t, sink.recs)
	want, wantChild = replayDragonli(t, sink.recs, cfg, kernel)
	if err := cfg.Set("cdp.stream_create", "7200"); err != nil {
		t.Fatal(err)
	}
	graph := filepath.Join(t.TempDir(), strings.TrimSuffix(graphXZ, ".xz"))
	unxz(t, filepath.Join(whatifDir, graphXZ), graph)
	got, gotChild = replayDragonli(t, generate(t, "sssp", append([]string{"graph=" + graph, "code=dragonli"}, kv...)...), cfg, "sssp_relax")
	if len(got) != len(want) {
		t.Fatalf("%s: model %d relaxations, capture %d", capture, len(got), len(want))
	}
	return got, want, gotChild, wantChild
}

// TestSSSPHeldOutNewInputs replays sssp code=dragonli, CDP
// (site_threshold=31) and Reg (variant=flat), on graphs the project
// captured only to test predictions, against GPGPU-Sim's runs of
// Dragon_li's testSssp on them (validation/gpgpusim/whatif/README.md:
// rmat.py 9 12 2, uniform.py 512 32 3, tree.py 200 40x140 20x260).
// Nothing was fitted on these
// captures; each guard is today's error and a little, either way. The
// relaxations come to 0.95× to 1.08×, but the tree's last pass under
// CDP (5,200 leaves without an edge, 0.86×: 0.56× until the chunk
// prologue's gathers queued at the SM's load/store unit, dlport.go,
// which took the Reg code's from 0.47× to 0.98×) and the uniform
// graph's middle ones (CDP 1.19× and 1.14×, Reg 1.13×, 1.31× and 1.13×,
// where priced on the simulator's own frontiers the Reg code's come to
// 1.01× to 1.02×: TestSSSPRegMeasuredFrontiers). The tree's third
// relaxation launches 20 children from one warp, as captured, since the
// frontier's counter does the appends one a cycle and a child of fewer
// than 14 CTAs runs one an SM (ssspdlcounter.go, dlChild.perSM): 1.00×,
// 0.60× before, when it launched them from eight warps. Before the CDP
// clock (ssspdlchildren.go) the third relaxations were 0.68× (rmat9) and
// 1.51× (uniform9) and the tree's second 1.42×.
func TestSSSPHeldOutNewInputs(t *testing.T) {
	for _, run := range []struct {
		capture, kernel, graph, kv string
		worst, children            float64 // relaxation kernels' sum, children launched: today's and a little
		steps                      []float64
	}{
		// 0.98× today, children 0.97× (312 to 321); by relaxation 0.99, 0.99, 0.95, 0.94, 1.05, 0.98× (0.88×, its third 0.68×, before the CDP clock)
		{"dragonli-sssp-rmat9-cdp", "ssspCdpExpandKernel", "rmat-9-12-2.gr.xz", "site_threshold=31", 1.04, 1.05, []float64{1.03, 1.03, 1.07, 1.08, 1.07, 1.04}},
		// 1.01× today; by relaxation 1.01, 1.02, 1.01, 1.03, 0.82, 0.99× (1.18× and its third 1.87× before the Reg frontier's order, ssspdlorder.go)
		{"dragonli-sssp-rmat9-reg", "ssspRegExpandKernel", "rmat-9-12-2.gr.xz", "variant=flat", 1.04, 0, []float64{1.03, 1.04, 1.03, 1.05, 1.24, 1.03}},
		// 1.04× today, children 0.99× (1,297 to 1,307); by relaxation 0.99, 1.02, 0.95, 1.08, 1.19, 1.14, 0.99, 1.01, 1.00, 0.98, 1.00× (1.05×, its third 1.51×, before the CDP clock)
		{"dragonli-sssp-uniform9-cdp", "ssspCdpExpandKernel", "uniform-512-32-3.gr.xz", "site_threshold=31", 1.06, 1.05, []float64{1.03, 1.05, 1.07, 1.10, 1.21, 1.16, 1.03, 1.03, 1.03, 1.04, 1.02}},
		// 1.06× today; by relaxation 1.01, 1.01, 0.98, 1.01, 1.13, 1.31, 1.13, 1.04, 1.08, 1.00, 1.02× (1.04× before the frontier's counter, 0.96× before the Reg frontier's order)
		{"dragonli-sssp-uniform9-reg", "ssspRegExpandKernel", "uniform-512-32-3.gr.xz", "variant=flat", 1.08, 0, []float64{1.03, 1.03, 1.04, 1.06, 1.15, 1.33, 1.15, 1.06, 1.10, 1.02, 1.04}},
		// 0.99× today, 61 children as captured; by relaxation 0.99, 0.99, 1.00, 0.86× (the last's leaves have no edge: 0.56× before the load/store unit's queue; 0.98× and its third 0.99× against the packed replay, 0.83× and 0.60× before the frontier's counter, 1.16× and its second 1.42× before the CDP clock)
		{"dragonli-sssp-tree3-cdp", "ssspCdpExpandKernel", "dragonli-tree-200-40x140-20x260.gr.xz", "site_threshold=31", 1.04, 1.02, []float64{1.03, 1.05, 1.04, 1.18}},
		// 1.02× today; by relaxation 1.00, 1.06, 1.00, 0.98× (0.47× before the load/store unit's queue)
		{"dragonli-sssp-tree3-reg", "ssspRegExpandKernel", "dragonli-tree-200-40x140-20x260.gr.xz", "variant=flat", 1.03, 0, []float64{1.02, 1.08, 1.03, 1.04}},
	} {
		got, want, gotChild, wantChild := ssspAgainstCapture(t, run.capture, run.kernel, run.graph, run.kv)
		g, w := heldOutRelaxations(t, run.capture, got, want, run.steps)
		t.Logf("%s: relaxation kernels: model %.0f cycles, captured %.0f (%.2f×); children: model %d, captured %d", run.capture, g, w, g/w, len(gotChild), len(wantChild))
		heldOut(t, run.capture+" relaxation kernels", g/w, run.worst)
		if len(wantChild) > 0 {
			heldOut(t, run.capture+" children", float64(len(gotChild))/float64(len(wantChild)), run.children)
		}
	}
}

// heldOutRelaxations holds each relaxation's kernel to its guard in
// worst (a relaxation past the guards' end is logged only), and gives
// the model's and the capture's sums.
func heldOutRelaxations(t *testing.T, name string, got, want []dlKernelTimes, worst []float64) (g, w float64) {
	t.Helper()
	for i := range got {
		g, w = g+got[i].span, w+want[i].span
		t.Logf("relaxation %d: model %.0f cycles, captured %.0f (%.2f×)", i+1, got[i].span, want[i].span, got[i].span/want[i].span)
		if i < len(worst) {
			heldOut(t, fmt.Sprintf("%s relaxation %d kernel", name, i+1), got[i].span/want[i].span, worst[i])
		}
	}
	return g, w
}

// TestSSSPHeldOutRmat7 replays sssp code=dragonli, CDP and Reg
// (variant=flat), on the R-MAT graph of 128 vertices and 990 arcs of
// captures dragonli-sssp-rmat7-cdp and -reg (validation/gpgpusim/whatif;
// the graph is rmat.py 7 8 1's), against GPGPU-Sim's runs: held out, no
// constant was fitted on them. The Reg run's warps hold up to 32 looping
// lanes, the CDP run's the lanes its sites leave; both relax 6 times.
// Before a warp's diverged lanes ran their loops in turn
// the relaxation kernels took 0.54× (Reg) and 0.69×
// (CDP) the captures'.
func TestSSSPHeldOutRmat7(t *testing.T) {
	for _, run := range []struct {
		name, kernel string
		kv           string
		worst        float64 // today's and a little
	}{
		{"reg", "ssspRegExpandKernel", "variant=flat", 1.04},      // 1.02× today (0.97× before dlLoops, 0.80× before the one-lane refit)
		{"cdp", "ssspCdpExpandKernel", "site_threshold=31", 1.09}, // 0.94× today (0.86× before the CDP clock, 0.80× before that)
	} {
		got, want, _, _ := ssspAgainstCapture(t, "dragonli-sssp-rmat7-"+run.name, run.kernel, "rmat-7-8-1.gr.xz", run.kv)
		var g, w float64
		for i := range got {
			g, w = g+got[i].span, w+want[i].span
		}
		t.Logf("%s: relaxation kernels: model %.0f cycles, captured %.0f (%.2f×)", run.name, g, w, g/w)
		heldOut(t, "rmat7 "+run.name+" relaxation kernels", g/w, run.worst)
	}
}

// regTraceOn is sssp code=dragonli variant=flat (Dragon_li's Reg code) on
// the what-if graph graphXZ, ready to run (records) or to drive its
// solver.
func regTraceOn(t *testing.T, graphXZ string) *ssspTrace {
	t.Helper()
	graph := filepath.Join(t.TempDir(), strings.TrimSuffix(graphXZ, ".xz"))
	unxz(t, filepath.Join(whatifDir, graphXZ), graph)
	c, err := parseSSSP(mustParams(t, "sssp", "graph="+graph, "code=dragonli", "variant=flat"))
	if err != nil {
		t.Fatal(err)
	}
	rng := newSeeded(c.seed)
	g := c.graph.draw(rng)
	root, _ := c.graph.root(rng.Rand, g)
	return &ssspTrace{g: g, weight: c.graph.file.weights, root: root, block: c.block, threshold: c.threshold, iters: c.iters,
		loop: c.loop, loopGiven: c.loopGiven, dragonli: c.dragonli}
}

// whatifDir holds the what-if pairs' captures.
const whatifDir = "../validation/gpgpusim/whatif"

// unxz decompresses the xz file src into dst.
func unxz(t *testing.T, src, dst string) {
	t.Helper()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, xztest.Open(t, src)); err != nil {
		t.Fatal(err)
	}
}

// xzLines scans the xz file at path line by line, lines of up to max
// bytes.
func xzLines(t *testing.T, path string, max int) *bufio.Scanner {
	t.Helper()
	sc := bufio.NewScanner(xztest.Open(t, path))
	sc.Buffer(make([]byte, 0, 1<<16), max)
	return sc
}

// TestJoinHeldOut30720 replays join (algo=merge) on the input shape of
// capture dragonli-join-30720-cdp (testJoin -l 30720 -r 64 -m 16: 30,720
// uniform keys below 16 on the left, 64 on the right), where one right
// key matches whole 128-key left blocks and children launch, against
// GPGPU-Sim's run, both under CDP on the captured GPU: held out, as the
// fit was made on the 1,024-key input (TestJoinFitsCapture) and
// join_gather's DRAM term at 61,440 keys (TestJoinGatherDRAMFit61440).
// The keys are the generator's draw of the same distribution: 904
// launches to the capture's 897, 123,444 matches to its 122,920.
func TestJoinHeldOut30720(t *testing.T) {
	const capture = "dragonli-join-30720-cdp"
	busiestAtomsHeldOut(t, capture, 30720, 1.09, 1.06) // 1.06×; its busy share 1.04× (0.457 to 0.441)
	got, want := joinCaptureTimes(t, capture, 30720)
	heldOutRows(t, "join-30720 ", []heldOutRow{
		{"makespan", got.makespan, want.makespan, 1 / 0.96},                                                                      // 0.98× (0.91× before join_gather's DRAM term)
		{"children launched", got.children, want.children, 1.05},                                                                 // 1.01×
		{"a child's CTA", got.childCTA, want.childCTA, 1.08},                                                                     // 0.95×
		{"the main join kernel", got.main, want.main, 1 / 0.94},                                                                  // 0.96×
		{"the bounds kernel (fitted at 1,024 keys)", got.bounds, want.bounds, 1.02},                                              // 1.00× (0.95× with the cold start at 170 a line)
		{"the gather kernel", got.gather, want.gather, 1.18},                                                                     // 1.15× (1.41× with 61,440 keys' busy share, 0.27× before its DRAM term): its traffic 1.06×, its busy share 1.04× (docs/calibration.md)
		{"the warm join_scan_blocks (its step fitted at 1,024 keys)", got.scans["blocks"][1], want.scans["blocks"][1], 1 / 0.81}, // 0.83×: 2 of its lines an SM came from DRAM here
		{"the warm join_scan_totals", got.scans["totals"][1], want.scans["totals"][1], 1.08},                                     // 1.06×
		{"the warm join_scan_distribute", got.scans["distribute"][1], want.scans["distribute"][1], 1 / 0.93},                     // 0.95×
	})
}

// joinTimes are what TestJoinHeldOut30720 compares of a join run.
type joinTimes struct {
	makespan, children, childCTA, main, bounds, gather float64
	scans                                              map[string][]float64 // each scan kernel's spans in order: blocks, totals, distribute
}

// joinRun replays a join trace (the generator's or a capture's, whose
// kernels are named join_main and join_bounds or Dragon_li's mangled
// joinCdpMainJoinKernel and joinRegFindBoundsKernel) under cdp.
func joinRun(t *testing.T, recs []trace.Record, cfg model.Config) joinTimes {
	t.Helper()
	rows, st := recorded(t, recs, cfg, "cdp")
	jt := joinTimes{makespan: float64(st.MakespanCycles), scans: map[string][]float64{}}
	device := map[uint64]bool{}
	for _, k := range rows.Kernels {
		span := float64(k.EndCycle - k.StartCycle)
		switch {
		case k.Origin == "device":
			device[k.KernelID] = true
			jt.children++
		case strings.Contains(k.Name, "join_main") || strings.Contains(k.Name, "MainJoinKernel"):
			jt.main += span
		case strings.Contains(k.Name, "join_bounds") || strings.Contains(k.Name, "FindBoundsKernel"):
			jt.bounds += span
		case strings.Contains(k.Name, "join_gather") || strings.Contains(k.Name, "GatherKernel"):
			jt.gather += span
		case strings.Contains(k.Name, "join_scan_blocks") || strings.Contains(k.Name, "scanBlocks"):
			jt.scans["blocks"] = append(jt.scans["blocks"], span)
		case strings.Contains(k.Name, "join_scan_totals") || strings.Contains(k.Name, "scanTotals"):
			jt.scans["totals"] = append(jt.scans["totals"], span)
		case strings.Contains(k.Name, "join_scan_distribute") || strings.Contains(k.Name, "scanDistribute"):
			jt.scans["distribute"] = append(jt.scans["distribute"], span)
		}
	}
	var ctas float64
	for _, c := range rows.CTAs {
		if device[c.KernelID] {
			jt.childCTA += float64(c.EndCycle - c.StartCycle)
			ctas++
		}
	}
	jt.childCTA /= ctas
	return jt
}

// TestSSSPIdleQueueHeldOut holds the empty CTAs' queue on their SM
// (idleQueueWait, fitted on dragonli-sssp-sample's staircases) to the
// R-MAT captures, CDP: the median CTA of each warm relaxation, CTA 0
// aside (a few busy CTAs do not move a median of 103), model over
// capture. Before the queue it was the lone CTA's 303 cycles against
// the captures' 558 (0.54×).
func TestSSSPIdleQueueHeldOut(t *testing.T) {
	for _, run := range []struct {
		capture, graph string
		worst          float64 // today's and a little
	}{
		{"dragonli-sssp-rmat7-cdp", "rmat-7-8-1.gr", 1.11},    // 1.09× today
		{"dragonli-sssp-rmat11-cdp", "rmat-11-16-1.gr", 1.06}, // 1.04× today
	} {
		var sink sliceSink
		if _, err := gpgpusim.Convert(filepath.Join(whatifDir, run.capture+".log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		cfg := capturedConfig(t, sink.recs)
		want := emptyMedians(t, sink.recs, cfg, "ssspCdpExpandKernel")
		if err := cfg.Set("cdp.stream_create", "7200"); err != nil {
			t.Fatal(err)
		}
		graph := filepath.Join(t.TempDir(), run.graph)
		unxz(t, filepath.Join(whatifDir, run.graph+".xz"), graph)
		got := emptyMedians(t, generate(t, "sssp", "graph="+graph, "code=dragonli", "site_threshold=31"), cfg, "sssp_relax")
		if len(got) != len(want) || len(got) < 3 {
			t.Fatalf("%s: model %d relaxations, capture %d", run.capture, len(got), len(want))
		}
		var g, w float64
		for i := 1; i < len(got); i++ { // the first relaxation runs cold
			g, w = g+got[i], w+want[i]
		}
		t.Logf("%s: the median CTA of the warm relaxations: model %.0f cycles, captured %.0f (%.2f×)", run.capture, g/float64(len(got)-1), w/float64(len(got)-1), g/w)
		heldOut(t, run.capture+" empty CTAs", g/w, run.worst)
	}
}

// emptyMedians replays recs under cdp on cfg and returns, for each host
// kernel whose name contains parent, the median cycles of its CTAs but
// CTA 0.
func emptyMedians(t *testing.T, recs []trace.Record, cfg model.Config, parent string) []float64 {
	t.Helper()
	rows, _ := recorded(t, recs, cfg, "cdp")
	slices.SortFunc(rows.Kernels, func(a, b tables.Kernel) int { return cmp.Compare(a.KernelID, b.KernelID) })
	byKernel := map[uint64][]int64{}
	for _, c := range rows.CTAs {
		if c.CTA != 0 {
			byKernel[c.KernelID] = append(byKernel[c.KernelID], int64(c.EndCycle-c.StartCycle))
		}
	}
	var out []float64
	for _, k := range rows.Kernels {
		if k.Origin == "device" || !strings.Contains(k.Name, parent) {
			continue
		}
		c := byKernel[k.KernelID]
		slices.Sort(c)
		out = append(out, float64(c[len(c)/2]))
	}
	return out
}

// TestSSSPFitsTreeRoot holds the one-lane loop's costs to the second
// capture they were solved from (ssspcost.go): dragonli-sssp-tree-reg's
// first relaxation, whose CTA 0 is the root's one lane looping over its
// 200 edges, every one lowering. The model prices it as its prologue, 200
// edges and lowerings, the cold start (coldstart.go) and the final empty
// pass: ±1%.
func TestSSSPFitsTreeRoot(t *testing.T) {
	var sink sliceSink
	if _, err := gpgpusim.Convert(filepath.Join(whatifDir, "dragonli-sssp-tree-reg.log.xz"), &sink, gpgpusim.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	cfg := capturedConfig(t, sink.recs)
	want, _ := replayDragonli(t, sink.recs, cfg, "ssspRegExpandKernel")
	got, _ := replayDragonli(t, generate(t, "sssp", "graph="+filepath.Join(whatifDir, "dragonli-tree-200-4x150.gr"), "code=dragonli", "variant=flat"), cfg, "sssp_relax")
	if len(got) == 0 || len(want) == 0 {
		t.Fatalf("model %d relaxations, capture %d", len(got), len(want))
	}
	e := relErr(got[0].cta0, want[0].cta0)
	t.Logf("the root's CTA: model %.0f cycles, captured %.0f (%+.1f%%)", got[0].cta0, want[0].cta0, 100*e)
	if e > 0.01 || e < -0.01 {
		t.Errorf("the tree's root CTA: %+.1f%%, allowed ±1%% (fitted)", 100*e)
	}
}

// childLaunchCTAs is the CTA cycles of each device-launched kernel of
// recs whose name contains part, in launch order.
func childLaunchCTAs(recs []trace.Record, part string) [][]int64 {
	idx := map[uint64]int{}
	names := map[uint64]string{}
	var out [][]int64
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.Kernel:
			names[r.ID] = r.Name
		case *trace.Launch:
			if r.Parent != nil && strings.Contains(names[r.Kernel], part) {
				idx[r.Kernel] = len(out)
				out = append(out, nil)
			}
		case *trace.CTA:
			if i, ok := idx[r.Kernel]; ok {
				out[i] = append(out[i], r.Cycles)
			}
		}
	}
	return out
}
