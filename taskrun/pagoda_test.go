package taskrun

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// 64 tasks of 256 threads (8 warps) need 512 warps; titanx's 48 MTBs have
// 48 × 31 = 1488 executor warps, so with free spawning and scheduling all
// start at cycle 0. The host's round-robin puts task i in column i mod 48,
// on SM (i mod 48) mod 24.
func TestPagodaOneRound(t *testing.T) {
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, titanx(t, 0, 0, 0), r)
	var tasks []Task
	for i := uint64(0); i < 64; i++ {
		tasks = append(tasks, task(i, 0, 8, 1000))
	}
	drive(t, p, r, tasks, 2)
	for i := uint64(0); i < 64; i++ {
		r.want(i, 0, 0, 1000)
		if sm := r.sm[i]; sm != int(i%48%24) {
			t.Errorf("task %d on SM %d; want %d", i, sm, i%48%24)
		}
	}
	if r.peak != 512 {
		t.Errorf("peak busy warps %d; want 512", r.peak)
	}
}

// Spawns are pipelined on one host thread and each MTB's scheduler warp
// spends sched_cycles per task, serially. spawn 100, sched 30, one SM of
// two MTBs; one-warp tasks of 1000 cycles:
//
//	task spawn→column  spawned  read      started  ended
//	0    0     col 0   100      100–130   130      1130
//	1    0     col 1   200      200–230   230      1230
//	2    0     col 0   300      300–330   330      1330
//	3    5000  col 1   5100     5100–5130 5130     6130
//	4    0     col 0   5200     5200–5230 5230     6230  (host order: after 3)
func TestPagodaSpawnPipeline(t *testing.T) {
	c := titanx(t, 100, 30, 0)
	c.GPU.SMs = 1
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 0, 1, 1000), task(2, 0, 1, 1000), task(3, 5000, 1, 1000), task(4, 0, 1, 1000)}, 2)
	r.want(0, 100, 130, 1130)
	r.want(1, 200, 230, 1230)
	r.want(2, 300, 330, 1330)
	r.want(3, 5100, 5130, 6130)
	r.want(4, 5200, 5230, 6230)
}

// Two host threads spawn two tasks at once, taking tasks in submit order:
// task 3 (due at 5000) holds a thread until 5100 while task 4 spawns on
// the other at 200. spawn 100, sched 30, one SM of two MTBs:
//
//	task thread  spawn      column  read       started  ended
//	0    a       0–100      0       100–130    130      1130
//	1    b       0–100      1       100–130    130      1130
//	2    a       100–200    0       200–230    230      1230
//	3    b       5000–5100  1       5100–5130  5130     6130
//	4    a       200–300    0       300–330    330      1330
func TestPagodaHostThreads(t *testing.T) {
	c := titanx(t, 100, 30, 0)
	c.GPU.SMs, c.Lat.HostThreads = 1, 2
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 0, 1, 1000), task(2, 0, 1, 1000), task(3, 5000, 1, 1000), task(4, 0, 1, 1000)}, 2)
	r.want(0, 100, 130, 1130)
	r.want(1, 100, 130, 1130)
	r.want(2, 200, 230, 1230)
	r.want(3, 5100, 5130, 6130)
	r.want(4, 300, 330, 1330)
}

// One MTB's scheduler warp reads one entry at a time: three tasks spawned
// together start sched_cycles apart.
func TestPagodaSchedulerSerial(t *testing.T) {
	c := oneMTB(t)
	c.Pagoda.SchedCycles = 30
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 100), task(2, 0, 1, 100)}, 2)
	r.want(0, 0, 30, 130)
	r.want(1, 0, 60, 160)
	r.want(2, 0, 90, 190)
}

// Warp granularity: A holds all 31 executor warps; its warp 0 ends at 100
// and B's first warp takes that executor warp at once, while A runs until
// 1000. B's second warp gets the warp B's first releases at 150.
func TestPagodaWarpReuse(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	drive(t, p, r, []Task{task(1, 0, 31, 100, 1000), task(2, 0, 2, 50)}, 2)
	r.want(1, 0, 0, 1000)
	r.want(2, 0, 100, 200)
}

