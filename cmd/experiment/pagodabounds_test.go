package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
)

// tinyTasks is two tasks of 128 threads on titanx's clock: each copies
// 110,000 bytes in (10,000 cycles at 11 GB/s and 1000 MHz) and 55,000 out
// (5,000), and runs warps of 2000, 2000, 1000 and 1000 cycles asking 12,000
// warp instructions and 6,000 DRAM bytes over its time alone (2000 × 4
// warp-cycles): 1.5 and 0.75 a warp-cycle.
const tinyTasks = `{"type":"header","version":1,"clock_mhz":1000}
{"type":"buffer","id":1,"name":"in1","base":0,"bytes":110000,"role":"temp"}
{"type":"buffer","id":2,"name":"out1","base":1048576,"bytes":55000,"role":"temp"}
{"type":"buffer","id":3,"name":"in2","base":2097152,"bytes":110000,"role":"temp"}
{"type":"buffer","id":4,"name":"out2","base":3145728,"bytes":55000,"role":"temp"}
{"type":"memcpy","dir":"h2d","buffer":1,"bytes":110000,"stream":1,"t":0}
{"type":"kernel","id":1,"name":"task","grid":[1,1,1],"block":[128,1,1],"regs":32,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":1}
{"type":"cta","kernel":1,"cta":0,"cycles":2000,"warp_cycles":[2000,2000,1000,1000],"insts":12000,"dram_bytes":6000}
{"type":"memcpy","dir":"d2h","buffer":2,"bytes":55000,"stream":1,"t":0}
{"type":"memcpy","dir":"h2d","buffer":3,"bytes":110000,"stream":2,"t":0}
{"type":"kernel","id":2,"name":"task","grid":[1,1,1],"block":[128,1,1],"regs":32,"smem":0}
{"type":"launch","kernel":2,"t":0,"stream":2}
{"type":"cta","kernel":2,"cta":0,"cycles":2000,"warp_cycles":[2000,2000,1000,1000],"insts":12000,"dram_bytes":6000}
{"type":"memcpy","dir":"d2h","buffer":4,"bytes":55000,"stream":2,"t":0}
`

// The floor of a tiny trace, by hand on Fig. 1a's setup
// (2 host threads, synchronous copies at 11 GB/s, 3.5 µs calls and
// spawns): a task's thread makes 2 copy calls (7,000 cycles), waits for
// both copies (15,000) and spawns (3,500), 25,500 a task, 51,000 over 2
// threads = 25,500, after the MasterKernel's launch call (3,500): 29,000;
// H2D 2 × 10,000; D2H 2 × 5,000; executor warps 2 × 6,000 warp-cycles
// over 24 × 2 × 31; issue 2 × 6,000 × 1.5 over 24 SMs × 4;
// DRAM 2 × 6,000 × 0.75 over 336.5 bytes a cycle. The host binds, and the
// replayed Pagoda run takes no less.
func TestPagodaFloorTiny(t *testing.T) {
	cfg, st := replayTiny(t, "pagoda")
	f := newPagodaFloor(cfg, st.Tasks)
	want := pagodaFloor{host: 29000, h2d: 20000, d2h: 10000, warps: 12000.0 / 1488, issue: 18000.0 / 96, dram: 9000 / 336.5}
	names, got := f.parts()
	_, exp := want.parts()
	for i := range got {
		if d := got[i] - exp[i]; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: %.6f cycles, want %.6f", names[i], got[i], exp[i])
		}
	}
	if floor, binds := f.cycles(); floor != 29000 || binds != "host" {
		t.Errorf("floor %.1f (%s), want 29000 (host)", floor, binds)
	}
	if float64(st.MakespanCycles) < 29000 {
		t.Errorf("pagoda's makespan %d is below its floor 29000", st.MakespanCycles)
	}
}

