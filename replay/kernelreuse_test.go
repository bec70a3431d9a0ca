package replay_test

import (
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
)

// Reusing completed device kernels' running parts changes no row: every
// generator with device launches, under CDP, DTBL, SPAWN, the threshold
// policy and PPCS, gives the same Stats and rows with the reuse and
// without it. (A completed kernel loses its parts when they are reused,
// so anything that read them late would fail here, or in every other
// replay test.)
func TestKernelRunReuseChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every generator twice")
	}
	replayed := 0
	pair := func() (tables.Sink, tables.Sink) { return &recorder{}, &recorder{} }
	replayPairs(t, []string{"cdp", "dtbl", "spawn", "threshold", "ppcs"}, replay.SetKernelRunReuse, pair, func(gen, pol string, a, b *replay.Stats, ra, rb tables.Sink) {
		if a.DeviceKernels == 0 {
			return // no device kernel ran: nothing was reused
		}
		if *a != *b || !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s under %s: the replay with reuse differs from the one without", gen, pol)
		}
		replayed++
	})
	if replayed == 0 {
		t.Fatal("no generator ran a device kernel")
	}
}