// A sync task starts only when all its warps are placed, and its reserved
// warps are not busy meanwhile. A (29 warps) leaves 2 free; B (sync, 4
// warps) reserves them, gets a third at 100 and the fourth at 1000, when
// all four start. The same B without sync starts at 0 and runs in two
// waves on the two free warps, ending at 100.
func TestPagodaSyncStartsTogether(t *testing.T) {
	for _, sync := range []bool{true, false} {
		r := newRecorder(t, executorWarps)
		p := newPagoda(t, oneMTB(t), r)
		b := task(2, 0, 4, 50)
		b.Sync = sync
		drive(t, p, r, []Task{task(1, 0, 29, 100, 1000), b}, 2)
		r.want(1, 0, 0, 1000)
		if !sync {
			r.want(2, 0, 0, 100)
			continue
		}
		r.want(2, 0, 1000, 1050)
		var busy []string
		for _, l := range r.log {
			if strings.Contains(l, "busy") && len(busy) < 4 {
				busy = append(busy, l)
			}
		}
		want := []string{"0 busy sm 0 +29", "100 busy sm 0 -1", "1000 busy sm 0 -1", "1000 busy sm 0 +4"}
		if !slices.Equal(busy, want) {
			t.Errorf("sync: busy warps %q; want %q (reserved warps idle until the start)", busy, want)
		}
	}
}

// 16 named barriers per MTB: of 17 one-warp sync tasks the 17th waits for
// the first to finish (500) although 15 executor warps are free.
func TestPagodaSeventeenthBarrier(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	var tasks []Task
	for i := uint64(0); i < 17; i++ {
		x := task(i, 0, 1, 1000)
		if i == 0 {
			x = task(i, 0, 1, 500)
		}
		x.Sync = true
		tasks = append(tasks, x)
	}
	drive(t, p, r, tasks, 2)
	r.want(0, 0, 0, 500)
	for i := uint64(1); i < 16; i++ {
		r.want(i, 0, 0, 1000)
	}
	r.want(16, 0, 500, 1500)
}

// A's 20000 bytes take the MTB's whole 32 KiB heap (the next power of
// two), so B's 600 bytes wait for A's end. A's block is only marked then;
// the scheduler frees it just before B's allocation. B's own block stays
// marked after B ends, since no allocation follows.
func TestPagodaSharedMemoryWaits(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	a := task(1, 0, 1, 1000)
	a.Smem = 20000
	b := task(2, 0, 2, 50)
	b.Smem = 600
	drive(t, p, r, []Task{a, b}, 2)
	r.want(1, 0, 0, 1000)
	r.want(2, 0, 1000, 1050)
	m := &p.mtbs[0]
	if len(m.marked) != 1 || !m.heap.marked[m.marked[0]] || m.heap.blockSize(m.marked[0]) != 1024 {
		t.Errorf("after the run: marked %v; want B's 1 KiB block, still allocated (lazy free)", m.marked)
	}
}

// Two 16 KiB requests share the heap; a third (512 bytes) waits for the
// first to end, and a task behind it that needs no shared memory waits
// too (head of line: the scheduler warp spins in allocSM), though 28
// executor warps are free.
func TestPagodaSharedMemoryHeadOfLine(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	a, b, c := task(1, 0, 1, 300), task(2, 0, 1, 1000), task(3, 0, 1, 10)
	a.Smem, b.Smem, c.Smem = 16<<10, 16<<10, 512
	drive(t, p, r, []Task{a, b, c, task(4, 0, 1, 10)}, 2)
	r.want(1, 0, 0, 300)
	r.want(2, 0, 0, 1000)
	r.want(3, 0, 300, 310)
	r.want(4, 0, 300, 310)
}

