package taskrun

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// recorder is a Listener that logs every call, checks that calls come in
// cycle order and that no SM's busy-warp count goes negative or past cap,
// and keeps each task's cycles for the tests to compare.
type recorder struct {
	t       testing.TB
	log     []string
	last    int64
	cap     int // busy warps an SM may hold, 0 = unchecked
	busy    map[int]int
	peak    int // most busy warps on the whole GPU at once
	total   int
	spawned map[uint64]int64
	started map[uint64]int64
	ended   map[uint64]int64
	sm      map[uint64]int
	copies  []string // input copies, "start..end", in the order reported
}

func newRecorder(t testing.TB, cap int) *recorder {
	return &recorder{t: t, cap: cap, busy: map[int]int{},
		spawned: map[uint64]int64{}, started: map[uint64]int64{},
		ended: map[uint64]int64{}, sm: map[uint64]int{}}
}

func (r *recorder) at(c int64, format string, a ...any) {
	r.t.Helper()
	if c < r.last {
		r.t.Fatalf("call at cycle %d after cycle %d: "+format, append([]any{c, r.last}, a...)...)
	}
	r.last = c
	r.log = append(r.log, fmt.Sprintf("%d "+format, append([]any{c}, a...)...))
}

func (r *recorder) TaskIssued(uint64, int64) {}

func (r *recorder) Drained(c int64) { r.at(c, "drained") }

func (r *recorder) InputCopied(start, end int64) {
	r.copies = append(r.copies, fmt.Sprintf("%d..%d", start, end))
}

// wantCopies checks the input copies reported, in order.
func (r *recorder) wantCopies(want ...string) {
	r.t.Helper()
	if !slices.Equal(r.copies, want) {
		r.t.Errorf("input copies %v, want %v", r.copies, want)
	}
}

func (r *recorder) TaskSpawned(id uint64, c int64) {
	r.at(c, "spawned %d", id)
	if _, dup := r.spawned[id]; dup {
		r.t.Fatalf("task %d spawned twice", id)
	}
	r.spawned[id] = c
}

func (r *recorder) TaskStarted(id uint64, c int64, sm int) {
	r.at(c, "started %d sm %d", id, sm)
	if _, ok := r.spawned[id]; !ok {
		r.t.Fatalf("task %d started before it was spawned", id)
	}
	r.started[id], r.sm[id] = c, sm
}

func (r *recorder) TaskFinished(id uint64, c int64) {
	r.at(c, "finished %d", id)
	if _, ok := r.started[id]; !ok {
		r.t.Fatalf("task %d finished before it started", id)
	}
	r.ended[id] = c
}

func (r *recorder) WarpsBusy(sm int, c int64, d int) {
	r.at(c, "busy sm %d %+d", sm, d)
	r.busy[sm] += d
	r.total += d
	r.peak = max(r.peak, r.total)
	if b := r.busy[sm]; b < 0 || (r.cap > 0 && b > r.cap) {
		r.t.Fatalf("SM %d has %d busy warps at cycle %d", sm, b, c)
	}
}

// drive runs tasks through rt as the replay driver does, submitting while
// fewer than window tasks wait, and fails the test on a rejected task or a
// run that stops with tasks unfinished.
func drive(t testing.TB, rt Runtime, r *recorder, tasks []Task, window int) {
	t.Helper()
	i := 0
	if len(tasks) == 0 {
		rt.Close()
	}
	for {
		for i < len(tasks) && rt.Waiting() < window {
			if err := rt.Submit(tasks[i]); err != nil {
				t.Fatal(err)
			}
			if i++; i == len(tasks) {
				rt.Close()
			}
		}
		at, ok := rt.Next()
		if !ok {
			if w := rt.Stuck(); w != nil || i < len(tasks) {
				t.Fatalf("stuck with %d of %d tasks submitted: %s", i, len(tasks), strings.Join(w, "; "))
			}
			break
		}
		rt.Advance(at)
	}
	for _, task := range tasks {
		if _, ok := r.ended[task.ID]; !ok {
			t.Fatalf("task %d never finished", task.ID)
		}
	}
	for sm, b := range r.busy {
		if b != 0 {
			t.Fatalf("SM %d ends with %d busy warps", sm, b)
		}
	}
}

// titanx is the Pagoda paper's GPU with the given host/scheduler costs.
//
// It spawns directly (pagoda.spawn=direct), so the tests of placement,
// scheduling and the TaskTable see each task on its own; the pipelined
// lifecycle has tests of its own (pagoda_spawn_test.go).
func titanx(t testing.TB, spawn, sched, copyBack int64) model.Config {
	t.Helper()
	c, err := model.Preset("titanx")
	if err != nil {
		t.Fatal(err)
	}
	c.Pagoda.SpawnCycles, c.Pagoda.SchedCycles, c.Lat.HostLaunch = spawn, sched, copyBack
	c.Pagoda.Spawn = "direct"
	return c
}

// oneMTB is titanx shrunk to a single MTB with free host and scheduler, so
// every task meets every other in one scheduler warp.
func oneMTB(t testing.TB) model.Config {
	c := titanx(t, 0, 0, 0)
	c.GPU.SMs, c.Pagoda.MTBsPerSM = 1, 1
	return c
}

// task is a task of n warps (32 threads each, the last full) whose warps
// run for the given cycles, one value for all or one per warp.
func task(id uint64, spawn int64, warps int, cycles ...int64) Task {
	wc := make([]int64, warps)
	for i := range wc {
		wc[i] = cycles[min(i, len(cycles)-1)]
	}
	return Task{ID: id, Spawn: spawn, Threads: 32 * warps, Warps: warps, WarpCycles: wc}
}

func newPagoda(t testing.TB, c model.Config, r *recorder) *Pagoda {
	t.Helper()
	p, err := NewPagoda(c, r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// want checks a task's spawn, start and end cycles.
func (r *recorder) want(id uint64, spawned, started, ended int64) {
	r.t.Helper()
	got := [3]int64{r.spawned[id], r.started[id], r.ended[id]}
	if got != [3]int64{spawned, started, ended} {
		r.t.Errorf("task %d: spawned, started, ended = %v; want %v", id, got, [3]int64{spawned, started, ended})
	}
}
