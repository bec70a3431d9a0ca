package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
)

// A replayJob is one replay of an experiment: a benchmark's trace under
// a policy at one setting. A table column is one job, or a search's
// several (columnJobs).
type replayJob struct {
	cfg    model.Config
	column string // the table column the replay is part of
	policy string
	params string // the tables' params value: the search's setting
	bench  benchmark
	path   string
}

// rowWriter is where a replay's rows go: the tables themselves
// (*results.Writer, one replay after another) or a replay's place in a
// study.Merge (side by side).
type rowWriter interface {
	tables.Sink
	Begin(tables.Run)
	Summary(tables.Summary)
}

// columnJobs lists the replays of one column for benchmark b (its trace
// at path): the policy's one, or a search's, one a value.
func (x *experiment) columnJobs(cfg model.Config, column string, b benchmark, path string) ([]replayJob, error) {
	s, ok := x.searches[column]
	if !ok {
		s, ok = baselines[column]
	}
	if !ok {
		return []replayJob{{cfg: cfg, column: column, policy: column, bench: b, path: path}}, nil
	}
	if s.flatTrace && b.flatParams != nil {
		b.name, path = b.name+"-flat", flatTracePath(path)
	}
	base := cfg
	for _, kv := range s.sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := base.Set(k, v); err != nil {
			return nil, err
		}
	}
	if s.key == "" {
		return []replayJob{{cfg: base, column: column, policy: s.policy, params: strings.Join(s.sets, ","), bench: b, path: path}}, nil
	}
	jobs := make([]replayJob, 0, len(s.values))
	for _, v := range s.values {
		c := base
		if err := c.Set(s.key, v); err != nil {
			return nil, err
		}
		jobs = append(jobs, replayJob{cfg: c, column: column, policy: s.policy, params: s.key + "=" + v, bench: b, path: path})
	}
	return jobs, nil
}

// pick is a column's outcome from its runs' stats, in the column's
// order: the best run (the first of the shortest), and the best of those
// that launched a child kernel (nil if none did).
func pick(sts []*stats) (best, offload *stats) {
	for _, st := range sts {
		if best == nil || st.MakespanCycles < best.MakespanCycles {
			best = st
		}
		if l := launching(st); l != nil && (offload == nil || l.MakespanCycles < offload.MakespanCycles) {
			offload = l
		}
	}
	return best, offload
}

// replaySlots bounds the replays running at once in the process: the
// experiment's own and those of the unstated inputs' points, which run
// side by side too (runUnstated). A replay is single-threaded.
var replaySlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// runJobs replays jobs side by side and returns their stats in the jobs'
// order. The rows of jobs[i] go to m's replay first+i, so the tables are
// those one replay after another writes, and each replay's log line is
// written in the jobs' order once all have ended (progress lines, from
// --progress, come as they come). base is the speedups' baseline, 0 for
// each replay its own.
//
// The jobs take slots in their order, so a replay that waits for an
// earlier one to hand its rows to the merge (study.QueueBytes) waits for
// one that holds a slot: the wait always ends.
func runJobs(jobs []replayJob, base int64, m *study.Merge, first int, log io.Writer) ([]*stats, error) {
	sts := make([]*stats, len(jobs))
	errs := make([]error, len(jobs))
	logs := make([]bytes.Buffer, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		replaySlots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-replaySlots; wg.Done() }()
			out := m.Output(first + i)
			st, err := replayOnce(j, base, out, &logs[i], log)
			if err == nil {
				err = out.Close()
			} else {
				out.Abort()
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s under %s: %w", j.bench.name, j.column, err)
				return
			}
			sts[i] = st
		}()
	}
	wg.Wait()
	for i := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		log.Write(logs[i].Bytes())
	}
	return sts, nil
}

// syncWriter serialises writes to w from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// launching is st if its run launched a child kernel, else nil.
func launching(st *stats) *stats {
	if st == nil || st.DeviceKernels == 0 {
		return nil
	}
	return st
}

// generateAhead starts writing every benchmark's traces (each of its
// traceVariants, the first at paths[i]) on replay slots, so that while
// one benchmark replays the next ones' traces are made, and gives for
// each benchmark a wait for its traces. A benchmark whose traces made
// holds (made.path) is not generated again. A generator is
// single-threaded and a big one takes a minute or more (a Kronecker graph
// of 2^20 vertices), so on a machine of many cores one after another
// left most of them idle between a benchmark's replays. A generation
// holds a slot only while it runs and waits for nothing else, so the
// replays' slots always come free.
func generateAhead(paths []string, benches []benchmark, made *madeTraces) []func() error {
	waits := make([]func() error, len(benches))
	for i, b := range benches {
		if made.path(b) != "" {
			waits[i] = func() error { return nil }
			continue
		}
		vs := traceVariants(paths[i], b)
		errs := make([]error, len(vs))
		var wg sync.WaitGroup
		for k, v := range vs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				replaySlots <- struct{}{}
				defer func() { <-replaySlots }()
				errs[k] = generate(v.path, v.bench)
			}()
		}
		waits[i] = func() error {
			wg.Wait()
			return errors.Join(errs...)
		}
	}
	return waits
}
