package nsys

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// convertFixture writes f, converts it and reads the result back through
// trace.NewValidator, so every test sees only records that pass it.
func convertFixture(t *testing.T, f fixture, o Options) ([]trace.Record, Summary) {
	t.Helper()
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	sum, err := Convert(f.write(t), jw, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	return validated(t, buf.String()), sum
}

// validated reads a JSONL trace through trace.NewValidator.
func validated(t *testing.T, jsonl string) []trace.Record {
	t.Helper()
	v := trace.NewValidator(trace.NewJSONLReader(strings.NewReader(jsonl)))
	var recs []trace.Record
	for {
		r, err := v.Next()
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatalf("converted trace fails validation: %v\n%s", err, jsonl)
		}
		recs = append(recs, r)
	}
}

// outline renders the records other than cta as short lines, and each
// kernel's cta records as one line with their count and distinct cycles.
func outline(recs []trace.Record) []string {
	var out []string
	var n int
	var cycles []string
	flush := func() {
		if n > 0 {
			out = append(out, fmt.Sprintf("ctas %d cycles %s", n, strings.Join(cycles, ",")))
		}
		n, cycles = 0, nil
	}
	for _, r := range recs {
		if c, ok := r.(*trace.CTA); ok {
			n++
			if s := strconv.FormatInt(c.Cycles, 10); len(cycles) == 0 || cycles[len(cycles)-1] != s {
				cycles = append(cycles, s)
			}
			continue
		}
		flush()
		switch r := r.(type) {
		case *trace.Header:
			out = append(out, fmt.Sprintf("header %s clock %g", r.GPU, r.ClockMHz))
		case *trace.Buffer:
			out = append(out, fmt.Sprintf("buffer %d %s %d at %d", r.ID, r.Role, r.Bytes, r.Base))
		case *trace.Memcpy:
			line := fmt.Sprintf("memcpy %s buffer %d stream %d t %d", r.Dir, r.Buffer, r.Stream, r.T)
			if r.Blocking {
				line += " blocking"
			}
			if r.Pageable {
				line += " pageable"
			}
			if r.Ret != 0 {
				line += fmt.Sprintf(" ret %d", r.Ret)
			}
			out = append(out, line)
		case *trace.Sync:
			line := fmt.Sprintf("sync %s stream %d event %d t %d", r.Op, r.Stream, r.Event, r.T)
			if r.Ret != 0 {
				line += fmt.Sprintf(" ret %d", r.Ret)
			}
			out = append(out, line)
		case *trace.Kernel:
			out = append(out, fmt.Sprintf("kernel %d %s grid %v block %v regs %d smem %d", r.ID, r.Name, r.Grid, r.Block, r.Regs, r.Smem))
		case *trace.Launch:
			out = append(out, fmt.Sprintf("launch %d stream %d t %d after %v", r.Kernel, r.Stream, r.T, r.After))
		}
	}
	flush()
	return out
}

