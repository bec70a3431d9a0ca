package study

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/internal/token"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// An Output is where one replay's rows go.
type Output interface {
	tables.Sink
	// Begin comes before the first row, Summary after the last.
	Begin(tables.Run)
	Summary(tables.Summary)
	// Close completes the replay's rows; Abort gives them up after a
	// failure. Exactly one of the two is called.
	Close() error
	Abort()
}

// Options say how to run a plan.
type Options struct {
	// Jobs is how many replays run at once (at least 1; 0 means one per
	// CPU). Each replay is single-threaded.
	Jobs int
	// Open returns where a replay's rows go, given the policy's name in
	// the tables; it is called on the replay's worker just before the
	// replay starts.
	Open func(r Replay, policy string) (Output, error)
	// Progress, when set, is called now and then during each replay, from
	// its worker (so from several goroutines at once).
	Progress func(r Replay, ctasDone, cycle int64)
	// Finished, when set, is called from a replay's worker when it has
	// ended well, after its output is closed.
	Finished func(r Replay, s tables.Summary)
	// KeepGoing runs every replay even when some fail (a replay whose
	// baseline failed fails too); Failed, when set, is told of each
	// failure from the replay's worker. Without it the first failure
	// stops the rest.
	KeepGoing bool
	Failed    func(r Replay, err error)
	// ShareBytes bounds, in bytes, the decode that the replays of one
	// trace share (ingest.Shared): 0 is trace.ShareBudget, and less than
	// 0 has every replay decode the trace on its own.
	ShareBytes int64
	// Apart runs no replay beside another of its trace (Jobs is 1, and
	// an Output that is not a Merge's is shared, as a timeline is): the
	// replays of a trace then share its decode only while its tape holds
	// them (ingest.Shared without lockstep).
	Apart bool
}

// A Result is one replay's summary row.
type Result struct {
	Replay  Replay
	Policy  string // the policy's name in the tables
	Summary tables.Summary
}

// Run replays plan on opt.Jobs workers, which take replays in plan
// order, and returns their summary rows in plan order. A replay's speedup
// is against its group's first replay in plan, so plan holds whole
// groups; a replay that ends before its baseline waits for it, off its
// worker, which goes on to the next replay.
//
// The first failure (the earliest in plan order) stops the replays still
// running and is returned, unless opt.KeepGoing; the replays that ended
// well keep their output, and their results are returned with the error.
func Run(plan []Replay, opt Options) ([]Result, error) {
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	jobs = min(jobs, len(plan))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &runner{opt: opt, ctx: ctx, cancel: cancel, plan: plan,
		results: make([]Result, len(plan)), errs: make([]error, len(plan)),
		baselines: map[int]*baseline{}, slots: make(chan struct{}, 2*jobs),
		holds: make([]*token.Hold, len(plan)), prefetch: jobs < runtime.GOMAXPROCS(0)}
	cpu := make(chan struct{}, jobs)
	for i := range r.holds {
		r.holds[i] = token.New(cpu)
	}
	r.shares = newShares(plan, r.lockstep(), SetWidth(jobs))
	if big := r.shares.largest(); r.lockstep() && big > 2*jobs {
		r.slots = make(chan struct{}, big) // a set takes a slot for each of its replays
	}
	for i, rep := range plan {
		if _, ok := r.baselines[rep.Group]; !ok {
			r.baselines[rep.Group] = &baseline{id: i, done: make(chan struct{})}
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work()
		}()
	}
	wg.Wait()
	r.waiting.Wait()
	failed := 0
	var first error
	for _, err := range r.errs {
		if err != nil {
			failed++
			if first == nil && !errors.Is(err, errStopped) {
				first = err
			}
		}
	}
	switch {
	case failed == 0:
		return r.results, nil
	case opt.KeepGoing && failed > 1:
		return r.results, fmt.Errorf("%d of %d replays failed; the first: %w", failed, len(plan), first)
	case first == nil:
		return r.results, errStopped
	}
	return r.results, first
}

// errStopped marks a replay that did not run, or was stopped, because
// another failed first.
var errStopped = errors.New("stopped: another replay failed")

