package nsys

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/trace"
)

// kernelRows is a results.Sink that keeps the kernels table.
type kernelRows struct{ rows []results.Kernel }

func (r *kernelRows) Kernel(x results.Kernel)   { r.rows = append(r.rows, x) }
func (*kernelRows) CTA(results.CTA)             {}
func (*kernelRows) Launch(results.Launch)       {}
func (*kernelRows) Occupancy(results.Occupancy) {}
func (*kernelRows) Page(results.Page)           {}
func (*kernelRows) Stage(results.Stage)         {}

// TestReplayMatchesProfile converts the base fixture, replays it on the
// captured GPU under cdp, and checks each kernel's replayed duration
// against the measured one (the wave estimate is built so that a kernel
// running alone takes as long as it did when profiled), and that the
// stream wait holds relu back until gemm has finished.
func TestReplayMatchesProfile(t *testing.T) {
	for _, clock := range []string{"0", "1000"} { // the report's clockRate, and an override
		o := DefaultOptions()
		if err := o.Set("clock_mhz", clock); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := trace.NewWriter(&buf)
		if _, err := Convert(baseFixture().write(t), w, o); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, mhz := replayCaptured(t, buf.Bytes())
		measured := map[uint64]float64{1: 30, 2: 20, 3: 10} // µs, by kernel id
		if len(rows) != len(measured) {
			t.Fatalf("%d kernels replayed, want %d", len(rows), len(measured))
		}
		byID := map[uint64]results.Kernel{}
		for _, k := range rows {
			byID[k.KernelID] = k
			got, want := float64(k.EndCycle-k.StartCycle)/mhz, measured[k.KernelID]
			if got < want*0.9 || got > want*1.1 {
				t.Errorf("clock_mhz=%s: kernel %d (%s) ran %.3f µs, the report says %.3f µs", clock, k.KernelID, k.Name, got, want)
			}
			t.Logf("clock_mhz=%s: kernel %d: replayed %.3f µs, measured %.3f µs", clock, k.KernelID, got, want)
		}
		if gemm, relu := byID[1], byID[2]; relu.StartCycle < gemm.EndCycle {
			t.Errorf("relu started at cycle %d, before gemm (which its stream waits for) ended at %d", relu.StartCycle, gemm.EndCycle)
		}
	}
}

// replayCaptured replays a binary trace on the GPU its header records
// (what --gpu=captured does) under cdp, returning the kernels table and
// the replay clock in MHz.
func replayCaptured(t *testing.T, bin []byte) ([]results.Kernel, float64) {
	t.Helper()
	open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(bin)) }
	src, err := open()
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.Next()
	if err != nil {
		t.Fatal(err)
	}
	h := r.(*trace.Header)
	base, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.FromSpec(base, h.GPU, h.GPUSpec)
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &kernelRows{}
	if _, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, rec); err != nil {
		t.Fatal(err)
	}
	return rec.rows, cfg.GPU.ClockMHz
}
