package kineto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// convertFile converts a testdata file and reads the result back through
// trace.NewValidator, so every test sees only records that pass it.
func convertFile(t *testing.T, path string, o Options) ([]trace.Record, Summary) {
	t.Helper()
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	sum, err := Convert(path, jw, o)
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
	var cycles []int64
	flush := func() {
		if n > 0 {
			var cs []string
			for _, c := range cycles {
				cs = append(cs, itoa(c))
			}
			out = append(out, "ctas "+itoa(int64(n))+" cycles "+strings.Join(cs, ","))
		}
		n, cycles = 0, nil
	}
	for _, r := range recs {
		switch r := r.(type) {
		case *trace.CTA:
			n++
			if len(cycles) == 0 || cycles[len(cycles)-1] != r.Cycles {
				cycles = append(cycles, r.Cycles)
			}
			continue
		case *trace.Header:
			flush()
			out = append(out, "header "+r.GPU+" clock "+ftoa(r.ClockMHz))
		case *trace.Buffer:
			flush()
			out = append(out, "buffer "+itoa(int64(r.ID))+" "+string(r.Role)+" "+itoa(r.Bytes)+" at "+itoa(int64(r.Base)))
		case *trace.Memcpy:
			flush()
			line := "memcpy " + r.Dir + " buffer " + itoa(int64(r.Buffer)) + " stream " + itoa(int64(r.Stream)) + " t " + itoa(r.T)
			if r.Blocking {
				line += " blocking"
			}
			if r.Pageable {
				line += " pageable"
			}
			if r.Ret != 0 {
				line += " ret " + itoa(r.Ret)
			}
			out = append(out, line)
		case *trace.Sync:
			flush()
			line := "sync " + r.Op.String()
			if r.Stream != 0 || r.Op == trace.SyncStream || r.Op == trace.EventRecord || r.Op == trace.StreamWait {
				line += " stream " + itoa(int64(r.Stream))
			}
			if r.Event != 0 {
				line += " event " + itoa(int64(r.Event))
			}
			line += " t " + itoa(r.T)
			if r.Ret != 0 {
				line += " ret " + itoa(r.Ret)
			}
			out = append(out, line)
		case *trace.Kernel:
			flush()
			out = append(out, "kernel "+itoa(int64(r.ID))+" "+r.Name+" grid "+fmtDims(r.Grid)+" block "+fmtDims(r.Block)+" regs "+itoa(int64(r.Regs))+" smem "+itoa(r.Smem))
		case *trace.Launch:
			out = append(out, "launch "+itoa(int64(r.Kernel))+" stream "+itoa(int64(r.Stream))+" t "+itoa(r.T))
		}
	}
	flush()
	return out
}

