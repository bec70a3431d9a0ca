package replay

// Run, the one way into a replay: it builds the engine from Options (a
// configuration, a policy, analyses) and the trace's two streams
// (ingest.Streams; under a task policy, the narrow-task driver's one
// reader instead), runs its loop and returns its totals.

import (
	"context"
	"errors"
	"io"
	"math"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// Options are the knobs of one replay besides the trace.
type Options struct {
	Config model.Config
	Policy Policy
	// Progress, when set, is called now and then with the number of CTAs
	// finished so far and the simulated cycle reached, so a command can
	// show that a long run is alive (and moving through idle time too).
	Progress func(ctasDone, cycle int64)
	// Context, when set, stops the run once it is done (another replay of
	// a study failed, say): Run returns the context's error. It is checked
	// as often as Progress is called.
	Context context.Context
	// Ahead, when set, reads the trace ahead of the engine on goroutines
	// of its own (ReadAhead; package ingest's Ahead): the bodies decoded
	// and validated on one, an ordered_trees trace's launch trees filed
	// on another (treeAhead), and the host operations' pass on a third
	// (unless the trace has a host index, which the pass reads instead):
	// a single replay then uses two cores. Leave it nil when as many
	// replays run at once as there are cores; the rows are the same.
	Ahead ReadAhead
	// Analyses are told of the run's events and compute what they will
	// beside it (Analysis; package bounds: the floors cmd/experiment
	// compares runs against). A run without any pays nothing for them.
	Analyses []Analysis
	// Bodies, when set, is where the launch trees' bodies come from: a
	// reader of a trace.Share (ingest.Shared.Bodies), so that the replays
	// of one command over one trace decode and validate it once. Run
	// closes it. A task policy's replay reads the trace its own way and
	// only closes it.
	Bodies *trace.Validator
}

// ReadAhead runs the reading of a trace ahead of the engine, on
// goroutines other than Run's. The engine starts no goroutine of its own:
// like etcd raft's RawNode, it is a deterministic function of its inputs,
// stepped on its caller's goroutine, and whether reading overlaps
// replaying is its caller's choice, made by what it passes here. Package
// ingest has the implementation (ingest.Ahead); a test may pass one that
// runs everything in step.
type ReadAhead interface {
	// Records returns a Source over src's records that reads them ahead
	// of its consumer, a bounded window of them, and stops reading when
	// closed (an io.Closer, closed before src is): trace.Prefetcher.
	Records(src trace.Source) trace.Source
	// Go runs run, a reader's loop that returns once its consumer closes
	// it (internal/ahead's Window.Run), on a goroutine of its own.
	Go(run func())
}

// checkpoint is where a long loop looks up now and then (every 65536
// steps): it returns the context's error once the run is to stop, and
// otherwise reports progress.
func (o *Options) checkpoint(ctas, cycle int64) error {
	if o.Context != nil {
		if err := o.Context.Err(); err != nil {
			return err
		}
	}
	if o.Progress != nil {
		o.Progress(ctas, cycle)
	}
	return nil
}

// Run replays the trace open returns under opt and streams result rows into
// sink. It returns the run's totals. Errors in the trace come back as they
// are (*trace.Error); a run that cannot make progress returns a
// *DeadlockError; a trace the GPU cannot run at all (a CTA larger than an
// SM) returns a *ModelError.
//
// A policy's panic (model.PolicyPanic, raised by the guards policies.New
// puts around a policy's own code) and a decision the engine cannot carry
// out (*PolicyError) end the run with that error.
func Run(open Opener, opt Options, sink tables.Sink) (st *Stats, err error) {
	defer recoverPolicy(&err)
	if opt.Bodies != nil {
		defer opt.Bodies.Close()
	}
	if err := opt.Config.Validate(); err != nil {
		return nil, err
	}
	e, closeAll, err := prepare(open, opt, sink)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return e.run()
}

// prepare builds the engine of a replay of the trace open returns, its
// first events scheduled, and what closes its readers.
func prepare(open Opener, opt Options, sink tables.Sink) (*engine, func(), error) {
	if opt.Policy.Tasks != nil {
		e := newEngine(opt, sink)
		closeTasks, err := e.startTasks(open)
		return e, closeTasks, err
	}
	var records func(trace.Source) trace.Source
	if opt.Ahead != nil {
		records = opt.Ahead.Records
	}
	in, err := ingest.Open(open, records, opt.Bodies)
	if err != nil {
		return nil, nil, err
	}
	e := newEngine(opt, sink)
	e.body = newBodyCursor(in.Bodies(), e.host.byIndex, opt.Config.IO.PageBytes, opt.Config.IO.Model == model.IOStages, parseStreamsWhatIf(opt.Config.CDP.Streams))
	e.host.reads(in, e.body)
	// The readers ahead stop before their sources close.
	closeAll := func() { e.body.close(); in.Close() }
	if err := e.start(open); err != nil {
		closeAll()
		return nil, nil, err
	}
	if opt.Ahead != nil {
		e.body.readAhead(opt.Ahead)
	}
	return e, closeAll, nil
}

// run is the engine's loop from the events start scheduled to the end,
// and the run's totals.
func (e *engine) run() (*Stats, error) {
	_, err := e.loop(math.MaxInt64)
	e.out.flushCTAs()
	if err != nil {
		return nil, err
	}
	s := e.finish()
	if err := checkHorizon(s.MakespanCycles); err != nil {
		return nil, err
	}
	return s, nil
}

func closeSource(s trace.Source) {
	if c, ok := s.(io.Closer); ok {
		c.Close()
	}
}

// ModelError says the configured GPU cannot run the trace at all.
type ModelError struct{ Msg string }

func (m *ModelError) Error() string { return m.Msg }

// IsInputError reports whether err is the user's to fix (a bad trace, a
// trace the GPU cannot run, a deadlock, a policy's decision the engine
// refused) rather than an internal failure.
func IsInputError(err error) bool {
	var te *trace.Error
	var me *ModelError
	var de *DeadlockError
	var pe *PolicyError
	return errors.As(err, &te) || errors.As(err, &me) || errors.As(err, &de) || errors.As(err, &pe)
}
