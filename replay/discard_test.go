package replay_test

import (
	"testing"

	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
)

// discarder is a recorder that keeps no rows (tables.Discarder).
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
	pair := func() (tables.Sink, tables.Sink) { return &recorder{}, &discarder{} }
	replayPairs(t, []string{"cdp", "dtbl", "spawn"}, func(bool) {}, pair, func(gen, pol string, a, b *replay.Stats, ra, rb tables.Sink) {
		rec, quiet := ra.(*recorder), rb.(*discarder)
		if *a != *b {
			t.Errorf("%s under %s: totals differ with a discarding sink:\n%+v\n%+v", gen, pol, *a, *b)
		}
		if n := len(quiet.CTAs) + len(quiet.Kernels) + len(quiet.Launches); n != 0 || len(rec.CTAs) == 0 {
			t.Errorf("%s under %s: %d rows built for a discarding sink (%d CTA rows for a recorder)", gen, pol, n, len(rec.CTAs))
		}
	})
}
