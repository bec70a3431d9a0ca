// Package timeline writes a replay's simulated schedule as a Chrome
// trace-event JSON file, which the Perfetto UI (ui.perfetto.dev, or its
// offline build) and chrome://tracing open. It takes the same rows the
// result tables do, as a tables.Sink, and streams: memory holds the
// launch sites whose parent CTA has not ended, the arrows whose two ends
// have not both been written, and a few lanes per SM, never the schedule.
//
// Each replayed run (trace, policy, sweep combination) is three
// processes, which Perfetto shows as three groups of tracks, each
// collapsible, in this order:
//
//   - "<run>": the "host" track (each host launch's API call,
//     lat.host_issue long from its launch cycle; Pagoda's spawn, GeMTC's
//     push), a "host thread N" track per host thread that blocked (each
//     blocking call of the syncs table, from its call to its return,
//     named by its CUDA call: cudaDeviceSynchronize,
//     cudaStreamSynchronize, cudaEventSynchronize, "cudaMemcpy
//     (blocking)"), "host I/O and copies" (the stages table), "kernels" (each
//     kernel from its first CTA to its completion, on as many lanes as
//     run at once: the GPU's concurrent kernels bound them), and the
//     run's counters: issue and DRAM utilisation (as run averages),
//     SPAWN's n and n_con at each decision.
//   - "<run>: SMs": a track per SM lane (CTAs resident together go on
//     separate lanes of their SM), each CTA a slice from start to end
//     named by its kernel (a "stalled" slice first when it waited on its
//     SM), with kernel id, CTA index, group, stall and slowdown in its
//     args; and each SM's resident warps as a counter.
//   - "<run>: launch queue": each kernel's wait, launch to first CTA, as a
//     "queued <name>" slice. Waits overlap without bound (a CDP run
//     queues hundreds of children at once), so they have a group of their
//     own that stays folded while the kernels above are read.
//
// An arrow (a flow) runs from each launch site to what it launched: from
// the parent CTA's slice to the child kernel's queued slice (or its
// running slice when it did not wait); under KLAP to the aggregated kernel
// the lane's launch went into; under DTBL to the first CTA of the group it
// coalesced into; from each host launch call to its kernel; and, named
// "release", from the end of the host kernel whose completion ended a
// blocking call's wait (syncs.last_kernel_id) to the call's end.
//
// Perfetto imports this format by rules of its own (see
// internal/perfetto, which models them for the tests): it sorts the
// events by time, and keys a flow by its category, name and id alone, with
// no pid, never closing it. So each arrow here has an id of its own across
// the whole file, and its start is written before its end: rows arrive in
// order of their end, so an end that comes first waits for its start.
// Flow events bind to the slice enclosing them on their track, so a start
// is placed strictly inside the parent CTA's slice, and times are whole
// nanoseconds so that slices on one lane never overlap by a rounding.
//
// Times are microseconds of the replay GPU's clock; every slice also
// carries its cycles in args. Chrome's JSON format was kept over
// Perfetto's protobuf: it streams with no schema code and no dependency,
// opens in both viewers (chrome://tracing reads no protobuf), and its
// flows, once ids are unique and starts come first, draw every arrow the
// protobuf's flow ids would. The CTA slices, the bulk of a large replay,
// can be capped per run (Options.MaxCTAs), and so can the kernels
// (Options.MaxKernels), the bulk of a trace of many small kernels.
package timeline

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/tables"
)

// Options shape a timeline.
type Options struct {
	// MaxCTAs caps the CTA slices written per run (0: no cap). Kernels,
	// stages, flows and counters are always written. Past the cap a
	// run's process gets a note saying how many were left out.
	MaxCTAs int64
	// MaxKernels caps the kernels drawn per run (0: no cap): each is its
	// run slice, its wait on the launch queue, a host kernel's launch call
	// and the arrows into them, about 740 bytes (10^6 one-CTA kernels of
	// replay gen synth, capped at DefaultMaxKernels). Past the cap a run's process gets a note saying
	// how many were left out, and the arrows to or from them are not
	// drawn.
	MaxKernels int64
}

// Writer streams one timeline file. Create it with Create (or New for a
// stream); call SetModel and Begin before each run's rows, Summary after
// them, then Close. A failed run's file is removed by Abort, never left
// half written.
type Writer struct {
	f    *tempfile.File // nil when writing to a stream
	path string
	w    *bufio.Writer
	opt  Options
	err  error
	n    int // events written

	runs      int // runs begun: run r's processes are pids 3r-2, 3r-1, 3r
	mhz       float64
	hostIssue int64
	hostSync  int64
	hostCall  string // what the host's call for a kernel is named: launch, spawn, push
	ctas      int64  // CTA slices written this run
	dropped   int64
	// kernelSlices and droppedKernels are the kernels drawn and left out
	// this run (MaxKernels).
	kernelSlices, droppedKernels int64
	// occupancy and decisions are the SMs' resident-warp counter values
	// and SPAWN's decisions drawn this run, and the dropped ones those
	// left out (2·MaxCTAs and MaxKernels).
	occupancy, droppedOccupancy int64
	decisions, droppedDecisions int64
	sms                         map[int32]*lanes // per SM
	kernels                     lanes
	queue                       lanes
	stages                      lanes
	host                        lanes
	threads                     map[int32]*lanes // per host thread, its blocking calls
	flows                       flows
}

