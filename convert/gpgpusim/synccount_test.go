package gpgpusim

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// TestSyncCounts converts committed logs and counts the sync records
// each must carry, by the rule of sync.go: one device sync after every
// launch into stream 0 (GPGPU-Sim's push blocks the host until the GPU
// is empty), one before it where a launch into another stream still
// ran (no committed log mixes streams so), one per cudaDeviceSynchronize,
// and one per cudaEventSynchronize that waited (at, those that returned
// at their call, are not written: every committed capture's).
func TestSyncCounts(t *testing.T) {
	for _, c := range []struct {
		log              string
		syncs, event, at int
		why              string
	}{
		{"testdata/real/vecadd.log.xz", 1, 0, 0, "one launch into stream 0; the program then copies the result back, which the log does not show"},
		{"testdata/real/imbalance.log.xz", 3, 0, 0, "two launches into stream 0, then cudaDeviceSynchronize"},
		{"../../validation/gpgpusim/whatif/streams-cks0.log.xz", 1, 0, 0, "16 launches into created streams 1-4, which do not block, then one cudaDeviceSynchronize waiting for all of them"},
		{"../../validation/gpgpusim/workloads/matrixmul-64.log.xz", 1, 0, 1, "5 launches into a created stream, one cudaDeviceSynchronize; the timing's cudaEventSynchronize after it returned at its call"},
		{"../../validation/gpgpusim/captures/dragonli-bfs-sample.log.xz", 28, 0, 6, "14 BFS levels, each a launch into stream 0 and a cudaDeviceSynchronize; the host's timing's 6 cudaEventSynchronize returned at their call"},
		{"../../validation/gpgpusim/whatif/dragonli-join-30720-cdp.log.xz", 12, 0, 0, "9 launches into stream 0 and 3 cudaDeviceSynchronize (JOIN synchronises after its main join)"},
		{"../../validation/gpgpusim/hostloop/eventsync-sm80-lat5000.log.xz", 9, 0, 4, "eventstreams with the real calls, at PTX_SIM_DEBUG=3: 4 event records and 4 stream waits (events.go), its 4 cudaEventSynchronize return at their call (the simulator does not wait), then one cudaDeviceSynchronize"},
		{"../../validation/gpgpusim/workloads/hotspot-256.log.xz", 5, 0, 0, "5 launches into stream 0 and no explicit synchronisation"},
	} {
		t.Run(filepath.Base(c.log), func(t *testing.T) {
			in, err := OpenLog(c.log)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			r := NewReader(in, c.log, DefaultOptions())
			n, last := 0, int64(0)
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				// The host's operations are in program order, each made
				// no earlier than the one before returned.
				switch x := rec.(type) {
				case *trace.Sync:
					n++
					if x.T < last {
						t.Errorf("sync %d at %d, before the host's previous return %d", n, x.T, last)
					}
					last = x.Returned()
				case *trace.Launch:
					if x.Parent == nil {
						if x.T < last {
							t.Errorf("kernel %d launched at %d, before the host's previous return %d", x.Kernel, x.T, last)
						}
						last = x.T
					}
				}
			}
			sum := r.Summary()
			if n != c.syncs || sum.Syncs != c.syncs || sum.EventSyncs != c.event || sum.EventSyncsAtCall != c.at {
				t.Errorf("%d sync records (summary %d, %d of them cudaEventSynchronize, %d not written); want %d, %d, %d: %s", n, sum.Syncs, sum.EventSyncs, sum.EventSyncsAtCall, c.syncs, c.event, c.at, c.why)
			}
		})
	}
}