type runner struct {
	opt       Options
	ctx       context.Context
	cancel    context.CancelFunc
	plan      []Replay
	next      atomic.Int64
	results   []Result
	errs      []error
	baselines map[int]*baseline // by group
	waiting   sync.WaitGroup    // replays waiting for their baseline
	// slots bounds the replays started and not yet closed (running, or
	// waiting for their baseline) to twice the workers, and so the rows
	// they hold. It cannot deadlock: the earliest such replay in plan
	// order either runs, its rows taken as they come, or waits for a
	// baseline that, earlier still, has ended.
	slots chan struct{}
	// prefetch has each replay read its trace ahead (ingest.Ahead) while
	// fewer replays run than there are cores to run them.
	prefetch bool
	shares   *shares
	// holds are the replays' claims on a pool of a token for each replay
	// running (Jobs of them): the replays of a trace in lockstep all run
	// at once (set), and take turns with the tokens.
	holds []*token.Hold
	// setSlots has one worker at a time take a set's slots.
	setSlots sync.Mutex
}

// SetWidth is the most replays of one trace that read one decode of it
// in lockstep, all running at once, for jobs workers: at least 8 (the
// policies and sweep points of a command), and as many as the workers,
// so that a set keeps every worker busy. A trace with more replays is
// decoded once for every SetWidth of them.
func SetWidth(jobs int) int { return max(jobs, 8) }

// Engines returns how many replays of plan may hold their model state at
// once on jobs workers (0: one per CPU), what their memory is sized by:
// jobs where each trace has one replay; else the slots, as many as the
// largest set's replays or twice the workers (a set's replays all hold
// theirs, each in a slot).
func Engines(plan []Replay, jobs int) int {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	jobs = min(jobs, len(plan))
	big := newShares(plan, true, SetWidth(jobs)).largest()
	if big < 2 {
		return jobs
	}
	return min(len(plan), max(2*jobs, big))
}

// lockstep reports whether the replays of a trace run in sets.
func (r *runner) lockstep() bool { return !r.opt.Apart && r.opt.ShareBytes >= 0 }

// newShares cuts the plan's replays of each trace, in plan order, into
// pieces that share a decode: sets of at most width where in lockstep,
// else one a trace.
func newShares(plan []Replay, lockstep bool, width int) *shares {
	s := &shares{of: map[string]*ingest.Shared{}, count: map[string]int{}, sets: map[string][]int{},
		key: make([]string, len(plan)), seat: make([]int, len(plan))}
	byTrace := map[string][]int{}
	var traces []string
	for i, rep := range plan {
		if _, ok := byTrace[rep.Trace]; !ok {
			traces = append(traces, rep.Trace)
		}
		byTrace[rep.Trace] = append(byTrace[rep.Trace], i)
	}
	for _, t := range traces {
		all := byTrace[t]
		for n := 0; len(all) > 0; n++ {
			piece := all
			if lockstep && len(piece) > width {
				piece = all[:width]
			}
			all = all[len(piece):]
			key := fmt.Sprintf("%s\x00%d", t, n)
			for seat, i := range piece {
				s.key[i], s.seat[i] = key, seat
			}
			s.sets[key], s.count[key] = piece, len(piece)
		}
	}
	return s
}

// largest is the most replays that share a decode.
func (s *shares) largest() int {
	n := 0
	for _, c := range s.count {
		n = max(n, c)
	}
	return n
}

// dropSeat takes replay i, which will not run, off its trace's shared
// decode, where one is open: the tape need not keep what it would read.
func (r *runner) dropSeat(i int) {
	s := r.shares
	s.mu.Lock()
	sh := s.of[s.key[i]]
	s.mu.Unlock()
	if sh != nil {
		sh.Bodies(s.seat[i]).Close()
	}
}

// shares are the decodes of the plan's traces that its replays share
// (ingest.Shared), opened by the first replay of a piece to start: a
// piece is a set, or all the replays of a trace where none runs in one
// (newShares). Replay i reads seat[i] of its piece's, key[i].
type shares struct {
	mu    sync.Mutex
	of    map[string]*ingest.Shared // by piece; nil where the open failed
	count map[string]int            // replays of each piece
	sets  map[string][]int          // each piece's replays, in plan order
	key   []string
	seat  []int
}

