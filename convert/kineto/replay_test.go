package kineto_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/convert/kineto"
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

// TestReplayMatchesProfile converts the samples, replays them on the
// captured GPU under cdp, and checks each kernel's replayed duration
// against the profile's dur: the wave estimate is built so that a kernel
// running alone takes as long as it did when profiled.
func TestReplayMatchesProfile(t *testing.T) {
	for _, tc := range []struct {
		file string
		durs []float64 // the profile's kernel durations, µs, in launch order
	}{
		{"testdata/event_sync_trace.json", []float64{1, 11, 1, 36}},
		{"testdata/triton_example.json", []float64{1.76}},
		{"testdata/rocm.json", []float64{12.5, 40, 8}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var buf bytes.Buffer
			w := trace.NewWriter(&buf)
			if _, err := kineto.Convert(tc.file, w, kineto.DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			rows, clock := replayCaptured(t, buf.Bytes())
			if len(rows) != len(tc.durs) {
				t.Fatalf("%d kernels replayed, want %d", len(rows), len(tc.durs))
			}
			for _, k := range rows {
				got := float64(k.EndCycle-k.StartCycle) / clock
				want := tc.durs[k.KernelID-1]
				if got < want*0.9 || got > want*1.1 {
					t.Errorf("kernel %d (%s) ran %.3f µs, profile says %.3f µs", k.KernelID, k.Name, got, want)
				}
				t.Logf("kernel %d: replayed %.3f µs, profiled %.3f µs", k.KernelID, got, want)
			}
		})
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
