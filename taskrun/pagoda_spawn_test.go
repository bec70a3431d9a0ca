package taskrun

import (
	"slices"
	"testing"

	"github.com/gpureplay/gpureplay/model"
)

// pipelined is titanx with one SM (two MTBs), one host thread and
// pagoda.spawn=pipelined: the launch call costs 50 (lat.host_issue), the
// MasterKernel is resident at 50 + 1000 (lat.host_launch) + 20
// (lat.kernel_dispatch) = 1070; a spawn costs 100, a copy-back 1000, the
// scheduler 30 a task.
func pipelined(t *testing.T) model.Config {
	c := titanx(t, 100, 30, 1000)
	c.GPU.SMs, c.Lat.HostThreads = 1, 1
	c.Lat.HostIssue, c.Lat.KernelDispatch = 50, 20
	c.Pagoda.Spawn = "pipelined"
	return c
}

// drained returns the cycles the recorder heard Drained at.
func (r *recorder) drained() []string {
	var d []string
	for _, l := range r.log {
		if len(l) > 8 && l[len(l)-7:] == "drained" {
			d = append(d, l)
		}
	}
	return d
}

// Three one-warp tasks of 1000 cycles, all due at 0. The thread spawns
// after the launch call: 50–150 (column 0), 150–250 (column 1), 250–350
// (column 0). Task 0 is enabled by task 1's entry at 250 and task 1 by
// task 2's at 350, both waiting for the MasterKernel until 1070: read
// 1070–1100, run 1100–2100. Task 2 has no successor: the idle thread
// copies its status back and its entry again, 350 + 1000 + 100 = 1450;
// read 1450–1480, run 1480–2480. waitAll begins at 1450; copy-backs end at
// 2450 and 3450, the first ending after 2480 is 3450.
func TestPagodaPipelinedSpawn(t *testing.T) {
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, pipelined(t), r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 0, 1, 1000), task(2, 0, 1, 1000)}, 2)
	r.want(0, 1070, 1100, 2100)
	r.want(1, 1070, 1100, 2100)
	r.want(2, 1450, 1480, 2480)
	if d := r.drained(); !slices.Equal(d, []string{"3450 drained"}) {
		t.Errorf("drained %q, want [3450 drained]", d)
	}
}

// A task due later than the host is free: the thread flushes the held one
// rather than leave it waiting. Task 0 spawns 50–150; task 1 is due at
// 5000, so the thread flushes task 0, 150–1250 (it runs 1280–2280), then
// spawns task 1, 5000–5100, and flushes it, 5100–6200 (read to 6230, run
// to 7230). waitAll begins at 6200; its second copy-back, ending at 8200,
// is the first to end after 7230.
func TestPagodaPipelinedFlushOnGap(t *testing.T) {
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, pipelined(t), r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 5000, 1, 1000)}, 2)
	r.want(0, 1250, 1280, 2280)
	r.want(1, 6200, 6230, 7230)
	if d := r.drained(); !slices.Equal(d, []string{"8200 drained"}) {
		t.Errorf("drained %q, want [8200 drained]", d)
	}
}

// pagoda.spawn=direct keeps the reading before: the same three tasks are
// each schedulable at their own spawn, with no launch, flush or waitAll.
func TestPagodaDirectSpawn(t *testing.T) {
	c := pipelined(t)
	c.Pagoda.Spawn = "direct"
	r := newRecorder(t, 2*executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 0, 1, 1000), task(2, 0, 1, 1000)}, 2)
	r.want(0, 100, 130, 1130)
	r.want(1, 200, 230, 1230)
	r.want(2, 300, 330, 1330)
	if d := r.drained(); d != nil {
		t.Errorf("drained %q under direct", d)
	}
}

// A TaskTable of one entry: the held task fills it, so the copy-back that
// finds no free entry flushes it with the entry copy alone. Task 0 spawns
// 50–150; task 1 finds the table full, so the thread copies back,
// 150–1150, and re-copies task 0's entry, 1150–1250 (task 0 runs
// 1280–2280). The next copy-back, 1250–2250, still shows the entry taken;
// the host polls, and the copy-back ending 3250 shows it free: task 1
// spawns 3250–3350, is flushed 3350–4450, runs 4480–5480, and waitAll's
// copy-backs from 4450 end at 5450 and 6450.
func TestPagodaPipelinedFullTable(t *testing.T) {
	c := pipelined(t)
	c.Pagoda.MTBsPerSM, c.Pagoda.TableRows = 1, 1
	r := newRecorder(t, executorWarps)
	p := newPagoda(t, c, r)
	drive(t, p, r, []Task{task(0, 0, 1, 1000), task(1, 0, 1, 1000)}, 2)
	r.want(0, 1250, 1280, 2280)
	r.want(1, 4450, 4480, 5480)
	if d := r.drained(); !slices.Equal(d, []string{"6450 drained"}) {
		t.Errorf("drained %q, want [6450 drained]", d)
	}
}