// HyperQ's floor of the tiny trace, by hand: a task's thread makes 2 copy
// calls (7,000 cycles), waits for both copies (15,000) and launches its
// kernel (3,500), 25,500 a task, 51,000 over 2 threads = 25,500, with no
// MasterKernel to launch first; the copy engines, issue and DRAM as for
// Pagoda, no executor warps. The host binds, and the replayed HyperQ run
// takes no less.
func TestHyperQFloorTiny(t *testing.T) {
	cfg, pg := replayTiny(t, "pagoda")
	_, hq := replayTiny(t, "hyperq")
	if pg.Tasks.Tasks != 2 {
		t.Errorf("%d tasks counted, want 2", pg.Tasks.Tasks)
	}
	f := newHyperQFloor(cfg, pg.Tasks)
	if f.host != 25500 || f.warps != 0 || f.h2d != 20000 {
		t.Errorf("host %.1f, warps %.1f, h2d %.1f; want 25500, 0, 20000", f.host, f.warps, f.h2d)
	}
	if floor, binds := f.cycles(); floor != 25500 || binds != "host" {
		t.Errorf("floor %.1f (%s), want 25500 (host)", floor, binds)
	}
	if hq.MakespanCycles < 25500 {
		t.Errorf("hyperq's makespan %d is below its floor 25500", hq.MakespanCycles)
	}
	// The kernel slots: each task's longest warp, 2000, plus its dispatch,
	// over titanx's 32 Kernel Distributor entries.
	if want := float64(2*2000+2*cfg.Lat.KernelDispatch) / 32; pg.Tasks.TaskCycles != 4000 || f.slots != want {
		t.Errorf("task cycles %d, slots %.1f; want 4000 and %.1f", pg.Tasks.TaskCycles, f.slots, want)
	}
}

// HyperQ's kernel slots bind when tasks are long and the host is free:
// 96 tasks of 10,000 cycles alone, each dispatched in 300, hold 32
// entries 96 × 10,300 / 32 = 30,900 cycles at least, above the issue
// slots' 96 × 20,000 / 96 = 20,000.
func TestHyperQFloorSlots(t *testing.T) {
	cfg, err := pagodaExperiment.config()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Lat.HostIssue, cfg.Lat.KernelDispatch, cfg.GPU.MaxKernels, cfg.GPU.SMs, cfg.GPU.IssueWidth = 0, 300, 32, 24, 4
	w := bounds.TaskWork{Tasks: 96, Blocks: 96, TaskCycles: 96 * 10000, WarpCycles: 96 * 40000, Insts: 96 * 20000}
	if floor, binds := newHyperQFloor(cfg, w).cycles(); floor != 30900 || binds != "kernel slots" {
		t.Errorf("floor %.1f (%s), want 30900 (kernel slots)", floor, binds)
	}
	if _, binds := newPagodaFloor(cfg, w).cycles(); binds == "kernel slots" {
		t.Errorf("Pagoda's floor counts kernel slots")
	}
}

// threeTasks is three one-CTA tasks of 128 threads on titanx's clock
// (1000 MHz), each on its own stream, copies at 11 GB/s (1/11 cycle a
// byte): task 1 copies 110,000 bytes in (10,000 cycles) and 55,000 out
// (5,000), its longest warp 20,000; task 2 copies 220,000 in (20,000) and
// nothing out, warps of 2,000; task 3 copies nothing in and 11,000 out
// (1,000), warps of 30,000.
const threeTasks = `{"type":"header","version":1,"clock_mhz":1000}
{"type":"buffer","id":1,"name":"in","base":0,"bytes":1048576,"role":"temp"}
{"type":"buffer","id":2,"name":"out","base":1048576,"bytes":1048576,"role":"temp"}
{"type":"memcpy","dir":"h2d","buffer":1,"bytes":110000,"stream":1,"t":0}
{"type":"kernel","id":1,"name":"task","grid":[1,1,1],"block":[128,1,1],"regs":32,"smem":0}
{"type":"launch","kernel":1,"t":0,"stream":1}
{"type":"cta","kernel":1,"cta":0,"cycles":20000,"warp_cycles":[20000,20000,1000,1000]}
{"type":"memcpy","dir":"d2h","buffer":2,"bytes":55000,"stream":1,"t":0}
{"type":"memcpy","dir":"h2d","buffer":1,"bytes":220000,"stream":2,"t":0}
{"type":"kernel","id":2,"name":"task","grid":[1,1,1],"block":[128,1,1],"regs":32,"smem":0}
{"type":"launch","kernel":2,"t":0,"stream":2}
{"type":"cta","kernel":2,"cta":0,"cycles":2000}
{"type":"kernel","id":3,"name":"task","grid":[1,1,1],"block":[128,1,1],"regs":32,"smem":0}
{"type":"launch","kernel":3,"t":0,"stream":3}
{"type":"cta","kernel":3,"cta":0,"cycles":30000}
{"type":"memcpy","dir":"d2h","buffer":2,"bytes":11000,"stream":3,"t":0}
`