// Create starts a timeline at path, written through a temporary file in
// the same directory that Close renames into place. Call SetModel before
// each Begin.
func Create(path string, opt Options) (*Writer, error) {
	f, err := tempfile.Create(path)
	if err != nil {
		return nil, err
	}
	w := New(f, opt)
	w.f, w.path = f, path
	return w, nil
}

// New starts a timeline written to out as it goes (standard output, say),
// where Abort can only stop writing. The errors of Close name the stream
// "standard output".
func New(out io.Writer, opt Options) *Writer {
	w := &Writer{path: "standard output", w: bufio.NewWriterSize(out, 1<<16), opt: opt}
	w.raw(Prefix + "\n")
	return w
}

// Prefix is how every timeline starts: a file that begins otherwise is
// not one.
const Prefix = `{"displayTimeUnit":"ns","traceEvents":[`

// DefaultMaxCTAs is the CTA slices per run the command writes unless told
// otherwise: about 374 MB of JSON (measured on the 5M-CTA synth trace),
// which the Perfetto UI loads.
const DefaultMaxCTAs = 1_000_000

// DefaultMaxKernels is the kernels per run the command draws unless told
// otherwise. Kernels were always drawn, so a trace of 10^6 small kernels
// wrote 1.25 GB under two policies even with --timeline-ctas=1000 (issue
// 75).
const DefaultMaxKernels = 200_000

// Begin starts a run: three processes of its own, named by the run.
func (w *Writer) Begin(run tables.Run) {
	w.endRun()
	w.runs++
	w.ctas, w.dropped = 0, 0
	w.kernelSlices, w.droppedKernels = 0, 0
	w.occupancy, w.droppedOccupancy, w.decisions, w.droppedDecisions = 0, 0, 0, 0
	w.sms = map[int32]*lanes{}
	w.kernels, w.queue, w.stages, w.host = lanes{}, lanes{}, lanes{}, lanes{}
	w.threads = map[int32]*lanes{}
	w.flows.reset()
	w.hostCall = "launch"
	switch run.Policy {
	case "pagoda":
		w.hostCall = "spawn"
	case "gemtc":
		w.hostCall = "push"
	}
	name := run.Trace + " · " + run.Policy
	if run.Params != "" {
		name += " · " + run.Params
	}
	w.process(w.pid(runProc), name)
	w.process(w.pid(smProc), name+": SMs")
	w.process(w.pid(queueProc), name+": launch queue")
}

// SetModel gives the run's GPU clock, to turn cycles into microseconds,
// the cycles one host API call holds a host thread (lat.host_issue), for
// the host track, and a blocking call's cost after its wait
// (lat.host_sync), which bounds how long a host kernel's slice is kept
// for the release arrow of a call it ends.
func (w *Writer) SetModel(mhz float64, hostIssue, hostSync int64) {
	w.mhz, w.hostIssue, w.hostSync = mhz, hostIssue, max(hostSync, 0)
}

// endRun flushes what a run left open.
func (w *Writer) endRun() {
	if w.runs == 0 {
		return
	}
	if w.dropped > 0 || w.droppedOccupancy > 0 {
		w.meta("process_labels", w.pid(smProc), 0, fmt.Sprintf("%d CTA slices and %d resident-warp values left out (--timeline-ctas %d)", w.dropped, w.droppedOccupancy, w.opt.MaxCTAs))
	}
	if w.droppedKernels > 0 || w.droppedDecisions > 0 {
		w.meta("process_labels", w.pid(runProc), 0, fmt.Sprintf("%d kernels and %d SPAWN decisions left out (--timeline-kernels %d)", w.droppedKernels, w.droppedDecisions, w.opt.MaxKernels))
	}
}

// Close finishes the file and renames it into place.
func (w *Writer) Close() error {
	w.endRun()
	w.raw("\n]}\n")
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		w.Abort()
		return fmt.Errorf("timeline %s: %w", w.path, w.err)
	}
	if w.f == nil {
		return nil
	}
	if err := w.f.Commit(); err != nil {
		return fmt.Errorf("timeline %s: %w", w.path, err)
	}
	return nil
}

// Abort removes the unfinished file.
func (w *Writer) Abort() {
	if w.f != nil {
		w.f.Discard()
	}
}

var _ io.Closer = (*Writer)(nil)
