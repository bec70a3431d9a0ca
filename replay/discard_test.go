package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// discarder is a recorder that keeps no rows (results.Discarder).
type discarder struct{ recorder }

func (*discarder) DiscardsRows() bool { return true }

// A sink that keeps no rows gets no CTA, kernel or launch row, and the
// replay's totals are those of a replay whose sink keeps them all: every
// generator under CDP, DTBL and SPAWN (the contention model on, as the
// generators record demands). Fails when a total comes from a row the
// engine skipped, or when the engine builds the rows all the same.
func TestDiscardingSinkSameStats(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every generator twice")
	}
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{"synth": {"kernels=4", "ctas=200", "site_rate=0.2"}, "join": {"r_tuples=8192", "s_tuples=8192"}}
	for _, g := range samples.List() {
		data := generateBytes(t, g.Name, params[g.Name]...)
		for _, name := range []string{"cdp", "dtbl", "spawn"} {
			run := func(sink results.Sink) (*replay.Stats, error) {
				pol, err := policies.New(name, cfg)
				if err != nil {
					t.Fatal(err)
				}
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				return replay.Run(open, replay.Options{Config: cfg, Policy: pol, Prefetch: true}, sink)
			}
			rec, quiet := &recorder{}, &discarder{}
			a, errA := run(rec)
			b, errB := run(quiet)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s under %s: errors %v and %v", g.Name, name, errA, errB)
			}
			if errA != nil {
				continue // TestEveryGeneratorUnderEveryPolicy's
			}
			if *a != *b {
				t.Errorf("%s under %s: totals differ with a discarding sink:\n%+v\n%+v", g.Name, name, *a, *b)
			}
			if n := len(quiet.ctas) + len(quiet.kernels) + len(quiet.launches); n != 0 || len(rec.ctas) == 0 {
				t.Errorf("%s under %s: %d rows built for a discarding sink (%d CTA rows for a recorder)", g.Name, name, n, len(rec.ctas))
			}
		}
	}
}