// TestConvert converts the base fixture: host launch order (by the
// earlier of a call's duplicated rows), the timing mapping, the event
// record, stream wait and stream sync as sync records, the copies' call
// fields, the wave estimate at TARGET_INFO_GPU's clockRate, and
// everything else counted.
//
// Each launch's and copy's t is the op's profiled GPU start less what a
// replay adds before it starts (lat.host_issue 3.5 µs + lat.host_launch
// 5 µs = 11985 cycles at 1410 MHz for a copy, 283 more for a kernel),
// counted from the first issue: gemm starts 2 µs after the copy's call,
// relu 32.5 µs, reduce 59.5, the d2h copy 69.6, so gemm is issued at
// 2820 − 12268 = −9448 cycles, relu at 33557, reduce at 71627 and the
// copy back at 86151. The first copy would be issued at 423 − 11985, but
// the one host thread needs 3.5 µs (4935 cycles) before it can issue
// gemm, so it goes at −9448 − 4935 = −14383: t = 0 stands for report time
// 1000 ns − 10201 ns.
//
// A sync's t is its call's start on that clock: the record's call at
// 2400 ns is (2400 − 1000) × 1.41 + 14383 = 16357, the wait's at 2500 ns
// 16498. The stream sync's call at 62000 ns would be 100393, before the
// d2h copy it follows in program order (called at 61000 ns, issued late
// because it queued behind reduce): it is placed at the copy's t, 100534,
// and returns at its call's end, 62200 ns: 100675. Both copies are
// cudaMemcpyAsync calls on pinned memory, which do not block
// (TestBlockingCopies has those that do).
func TestConvert(t *testing.T) {
	recs, sum := convertFixture(t, baseFixture(), DefaultOptions())
	want := []string{
		"header NVIDIA A100-SXM4-40GB clock 1410",
		"buffer 1 input 8192 at 0",
		"buffer 2 output 4000 at 8192",
		"memcpy h2d buffer 1 stream 7 t 0",
		"kernel 1 void gemm<float>(float const*, float*, int) grid [216 1 1] block [256 1 1] regs 32 smem 4096",
		"launch 1 stream 7 t 4935 after []",
		"ctas 216 cycles 42300", // one wave: 30 µs
		"sync record stream 7 event 1 t 16357",
		"sync wait stream 13 event 1 t 16498",
		"kernel 2 relu(float*) grid [2000 1 1] block [128 1 1] regs 16 smem 0",
		"launch 2 stream 13 t 47940 after []",
		"ctas 2000 cycles 14100", // 16 per SM × 108 SMs: two waves of 20 µs / 2
		"kernel 3 reduce(float*) grid [4 4 2] block [16 16 1] regs 24 smem 0",
		"launch 3 stream 7 t 86010 after []",
		"ctas 32 cycles 14100",
		"memcpy d2h buffer 2 stream 7 t 100534",
		"sync stream stream 7 event 0 t 100534 ret 100675",
	}
	if got := outline(recs); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h := recs[0].(*trace.Header)
	wantSpec := trace.GPUSpec{SMs: 108, ClockMHz: 1410, MaxCTAsPerSM: 32, MaxThreadsPerSM: 2048, RegsPerSM: 65536, SmemPerSM: 167936}
	if *h.GPUSpec != wantSpec || h.Source != "nsys" || h.Meta["nsys_version"] != "2024.6.2.225" || h.Meta["device"] != "0" {
		t.Errorf("header %+v, spec %+v", h, h.GPUSpec)
	}
	for k, v := range map[string]string{"origin_ns": "-9201", "lat.host_issue": "4935", "lat.host_launch": "7050", "lat.kernel_dispatch": "283",
		"set.lat.host_sync": "282", "host_sync_calls": "1"} { // the stream sync's 200 ns: it waited for nothing

		if h.Meta[k] != v {
			t.Errorf("header meta %s = %q, want %q", k, h.Meta[k], v)
		}
	}
	const wantSum = "nsys: 3 kernels, 2248 CTAs, 2 memcpys, 3 syncs on NVIDIA A100-SXM4-40GB (device 0) at 1410 MHz (TARGET_INFO_GPU.clockRate (Hz)); " +
		"not converted: 1 kernel (other device), 1 memcpy:Device-to-Device, 1 memset, 1 runtime:cudaMalloc"
	if sum.String() != wantSum {
		t.Errorf("summary\n%s\nwant\n%s", sum, wantSum)
	}
}

// TestStreamWaitUnresolved drops the table that says which stream an
// event was recorded on: the record cannot become a sync record, nor the
// wait for it, and both are counted.
func TestStreamWaitUnresolved(t *testing.T) {
	f := baseFixture()
	delete(f, tabEvent)
	recs, sum := convertFixture(t, f, DefaultOptions())
	if got := outline(recs)[7]; got != "kernel 2 relu(float*) grid [2000 1 1] block [128 1 1] regs 16 smem 0" {
		t.Errorf("after gemm: %s", got)
	}
	for _, k := range []string{"sync:wait (event not recorded)", "runtime:cudaEventRecord"} {
		if sum.Unused[k] != 1 {
			t.Errorf("unused %q = %d, want 1 (%v)", k, sum.Unused[k], sum.Unused)
		}
	}
}

