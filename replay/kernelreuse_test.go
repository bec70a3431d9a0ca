package replay_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// Reusing completed device kernels' running parts changes no row: every
// generator with device launches, under CDP, DTBL, SPAWN, the threshold
// policy and PPCS, gives the same Stats and rows with the reuse and
// without it. (A
// completed kernel loses its parts when they are reused, so anything
// that read them late would fail here, or in every other replay test.)
func TestKernelRunReuseChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every generator twice")
	}
	defer replay.SetKernelRunReuse(true)
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{"synth": {"kernels=4", "ctas=200", "site_rate=0.2"}, "join": {"r_tuples=8192", "s_tuples=8192"}}
	replayed := 0
	for _, g := range samples.List() {
		data := generateBytes(t, g.Name, params[g.Name]...)
		// CDP, the two that run fewer kernels, and one that keeps SMs apart.
		for _, name := range []string{"cdp", "dtbl", "spawn", "threshold", "ppcs"} {
			run := func(reuse bool) (*replay.Stats, *recorder, error) {
				pol, err := policies.New(name, cfg)
				if err != nil {
					t.Fatal(err)
				}
				replay.SetKernelRunReuse(reuse)
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				rec := &recorder{}
				st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Prefetch: true}, rec)
				return st, rec, err
			}
			a, ra, err := run(true)
			if err != nil || a.DeviceKernels == 0 {
				continue // no device kernel ran: nothing was reused (errors are TestEveryGeneratorUnderEveryPolicy's)
			}
			b, rb, err := run(false)
			if err != nil {
				t.Fatalf("%s under %s without reuse: %v", g.Name, name, err)
			}
			if *a != *b || !reflect.DeepEqual(ra, rb) {
				t.Errorf("%s under %s: the replay with reuse differs from the one without", g.Name, name)
			}
			replayed++
		}
	}
	if replayed == 0 {
		t.Fatal("no generator ran a device kernel")
	}
}
