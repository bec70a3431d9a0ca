package replay_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// Every generator's default trace replays under every policy without an
// error (the task runtimes refuse traces with device launches, with a
// clear error), and deterministically: nested launches, coalesced groups and
// controller decisions all meet the engine here.
func TestEveryGeneratorUnderEveryPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every generator")
	}
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{"synth": {"kernels=4", "ctas=200", "site_rate=0.2"}}
	for _, g := range samples.List() {
		data := generateBytes(t, g.Name, params[g.Name]...)
		for _, name := range policies.Names() {
			pol, err := policies.New(name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
			a, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, discard{})
			var me *replay.ModelError
			if pol.Tasks != nil && errors.As(err, &me) && strings.Contains(err.Error(), "host-launched tasks only") {
				continue // task runtimes refuse device launches, by design
			}
			if err != nil {
				t.Errorf("%s under %s: %v", g.Name, name, err)
				continue
			}
			pol, _ = policies.New(name, cfg)
			b, _ := replay.Run(open, replay.Options{Config: cfg, Policy: pol}, discard{})
			if *a != *b {
				t.Errorf("%s under %s: two replays differ: %+v vs %+v", g.Name, name, a, b)
			}
			if a.CTAs == 0 || a.LaunchSites != a.Launched+a.Inlined+a.Coalesced {
				t.Errorf("%s under %s: %d CTAs, %d sites = %d launched + %d inlined + %d coalesced?",
					g.Name, name, a.CTAs, a.LaunchSites, a.Launched, a.Inlined, a.Coalesced)
			}
		}
	}
}