// bodies returns replay i's reader of its trace's shared decode, or nil
// where it has none (the trace's only replay, or sharing is off or
// failed: the replay then opens the trace itself, and says what is
// wrong with it).
func (r *runner) bodies(i int) *trace.Validator {
	s := r.shares
	rep := r.plan[i]
	key := s.key[i]
	if r.opt.ShareBytes < 0 || s.count[key] < 2 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, ok := s.of[key]
	if !ok {
		path := rep.Trace
		sh, _ = ingest.NewShared(func() (trace.Source, error) { return trace.Open(path) }, s.count[key], r.opt.ShareBytes)
		if sh != nil && r.inSet(i) {
			set := s.sets[key]
			sh.Lockstep(func(k int) { r.lend(set[k]) }, func(k int) { r.reclaim(set[k]) })
		}
		s.of[key] = sh
	}
	if sh == nil {
		return nil
	}
	return sh.Bodies(s.seat[i])
}

// baseline is a group's first replay: its makespan, once it has one.
type baseline struct {
	id       int // index in the plan
	done     chan struct{}
	makespan int64
	ok       bool
}

func (r *runner) work() {
	for {
		i := int(r.next.Add(1) - 1)
		if i >= len(r.plan) {
			return
		}
		set := r.set(i)
		if set != nil && set[0] != i {
			continue // its set's first runs it
		}
		if r.ctx.Err() != nil {
			stop := set
			if stop == nil {
				stop = []int{i}
			}
			for _, k := range stop {
				r.errs[k] = errStopped
				r.release(k, 0, false)
				r.dropSeat(k)
			}
			continue
		}
		if set != nil {
			r.runSet(set)
			continue
		}
		r.slots <- struct{}{}
		r.take(i)
		if err := r.one(i); err != nil {
			r.fail(i, err)
		}
		r.give(i)
	}
}

// A set is the replays of one trace (SetWidth of them at most) that read
// its tape in lockstep: all of them run at once, on goroutines of their
// own, and share the Jobs tokens (cpu) with the other replays; the
// worker that takes the set's first replay takes a slot for each, and
// waits for them all. Without the lockstep, replays beyond the workers'
// number would start when the tape had long passed its budget and
// decode the trace again; in it, one decode feeds them all, and what
// they hold at once is each one's work in flight.

// inSet reports whether replay i runs in a set.
func (r *runner) inSet(i int) bool {
	return r.lockstep() && r.shares.count[r.shares.key[i]] > 1
}

// set returns replay i's set, or nil where it runs in none.
func (r *runner) set(i int) []int {
	if !r.inSet(i) {
		return nil
	}
	return r.shares.sets[r.shares.key[i]]
}

// runSet runs the replays of set side by side, each in a slot and with a
// token while it runs, and returns when each has run (those that end
// before their baseline go on waiting off it, as one's do). The slots
// are taken together, one worker at a time (setSlots): two workers each
// holding some could wait for each other.
func (r *runner) runSet(set []int) {
	r.setSlots.Lock()
	for range set {
		r.slots <- struct{}{}
	}
	r.setSlots.Unlock()
	var wg sync.WaitGroup
	for _, i := range set {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r.ctx.Err() != nil {
				r.errs[i] = errStopped
				r.release(i, 0, false)
				r.dropSeat(i)
				<-r.slots
				return
			}
			r.take(i)
			if err := r.one(i); err != nil {
				r.fail(i, err)
			}
			r.give(i)
		}()
	}
	wg.Wait()
}

// take waits for a token for replay i, which is to run, and give gives
// it back for good: it has run (token.Hold).
func (r *runner) take(i int) { r.holds[i].Want() }
func (r *runner) give(i int) { r.holds[i].Done() }

// lend gives replay i's token back while it waits for its tape's readers
// behind, and reclaim takes one again.
func (r *runner) lend(i int)    { r.holds[i].Lend() }
func (r *runner) reclaim(i int) { r.holds[i].Want() }

// park has replay i, whose rows wait for the merge (on) or no longer,
// lend its token, and be let go by its tape: the tape's head does not
// wait for it.
func (r *runner) park(i int, on bool) {
	r.holds[i].Park(on)
	if !r.inSet(i) {
		return
	}
	s := r.shares
	s.mu.Lock()
	sh := s.of[s.key[i]]
	s.mu.Unlock()
	if sh != nil {
		sh.Park(s.seat[i], on)
	}
}

// fail records replay i's failure and, unless the run keeps going, stops
// the others.
func (r *runner) fail(i int, err error) {
	if errors.Is(err, context.Canceled) {
		err = errStopped
	}
	r.errs[i] = err
	if r.opt.Failed != nil && !errors.Is(err, errStopped) {
		r.opt.Failed(r.plan[i], err)
	}
	if !r.opt.KeepGoing {
		r.cancel()
	}
}

