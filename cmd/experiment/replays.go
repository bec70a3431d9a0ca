package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/internal/token"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
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
	// bodies is the job's reader of a decode it shares with the other
	// jobs on its trace (shareDecodes), nil for a decode of its own, and
	// park tells that decode when the job's rows wait for the merge.
	bodies *trace.Validator
	park   func(on bool)
	// slot is the job's claim on a replay slot (replaySlots), wanted and
	// ended by its batch, lent and taken back at its decode's tape, and
	// parked while its rows wait for the merge (token.Hold, whose rule
	// study's runner shares: a parked replay takes none).
	slot *token.Hold
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
//
// They run shareWidth at a time, each batch after the one before has
// ended: a lockstep set holds every one of its replays alive at once
// (shareDecodes), and a trace's 15 columns after its first (SPAWN's
// Offline-Search its 12) made two sets alive together, which held some
// 24 GB on spawn-paper's sssp-graph500 (1.67 million child launches,
// some 1.5 GB a CDP replay) and were killed for memory on a machine of
// 23. A batch's jobs are the earliest left, so it ends whatever the
// later ones do; the decodes are as many as before, a set a batch.
func runJobs(jobs []replayJob, base int64, m *study.Merge, first int, log io.Writer, summaries bool) ([]*stats, error) {
	r := jobRun{base: base, m: m, first: first, log: log, summaries: summaries,
		sts: make([]*stats, len(jobs)), errs: make([]error, len(jobs)), logs: make([]bytes.Buffer, len(jobs))}
	for lo := 0; lo < len(jobs); lo += shareWidth {
		r.batch(jobs[lo:min(lo+shareWidth, len(jobs))], lo)
	}
	for i := range jobs {
		if r.errs[i] != nil {
			return nil, r.errs[i]
		}
		log.Write(r.logs[i].Bytes())
	}
	return r.sts, nil
}

// replayJobFn replays a job (replayOnce; a test's stand-in).
var replayJobFn = replayOnce

// jobRun is one runJobs: where its rows, stats, errors and log lines go.
type jobRun struct {
	base      int64
	m         *study.Merge
	first     int
	log       io.Writer
	summaries bool
	sts       []*stats
	errs      []error
	logs      []bytes.Buffer
}

// batch runs the jobs from the lo-th on side by side and returns when
// all have ended.
func (r *jobRun) batch(jobs []replayJob, lo int) {
	for k := range jobs {
		jobs[k].slot = token.New(replaySlots)
	}
	shareDecodes(jobs)
	var wg sync.WaitGroup
	for k, j := range jobs {
		i := lo + k
		j.slot.Want()
		wg.Add(1)
		go func() {
			defer func() { j.slot.Done(); wg.Done() }()
			out := r.m.Output(r.first + i)
			if j.park != nil {
				out = r.m.OutputParking(r.first+i, j.park)
			}
			if r.summaries {
				out = summaryOnly{out}
			}
			st, err := replayJobFn(j, r.base, out, &r.logs[i], r.log)
			if err == nil {
				err = out.Close()
			} else {
				out.Abort()
			}
			if err != nil {
				r.errs[i] = fmt.Errorf("%s under %s: %w", j.bench.name, j.column, err)
				return
			}
			r.sts[i] = st
		}()
	}
	wg.Wait()
}

// shareDecodes has the jobs on one trace, shareWidth at a time, decode
// and validate it once (ingest.Shared), reading its tape in lockstep: a
// replay at the tape's head hands its slot on (pause) until the ones
// behind catch up, and takes one again (resume) to go on, and one whose
// rows wait for the merge (study.Merge.OutputParking) hands its slot on
// and is let go by the tape meanwhile. runJobs starts a set's replays
// one after another as slots come free, so every one of them runs; what
// they hold at once is each one's work in flight. A
// search's runs are the jobs of a column on one trace (12 thresholds for
// Offline-Search), where decoding took about half of each replay's CPU
// time. The rows are those of replays decoding on their own.
func shareDecodes(jobs []replayJob) {
	byPath := map[string][]int{}
	var order []string
	for i, j := range jobs {
		if _, ok := byPath[j.path]; !ok {
			order = append(order, j.path)
		}
		byPath[j.path] = append(byPath[j.path], i)
	}
	for _, path := range order {
		all := byPath[path]
		for len(all) > 1 {
			set := all[:min(len(all), shareWidth)] // two or more
			all = all[len(set):]
			sh, err := ingest.NewShared(func() (trace.Source, error) { return trace.Open(path) }, len(set), 0)
			if err != nil {
				continue // each replay opens the trace and reports what is wrong with it
			}
			slots := make([]*token.Hold, len(set))
			for k, i := range set {
				slots[k] = jobs[i].slot
			}
			sh.Lockstep(func(k int) { slots[k].Lend() }, func(k int) { slots[k].Want() })
			for k, i := range set {
				jobs[i].bodies = sh.Bodies(k)
				jobs[i].park = func(on bool) {
					if on {
						sh.Park(k, true)
						slots[k].Park(true)
						return
					}
					slots[k].Park(false)
					sh.Park(k, false)
				}
			}
		}
	}
}

