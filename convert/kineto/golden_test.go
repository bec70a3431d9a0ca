package kineto

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	for k, want := range map[string]string{"set.lat.host_sync": "3000", "host_sync_calls": "6", "origin_ts_us": "1011.217", "lat.kernel_dispatch": "283"} {
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

// TestSyncsOtherThreads: testdata/threads.json's main thread (tid 100)
// waits in a cudaDeviceSynchronize (1010–1072 µs) and a pageable copy
// (1100–1130 µs) while the autograd thread (tid 200) launches kernels
// (1030, 1120 µs). A trace has one host thread, so the sync is dropped
// and the copy written as not blocking; the stream sync at 1150 µs,
// which nothing overlaps, stays, on the copy's stream (7: there is no
// cuda_sync event).
//
// At 1410 MHz from the first call (1000 µs), the ops start at 28200,
// 56400, 155100 (the copy) and 183300 cycles; a kernel is ready 12268
// cycles after its issue and a copy 11985, so going backwards they are
// issued at 171032, 143115, 44132 and 15932 (the origin): the copy's t
// is 127183, and the stream sync's t (150 µs) and ret (153 µs) are
// 211500 − 15932 = 195568 and 215730 − 15932 = 199798.
func TestSyncsOtherThreads(t *testing.T) {
	recs, sum := convertFile(t, "testdata/threads.json", DefaultOptions())
	var got []string
	for _, l := range outline(recs) {
		if strings.HasPrefix(l, "memcpy") || strings.HasPrefix(l, "sync") {
			got = append(got, l)
		}
	}
	want := []string{"memcpy d2h buffer 1 stream 7 t 127183", "sync stream stream 7 t 195568 ret 199798"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := sum.Unused["cuda_runtime:cudaDeviceSynchronize (another host thread issued GPU work while it waited)"]; n != 1 || sum.Syncs != 1 {
		t.Errorf("%d syncs, %d device syncs dropped for other threads; want 1 and 1 (%v)", sum.Syncs, n, sum.Unused)
	}
}

// TestSyncsByEventID converts testdata/eventids.json, whose cuda_sync
// events name the awaited event only by wait_on_cuda_event_id (with
// wait_on_cuda_event_record_corr_id and wait_on_stream −1) and whose
// record calls are cudaEventRecordWithFlags without a cuda_sync event, as
// PyTorch 2.11 writes them. On host thread 100:
//
//   - k1 (stream 7), the record at 1005 µs, k2 (stream 7), the wait of
//     stream 8 on event id 20 at 1009, k3 (stream 8) and the event sync
//     on id 20 at 1013: both await that record, which is on k1's stream
//     7 (k1 is the last launch before it; k2 comes after): record of
//     event 1 on stream 7, wait of stream 8 and event sync on event 1;
//   - the record at 1085, after k3 (stream 8), and the wait of stream 7
//     on id 21 at 1087: record of event 2 on stream 8, wait on event 2;
//   - thread 200 records at 1088, so thread 100's wait on id 21 at 1089
//     is dropped (another thread recorded since its thread's last
//     record), and its event sync on id 22 at 1091 too (a wait for id 21
//     came since that record, which may have been 21's);
//   - thread 200's event sync on id 23 at 1095 has its thread's record,
//     but that thread launched nothing before it to give its stream, and
//     thread 300's on id 24 at 1097 has no record on its thread: both
//     dropped, and thread 200's record with them (nothing awaits it).
func TestSyncsByEventID(t *testing.T) {
	recs, sum := convertFile(t, "testdata/eventids.json", DefaultOptions())
	var got []string
	for _, r := range recs {
		if s, ok := r.(*trace.Sync); ok {
			got = append(got, fmt.Sprintf("%s stream %d event %d", s.Op, s.Stream, s.Event))
		}
	}
	want := []string{
		"record stream 7 event 1", "wait stream 8 event 1", "event stream 0 event 1",
		"record stream 8 event 2", "wait stream 7 event 2", "device stream 0 event 0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("syncs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	const wantSum = "kineto: 4 kernels, 432 CTAs, 0 memcpys, 6 syncs on NVIDIA A100-SXM4-40GB at 1410 MHz (clock table (A100)); not converted: " +
		"1 cuda_runtime:cudaEventRecordWithFlags (no converted sync waits for it), " +
		"1 cuda_runtime:cudaEventSynchronize (a wait for another event came after its thread's last cudaEventRecord), " +
		"1 cuda_runtime:cudaEventSynchronize (its thread launched no GPU op before the cudaEventRecord), " +
		"1 cuda_runtime:cudaEventSynchronize (the cudaEventRecord it waits for is not in the profile), " +
		"1 cuda_runtime:cudaStreamWaitEvent (another host thread recorded an event after its thread's last cudaEventRecord), 4 cuda_sync"
	if sum.String() != wantSum {
		t.Errorf("summary\n%s\nwant\n%s", sum, wantSum)
	}
}
