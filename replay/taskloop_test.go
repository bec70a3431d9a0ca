package replay_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/taskrun"
	"github.com/gpureplay/gpureplay/trace"
)

// scripted is a taskrun.Runtime that runs one task at a time, each for
// step cycles over ticks events of its own, on SM 0, and logs what the
// engine asks of it. stuck: it runs nothing and says so (Stuck).
type scripted struct {
	l      taskrun.Listener
	step   int64 // cycles between two events
	ticks  int   // events per task (its last ends it)
	stuck  bool
	log    []string
	queue  []taskrun.Task // submitted, not finished: the head runs
	clock  int64          // the last Advance's cycle
	tick   int            // the head's events fired
	begins int64          // the head's start
}

func (s *scripted) Submit(t taskrun.Task) error {
	s.log = append(s.log, fmt.Sprintf("submit %d", t.ID))
	s.queue = append(s.queue, t)
	return nil
}

func (s *scripted) Waiting() int { return len(s.queue) }

func (s *scripted) Next() (int64, bool) {
	if s.stuck || len(s.queue) == 0 {
		return 0, false
	}
	return s.clock + s.step, true
}

func (s *scripted) Advance(now int64) {
	if s.ticks == 1 {
		s.log = append(s.log, fmt.Sprintf("advance %d", now))
	}
	t := s.queue[0]
	if s.tick == 0 {
		s.begins = s.clock
		s.l.TaskIssued(t.ID, s.clock)
		s.l.TaskSpawned(t.ID, s.clock)
		s.l.TaskStarted(t.ID, s.clock, 0)
		s.l.WarpsBusy(0, s.clock, t.Warps)
	}
	s.clock = now
	if s.tick++; s.tick == s.ticks {
		s.l.WarpsBusy(0, now, -t.Warps)
		s.l.TaskFinished(t.ID, now)
		s.queue, s.tick = s.queue[1:], 0
	}
}

func (s *scripted) Close() { s.log = append(s.log, "close") }

func (s *scripted) Stuck() []string {
	if len(s.queue) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("task %d never runs", s.queue[0].ID)}
}

// taskTrace is n one-warp tasks of one CTA, all launched at 0.
func taskTrace(n int) replay.Opener {
	var b strings.Builder
	b.WriteString(`{"type":"header","version":1,"clock_mhz":1000}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"type":"kernel","id":%d,"name":"task","grid":[1,1,1],"block":[32,1,1],"regs":32,"smem":0}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"launch","kernel":%d,"t":0,"stream":%d}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"cta","kernel":%d,"cta":0,"cycles":10}`+"\n", i)
	}
	src := b.String()
	return func() (trace.Source, error) { return trace.NewJSONLReader(strings.NewReader(src)), nil }
}

// runScripted replays a trace of n tasks on rt, on one SM.
func runScripted(t *testing.T, n int, rt *scripted, opt replay.Options) (*recorder, *replay.Stats, error) {
	t.Helper()
	opt.Config = testConfig(t, 1)
	opt.Policy = replay.Policy{Name: "scripted", Tasks: func(_ model.Config, l taskrun.Listener) (taskrun.Runtime, error) {
		rt.l = l
		return rt, nil
	}}
	rec := &recorder{}
	st, err := replay.Run(taskTrace(n), opt, rec)
	return rec, st, err
}

// The engine's loop drives a task runtime: the host submits while the
// runtime has fewer than two tasks in hand, says when the trace has no
// more, and the runtime advances to each cycle its Next names. Three
// tasks of 10 cycles, one after another on SM 0: each kernel row spans
// its 10 cycles, the run 30, and SM 0 holds one of its 64 warps
// throughout (occupancy 1/64).
func TestTaskRuntimeInEngineLoop(t *testing.T) {
	rt := &scripted{step: 10, ticks: 1}
	rec, st, err := runScripted(t, 3, rt, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"submit 1", "submit 2", "advance 10", "submit 3", "advance 20", "close", "advance 30"}
	if !slices.Equal(rt.log, want) {
		t.Errorf("calls %q, want %q", rt.log, want)
	}
	for i, k := range rec.Kernels {
		start := int64(10 * i)
		if k.KernelID != uint64(i+1) || k.LaunchCycle != start || k.StartCycle != start || k.EndCycle != start+10 {
			t.Errorf("kernel row %d: %+v, want kernel %d over %d..%d", i, k, i+1, start, start+10)
		}
	}
	if len(rec.Kernels) != 3 || len(rec.CTAs) != 3 {
		t.Errorf("%d kernel rows and %d CTA rows, want 3 of each", len(rec.Kernels), len(rec.CTAs))
	}
	if st.MakespanCycles != 30 || st.Kernels != 3 || st.CTAs != 3 || st.BusyCycles != 30 || st.AvgOccupancy != 1.0/64 {
		t.Errorf("stats %+v, want makespan, busy 30, 3 kernels and CTAs, occupancy 1/64", st)
	}
}

// A runtime with tasks in flight and no event left is the engine's
// deadlock, at the last cycle it reported, with the runtime's waits.
func TestTaskRuntimeDeadlock(t *testing.T) {
	rt := &scripted{stuck: true}
	_, _, err := runScripted(t, 3, rt, replay.Options{})
	var d *replay.DeadlockError
	if !errors.As(err, &d) || d.Cycle != 0 || !slices.Equal(d.Waits, []string{"task 1 never runs"}) {
		t.Fatalf("got %v, want a deadlock at cycle 0 naming task 1", err)
	}
	if !replay.IsInputError(err) {
		t.Errorf("a deadlock should be reported as the input's problem")
	}
	if want := []string{"submit 1", "submit 2"}; !slices.Equal(rt.log, want) {
		t.Errorf("calls %q, want %q: the host holds task 3 while two wait", rt.log, want)
	}
}

// A runtime's events pass the engine's horizon check: a clock beyond
// 2^62 cycles is a model error, not an overflow.
func TestTaskRuntimeHorizon(t *testing.T) {
	rt := &scripted{step: 1 << 62, ticks: 1}
	_, _, err := runScripted(t, 1, rt, replay.Options{})
	var m *replay.ModelError
	if !errors.As(err, &m) || !strings.Contains(err.Error(), "2^62") {
		t.Fatalf("got %v, want the horizon's model error", err)
	}
}

// The engine's checkpoints hold for a task runtime's events too: one task
// of 70000 one-cycle events reports progress at the 65536th and stops
// there once its context is cancelled.
func TestTaskRuntimeCheckpoints(t *testing.T) {
	var cycles []int64
	progress := func(_, cycle int64) { cycles = append(cycles, cycle) }
	_, st, err := runScripted(t, 1, &scripted{step: 1, ticks: 70000}, replay.Options{Progress: progress})
	if err != nil || st.MakespanCycles != 70000 {
		t.Fatalf("got %v, makespan %v, want a run of 70000 cycles", err, st)
	}
	if !slices.Equal(cycles, []int64{65536}) {
		t.Errorf("progress at cycles %v, want [65536]", cycles)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = runScripted(t, 1, &scripted{step: 1, ticks: 70000}, replay.Options{Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the context's error", err)
	}
}