func TestSamples(t *testing.T) {
	eventSync := []string{
		"header NVIDIA A100-PG509-200 clock 1410",
		"buffer 1 output 1 at 0",
		"kernel 1 void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, at::detail::Array<char*, 1>) grid 128,1,1 block 128,1,1 regs 16 smem 0",
		"launch 1 stream 7 t 0", "ctas 128 cycles 1410",
	}
	for _, tc := range []struct {
		file  string
		opts  Options
		head  []string // the outline starts with these lines
		lines int      // and has this many
		sum   string
	}{
		{"testdata/event_sync_trace.json", DefaultOptions(), eventSync, 19,
			"kineto: 4 kernels, 131 CTAs, 1 memcpys, 4 syncs on NVIDIA A100-PG509-200 at 1410 MHz (clock table (A100)); not converted: 1 Trace, 21 ac2g, 10 cpu_op, 1 cuda_runtime:cudaEventElapsedTime, 1 cuda_runtime:cudaEventQuery, 1 cuda_runtime:cudaEventRecord (no converted sync waits for it), 1 cuda_sync, 36 ph=M, 2 ph=i, 1 user_annotation"},
		{"testdata/event_sync_trace.json.gz", DefaultOptions(), eventSync, 19, ""},
		{"testdata/triton_example.json", Options{profile.Common{ClockMHz: 1000, Device: -1}}, []string{
			"header NVIDIA A100-PG509-200 clock 1000",
			"kernel 1 triton_poi_fused_add_cos_sin_0 grid 1,1,1 block 128,1,1 regs 16 smem 0",
			"launch 1 stream 7 t 0", "ctas 1 cycles 1760",
		}, 5, "kineto: 1 kernels, 1 CTAs, 0 memcpys, 1 syncs on NVIDIA A100-PG509-200 at 1000 MHz (option clock_mhz); not converted: 1 Trace, 3 ac2g, 3 cpu_op, 58 ph=M, 2 ph=i, 1 user_annotation"},
		// ROCm: shapes from the hipLaunchKernel events (roctracer and
		// Kineto spellings, arrays and strings), hex stream ids, string
		// tids, negative pids; 1000 CTAs of 16 KiB shared memory fit 4
		// per CU × 110 CUs, so 3 waves of 40 µs × 1700 MHz / 3. Each t
		// is the op's profiled start (copy 85, kernels 100.25, 113, 160
		// µs) less what the replay adds before it starts (8.5 µs for the
		// copy, 8.5 µs + 283 cycles for a kernel at 1700 MHz), counted
		// from the copy's: 15.25 µs · 1700 − 283 = 25642, and so on.
		{"testdata/rocm.json", DefaultOptions(), []string{
			"header AMD Instinct MI250X clock 1700",
			"buffer 1 input 65536 at 0",
			"memcpy h2d buffer 1 stream 4294967296 t 0",
			"kernel 1 Cijk_Ailk_Bljk_SB_MT64x64x8 grid 4,4,1 block 64,4,1 regs 0 smem 8192",
			"launch 1 stream 4294967296 t 25642", "ctas 16 cycles 21250",
			"kernel 2 elementwise_kernel grid 1000,1,1 block 256,1,1 regs 0 smem 16384",
			"launch 2 stream 4294967296 t 47317", "ctas 1000 cycles 22667",
			"kernel 3 reduce_kernel grid 2,1,1 block 128,1,1 regs 0 smem 0",
			"launch 3 stream 7 t 127217", "ctas 2 cycles 13600",
		}, 13, "kineto: 3 kernels, 1018 CTAs, 1 memcpys, 1 syncs on AMD Instinct MI250X at 1700 MHz (clock table (MI250X)); not converted: 1 ac2g, 1 ph=M"},
		// ROCm as Kineto's roctracer logger writes it: deviceProperties
		// spelled from hipDeviceProp_t (regsPerBlock, no
		// regsPerMultiprocessor; maxSharedMemoryPerMultiProcessor), copies
		// whose size and hipMemcpyKind are on the hipMemcpyWithStream /
		// hipMemcpyAsync call, a hipExtLaunchKernel. At 1700 MHz: the
		// 256 CTAs of 256 threads fit one wave (8 per CU × 110), 30 µs =
		// 51000 cycles; 2200 CTAs of 1024 threads and 32 KiB fit 2 per CU
		// (2048 threads, 64 KiB LDS), 10 waves of 66 µs · 1700 / 10 =
		// 11220. Each t is the profiled start (120, 160, 200, 280 µs) less
		// 8.5 µs (14450 cycles) for a copy and 8.5 µs + 283 cycles for a
		// kernel, from the first copy's: 40 µs · 1700 − 283 = 67717,
		// 80 µs · 1700 − 283 = 135717, 160 µs · 1700 = 272000. The
		// device-to-device copy has no trace record.
		{"testdata/rocm_roctracer.json", DefaultOptions(), []string{
			"header AMD Instinct MI250X clock 1700",
			"buffer 1 input 65536 at 0", "buffer 2 output 4096 at 65536",
			"memcpy h2d buffer 1 stream 0 t 0",
			"kernel 1 void at::native::vectorized_elementwise_kernel<4> grid 256,1,1 block 256,1,1 regs 0 smem 0",
			"launch 1 stream 0 t 67717", "ctas 256 cycles 51000",
			"kernel 2 Cijk_Alik_Bljk_HHS_BH_MT128x128x32 grid 2200,1,1 block 1024,1,1 regs 0 smem 32768",
			"launch 2 stream 1 t 135717", "ctas 2200 cycles 11220",
			"memcpy d2h buffer 2 stream 1 t 272000",
		}, 12, "kineto: 2 kernels, 2456 CTAs, 2 memcpys, 1 syncs on AMD Instinct MI250X at 1700 MHz (clock table (MI250X)); not converted: 2 ac2g, 1 gpu_memcpy:Memcpy DtoD (Device -> Device), 1 ph=M"},
		// Kineto's warm-up: a copy and two kernels of stream 7 ran inside
		// the profile but were issued before it, so it has no host call
		// for them; late_c's launch (at 1050 µs) started while warm_a ran.
		// The three go first, by GPU start (warm_b at late_c's call, the
		// next on its stream, and before it), and lost_e, whose call is
		// lost, at its own start, after other_d (programOrder): by their own GPU starts warm_b (1111 µs) would
		// follow late_c's launch and run after it. At 1410 MHz, with the
		// copy's start (1000 µs) as base, the starts are 0, 14100,
		// 156510, 160740, 169200 and 172020 cycles; ready is 4935 + 7050
		// for the copy and 283 more for a kernel, and the host issues
		// every 4935. Backwards: lost_e 172020 − 12268 = 159752;
		// other_d min(156932, 159752 − 4935) = 154817; late_c
		// min(148472, 149882) = 148472; warm_b min(144242, 143537) =
		// 143537; warm_a min(1832, 138602) = 1832; the copy −11985. Each
		// t is its issue + 11985. warm_a's 216 CTAs fit one wave (8 of
		// 256 threads per SM), 100 µs = 141000 cycles. The
		// cudaDeviceSynchronize (1060–1124 µs) follows lost_e, which
		// started on the GPU (1122 µs) before it returned, and so was
		// issued before it: its t is its call's (60 µs → 96585), before
		// lost_e's t (a device sync orders no stream; the replay issues
		// it after lost_e's call anyway), its ret 124 µs × 1410 + 11985
		// = 186825. The pageable copy
		// has no call, so it is written as not blocking.
		{"testdata/warmup.json", DefaultOptions(), []string{
			"header NVIDIA A100-SXM4-40GB clock 1410",
			"buffer 1 input 4096 at 0",
			"memcpy h2d buffer 1 stream 7 t 0",
			"kernel 1 warm_a grid 216,1,1 block 256,1,1 regs 32 smem 0",
			"launch 1 stream 7 t 13817", "ctas 216 cycles 141000",
			"kernel 2 warm_b grid 4,1,1 block 128,1,1 regs 16 smem 0",
			"launch 2 stream 7 t 155522", "ctas 4 cycles 2820",
			"kernel 3 late_c grid 4,1,1 block 128,1,1 regs 16 smem 0",
			"launch 3 stream 7 t 160457", "ctas 4 cycles 1410",
			"kernel 4 other_d grid 4,1,1 block 128,1,1 regs 16 smem 0",
			"launch 4 stream 13 t 166802", "ctas 4 cycles 1410",
			"kernel 5 lost_e grid 4,1,1 block 128,1,1 regs 16 smem 0",
			"launch 5 stream 13 t 171737", "ctas 4 cycles 1410",
			"sync device t 96585 ret 186825",
		}, 19, "kineto: 5 kernels, 232 CTAs, 1 memcpys, 1 syncs on NVIDIA A100-SXM4-40GB at 1410 MHz (clock table (A100)); 4 kernels and copies had no host call (issued before the profile began, or the call was lost; placed by their streams)"},
		// PyTorch 1.8 and 1.9: "Kernel", "Memcpy" and "Runtime" events,
		// and the device under "computeProperties" with cudaDeviceProp's
		// names major, minor and multiProcessorCount. At 1530 MHz (V100)
		// the kernel's 160 CTAs of 1024 threads fit 2 per SM on 80 SMs,
		// one wave of 10 µs = 15300 cycles. From the copy's call (100
		// µs), the copy starts at 15300 cycles and the kernel at 61200;
		// ready is 5355 + 7650 for the copy and 283 more for the kernel,
		// so the kernel is issued at 61200 − 13288 = 47912 and the copy
		// at min(15300 − 13005, 47912 − 5355) = 2295: t 0 and 45617. The
		// copy is pageable, so its call (100 + 20 µs) blocks: ret 20 µs
		// × 1530 − 2295 = 28305.
		{"testdata/pytorch19.json", DefaultOptions(), []string{
			"header Tesla V100-DGXS-32GB clock 1530",
			"buffer 1 input 640 at 0",
			"memcpy h2d buffer 1 stream 7 t 0 pageable ret 28305",
			"kernel 1 k grid 160,1,1 block 1024,1,1 regs 32 smem 0",
			"launch 1 stream 7 t 45617", "ctas 160 cycles 15300",
		}, 6, "kineto: 1 kernels, 160 CTAs, 1 memcpys on Tesla V100-DGXS-32GB at 1530 MHz (clock table (V100)); not converted: 1 Memset, 1 Operator"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			recs, sum := convertFile(t, tc.file, tc.opts)
			got := outline(recs)
			if len(got) != tc.lines || !reflect.DeepEqual(got[:min(len(tc.head), len(got))], tc.head) {
				t.Errorf("got\n%s\nwant %d lines starting\n%s", strings.Join(got, "\n"), tc.lines, strings.Join(tc.head, "\n"))
			}
			if tc.sum != "" && sum.String() != tc.sum {
				t.Errorf("summary\n%s\nwant\n%s", sum, tc.sum)
			}
		})
	}
}

