package taskrun

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// small is one SM holding two SuperKernel blocks of 64 threads (2 warps):
// four warp workers, or two block workers with gemtc.worker=block. The
// clock is 1 MHz so the flusher's 100 µs are 100 cycles. The host's
// calls cost 10 and a PCIe trip 20, so a synchronous copy is 30 and an
// EnqueueJobBatch (5 copies) 150; the SuperKernel's launch call holds the
// host 0..10 and it is resident at 10 + 20 + 5 = 35. Takes and results
// are free.
func small(t *testing.T, batch int64) model.Config {
	c := titanx(t, 0, 0, 20)
	c.GPU.SMs, c.GPU.MaxCTAsPerSM, c.GPU.ClockMHz = 1, 2, 1
	c.GeMTC.Batch, c.GeMTC.Threads = batch, 64
	c.Lat.HostIssue, c.Lat.KernelDispatch = 10, 5
	c.GeMTC.DequeueCycles, c.GeMTC.ResultCycles = 0, 0
	return c
}

func newGeMTC(t *testing.T, c model.Config, r *recorder) *GeMTC {
	t.Helper()
	g, err := NewGeMTC(c, r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Batches of 2, one-warp tasks without copies, all spawned at 0. The host
// pushes tasks 0 and 1 at 10 (after the SuperKernel's launch call); its
// buffer is short of a chunk of 100, so the flusher sends it 100 cycles
// after the last push: EnqueueJobBatch 110..260. The next batch is pushed
// only when task 1 ends, at 560 (flushed 660..810); idle workers queue
// up, so tasks 2 and 3 go to workers 2 and 3, which have waited longest.
// Task 4 is a final partial batch, pushed at 860 and flushed 960..1110.
//
//	batch  tasks      pushed  enqueued   runs
//	1      0 (100)    10      110..260   260..360
//	       1 (300)    10                 260..560
//	2      2, 3 (50)  560     660..810   810..860
//	3      4 (10)     860     960..1110  1110..1120
func TestGeMTCBatches(t *testing.T) {
	for _, threads := range []int64{1, 2} {
		c := small(t, 2)
		c.Lat.HostThreads = threads // GeMTC's host calls serialise on its mutexes whatever the threads
		r := newRecorder(t, 4)
		g := newGeMTC(t, c, r)
		drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 300), task(2, 0, 1, 50), task(3, 0, 1, 50), task(4, 0, 1, 10)}, 2)
		r.want(0, 260, 260, 360)
		r.want(1, 260, 260, 560)
		r.want(2, 810, 810, 860)
		r.want(3, 810, 810, 860)
		r.want(4, 1110, 1110, 1120)
		if r.sm[2] != 0 || r.sm[3] != 0 {
			t.Errorf("tasks 2, 3 on SMs %d, %d; want 0", r.sm[2], r.sm[3])
		}
	}
}

// Two warps dequeue at once and the second waits for the queue's lock;
// two results at once and the second waits for the result queue's lock.
// Both tasks are enqueued at 260. Worker 0 holds the task queue's lock
// 260..270 and runs task 0 270..370; worker 1 gets the lock at 270, holds
// it to 280 and runs task 1 (90 cycles) 280..370. Both end at 370: task
// 0's result holds the result lock 370..377, task 1's waits and holds it
// 377..384.
func TestGeMTCLocks(t *testing.T) {
	c := small(t, 2)
	c.GeMTC.DequeueCycles, c.GeMTC.ResultCycles = 10, 7
	r := newRecorder(t, 4)
	g := newGeMTC(t, c, r)
	drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 90)}, 2)
	r.want(0, 260, 270, 377)
	r.want(1, 260, 280, 384)
}

// A full chunk of 100 pushes goes to the GPU at once, without the
// flusher: tasks 0..99 are pushed at 10 and sent 10..160; the host then
// pushes 100..149 at 160, and the flusher sends them 260..410.
func TestGeMTCChunks(t *testing.T) {
	tasks := make([]Task, 150)
	for i := range tasks {
		tasks[i] = task(uint64(i), 0, 1, 10)
	}
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 200), r)
	drive(t, g, r, tasks, 2)
	for _, c := range []struct {
		id uint64
		at int64
	}{{0, 160}, {99, 160}, {100, 410}, {149, 410}} {
		if got := r.spawned[c.id]; got != c.at {
			t.Errorf("task %d enqueued at %d; want %d", c.id, got, c.at)
		}
	}
}

