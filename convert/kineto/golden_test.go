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

// TestMeasuredTiming converts testdata/measured.json at 1000 MHz (a µs
// is 1000 cycles) and checks what it measures, worked out by hand. One
// host thread, stream 7, every call 4 µs (launches) or 3 µs (copies):
//
// The launch path. Kernels k1..k6 are launched at 1000, 1030, 1060,
// 1081, 1085 and 1105 µs and start on the GPU at 1010, 1042, 1068, 1095,
// 1100 and 1115. k5 queued behind k4 (running 1095–1100 at k5's call),
// and a memset ran 1102–1112, across k6's call: neither launch was made
// on an idle GPU. The four others took 10, 12, 8 and 14 µs from call to
// start: the median of an even count is the mean of the middle two, 11
// µs (launch_ready_ns 11000, idle_launches 4; with k5 it would be 12,
// with k6 10). The model's lat.host_issue (3500) and
// lat.kernel_dispatch (283) stay, so lat.host_launch is 11000 − 3783 =
// 7217: a kernel is ready 11000 cycles after its issue, a copy 10717.
//
// The copies. Six pinned ones (which took more GPU time than the one
// pageable copy): 1000, 2000 and 4000 B in 2.1, 2.2 and 2.4 µs, and
// 1, 2 and 4 MB in 102, 202 and 402 µs (10 GB/s after 2 µs). A first
// latency, the small copies' median duration 2200 ns, gives the rate
// 7e6 B / (706000 − 3 × 2200) ns = 10.00858 GB/s; the small copies'
// durations less their bytes at that rate are 2000.086, 2000.171 and
// 2000.343 ns, median 2000.171 (set.io.copy_latency 2000 cycles); the
// rate is then 7e6 / (706000 − 3 × 2000.171) = 10.0000073 GB/s
// (set.io.pcie_gbps 10 to six digits).
//
// lat.host_sync. The cudaDeviceSynchronize (1870 + 7 µs) returned 1 µs
// after the last copy before it ended (1876); the pageable copy's call
// (1880 + 25 µs) 25 µs after its call started, nothing having ended in
// between. The lower median of the two costs: 1000 cycles.
//
// The pageable copy's t. Its transfer ran 1895–1907 µs and its call
// returned at 1905, before the transfer ended. Counted from the first
// call (1000 µs), the bound is max(call + ready, ret − lat.host_sync −
// its time) = max(880000 + 10717, 905000 − 1000 − (2000 + 100000 B at
// 10 GB/s = 12000)) = 892000 cycles, earlier than its GPU start 895000,
// so the mapping aims it at 892000.
//
// The ts. Going backwards (profile.Schedule), each op is issued at its
// start less its readiness: the copy at 881283, the other copies at
// 463283, 261283, 159283, 149283, 139283 and 129283 (their starts
// 474000 ... 140000 less 10717), and the kernels at 104000, 89000,
// 84000, 57000, 31000 and −1000 (their starts less 11000); none is held
// back by the next one's issue. k1's issue is t = 0 (origin_ts_us 999),
// so the ts are those plus 1000. The sync's t is its call (1870 µs) so
// mapped, 871000, ret 878000; the copy's ret is 906000. In a replay the
// last pinned copy (reaching the GPU at 475000, 402000 long) ends at
// 877000 and the sync returns lat.host_sync later, at its captured
// 878000; the pageable copy reaches the GPU at 893000 and ends at
// 905000, and the host returns at 906000, its captured return.
func TestMeasuredTiming(t *testing.T) {
	recs, sum := convertFile(t, "testdata/measured.json", Options{profile.Common{ClockMHz: 1000, Device: -1}})
	h := recs[0].(*trace.Header)
	for k, want := range map[string]string{
		"launch_ready_ns": "11000", "idle_launches": "4", "set.lat.host_launch": "7217", "lat.host_launch": "7217",
		"lat.host_issue": "3500", "lat.kernel_dispatch": "283",
		"set.io.copy_latency": "2000", "copy_latency_copies": "3", "set.io.pcie_gbps": "10", "pcie_copies": "3", "copy_memory": "pinned",
		"set.lat.host_sync": "1000", "host_sync_calls": "2", "origin_ts_us": "999",
	} {
		if h.Meta[k] != want {
			t.Errorf("meta %s = %q, want %q", k, h.Meta[k], want)
		}
	}
	var got []string
	for _, l := range outline(recs) {
		if strings.HasPrefix(l, "launch") || strings.HasPrefix(l, "memcpy") || strings.HasPrefix(l, "sync") {
			got = append(got, l)
		}
	}
	want := []string{
		"launch 1 stream 7 t 0", "launch 2 stream 7 t 32000", "launch 3 stream 7 t 58000",
		"launch 4 stream 7 t 85000", "launch 5 stream 7 t 90000", "launch 6 stream 7 t 105000",
		"memcpy h2d buffer 1 stream 7 t 130283", "memcpy d2h buffer 2 stream 7 t 140283",
		"memcpy h2d buffer 3 stream 7 t 150283", "memcpy h2d buffer 4 stream 7 t 160283",
		"memcpy d2h buffer 5 stream 7 t 262283", "memcpy h2d buffer 6 stream 7 t 464283",
		"sync device t 871000 ret 878000",
		"memcpy h2d buffer 7 stream 7 t 882283 pageable ret 906000",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum.Unused["gpu_memset"] != 1 {
		t.Errorf("unused %v, want the memset counted", sum.Unused)
	}
}

// TestSyncsIdleStream converts testdata/idlestreams.json, whose host
// thread synchronises stream 8 before anything came on it (1006 µs: k2,
// stream 8's first op, is launched at 1010), then after k2's launch
// (1016, its cuda_sync naming the stream by tid 1000008), and then
// stream 9, which no op, record or wait ever uses (1052). The first and
// the last waited for nothing, and a trace cannot name a stream before
// its first operation: both are dropped, with their cuda_sync events;
// the second stays, a sync of stream 8. lat.host_sync is the median over
// the blocking calls written, that sync alone: it returned at 1051 µs,
// 1 µs after k2 ended (1030 + 20), so 1 µs, 1410 cycles at the A100's
// 1410 MHz (with the two dropped syncs, 2 µs each, it would be 2820).
func TestSyncsIdleStream(t *testing.T) {
	recs, sum := convertFile(t, "testdata/idlestreams.json", DefaultOptions())
	h := recs[0].(*trace.Header)
	if h.Meta["host_sync_calls"] != "1" || h.Meta["set.lat.host_sync"] != "1410" {
		t.Errorf("host_sync_calls %q, set.lat.host_sync %q; want 1 and 1410", h.Meta["host_sync_calls"], h.Meta["set.lat.host_sync"])
	}
	var got []string
	for _, r := range recs {
		if s, ok := r.(*trace.Sync); ok {
			got = append(got, fmt.Sprintf("%s stream %d", s.Op, s.Stream))
		}
	}
	if want := []string{"stream stream 8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("syncs %q, want %q", got, want)
	}
	if n := sum.Unused["cuda_runtime:cudaStreamSynchronize (no GPU op, event record or wait came on its stream before it)"]; n != 2 || sum.Unused["cuda_sync"] != 2 {
		t.Errorf("%d stream syncs dropped as idle, %d cuda_sync events unused; want 2 and 2 (%v)", n, sum.Unused["cuda_sync"], sum.Unused)
	}
}