// TestBareArray converts the array form, which has no deviceProperties:
// the gpu option's preset stands in for the device.
func TestBareArray(t *testing.T) {
	const doc = `[
	{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":"host","tid":-3,"ts":10,"dur":2,"args":{"correlation":1}},
	{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":-3,"ts":20,"dur":5,"args":{"correlation":1,"grid":[3],"block":[32,2],"registers per thread":40}}]`
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	if _, err := Read(strings.NewReader(doc), "bare.json", jw, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "set the gpu option") {
		t.Fatalf("no deviceProperties and no gpu option: err = %v", err)
	}
	o := DefaultOptions()
	if err := o.Set("gpu", "k20c"); err != nil {
		t.Fatal(err)
	}
	sum, err := Read(strings.NewReader(doc), "bare.json", jw, o)
	if err != nil {
		t.Fatal(err)
	}
	jw.Close()
	got := outline(validated(t, buf.String()))
	want := []string{
		"header " + sum.GPU + " clock " + ftoa(sum.ClockMHz),
		"kernel 1 k grid 3,1,1 block 32,2,1 regs 40 smem 0",
		"launch 1 stream 4294967296 t 0", "ctas 3 cycles " + itoa(int64(5*sum.ClockMHz+0.5)),
	}
	if !reflect.DeepEqual(got, want) || sum.Clock != "preset k20c" {
		t.Errorf("got %q (clock from %s), want %q", got, sum.Clock, want)
	}
}