// TestTwoProcesses adds a second process whose correlation ids repeat the
// first one's: its launch call for correlation id 3 must not be taken for
// gemm's, its kernel gets a stream of its own, and its orphan call is
// counted.
func TestTwoProcesses(t *testing.T) {
	const pidB = 1<<56 | 5555<<24
	f := baseFixture()
	f.add(tabRuntime, map[string]any{"start": 100, "end": 300, "eventClass": 0, "globalTid": pidB | 5556,
		"correlationId": 6, "nameId": 1, "returnValue": 0}) // cudaMalloc in process B, before everything
	f.add(tabRuntime, map[string]any{"start": 90000, "end": 90300, "eventClass": 0, "globalTid": pidB | 5556,
		"correlationId": 3, "nameId": 4, "returnValue": 0})
	f.kernel(3, 0, 7, 91000, 92000, 13, [6]int64{1, 1, 1, 32, 1, 1}, 8, 0, 0)
	f[tabKernel].rows[len(f[tabKernel].rows)-1]["globalPid"] = pidB
	recs, sum := convertFixture(t, f, DefaultOptions())
	got := outline(recs)
	want := map[int]string{
		5:  "launch 1 stream 7 t 4935 after []",
		10: "launch 2 stream 13 t 47940 after []",
		18: "launch 4 stream 4294967296 t 129015 after []", // (91000 - 1000) ns × 1.41 − 12268 + 14383
	}
	for i, w := range want {
		if len(got) != 20 || got[i] != w {
			t.Errorf("got\n%s\nwant line %d %s", strings.Join(got, "\n"), i, w)
		}
	}
	if sum.Unused["runtime:cudaMalloc"] != 2 {
		t.Errorf("unused %v, want 2 runtime:cudaMalloc", sum.Unused)
	}
}

// TestOlderMetaTable reads the version from EXPORT_META_DATA, the name
// Nsight Systems 2022.1 to 2023.2 give the table that 2023.3 on call
// META_DATA_EXPORT.
func TestOlderMetaTable(t *testing.T) {
	f := baseFixture()
	f["EXPORT_META_DATA"] = f["META_DATA_EXPORT"]
	delete(f, "META_DATA_EXPORT")
	f["EXPORT_META_DATA"].rows[0]["value"] = "2023.1.2.43"
	recs, _ := convertFixture(t, f, DefaultOptions())
	if v := recs[0].(*trace.Header).Meta["nsys_version"]; v != "2023.1.2.43" {
		t.Errorf("nsys_version %q, want 2023.1.2.43", v)
	}
}