// shareWidth is the most replays of one trace that read one decode of
// it in lockstep, all their engines held at once (study.SetWidth's
// least).
const shareWidth = 8

// summaryOnly is an Output that keeps a replay's summary row and drops
// its other rows; it says so (tables.Discarder), so the replay builds
// none of them.
type summaryOnly struct{ study.Output }

func (summaryOnly) DiscardsRows() bool         { return true }
func (summaryOnly) Kernel(tables.Kernel)       {}
func (summaryOnly) CTA(tables.CTA)             {}
func (summaryOnly) Launch(tables.Launch)       {}
func (summaryOnly) Occupancy(tables.Occupancy) {}
func (summaryOnly) Page(tables.Page)           {}
func (summaryOnly) Stage(tables.Stage)         {}

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

// generateAhead writes the benchmarks' traces (each of its
// traceVariants, the first at paths[i]) ahead of their replays, on replay
// slots, so that while one benchmark replays the next ones' traces are
// made, and gives for each benchmark a wait for its traces, to be called
// in benchmark order, and a stop for an early return. A benchmark whose
// traces are there already (made[i], the main run's: madeTraces) is not
// generated again. A generator is
// single-threaded and a big one takes a minute or more (a Kronecker
// graph of 2^20 vertices), so on a machine of many cores one after
// another left most of them idle between a benchmark's replays.
//
// One goroutine takes the slots for the generations in benchmark order,
// and starts benchmark i's only once benchmark i − generateLookahead's
// wait has been called: generations that took slots in any order held
// them for benchmarks far ahead (two sssp generations of a 2^20-vertex
// graph, with the first benchmark's replays still waiting), and a
// generator's graph is held in memory while it runs. A generation holds
// its slot only while it runs and waits for nothing else, so the
// replays' slots always come free.
func generateAhead(paths []string, benches []benchmark, made []bool) (waits []func() error, stop func()) {
	bs := make([]*aheadBench, len(benches))
	waits = make([]func() error, len(benches))
	for i, b := range benches {
		g := &aheadBench{reached: make(chan struct{})}
		if i >= len(made) || !made[i] {
			g.vs = traceVariants(paths[i], b)
		}
		g.errs = make([]error, len(g.vs))
		g.wg.Add(len(g.vs))
		bs[i], waits[i] = g, g.wait
	}
	done := make(chan struct{})
	go func() {
		for i, g := range bs {
			var reached <-chan struct{} // nil: at once
			if i >= generateLookahead {
				reached = bs[i-generateLookahead].reached
			}
			for k, v := range g.vs {
				if !acquire(reached, done) {
					g.drop(k)
					for _, rest := range bs[i+1:] {
						rest.drop(0)
					}
					return
				}
				go func() {
					defer func() { <-replaySlots; g.wg.Done() }()
					g.errs[k] = generateTrace(v.path, v.bench)
				}()
			}
		}
	}()
	var once sync.Once
	return waits, func() { once.Do(func() { close(done) }) }
}

// generateLookahead is how many benchmarks past the one whose traces are
// awaited generateAhead may be generating.
const generateLookahead = 2

// generateTrace writes a trace (generate; a test's stand-in).
var generateTrace = generate

// errGenerationStopped is a generation that generateAhead's stop left
// undone.
var errGenerationStopped = errors.New("trace generation stopped")

// aheadBench is one benchmark's generations under generateAhead.
type aheadBench struct {
	vs      []traceVariant
	errs    []error
	wg      sync.WaitGroup
	reached chan struct{} // closed by the benchmark's wait
	once    sync.Once
}

// wait marks the benchmark reached and waits for its traces.
func (g *aheadBench) wait() error {
	g.once.Do(func() { close(g.reached) })
	g.wg.Wait()
	return errors.Join(g.errs...)
}

// drop gives the generations from variant k on the stop's error.
func (g *aheadBench) drop(k int) {
	for ; k < len(g.vs); k++ {
		g.errs[k] = errGenerationStopped
		g.wg.Done()
	}
}

// acquire waits for reached (nil: at once) and then a replay slot,
// unless done closes first; it says whether it holds the slot.
func acquire(reached, done <-chan struct{}) bool {
	if reached != nil {
		select {
		case <-reached:
		case <-done:
			return false
		}
	}
	select {
	case <-done: // a stop before the slot wins over a free one
		return false
	default:
	}
	select {
	case replaySlots <- struct{}{}:
		return true
	case <-done:
		return false
	}
}
