package taskrun

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// small is one SM holding two 64-thread (2-warp) workers, batches of
// batch tasks, a push of 10 cycles per task, a batch trip of
// 10 + 20 + 5 = 35 cycles and free takes from the queue.
func small(t *testing.T, batch int64) model.Config {
	c := titanx(t, 0, 0, 20)
	c.GPU.SMs, c.GPU.MaxCTAsPerSM = 1, 2
	c.GeMTC.Batch, c.GeMTC.Threads = batch, 64
	c.Lat.HostIssue, c.Lat.KernelDispatch = 10, 5
	c.GeMTC.DequeueCycles = 0
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

// Batches of 2 on 2 workers, one-warp tasks, all spawned at 0. The host
// pushes a batch's tasks (10 cycles each) only once the previous batch
// has finished:
//
//	batch  tasks      pushed   sent  arrives  runs
//	1      0 (100)    0–10     20    55       55–155
//	       1 (300)    10–20                   55–355
//	2      2, 3 (50)  355–375  375   410      410–460   (worker 0 idles 155–355)
//	3      4 (10)     460–470  470   505      505–515   (partial, after Close)
func TestGeMTCBatches(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 2), r)
	drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 300), task(2, 0, 1, 50), task(3, 0, 1, 50), task(4, 0, 1, 10)}, 2)
	r.want(0, 55, 55, 155)
	r.want(1, 55, 55, 355)
	r.want(2, 410, 410, 460)
	r.want(3, 410, 410, 460)
	r.want(4, 505, 505, 515)
}

// Two host threads push two tasks at once: the first batch leaves at 10
// and arrives at 45 (45–145, 45–345); tasks 2 and 3 are pushed together
// at 345–355 (arrive 390, run 390–440), task 4 at 440–450 (arrives 485).
func TestGeMTCHostThreads(t *testing.T) {
	c := small(t, 2)
	c.Lat.HostThreads = 2
	r := newRecorder(t, 4)
	g := newGeMTC(t, c, r)
	drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 300), task(2, 0, 1, 50), task(3, 0, 1, 50), task(4, 0, 1, 10)}, 2)
	r.want(0, 45, 45, 145)
	r.want(1, 45, 45, 345)
	r.want(2, 390, 390, 440)
	r.want(3, 390, 390, 440)
	r.want(4, 485, 485, 495)
}

// Workers take tasks through one queue, 10 cycles a take, one at a time.
// The batch of three arrives at 65: worker 0 takes task 0 at 65–75 (runs
// 75–175), worker 1 task 1 at 75–85 (85–385), and worker 0, free at 175,
// task 2 at 175–185 (185–235).
func TestGeMTCQueueSerialisesTakes(t *testing.T) {
	c := small(t, 3)
	c.GeMTC.DequeueCycles = 10
	r := newRecorder(t, 4)
	g := newGeMTC(t, c, r)
	drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 300), task(2, 0, 1, 50)}, 2)
	r.want(0, 65, 75, 175)
	r.want(1, 65, 85, 385)
	r.want(2, 65, 185, 235)
}

// Without Close a partial batch is never sent, and Stuck says so.
func TestGeMTCPartialBatchNeedsClose(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 2), r)
	if err := g.Submit(task(9, 0, 1, 10)); err != nil {
		t.Fatal(err)
	}
	for at, ok := g.Next(); ok; at, ok = g.Next() {
		g.Advance(at)
	}
	want := []string{"host: a batch of 1 tasks waits for 1 more tasks or Close (gemtc.batch 2)"}
	if got := g.Stuck(); !slices.Equal(got, want) {
		t.Fatalf("Stuck = %q; want %q", got, want)
	}
	g.Close()
	for at, ok := g.Next(); ok; at, ok = g.Next() {
		g.Advance(at)
	}
	r.want(9, 45, 45, 55)
	if g.Stuck() != nil {
		t.Errorf("Stuck after the last batch: %q", g.Stuck())
	}
}

// A batch is sent when its last task is pushed (task 2, spawned at 500,
// pushed 500–510), and its tasks go to the workers in order: task 2 takes
// worker 0 when task 0 ends.
func TestGeMTCWorkersTakeTasksInOrder(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 3), r)
	drive(t, g, r, []Task{task(0, 0, 1, 100), task(1, 0, 1, 300), task(2, 500, 1, 50)}, 2)
	r.want(0, 545, 545, 645)
	r.want(1, 545, 545, 845)
	r.want(2, 545, 645, 695)
}

// A 5-warp task on a 2-warp worker: worker warp 0 runs task warps 0, 2, 4
// (10+30+50), warp 1 runs 1, 3 (20+40).
func TestGeMTCWideTaskRounds(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 1), r)
	drive(t, g, r, []Task{task(0, 0, 5, 10, 20, 30, 40, 50)}, 2)
	r.want(0, 45, 45, 135)
	want := []string{"45 spawned 0", "45 started 0 sm 0", "45 busy sm 0 +2", "105 busy sm 0 -1", "135 busy sm 0 -1", "135 finished 0"}
	if !slices.Equal(r.log, want) {
		t.Errorf("log %q; want %q", r.log, want)
	}
}

// Worker counts follow the GPU's limits at 32 registers a thread: 384 of
// 128 threads on titanx (16 per SM, threads and registers bind), 768 of 32
// threads (32 per SM, the CTA limit: Pagoda §6.2's 50% occupancy).
func TestGeMTCWorkers(t *testing.T) {
	for _, c := range []struct {
		threads int64
		workers int
	}{{128, 384}, {32, 768}, {1024, 48}} {
		cfg := titanx(t, 0, 0, 0)
		cfg.GeMTC.Threads = c.threads
		g := newGeMTC(t, cfg, nil)
		if g.workers != c.workers {
			t.Errorf("%d threads: %d workers; want %d", c.threads, g.workers, c.workers)
		}
	}
	cfg := titanx(t, 0, 0, 0)
	cfg.GeMTC.Threads = 4096
	if _, err := NewGeMTC(cfg, nil); err == nil || !strings.Contains(err.Error(), "gemtc.threads is 4096") {
		t.Errorf("4096-thread workers: err %v", err)
	}
}

// GeMTC ignores shared memory and sync but still rejects malformed tasks.
func TestGeMTCSubmit(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 1), r)
	x := task(3, 0, 2, 10)
	x.Smem, x.Sync = 1<<20, true
	drive(t, g, r, []Task{x}, 2)
	r.want(3, 45, 45, 55)
	x.WarpCycles = x.WarpCycles[:1]
	var te *TaskError
	if err := g.Submit(x); !errors.As(err, &te) || te.ID != 3 {
		t.Errorf("short WarpCycles: err %v; want a TaskError", err)
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

// A batch leaves only when its tasks' inputs are on the GPU. Batches of 2;
// each task costs the host 10 cycles of copy calls and 10 of push, and
// holds the copy engine for 100: task 0 is pushed by 20 (input 20..120),
// task 1 by 40 (input 120..220). The batch leaves at 220 and arrives 35
// later, 255.
func TestGeMTCWaitsForInputs(t *testing.T) {
	r := newRecorder(t, 4)
	g := newGeMTC(t, small(t, 2), r)
	a, b := task(0, 0, 1, 100), task(1, 0, 1, 100)
	a.HostCycles, a.CopyIn, b.HostCycles, b.CopyIn = 10, 100, 10, 100
	drive(t, g, r, []Task{a, b}, 2)
	r.want(0, 255, 255, 355)
	r.want(1, 255, 255, 355)
	r.wantCopies("20..120", "120..220")
}