// Mid-run, Stuck names what the scheduler waits for.
func TestPagodaStuckDescribesWaits(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	a, b := task(1, 0, 1, 1000), task(2, 0, 1, 10)
	a.Smem, b.Smem = 32<<10, 512
	for _, x := range []Task{a, b, task(3, 0, 1, 10)} {
		if err := p.Submit(x); err != nil {
			t.Fatal(err)
		}
	}
	p.Advance(0)
	got := strings.Join(p.Stuck(), "; ")
	want := "MTB 0 (SM 0): task 2 waits for 512 bytes of shared memory (largest free block 0), 1 spawned tasks behind it"
	if got != want {
		t.Errorf("Stuck:\n got %s\nwant %s", got, want)
	}
	p.Advance(1000)
	p.Advance(2000)
	if w := p.Stuck(); w != nil {
		t.Errorf("Stuck after every task finished: %v", w)
	}
}

// Two TaskTable rows: tasks 0 and 1 fill the column; the host sees no free
// entry for task 2 and copies the table back (1000 cycles). Both entries
// freed at 300, so tasks 2 and 3 spawn at 1000. Task 4 again finds the
// host's view full: the copy-back 1000–2000 shows 2 and 3 freed at 1300.
func TestPagodaFullTableCopyBack(t *testing.T) {
	c := oneMTB(t)
	c.Pagoda.TableRows, c.Lat.HostLaunch = 2, 1000
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, c, r)
	var tasks []Task
	for i := uint64(0); i < 5; i++ {
		tasks = append(tasks, task(i, 0, 1, 300))
	}
	drive(t, p, r, tasks, 2)
	r.want(0, 0, 0, 300)
	r.want(1, 0, 0, 300)
	r.want(2, 1000, 1000, 1300)
	r.want(3, 1000, 1000, 1300)
	r.want(4, 2000, 2000, 2300)
}

// A copy-back that finds nothing free is repeated back-to-back: copies end
// at 1000 and 2000 with the entries still taken; the one ending at 3000
// sees them freed at 2500.
func TestPagodaCopyBackPolls(t *testing.T) {
	c := oneMTB(t)
	c.Pagoda.TableRows, c.Lat.HostLaunch = 2, 1000
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 2500), task(1, 0, 1, 2500), task(2, 0, 1, 10)}, 2)
	r.want(2, 3000, 3000, 3010)
}

// mixed is a deterministic workload exercising every Pagoda rule.
func mixed(n int) []Task {
	var tasks []Task
	x := uint64(12345)
	next := func(k uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % k }
	for i := 0; i < n; i++ {
		w := int(1 + next(16))
		t := task(uint64(i), int64(i)*200+int64(next(500)), w, 1)
		for j := range t.WarpCycles {
			t.WarpCycles[j] = int64(1000 + next(20000))
		}
		if next(4) == 0 {
			t.Smem = int64(1 + next(12000))
			t.Sync = w > 1
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// The same tasks give the same calls, however far ahead the driver
// submits.
func TestPagodaDeterministic(t *testing.T) {
	tasks := mixed(3000)
	var logs [][]string
	for _, window := range []int{2, 2, len(tasks)} {
		r := newRecorder(t, 2*executorWarps)
		p := newPagoda(t, titanx(t, 3500, 1000, 5000), r)
		drive(t, p, r, tasks, window)
		logs = append(logs, r.log)
	}
	if !slices.Equal(logs[0], logs[1]) || !slices.Equal(logs[0], logs[2]) {
		t.Fatal("runs of the same tasks differ")
	}
}

// Task state lives from Submit to TaskFinished: with the table full of
// long tasks, the slots in use never exceed the TaskTable (48 × 32
// entries) plus the driver's window.
func TestPagodaMemoryBounded(t *testing.T) {
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, titanx(t, 0, 0, 5000), r)
	var tasks []Task
	for i := uint64(0); i < 20000; i++ {
		tasks = append(tasks, task(i, 0, 2, 100000))
	}
	drive(t, p, r, tasks, 2)
	if n := len(p.tasks.items); n > 48*32+2 {
		t.Errorf("%d task slots for 20000 tasks; want at most %d", n, 48*32+2)
	}
	if p.tasks.live() != 0 {
		t.Errorf("%d tasks still held after the run", p.tasks.live())
	}
}

func TestPagodaRejects(t *testing.T) {
	bad := func(f func(*Task)) Task { x := task(7, 0, 2, 10); f(&x); return x }
	for _, c := range []struct {
		name string
		t    Task
		want string
	}{
		{"no threads", bad(func(x *Task) { x.Threads, x.Warps, x.WarpCycles = 0, 0, nil }), "0 threads"},
		{"short cycles", bad(func(x *Task) { x.WarpCycles = x.WarpCycles[:1] }), "1 warp cycle counts for 2 warps"},
		{"wrong warps", bad(func(x *Task) { x.Warps = 3 }), "3 warps for 64 threads"},
		{"negative cycles", bad(func(x *Task) { x.WarpCycles[1] = -1 }), "warp 1 runs for -1"},
		{"negative smem", bad(func(x *Task) { x.Smem = -1 }), "negative"},
		{"negative spawn", bad(func(x *Task) { x.Spawn = -1 }), "negative"},
		{"wide sync", func() Task { x := task(7, 0, 32, 10); x.Sync = true; return x }(), "32 warps"},
		{"big smem", bad(func(x *Task) { x.Smem = 32<<10 + 1 }), "32769 bytes"},
	} {
		r := newRecorder(t, 0)
		p := newPagoda(t, titanx(t, 0, 0, 0), r)
		err := p.Submit(c.t)
		var te *TaskError
		if !errors.As(err, &te) || te.ID != 7 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v; want a TaskError for task 7 containing %q", c.name, err, c.want)
		}
		if p.Waiting() != 0 || p.tasks.live() != 0 {
			t.Errorf("%s: rejected task kept", c.name)
		}
		if _, ok := p.Next(); ok {
			t.Errorf("%s: rejected task scheduled an event", c.name)
		}
	}
}

// A non-sync task wider than 31 warps runs in waves on one MTB.
func TestPagodaWideTaskWaves(t *testing.T) {
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, oneMTB(t), r)
	drive(t, p, r, []Task{task(1, 0, 32, 100)}, 2)
	r.want(1, 0, 0, 200)
}