// The critical-path floors of threeTasks, by hand, on the Pagoda
// experiments' setup: 2 host threads, synchronous copies, a call
// (lat.host_issue) and a spawn 3,500 cycles, lat.host_launch 5,000,
// lat.kernel_dispatch 283, pagoda.sched_cycles 1,000, pipelined spawns.
//
// HyperQ: a task's calls are one piece on the thread free first, threads
// free at 0 and 0.
//   - task 1: copy in 3,500 + 10,000 wait, launch 3,500, copy back
//     3,500 + 5,000 wait: 25,500 on thread 0 from 0. Launch at 13,500,
//     the kernel at its stream 13,500 + 3,500 + 5,000 = 22,000 (its copy
//     in is there by 0 + 8,500 + 10,000 = 18,500), ends at least at
//     22,000 + 283 + 20,000 = 42,283; its copy back reaches the stream
//     at 13,500 + 7,000 + 5,000 = 25,500, so it ends at least at
//     42,283 + 5,000 = 47,283.
//   - task 2: 3,500 + 20,000 + 3,500 = 27,000 on thread 1 from 0. Launch
//     at 23,500, at its stream 32,000 (copy in 8,500 + 20,000 = 28,500),
//     ends 32,000 + 283 + 2,000 = 34,283.
//   - task 3: launch 3,500, copy back 3,500 + 1,000: 8,000 on thread 0
//     from 25,500. At its stream 34,000, ends 34,000 + 283 + 30,000 =
//     64,283, its copy back 65,283.
//
// The floor is 65,283.
//
// Pagoda: a task's copy calls (3,500 each), its waits for both copies and
// its spawn (3,500) are one piece; threads free from 3,500 (the
// MasterKernel's launch call), which is resident at 3,500 + 5,000 + 283
// = 8,783.
//   - task 1: 7,000 + 15,000 + 3,500 = 25,500 on thread 0 from 3,500:
//     spawned at 29,000 (its input arrived by 3,500 + 7,000 + 10,000 =
//     20,500), read by 30,000, ends 50,000, copied back by 55,000.
//   - task 2: 3,500 + 20,000 + 3,500 = 27,000 on thread 1 from 3,500:
//     spawned 30,500, ends 30,500 + 1,000 + 2,000 = 33,500.
//   - task 3: 3,500 + 1,000 + 3,500 = 8,000 on thread 0 from 29,000:
//     spawned 37,000, ends 37,000 + 1,000 + 30,000 = 68,000, copied back
//     by 69,000.
//   - the last spawn (37,000) is flushed at least 3,500 later and
//     waitAll's copy-back takes 5,000: 45,500.
//
// The floor is 69,000. The replayed runs take no less.
func TestCriticalPathThreeTasks(t *testing.T) {
	for _, policy := range []string{"hyperq", "pagoda"} {
		_, st := replayTrace(t, threeTasks, policy)
		if policy == "pagoda" {
			if w := st.Tasks; w.HyperQPath != 65283 || w.PagodaPath != 69000 {
				t.Errorf("critical paths: hyperq %d, pagoda %d; want 65283 and 69000", w.HyperQPath, w.PagodaPath)
			}
		}
		floor := map[string]int64{"hyperq": 65283, "pagoda": 69000}[policy]
		if st.MakespanCycles < floor {
			t.Errorf("%s's makespan %d is below its critical path %d", policy, st.MakespanCycles, floor)
		}
		t.Logf("%s: makespan %d, critical path %d", policy, st.MakespanCycles, floor)
	}
}

