package nsys

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// TestReplayMatchesProfile converts the base fixture, replays it as
// `replay --gpu=captured --policy=cdp` does, and compares the replay with
// the report's timeline, read here from the fixture's rows rather than by
// the importer:
//   - each kernel lasts its measured duration within 10% (the wave
//     estimate is built so that a kernel running alone takes as long as
//     it did when profiled);
//   - each kernel starts at its profiled start within 1% of the report's
//     busy span: the timing mapping issues every op so that it is ready
//     on the GPU by then, and the header's meta origin_ns says which
//     report time the replay's cycle 0 (t = 0) stands for;
//   - the replay's GPU busy span (summary busy_cycles: first CTA or copy
//     start to last end) is within 10% of the report's (first converted
//     kernel or copy start to last end);
//   - the stream wait holds relu back until gemm has finished.
//
// The fixture's host issues the first copy and gemm 1 µs apart, faster
// than the model's host (lat.host_issue, 3.5 µs), so the copy is issued,
// and starts, 2 µs early: the busy span comes out 3% long. In "queued",
// four more 1 µs kernels on relu's stream are launched 100 ns apart while
// relu runs and start back to back after it: they are issued at the
// model host's pace, ready early, and start when their stream frees.
func TestReplayMatchesProfile(t *testing.T) {
	for _, tc := range []struct {
		name, clock string
		queued      bool
	}{
		{"clockRate", "0", false}, {"clock_mhz=1000", "1000", false}, {"queued", "0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			if err := o.Set("clock_mhz", tc.clock); err != nil {
				t.Fatal(err)
			}
			f := baseFixture()
			if tc.queued {
				for i := range int64(4) {
					f.call(20+i, 34000+100*i, 4)
					f.kernel(20+i, 0, 13, 53600+1100*i, 54600+1100*i, 11, [6]int64{1, 1, 1, 32, 1, 1}, 8, 0, 0)
				}
			}
			var buf bytes.Buffer
			w := trace.NewWriter(&buf)
			if _, err := Convert(f.write(t), w, o); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			checkReplay(t, f.timeline(0), replayCaptured(t, buf.Bytes()))
		})
	}
}

// checkReplay compares a replay with the report's timeline.
func checkReplay(t *testing.T, prof *timeline, run *replayed) {
	t.Helper()
	us := func(cycles int64) float64 { return float64(cycles) / run.clock }
	if len(run.kernels) != len(prof.kernels) {
		t.Fatalf("%d kernels replayed, the report has %d", len(run.kernels), len(prof.kernels))
	}
	sort.SliceStable(run.kernels, func(i, j int) bool { return run.kernels[i].StartCycle < run.kernels[j].StartCycle })
	span := prof.end - prof.start
	for i, k := range run.kernels {
		want := prof.kernels[i]
		if k.Name != want.name {
			t.Fatalf("kernel %d to start replayed is %q, the report's is %q", i+1, k.Name, want.name)
		}
		if got := us(k.EndCycle - k.StartCycle); math.Abs(got-want.dur) > 0.1*want.dur {
			t.Errorf("kernel %d (%s) ran %.3f µs, the report says %.3f µs", k.KernelID, k.Name, got, want.dur)
		}
		off := us(k.StartCycle) - (want.start - run.origin)
		if math.Abs(off) > 0.01*span {
			t.Errorf("kernel %d (%s) started %+.3f µs off its profiled start", k.KernelID, k.Name, off)
		}
		t.Logf("kernel %d (%s): starts %+.3f µs off its profiled start, ran %.3f µs (report %.3f µs)", k.KernelID, k.Name, off, us(k.EndCycle-k.StartCycle), want.dur)
	}
	busy := us(run.busy)
	if math.Abs(busy-span) > 0.1*span {
		t.Errorf("replayed GPU busy span %.3f µs, the report's %.3f µs", busy, span)
	}
	t.Logf("busy span: replayed %.3f µs, report %.3f µs (%+.1f%%); makespan %.3f µs", busy, span, 100*(busy/span-1), us(run.makespan))
	if gemm, relu := run.kernels[0], run.kernels[1]; gemm.Name != fixtureStrings[9] || relu.Name != fixtureStrings[11] || relu.StartCycle < gemm.EndCycle {
		t.Errorf("relu started at cycle %d, before gemm (which its stream waits for) ended at %d", relu.StartCycle, gemm.EndCycle)
	}
}