func TestNewPagodaRejectsConfigs(t *testing.T) {
	c := titanx(t, 0, 0, 0)
	c.Pagoda.MTBsPerSM = 3
	if _, err := NewPagoda(c, nil); err == nil || !strings.Contains(err.Error(), "pagoda.mtbs_per_sm is 3") {
		t.Errorf("3 MTBs of 1024 threads on a 2048-thread SM: err %v", err)
	}
	c = titanx(t, 0, 0, 0)
	c.Pagoda.SmemPerMTB = 1000
	if _, err := NewPagoda(c, nil); err == nil || !strings.Contains(err.Error(), "pagoda.smem_per_mtb") {
		t.Errorf("a 1000-byte buddy heap: err %v", err)
	}
	c = titanx(t, 0, 0, 0)
	c.Pagoda.SmemPerMTB = 64 << 10 // 2 × 64 KiB > 96 KiB
	if _, err := NewPagoda(c, nil); err == nil || !strings.Contains(err.Error(), "smem limit") {
		t.Errorf("2 × 64 KiB MTBs on a 96 KiB SM: err %v", err)
	}
}

// Input copies: each task costs the host 50 cycles of copy calls before its
// 100-cycle spawn, and its input holds the copy engine for 400. Task 0's
// calls end at 50, its copy runs 50..450 and its spawn 50..150, so it is
// visible at 450 and starts after the 30-cycle scheduling, 480..1480. Task
// 1's host work starts at 150 (calls to 200, spawn to 300); its copy waits
// for the engine, 450..850, and it runs on the other MTB 880..1880.
func TestPagodaInputCopies(t *testing.T) {
	c := titanx(t, 100, 30, 0)
	c.GPU.SMs = 1
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, c, r)
	a, b := task(0, 0, 1, 1000), task(1, 0, 1, 1000)
	a.HostCycles, a.CopyIn, b.HostCycles, b.CopyIn = 50, 400, 50, 400
	drive(t, p, r, []Task{a, b}, 2)
	r.want(0, 450, 480, 1480)
	r.want(1, 850, 880, 1880)
	r.wantCopies("50..450", "450..850")
}