// TestNames writes the short names on request.
func TestNames(t *testing.T) {
	o := DefaultOptions()
	if err := o.Set("names", "short"); err != nil {
		t.Fatal(err)
	}
	recs, _ := convertFixture(t, baseFixture(), o)
	var names []string
	for _, r := range recs {
		if k, ok := r.(*trace.Kernel); ok {
			names = append(names, k.Name)
		}
	}
	if want := []string{"gemm", "relu", "reduce"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}

// TestOddPath opens a report whose path has the characters an SQLite URI
// treats specially.
func TestOddPath(t *testing.T) {
	src, err := os.ReadFile(baseFixture().write(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a ?b#c%20d.sqlite")
	if err := os.WriteFile(path, src, 0o444); err != nil {
		t.Fatal(err)
	}
	sum, err := Convert(path, discard{}, DefaultOptions())
	if err != nil || sum.Kernels != 3 {
		t.Fatalf("Convert = %v, %v", sum, err)
	}
	if _, err := os.Stat(path + "-journal"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only open left a journal: %v", err)
	}
}

// TestUnusedEvents counts event records and waits that cannot become
// sync records: a record without its API call, a wait without an event
// id, a wait for an event recorded only after it.
func TestUnusedEvents(t *testing.T) {
	f := baseFixture()
	f.loosen()
	f.add(tabEvent, map[string]any{"deviceId": 0, "contextId": 1, "streamId": 13, "correlationId": 99, "globalPid": globalPid, "eventId": 2})
	f.sync(13, 0, 7, 2550, 2560, syncStreamWait, 0)
	f[tabSync].rows[len(f[tabSync].rows)-1]["eventId"] = nil
	f.call(14, 1500, 6)
	f.sync(14, 0, 7, 1500, 1510, syncStreamWait, 1) // before event 1's record
	_, sum := convertFixture(t, f, DefaultOptions())
	for k, n := range map[string]int{
		"cuda_event (no API call)":                      1,
		"synchronization:Stream wait sync (no eventId)": 1,
		"sync:wait (event not recorded)":                1,
		"runtime:cudaStreamWaitEvent":                   0, // its wait row points at it
	} {
		if sum.Unused[k] != n {
			t.Errorf("unused %q = %d, want %d (%v)", k, sum.Unused[k], n, sum.Unused)
		}
	}
	if sum.Syncs != 3 {
		t.Errorf("%d sync records, want 3 (the base fixture's record, wait and stream sync)", sum.Syncs)
	}
}

// TestBlockingCalls makes the base fixture's d2h copy a cudaMemcpy into
// pageable memory (dstKind 0) that returns at 70900 ns, after the copy
// (70600 to 70700 ns), moves the stream sync after it (called at 71000
// ns, returning at 71200), and adds a device sync (72000 to 72500 ns,
// exported with syncType 1 and no event, as Nsight Systems 2024.5 does)
// and an event sync of the event gemm's stream recorded (73000 to 73300
// ns), found as Nsight Systems 2025.5 exports it: through the record's
// eventSyncId (5), which the sync row carries as its eventId too.
//
// On the base fixture's clock (t = (ns − 1000) × 1.41 + 14383): the copy
// returns at 69900 × 1.41 + 14383 = 112942, and, since it blocks, is
// issued where the model's wait returns by then: its return less
// lat.host_sync (423), its 4000 bytes at the 16.384 GB/s the pinned copy
// there measures (8192 bytes in 500 ns; 344 cycles) and the latencies
// to the GPU (4935 + 7050), 100190, before the t its GPU start
// gives (100534) and after its call (61000 ns, 98983); the
// stream sync is called at 113083 and returns at 113365; the device sync
// 114493 and 115198; the event sync 115903 and 116326. Their own costs,
// their return less the later of their call and the device's last
// activity before the return (the device-to-device copy ending at 70900
// ns for the first), are 200, 500 and 300 ns: lat.host_sync is the
// median, 300 ns = 423 cycles.
func TestBlockingCalls(t *testing.T) {
	f := blockingFixture()
	recs, sum := convertFixture(t, f, DefaultOptions())
	got := outline(recs)
	want := []string{
		"memcpy d2h buffer 2 stream 7 t 100190 blocking pageable ret 112942",
		"sync stream stream 7 event 0 t 113083 ret 113365",
		"sync device stream 0 event 0 t 114493 ret 115198",
		"sync event stream 0 event 1 t 115903 ret 116326",
	}
	if len(got) < len(want) || !reflect.DeepEqual(got[len(got)-len(want):], want) {
		t.Errorf("got\n%s\nwant last lines\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h := recs[0].(*trace.Header)
	if h.Meta["set.lat.host_sync"] != "423" || h.Meta["host_sync_calls"] != "3" {
		t.Errorf("meta set.lat.host_sync %q over %q calls, want 423 over 3", h.Meta["set.lat.host_sync"], h.Meta["host_sync_calls"])
	}
	if sum.Syncs != 5 || len(sum.Unused) != 4 {
		t.Errorf("summary %s, want 5 syncs and 4 kinds not converted", sum)
	}
}

// TestHostSyncSkew adds to TestBlockingCalls's report a kernel launched
// at 71500 ns that runs from 72100 to 72600 ns, past the return of the
// device sync (72000 to 72500 ns) that waited for it, as a capture whose
// GPU clock runs a little ahead of the host's shows it. That sync
// measures nothing: the activity before it that ended by its return
// (the copy back, 70700 ns) is not what it waited for, and taking its
// call as where its own cost starts would count its 500 ns wait. The
// stream and event syncs' 200 and 300 ns are left: lat.host_sync is
// their mean, 250 ns = 353 cycles, over 2 calls.
func TestHostSyncSkew(t *testing.T) {
	recs, _ := convertFixture(t, skewFixture(), DefaultOptions())
	h := recs[0].(*trace.Header)
	if h.Meta["set.lat.host_sync"] != "353" || h.Meta["host_sync_calls"] != "2" {
		t.Errorf("meta set.lat.host_sync %q over %q calls, want 353 over 2", h.Meta["set.lat.host_sync"], h.Meta["host_sync_calls"])
	}
}

// skewFixture is TestHostSyncSkew's report.
func skewFixture() fixture {
	f := blockingFixture()
	f.call(30, 71500, 3)
	f.kernel(30, 0, 7, 72100, 72600, 9, [6]int64{1, 1, 1, 32, 1, 1}, 8, 0, 0)
	return f
}

// blockingFixture is TestBlockingCalls's report.
func blockingFixture() fixture {
	f := baseFixture()
	f[tabSync].cols = append(f[tabSync].cols, "eventSyncId INTEGER")
	f[tabEvent].cols = append(f[tabEvent].cols, "eventSyncId INTEGER")
	f[tabEvent].rows[0]["eventSyncId"] = 5
	for _, r := range f[tabRuntime].rows {
		switch r["correlationId"] {
		case int64(9): // the d2h copy
			r["nameId"], r["end"] = int64(15), int64(70900)
		case int64(11): // the stream sync
			r["start"], r["end"] = int64(71000), int64(71200)
		}
	}
	for _, r := range f[tabMemcpy].rows {
		if r["correlationId"] == int64(9) {
			r["dstKind"] = 0
		}
	}
	for _, r := range f[tabSync].rows {
		if r["correlationId"] == int64(11) {
			r["start"], r["end"] = int64(71000), int64(71100)
		}
	}
	f.call(13, 72000, 16)
	f[tabRuntime].rows[len(f[tabRuntime].rows)-1]["end"] = int64(72500)
	f.sync(13, 0, invalidID, 72000, 72400, syncEvent, invalidID)
	f.call(14, 73000, 17)
	f[tabRuntime].rows[len(f[tabRuntime].rows)-1]["end"] = int64(73300)
	f.sync(14, 0, invalidID, 73000, 73200, syncEvent, 5)
	f[tabSync].rows[len(f[tabSync].rows)-1]["eventSyncId"] = 5
	return f
}

// TestMeasuredTiming adds to the base fixture three kernels launched on
// an idle GPU, 9, 9.5 and 10 µs before they start, and five pinned
// copies: three of 8 bytes taking 1 µs and two of 1 MB taking 101 µs.
// The idle launches are these three and reduce's (0.5 µs; gemm's is not:
// the memset started after its call and before it): their median, 9.25
// µs, is 13043 cycles, less lat.host_issue (4935) and
// lat.kernel_dispatch (283): lat.host_launch 7825. The copies' latency is the median over the
// copies of at most 4 KiB (the base fixture's 4000-byte copy back, 0.1
// µs, and the three new ones) of duration − bytes / rate: first with
// the durations alone, 1000 ns, which gives the rate 2008192 bytes /
// (500 + 2 × 101000 − 3 × 1000) ns = 10.066 GB/s; then 1000 − 8 / 10.066
// = 999.2 ns, 1409 cycles, and the rate 2008192 / (202500 − 3 × 999.2)
// = 10.066 GB/s again.
func TestMeasuredTiming(t *testing.T) {
	recs, _ := convertFixture(t, measuredFixture(), DefaultOptions())
	h := recs[0].(*trace.Header)
	for k, v := range map[string]string{
		"set.lat.host_launch": "7825", "lat.host_launch": "7825", "launch_ready_ns": "9250", "idle_launches": "4",
		"set.io.copy_latency": "1409", "copy_latency_copies": "4", "set.io.pcie_gbps": "10.066", "pcie_copies": "3",
		"copy_memory": "pinned",
	} {
		if h.Meta[k] != v {
			t.Errorf("header meta %s = %q, want %q", k, h.Meta[k], v)
		}
	}
	// The replay applies them.
	cfg, err := model.FromHeader(model.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Lat.HostLaunch != 7825 || cfg.IO.CopyLatency != 1409 || cfg.IO.PCIeGBps != 10.066 {
		t.Errorf("config from the header: lat %+v, io %+v", cfg.Lat, cfg.IO)
	}
}

// measuredFixture is TestMeasuredTiming's report.
func measuredFixture() fixture {
	f := baseFixture()
	for i, at := range []int64{80000, 100000, 120000} {
		corr := 20 + int64(i)
		f.call(corr, at, 3)
		f.kernel(corr, 0, 7, at+9000+500*int64(i), at+10000+500*int64(i), 9, [6]int64{1, 1, 1, 32, 1, 1}, 8, 0, 0)
	}
	for i := range int64(5) {
		corr, at := 30+i, 140000+200000*i
		f.call(corr, at, 2)
		if i < 3 {
			f.copy(corr, 0, 7, at+10000, at+11000, 8, copyHtoD)
		} else {
			f.copy(corr, 0, 7, at+10000, at+111000, 1000000, copyHtoD)
		}
	}
	return f
}
