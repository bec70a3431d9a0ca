package replay_test

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// discarder is a recorder that keeps no rows (tables.Discarder).
type discarder struct{ recorder }

func (*discarder) DiscardsRows() bool { return true }

// A sink that keeps no rows gets no CTA, kernel or launch row, and the
// replay's totals are those of a replay whose sink keeps them all: every
// generator under CDP, DTBL, SPAWN and flat (the contention model on, as the
// generators record demands). Fails when a total comes from a row the
// engine skipped, or when the engine builds the rows all the same.
func TestDiscardingSinkSameStats(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every generator twice")
	}
	pair := func() (tables.Sink, tables.Sink) { return &recorder{}, &discarder{} }
	replayPairs(t, []string{"cdp", "dtbl", "spawn", "flat"}, func(bool) {}, pair, func(gen, pol string, a, b *replay.Stats, ra, rb tables.Sink) {
		rec, quiet := ra.(*recorder), rb.(*discarder)
		if *a != *b {
			t.Errorf("%s under %s: totals differ with a discarding sink:\n%+v\n%+v", gen, pol, *a, *b)
		}
		if n := len(quiet.CTAs) + len(quiet.Kernels) + len(quiet.Launches); n != 0 || len(rec.CTAs) == 0 {
			t.Errorf("%s under %s: %d rows built for a discarding sink (%d CTA rows for a recorder)", gen, pol, n, len(rec.CTAs))
		}
	})
}

// With the contention model off, a replay whose sink keeps no rows (a
// plain run: its host CTAs end with no record, plainend.go) has the
// totals of one whose sink keeps them all (each CTA a record, its end
// ctaEnd's), for every generator under CDP and flat. Fails where a plain
// end counts a CTA's warp-cycles, stall or end otherwise, or frees its
// room otherwise.
func TestPlainEndsSameStats(t *testing.T) {
	cfg, err := model.Preset("k20c")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model.Contention = model.Off
	for _, g := range samples.List() {
		if testing.Short() && g.Name != "synth" {
			continue
		}
		data := generateBytes(t, g.Name, smallParams[g.Name]...)
		for _, name := range []string{"cdp", "flat"} {
			run := func(sink tables.Sink) (*replay.Stats, error) {
				pol, err := policies.New(name, cfg)
				if err != nil {
					t.Fatal(err)
				}
				open := func() (trace.Source, error) { return trace.NewReader(bytes.NewReader(data)) }
				return replay.Run(open, replay.Options{Config: cfg, Policy: pol}, sink)
			}
			a, errA := run(&recorder{})
			b, errB := run(&discarder{})
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s under %s: errors %v and %v", g.Name, name, errA, errB)
			}
			if errA == nil && *a != *b {
				t.Errorf("%s under %s: totals differ with a discarding sink:\n%+v\n%+v", g.Name, name, *a, *b)
			}
		}
	}
}