// A 5-warp task on a warp worker runs its warps one after another on that
// warp, 10+20+30+40+50 = 150 cycles (enqueued 110..260, runs 260..410). On
// a block worker of 2 warps, warp 0 runs task warps 0, 2, 4 (10+30+50)
// and warp 1 runs 1, 3 (20+40): 260..350.
func TestGeMTCWideTaskRounds(t *testing.T) {
	for _, c := range []struct {
		worker string
		log    []string
	}{
		{"warp", []string{"260 spawned 0", "260 started 0 sm 0", "260 busy sm 0 +1", "410 busy sm 0 -1", "410 finished 0"}},
		{"block", []string{"260 spawned 0", "260 started 0 sm 0", "260 busy sm 0 +2", "320 busy sm 0 -1", "350 busy sm 0 -1", "350 finished 0"}},
	} {
		cfg := small(t, 1)
		cfg.GeMTC.Worker = c.worker
		r := newRecorder(t, 4)
		g := newGeMTC(t, cfg, r)
		drive(t, g, r, []Task{task(0, 0, 5, 10, 20, 30, 40, 50)}, 2)
		if !slices.Equal(r.log, c.log) {
			t.Errorf("%s workers: log %q; want %q", c.worker, r.log, c.log)
		}
	}
}

// Worker counts follow the GPU's limits at 32 registers a thread: on
// titanx 16 blocks of 128 threads per SM, 64 warps (Pagoda §6.2's 100%
// occupancy): 1536 warp workers or 384 block workers; 32 blocks of 32
// threads (the CTA limit: §6.2's 50%): 768 either way; 2 blocks of 1024:
// 1536 warps or 48 blocks.
func TestGeMTCWorkers(t *testing.T) {
	for _, c := range []struct {
		threads     int64
		warp, block int
	}{{128, 1536, 384}, {32, 768, 768}, {1024, 1536, 48}} {
		cfg := titanx(t, 0, 0, 0)
		cfg.GeMTC.Threads = c.threads
		if g := newGeMTC(t, cfg, nil); g.workers != c.warp {
			t.Errorf("%d threads: %d warp workers; want %d", c.threads, g.workers, c.warp)
		}
		cfg.GeMTC.Worker = "block"
		if g := newGeMTC(t, cfg, nil); g.workers != c.block {
			t.Errorf("%d threads: %d block workers; want %d", c.threads, g.workers, c.block)
		}
	}
	cfg := titanx(t, 0, 0, 0)
	cfg.GeMTC.Threads = 4096
	if _, err := NewGeMTC(cfg, nil); err == nil || !strings.Contains(err.Error(), "gemtc.threads is 4096") {
		t.Errorf("4096-thread blocks: err %v", err)
	}
}

// GeMTC ignores a task's Sync; a task that uses shared memory runs
// gemtc.smem_slowdown's factor for its kernel longer. Three one-warp
// tasks of 100 cycles, enqueued at 260: matmul with shared memory runs
// 100 × 1.26 = 126 (260..386); conv with shared memory (not listed) and
// matmul without it run 100 (260..360).
func TestGeMTCSmemSlowdown(t *testing.T) {
	a, b, c := task(0, 0, 1, 100), task(1, 0, 1, 100), task(2, 0, 1, 100)
	a.Name, a.Smem, a.Sync = "matmul", 512, true
	b.Name, b.Smem = "conv", 512
	c.Name = "matmul"
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 3), r)
	drive(t, g, r, []Task{a, b, c}, 2)
	r.want(0, 260, 260, 386)
	r.want(1, 260, 260, 360)
	r.want(2, 260, 260, 360)
	a.WarpCycles = nil
	var te *TaskError
	if err := g.Submit(a); !errors.As(err, &te) || te.ID != 0 {
		t.Errorf("no WarpCycles: err %v; want a TaskError", err)
	}
}

func TestGeMTCDeterministic(t *testing.T) {
	tasks := mixed(3000)
	var logs [][]string
	for _, window := range []int{2, 2, len(tasks)} {
		r := newRecorder(t, 64)
		g := newGeMTC(t, titanx(t, 0, 0, 5000), r)
		drive(t, g, r, tasks, window)
		logs = append(logs, r.log)
	}
	if !slices.Equal(logs[0], logs[1]) || !slices.Equal(logs[0], logs[2]) {
		t.Fatal("runs of the same tasks differ")
	}
}

// GeMTC's copies are synchronous: the host waits for each task's input
// before its next call. Each task's copy calls cost 10 and its input
// holds the copy engine 100: task 0's calls run 10..20 (after the launch
// call), its input 20..120; task 1's calls 120..130, its input 130..230.
// The flusher sends both 330..480.
func TestGeMTCSynchronousCopies(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 2), r)
	a, b := task(0, 0, 1, 100), task(1, 0, 1, 100)
	a.HostCycles, a.CopyIn, b.HostCycles, b.CopyIn = 10, 100, 10, 100
	drive(t, g, r, []Task{a, b}, 2)
	r.want(0, 480, 480, 580)
	r.want(1, 480, 480, 580)
	r.wantCopies("20..120", "130..230")
}