// timeline is one device's GPU side of a report: its kernels by start,
// and the extent of its kernels and of the copies the importer converts
// (host-to-device and device-to-host, at least one byte), in µs.
type timeline struct {
	kernels    []profiled
	start, end float64
}

type profiled struct {
	name       string
	start, dur float64
}

// timeline reads device dev's timeline from the fixture's rows.
func (f fixture) timeline(dev int64) *timeline {
	p := &timeline{start: math.Inf(1), end: math.Inf(-1)}
	num := func(v any) int64 { n, _ := v.(int64); return n }
	extend := func(r map[string]any) (start, end float64) {
		start, end = float64(num(r["start"]))/1e3, float64(num(r["end"]))/1e3
		p.start, p.end = min(p.start, start), max(p.end, end)
		return start, end
	}
	for _, r := range f[tabKernel].rows {
		if num(r["deviceId"]) == dev {
			start, end := extend(r)
			p.kernels = append(p.kernels, profiled{name: fixtureStrings[num(r["demangledName"])], start: start, dur: end - start})
		}
	}
	for _, r := range f[tabMemcpy].rows {
		if kind := num(r["copyKind"]); num(r["deviceId"]) == dev && (kind == copyHtoD || kind == copyDtoH) && num(r["bytes"]) > 0 {
			extend(r)
		}
	}
	sort.SliceStable(p.kernels, func(i, j int) bool { return p.kernels[i].start < p.kernels[j].start })
	return p
}

// replayed is what a replay of a converted trace gives.
type replayed struct {
	kernels        []tables.Kernel
	busy, makespan int64
	clock          float64 // replay MHz
	origin         float64 // the report time (µs) cycle 0 stands for, from the header
}

// kernelRows is a tables.Sink that keeps the kernels table.
type kernelRows struct{ rows []tables.Kernel }

func (r *kernelRows) Kernel(x tables.Kernel)   { r.rows = append(r.rows, x) }
func (*kernelRows) CTA(tables.CTA)             {}
func (*kernelRows) Launch(tables.Launch)       {}
func (*kernelRows) Occupancy(tables.Occupancy) {}
func (*kernelRows) Page(tables.Page)           {}
func (*kernelRows) Stage(tables.Stage)         {}

// capturedHeader is a binary trace's header and --gpu=captured's
// configuration of it (study.ReadHeader and study.CapturedConfig, which
// read it from a file).
func capturedHeader(t *testing.T, bin []byte) (*trace.Header, model.Config) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "captured.trace.zst")
	if err := os.WriteFile(path, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := study.ReadHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := study.CapturedConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return h, cfg
}

// replayCaptured replays a binary trace as `replay --gpu=captured
// --policy=cdp` does: the default preset with the header's GPU and
// measured settings (model.FromHeader).
func replayCaptured(t *testing.T, bin []byte) *replayed {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bin)) }
	h, cfg := capturedHeader(t, bin)
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	origin, err := strconv.ParseInt(h.Meta["origin_ns"], 10, 64)
	if err != nil {
		t.Fatalf("header meta origin_ns: %v", err)
	}
	rec := &kernelRows{}
	st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rec)
	if err != nil {
		t.Fatal(err)
	}
	return &replayed{kernels: rec.rows, busy: st.BusyCycles, makespan: st.MakespanCycles, clock: cfg.GPU.ClockMHz, origin: float64(origin) / 1e3}
}