// release publishes replay i's makespan if it is its group's baseline.
func (r *runner) release(i int, makespan int64, ok bool) {
	b := r.baselines[r.plan[i].Group]
	if b.id == i {
		b.makespan, b.ok = makespan, ok
		close(b.done)
	}
}

// one runs replay i of the plan, in a slot it frees when the replay's
// output is closed or given up.
func (r *runner) one(i int) (err error) {
	rep := r.plan[i]
	released, waiting := false, false
	defer func() {
		if !released {
			r.release(i, 0, false)
		}
		if !waiting {
			<-r.slots
		}
	}()
	bodies := r.bodies(i)
	if bodies != nil {
		defer bodies.Close() // Run closes it too; a replay that fails first does not get there
	}
	cfg, err := rep.Config()
	if err != nil {
		return fmt.Errorf("%s: %w", rep.Trace, err)
	}
	pol, err := policies.New(rep.Policy, cfg)
	if err != nil {
		return inputErr(err)
	}
	out, err := r.opt.Open(rep, pol.Name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.Abort()
		}
	}()
	if rc, ok := out.(*recording); ok {
		rc.q.parkWith(func(on bool) { r.park(i, on) })
	}
	out.Begin(tables.Run{Trace: rep.Name, Policy: pol.Name, Params: rep.Params()})
	ropt := replay.Options{Config: cfg, Policy: pol, Context: r.ctx, Bodies: bodies}
	if r.prefetch && !r.inSet(i) { // a set's tape is read on its replays' own goroutines, which hold the tokens
		ropt.Ahead = ingest.Ahead{}
	}
	if r.opt.Progress != nil {
		ropt.Progress = func(ctas, cycle int64) { r.opt.Progress(rep, ctas, cycle) }
	}
	open := func() (trace.Source, error) { return trace.Open(rep.Trace) }
	st, err := replay.Run(open, ropt, rowSink(out))
	if err != nil {
		if replay.IsInputError(err) {
			err = inputErr(err)
		}
		return fmt.Errorf("%s (%s): %w", rep.Trace, pol.Name, err)
	}
	if st.Kernels == 0 {
		return inputErr(fmt.Errorf("%s launches no kernel: nothing to replay", rep.Trace))
	}
	r.release(i, st.MakespanCycles, true)
	released = true
	// The speedup needs the group's baseline. A replay that ends first
	// does not hold its worker: a goroutine finishes it when the baseline
	// ends, and the worker takes the next replay.
	b := r.baselines[rep.Group]
	select {
	case <-b.done:
		return r.finish(i, pol.Name, st, cfg.GPU.Name, out)
	default:
	}
	waiting = true
	r.waiting.Add(1)
	go func() {
		defer func() { <-r.slots; r.waiting.Done() }()
		if err := r.finish(i, pol.Name, st, cfg.GPU.Name, out); err != nil {
			r.fail(i, err)
		}
	}()
	return nil
}

// rowSink is what replay.Run gets to write a replay's rows to: out, or
// the Recorder of a merge's recording itself, which saves the replay's
// engine a call for every row (a CTA's, a kernel's, a launch's: millions
// a replay), on its own goroutine, the one a replay's wall time follows.
func rowSink(out Output) tables.Sink {
	if rc, ok := out.(*recording); ok {
		return rc.Writer
	}
	return out
}

// finish waits for replay i's baseline, then writes its summary row and
// closes its output, or aborts the output if it cannot.
func (r *runner) finish(i int, policy string, st *replay.Stats, gpu string, out Output) (err error) {
	rep := r.plan[i]
	defer func() {
		if err != nil {
			out.Abort()
		}
	}()
	b := r.baselines[rep.Group]
	select {
	case <-b.done:
	case <-r.ctx.Done():
		return errStopped
	}
	if !b.ok {
		if r.opt.KeepGoing {
			return fmt.Errorf("%s (%s): its speedup baseline, replay %d, failed", rep.Trace, policy, r.plan[b.id].ID)
		}
		return errStopped
	}
	row := st.Summary(gpu, b.makespan)
	out.Summary(row)
	if err := out.Close(); err != nil {
		return err
	}
	r.results[i] = Result{Replay: rep, Policy: policy, Summary: row}
	if r.opt.Finished != nil {
		r.opt.Finished(rep, row)
	}
	return nil
}