// TestProgramOrder: ops without a host call keep their stream's order
// and are placed near where they ran (programOrder), and choose neither
// the device nor its fate.
func TestProgramOrder(t *testing.T) {
	const props = `"deviceProperties":[{"id":0,"name":"NVIDIA A100","numSms":108,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,"sharedMemPerMultiprocessor":167936,"computeMajor":8,"computeMinor":0},` +
		`{"id":1,"name":"NVIDIA A100","numSms":108,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,"sharedMemPerMultiprocessor":167936,"computeMajor":8,"computeMinor":0}]`
	call := func(ts, corr int) string {
		return fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}}`, ts, corr)
	}
	kernel := func(name string, device, ts, corr int) string {
		return fmt.Sprintf(`{"ph":"X","cat":"kernel","name":%q,"pid":%d,"tid":7,"ts":%d,"dur":5,"args":{"device":%d,"stream":7,"correlation":%d,"grid":[1,1,1],"block":[32,1,1]}}`, name, device, ts, device, corr)
	}
	names := func(recs []trace.Record) (ks []string) {
		for _, r := range recs {
			if k, ok := r.(*trace.Kernel); ok {
				ks = append(ks, k.Name)
			}
		}
		return ks
	}
	for _, tc := range []struct {
		name, events string
		device       string
		want         []string
	}{
		// One graph launch ran g1 and g2, and u, whose call is lost,
		// between them: the three share the call's time, so their GPU
		// order decides.
		{"graph", call(1000, 1) + "," + kernel("g1", 0, 1010, 1) + "," + kernel("u", 0, 1020, 9) + "," + kernel("g2", 0, 1030, 1), "", []string{"g1", "u", "g2"}},
		// By default the device is the first launched kernel's: device
		// 1's kernel without a call started first but says nothing of
		// the program's order.
		{"device of the first launch", kernel("early", 1, 990, 8) + "," + call(1000, 1) + "," + kernel("a", 0, 1010, 1), "", []string{"a"}},
		// A device with copies but no kernel converts with the device
		// option, as it did before kernels without a call were read.
		{"copies only", call(1000, 1) + "," + kernel("a", 0, 1010, 1) + "," + call(1001, 2) + `,{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":1,"tid":7,"ts":1020,"dur":1,"args":{"device":1,"stream":7,"correlation":2,"bytes":64}}`, "1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			if tc.device != "" {
				if err := o.Set("device", tc.device); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			jw := trace.NewJSONLWriter(&buf)
			if _, err := Read(strings.NewReader("{"+props+`,"traceEvents":[`+tc.events+"]}"), "order.json", jw, o); err != nil {
				t.Fatal(err)
			}
			jw.Close()
			if got := names(validated(t, buf.String())); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("kernels %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDeviceOption converts the second GPU of a two-device trace and
// counts the first one's kernel as unused.
func TestDeviceOption(t *testing.T) {
	const doc = `{"deviceProperties":[
	{"id":0,"name":"Tesla V100-SXM2-16GB","numSms":80,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,"sharedMemPerMultiprocessor":98304,"computeMajor":7,"computeMinor":0},
	{"id":1,"name":"Tesla T4","numSms":40,"maxThreadsPerMultiprocessor":1024,"regsPerMultiprocessor":65536,"sharedMemPerMultiprocessor":65536,"computeMajor":7,"computeMinor":5}],
	"traceEvents":[
	{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":5}},
	{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":6}},
	{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":3,"dur":1,"args":{"device":0,"stream":7,"correlation":5,"grid":[1,1,1],"block":[1,1,1]}},
	{"ph":"X","cat":"kernel","name":"b","pid":1,"tid":9,"ts":4,"dur":2,"args":{"device":1,"stream":9,"correlation":6,"grid":[641,1,1],"block":[1024,1,1]}}]}`
	var buf bytes.Buffer
	jw := trace.NewJSONLWriter(&buf)
	o := DefaultOptions()
	if err := o.Set("device", "1"); err != nil {
		t.Fatal(err)
	}
	sum, err := Read(strings.NewReader(doc), "two.json", jw, o)
	if err != nil {
		t.Fatal(err)
	}
	jw.Close()
	recs := validated(t, buf.String())
	h := recs[0].(*trace.Header)
	// T4: 16 CTAs per SM by compute capability 7.5, but 1024 threads per
	// SM hold one 1024-thread CTA: 641 CTAs on 40 SMs are 17 waves.
	if h.GPU != "Tesla T4" || h.GPUSpec.MaxCTAsPerSM != 16 || h.ClockMHz != 1590 {
		t.Errorf("header %+v %+v", h, h.GPUSpec)
	}
	if c := recs[3].(*trace.CTA); c.Cycles != (2*1590+8)/17 || sum.Unused["kernel (other device)"] != 1 {
		t.Errorf("cta %+v, unused %v", c, sum.Unused)
	}
}

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
func fmtDims(d [3]uint32) string {
	return fmt.Sprintf("%d,%d,%d", d[0], d[1], d[2])
}

// TestGPUOptionIncompleteProps: the gpu option's preset stands in for
// deviceProperties that lack a limit (here an AMD entry without any
// register count), and never for complete ones, which describe the GPU
// the durations were measured on.
func TestGPUOptionIncompleteProps(t *testing.T) {
	const events = `"traceEvents":[
	{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":5,"grid":[4,1,1],"block":[64,1,1]}},
	{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":0,"ts":10,"dur":2,"args":{"device":0,"stream":0,"correlation":5}}]}`
	const partial = `{"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","numSms":304,"maxThreadsPerMultiprocessor":2048,"maxSharedMemoryPerMultiProcessor":65536,"computeMajor":9,"computeMinor":4}],` + events
	const complete = `{"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X","numSms":304,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"maxSharedMemoryPerMultiProcessor":65536,"computeMajor":9,"computeMinor":4}],` + events
	var c collect
	_, err := Read(strings.NewReader(partial), "mi300.json", &c, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "deviceProperties of device 0 has no regsPerMultiprocessor (nor regsPerBlock)") || !strings.Contains(err.Error(), "set the gpu option") {
		t.Fatalf("incomplete props, no gpu option: err = %v", err)
	}
	o := DefaultOptions()
	if err := o.Set("gpu", "h100"); err != nil {
		t.Fatal(err)
	}
	sum, err := Read(strings.NewReader(partial), "mi300.json", &c, o)
	if err != nil || sum.Clock != "preset h100" || strings.Contains(sum.GPU, "AMD") {
		t.Fatalf("incomplete props, gpu=h100: %+v, %v", sum, err)
	}
	sum, err = Read(strings.NewReader(complete), "mi300.json", &c, o)
	if err != nil || sum.GPU != "AMD Instinct MI300X" {
		t.Fatalf("complete props, gpu=h100: %+v, %v; want the captured GPU", sum, err)
	}
}

// TestLegacyProps: each of numSms and the compute capability is taken
// from PyTorch 1.9's names only where the entry lacks it.
func TestLegacyProps(t *testing.T) {
	for _, tc := range []struct {
		in                string
		sms, major, minor int
	}{
		{`{"multiProcessorCount":80,"major":7,"minor":0}`, 80, 7, 0},
		{`{"computeMajor":7,"computeMinor":5,"multiProcessorCount":40}`, 40, 7, 5},
		{`{"numSms":84,"major":8,"minor":6}`, 84, 8, 6},
		{`{"numSms":108,"computeMajor":8,"multiProcessorCount":1,"major":1}`, 108, 8, 0},
	} {
		var p deviceProps
		if err := json.Unmarshal([]byte(tc.in), &p); err != nil {
			t.Fatal(err)
		}
		p.legacy()
		if p.NumSMs != tc.sms || p.ComputeMajor != tc.major || p.ComputeMinor != tc.minor {
			t.Errorf("%s: %d SMs, compute %d.%d; want %d, %d.%d", tc.in, p.NumSMs, p.ComputeMajor, p.ComputeMinor, tc.sms, tc.major, tc.minor)
		}
	}
}
