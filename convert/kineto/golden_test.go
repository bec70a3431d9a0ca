package kineto

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// TestSyncsGolden converts testdata/syncs.json, a hand-written profile
// with every kind of sync call and copy, at 1000 MHz (a µs is 1000
// cycles) and compares its records other than the header and the ctas
// with testdata/syncs.jsonl, worked out by hand:
//
// The default preset's latencies are lat.host_issue 3500, lat.host_launch
// 5000 and lat.kernel_dispatch 283 cycles, so a kernel is ready 8783
// cycles after its issue and a copy 8500. Counted from the first call
// (ts 1000 µs), the ops start at 20000 (k1), 30000 (the cudaMemcpy),
// 60000 (k2), 80000 and 110000 (the copies); going backwards, each is
// issued at its start less its readiness (no op is held up by the next
// one's issue), so k1 at 11217 (t = 0, origin_ts_us 1011.217) and the
// others at t 10283, 40000, 60283 and 90283. A sync's t is its call's
// ts mapped the same way, (ts − 1000 µs) × 1000 − 11217, and its ret
// ts + dur:
//
//   - the cudaDeviceSynchronize at 990 µs comes before the first op: dropped;
//   - the cudaMemcpy (1010 + 30 µs) blocks: ret 28783;
//   - the cudaEventRecord at 1045 µs is awaited by the Stream Wait Event
//     of stream 8 (wait_on_cuda_event_record_corr_id 4, wait_on_stream 7):
//     record of event 1 on stream 7 at 33783, wait of stream 8 at 35783;
//   - the pageable cudaMemcpyAsync (1060 + 25 µs) blocks: ret 73783;
//   - the Stream Sync's tid is 1000008 and it has no args.stream: stream
//     8, t 74783, ret 77783;
//   - the second cudaEventRecord (1090) is awaited by nothing, the
//     cudaStreamWaitEvent at 1091 has no cuda_sync event and the
//     cudaEventSynchronize at 1092 awaits a record (correlation 99) the
//     profile lacks: all three dropped;
//   - the pinned cudaMemcpyAsync at 1100 returns at once;
//   - the cudaStreamSynchronize at 1105 (+10) has no cuda_sync event: the
//     stream of the copy its thread issued before it, 7;
//   - the cudaDeviceSynchronize at 1120 is device 1's: dropped;
//   - the cudaEventSynchronize at 1125 (+2) awaits the first record:
//     event 1; the cudaDeviceSynchronize at 1130 (+5): device.
//
// lat.host_sync: the blocking calls' costs beyond the last op to end
// before they returned (ends 1030, 1035, 1080, 1082, 1112 µs) are 5
// (the cudaMemcpy, 1035–1040), 3 (the pageable copy, 1082–1085), 3
// (1086–1089), 3 (1112–1115), 2 (1125–1127) and 5 µs (1130–1135):
// median 3 µs, 3000 cycles.
func TestSyncsGolden(t *testing.T) {
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	sum, err := Convert("testdata/syncs.json", jw, Options{profile.Common{ClockMHz: 1000, Device: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	recs := validated(t, buf.String())
	h := recs[0].(*trace.Header)
	for k, want := range map[string]string{"set.lat.host_sync": "3000", "host_sync_from": "median of 6 blocking calls", "origin_ts_us": "1011.217", "lat.kernel_dispatch": "283"} {
		if h.Meta[k] != want {
			t.Errorf("meta %s = %q, want %q", k, h.Meta[k], want)
		}
	}
	const wantSum = "kineto: 2 kernels, 216 CTAs, 3 memcpys, 6 syncs on NVIDIA A100-SXM4-40GB at 1000 MHz (option clock_mhz); not converted: " +
		"1 cuda_runtime:cudaDeviceSynchronize (before the profile's first GPU op), 1 cuda_runtime:cudaDeviceSynchronize (other device), " +
		"1 cuda_runtime:cudaEventRecord (no converted sync waits for it), 1 cuda_runtime:cudaEventSynchronize (the cudaEventRecord it waits for is not in the profile), " +
		"1 cuda_runtime:cudaStreamWaitEvent (no cuda_sync event names its event), 3 cuda_sync"
	if sum.String() != wantSum {
		t.Errorf("summary\n%s\nwant\n%s", sum, wantSum)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n")[1:] {
		if !strings.HasPrefix(l, `{"type":"cta"`) {
			got = append(got, l)
		}
	}
	golden, err := os.ReadFile("testdata/syncs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(golden)), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		// Compared as JSON objects: the order of a record's keys is the
		// encoder's business.
		var g, w map[string]any
		if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
			t.Fatalf("testdata/syncs.jsonl line %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("record %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}