// Two consecutive tasks on one stream are one piece of the host's under
// HyperQ (a stream's consecutive calls stay on a thread), not the shape
// the HyperQ floor counts: it gives none, and Pagoda's still holds.
func TestCriticalPathNeedsFig1a(t *testing.T) {
	shared := strings.Replace(threeTasks, `"stream":2`, `"stream":1`, 2)
	_, st := replayTrace(t, shared, "pagoda")
	if st.Tasks.HyperQPath != 0 || st.Tasks.PagodaPath != 69000 {
		t.Errorf("critical paths: hyperq %d, pagoda %d; want 0 and 69000", st.Tasks.HyperQPath, st.Tasks.PagodaPath)
	}
	interleaved := strings.Replace(threeTasks,
		"{\"type\":\"memcpy\",\"dir\":\"h2d\",\"buffer\":1,\"bytes\":220000,\"stream\":2,\"t\":0}\n", "", 1)
	interleaved = strings.Replace(interleaved, `{"type":"memcpy","dir":"d2h","buffer":2,"bytes":55000,"stream":1,"t":0}`,
		`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":220000,"stream":2,"t":0}
{"type":"memcpy","dir":"d2h","buffer":2,"bytes":55000,"stream":1,"t":0}`, 1)
	_, st = replayTrace(t, interleaved, "pagoda")
	if st.Tasks.HyperQPath != 0 {
		t.Errorf("a copy back after the next task's copy in: hyperq critical path %d, want 0", st.Tasks.HyperQPath)
	}
}

// On a small mix of every kind, with and without the contention model,
// no replayed run beats its floors: each bound is at least the replayed
// speedup over HyperQ and over GeMTC, and each "at least" at most it.
func TestPagodaBoundsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and replays two small mixes")
	}
	for _, extra := range [][]string{nil, {"model.contention=off"}} {
		x := *pagodaExperiment
		x.sets = append(append([]string(nil), x.sets...), extra...)
		x.benchmarks = []benchmark{
			{name: "mpe-256", gen: "tasks", params: []string{"kind=mixed", "count=256"}},
			{name: "dct-128", gen: "tasks", params: []string{"kind=dct", "count=128"}},
		}
		outs := floorsHold(t, &x)
		var out strings.Builder
		pagodaBounds(&x, &out, outs)
		if !strings.Contains(out.String(), "| mpe-256 |") || !strings.Contains(out.String(), "geometric mean: bound") {
			t.Errorf("bounds table:\n%s", out.String())
		}
	}
}

// Every benchmark of pagoda-scaling (Figure 6) and pagoda (Figure 5), on
// their setup: no replayed HyperQ or Pagoda run ends before its
// throughput floor or its critical path.
func TestPagodaExperimentsFloorsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("replays both experiments, about a minute")
	}
	floorsHold(t, pagodaScaling)
	outs := floorsHold(t, pagodaExperiment)
	cfg, err := pagodaExperiment.config()
	if err != nil {
		t.Fatal(err)
	}
	table3HostsHold(t, cfg, outs)
}

// table3HostsHold checks pagodaHosts against Table 3's constraint on the
// pagoda experiment's traces: each host's per-call cost is the largest
// whole number of cycles table3Call allows on every Table 3 row (mpe has
// none), so the constants are the derivation's, not tuned.
func table3HostsHold(t *testing.T, cfg model.Config, outs []outcome) {
	t.Helper()
	for _, h := range pagodaHosts {
		least := math.Inf(1)
		for _, r := range pagodaRows(outs) {
			if r.name != "mpe" {
				least = min(least, table3Call(cfg, r.pagoda.Tasks, h.threads, h.sync))
			}
		}
		if want := int64(math.Floor(least)); h.call != want {
			t.Errorf("%v: Table 3 allows at most %.2f cycles a call; set %d, want %d", h, least, h.call, want)
		}
	}
}

// floorsHold runs x and checks every benchmark's replayed HyperQ and
// Pagoda makespans against both of their floors; it returns the runs.
func floorsHold(t *testing.T, x *experiment) []outcome {
	t.Helper()
	outs, err := x.run(t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := x.config()
	if err != nil {
		t.Fatal(err)
	}
	rows := pagodaRows(outs)
	if len(rows) != len(x.benchmarks) {
		t.Fatalf("%d rows, want %d", len(rows), len(x.benchmarks))
	}
	for _, r := range rows {
		w := r.pagoda.Tasks
		if w.PagodaPath <= 0 || w.HyperQPath <= 0 {
			t.Errorf("%s %v: critical paths hyperq %d, pagoda %d; the tasks generator writes Fig. 1a's shape", r.name, x.sets, w.HyperQPath, w.PagodaPath)
		}
		for _, c := range []struct {
			runtime string
			f       pagodaFloor
			st      *stats
		}{{"pagoda", newPagodaFloor(cfg, w), r.pagoda}, {"hyperq", newHyperQFloor(cfg, w), r.hyperq}} {
			floor, _ := c.f.cycles()
			if floor <= 0 || float64(c.st.MakespanCycles) < c.f.larger() {
				t.Errorf("%s %v: %s's makespan %d, floor %.0f, critical path %.0f", r.name, x.sets, c.runtime, c.st.MakespanCycles, floor, c.f.path)
			}
		}
	}
	return outs
}

// replayTiny replays tinyTasks under policy on the Pagoda experiment's
// setup.
func replayTiny(t *testing.T, policy string) (model.Config, *stats) {
	t.Helper()
	return replayTrace(t, tinyTasks, policy)
}

// replayTrace replays a JSONL trace under policy on Fig. 1a's host, the
// one the hand-checked floors assume (2 threads, synchronous copies at
// 11 GB/s, titanx's 3.5 µs calls and spawns), not the experiments' own
// Table 3 host (table3host.go).
func replayTrace(t *testing.T, jsonl, policy string) (model.Config, *stats) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.jsonl")
	if err := os.WriteFile(path, []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}
	x := *pagodaExperiment
	x.sets = []string{"io.pcie_gbps=11", "lat.host_threads=2", "io.memcpy=sync"}
	cfg, err := x.config()
	if err != nil {
		t.Fatal(err)
	}
	st, err := replayOnce(replayJob{cfg: cfg, column: policy, policy: policy, bench: benchmark{name: "tiny"}, path: path}, 0, discardWriter(t), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, st
}

// discardWriter is a tables writer in a temporary directory, aborted when
// the test ends.
func discardWriter(t *testing.T) *results.Writer {
	w, err := results.Create(filepath.Join(t.TempDir(), "tables"), results.Parquet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Abort)
	return w
}

// TestRatioCell checks that a bound that is not 1 never prints as 1.00×.
func TestRatioCell(t *testing.T) {
	for x, want := range map[float64]string{1: "1.00×", 0.99967: "0.9997×", 1.003: "1.0030×", 0.996: "0.9960×", 0.994: "0.99×", 1.24: "1.24×", 0.99998: "0.999980×", 1.0000001: "1.000000×", 10: "10.00×"} {
		if got := ratioCell(x); got != want {
			t.Errorf("ratioCell(%v) = %s, want %s", x, got, want)
		}
	}
}
