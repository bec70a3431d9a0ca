// Package timeline writes a replay's simulated schedule as a Chrome
// trace-event JSON file, which the Perfetto UI (ui.perfetto.dev, or its
// offline build) and chrome://tracing open. It takes the same rows the
// result tables do, as a results.Sink, and streams: memory holds the
// launch sites whose parent CTA has not ended and a few lanes per SM, never
// the schedule.
//
// The layout, one process per replayed run (trace, policy, sweep
// combination):
//
//   - "SM n" threads: each CTA as a slice from placement to end (a
//     "stalled" slice first when it waited on its SM), named by kernel,
//     with kernel id, CTA index, group, stall and slowdown in its args.
//     CTAs resident together go on separate lanes of their SM.
//   - "kernels" threads: each kernel's wait (launch to first CTA, "queued")
//     and run (first CTA to completion), on as many lanes as overlap.
//   - "host": each host launch's API call (lat.host_issue at its
//     launch cycle); "host I/O" and copy-engine stages from the stages
//     table.
//   - flows from a launch site to the child kernel it launched (under
//     KLAP, the aggregated kernel its child runs in), or to the first CTA
//     of the group it coalesced into, and from each host call
//     (launch; Pagoda's spawn, GeMTC's push) to its kernel or task.
//   - counters: resident warps per SM (the occupancy table's rows), the
//     contention model's issue and DRAM utilisation (as run averages), and
//     SPAWN's n and n_con at each decision. Pending launches have no
//     counter of their own: each is a "queued" slice on the kernels
//     track, so their number at a time is the queued slices there.
//
// Times are microseconds of the replay GPU's clock; every slice also
// carries its cycles in args. Chrome's JSON format was chosen over
// Perfetto's protobuf because it streams with no schema code, opens in
// both viewers, and compresses well; the CTA slices, the bulk of a large
// replay, can be capped per run (Options.MaxCTAs).
package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/results"
)

// Options shape a timeline.
type Options struct {
	// MaxCTAs caps the CTA slices written per run (0: no cap). Kernels,
	// stages, flows and counters are always written. Past the cap a
	// run's process gets a note saying how many were left out.
	MaxCTAs int64
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

	pid       int
	mhz       float64
	hostIssue int64
	hostCall  string // what the host's call for a kernel is named: launch, spawn, push
	ctas      int64  // CTA slices written this run
	dropped   int64
	sms       map[int32]*lanes // per SM
	kernels   lanes
	stages    lanes
	host      lanes
	sites     map[ctaKey][]site // launch sites waiting for their parent CTA's lane
	groups    map[uint64]bool   // coalesced groups waiting for their first CTA
	names     map[uint64]string // kernel names seen (kernel rows come after their CTAs)
	// ended holds the lanes of the CTAs whose rows came at endedAt, the
	// latest end cycle: a DTBL group's launches row is written when its
	// command arrives, which can be in the cycle its parent CTA ended, after
	// the CTA's row (model.tie_seed orders such events), but never later.
	ended   map[ctaKey]int
	endedAt int64
}

type ctaKey struct {
	kernel, cta uint64
}

type site struct {
	cycle int64
	child uint64
}

// lanes assigns slices that may overlap to threads on which they do not:
// rows arrive in order of their end, and a slice takes the first lane
// whose last slice ended by its start.
type lanes struct {
	last []int64
}

// take returns the lane for a slice from start to end, and whether the
// lane is new.
func (l *lanes) take(start, end int64) (int, bool) {
	for i, e := range l.last {
		if e <= start {
			l.last[i] = end
			return i, false
		}
	}
	l.last = append(l.last, end)
	return len(l.last) - 1, true
}

// Thread ids: each SM has 1000 lanes' worth of ids; the other tracks come
// after the SMs.
const (
	smLanes      = 1000
	kernelTID    = 1 << 24
	stageTID     = 2 << 24
	hostTID      = 3 << 24
	defaultLimit = 1_000_000
)

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
const DefaultMaxCTAs = defaultLimit

func (w *Writer) raw(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// event writes one event object, given as its JSON members.
func (w *Writer) event(members string) {
	if w.n > 0 {
		w.raw(",\n")
	}
	w.n++
	w.raw("{" + members + "}")
}

// Begin starts a run: a process of its own, named by the run.
func (w *Writer) Begin(run results.Run) {
	w.endRun()
	w.pid++
	w.ctas, w.dropped = 0, 0
	w.sms = map[int32]*lanes{}
	w.kernels, w.stages, w.host = lanes{}, lanes{}, lanes{}
	w.sites = map[ctaKey][]site{}
	w.groups = map[uint64]bool{}
	w.ended, w.endedAt = map[ctaKey]int{}, -1
	w.names = map[uint64]string{}
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
	w.meta("process_name", 0, name)
	w.event(fmt.Sprintf(`"ph":"M","name":"process_sort_index","pid":%d,"args":{"sort_index":%d}`, w.pid, w.pid))
}

// SetModel gives the run's GPU clock, to turn cycles into microseconds,
// and the cycles one host API call holds a host thread (lat.host_issue),
// for the host track.
func (w *Writer) SetModel(mhz float64, hostIssue int64) { w.mhz, w.hostIssue = mhz, hostIssue }

func (w *Writer) meta(what string, tid int, name string) {
	w.event(fmt.Sprintf(`"ph":"M","name":%q,"pid":%d,"tid":%d,"args":{"name":%s}`, what, w.pid, tid, strconv.Quote(name)))
}

// us is a cycle count in microseconds.
func (w *Writer) us(cycles int64) string {
	mhz := w.mhz
	if mhz <= 0 {
		mhz = 1
	}
	return strconv.FormatFloat(float64(cycles)/mhz, 'f', -1, 64)
}

// slice writes a complete event on thread tid from start to end cycles.
func (w *Writer) slice(tid int, name string, start, end int64, args string) {
	a := fmt.Sprintf(`"start_cycle":%d,"end_cycle":%d`, start, end)
	if args != "" {
		a += "," + args
	}
	w.event(fmt.Sprintf(`"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s,"name":%s,"args":{%s}`,
		w.pid, tid, w.us(start), w.us(end-start), strconv.Quote(name), a))
}

// lane returns the thread of a slice from start to end on a track of
// lanes, naming the lane when it is new.
func (w *Writer) lane(base int, l *lanes, name string, start, end int64) int {
	i, fresh := l.take(start, end)
	tid := base + i
	if fresh {
		label := name
		if i > 0 {
			label = fmt.Sprintf("%s (%d)", name, i+1)
		}
		w.meta("thread_name", tid, label)
		w.event(fmt.Sprintf(`"ph":"M","name":"thread_sort_index","pid":%d,"tid":%d,"args":{"sort_index":%d}`, w.pid, tid, tid))
	}
	return tid
}

// CTA writes a CTA's slices and the flows of the launch sites it reached.
func (w *Writer) CTA(c results.CTA) {
	l := w.sms[c.SM]
	if l == nil {
		l = &lanes{}
		w.sms[c.SM] = l
	}
	key := ctaKey{c.KernelID, c.CTA}
	sites := w.sites[key]
	delete(w.sites, key)
	first := c.GroupID != nil && w.groups[*c.GroupID]
	if w.opt.MaxCTAs > 0 && w.ctas >= w.opt.MaxCTAs {
		w.dropped++
		return
	}
	w.ctas++
	tid := w.lane(int(c.SM)*smLanes, l, fmt.Sprintf("SM %d", c.SM), c.DispatchCycle, c.EndCycle)
	name := w.kernelName(c.KernelID)
	args := fmt.Sprintf(`"kernel_id":%d,"cta":%d,"stall_cycles":%d`, c.KernelID, c.CTA, c.StallCycles)
	if c.GroupID != nil {
		args += fmt.Sprintf(`,"group_id":%d`, *c.GroupID)
	}
	if c.Slowdown != nil {
		args += `,"slowdown":` + strconv.FormatFloat(*c.Slowdown, 'g', 6, 64)
	}
	if c.StartCycle > c.DispatchCycle {
		w.slice(tid, "stalled", c.DispatchCycle, c.StartCycle, args)
	}
	w.slice(tid, name, c.StartCycle, c.EndCycle, args)
	for _, s := range sites {
		w.flow("s", s.child, tid, s.cycle)
	}
	if c.EndCycle != w.endedAt {
		clear(w.ended)
		w.endedAt = c.EndCycle
	}
	w.ended[key] = tid
	if first {
		delete(w.groups, *c.GroupID)
		w.flow("f", *c.GroupID, tid, c.StartCycle)
	}
}

// flow writes one end of the arrow from a launch site (s) to what it
// launched (f); id is the child kernel's.
func (w *Writer) flow(ph string, id uint64, tid int, cycle int64) {
	bind := ""
	if ph == "f" {
		bind = `,"bp":"e"`
	}
	w.event(fmt.Sprintf(`"ph":%q,"id":%d,"pid":%d,"tid":%d,"ts":%s,"name":"launch","cat":"launch"%s`,
		ph, id, w.pid, tid, w.us(cycle), bind))
}

func (w *Writer) kernelName(id uint64) string {
	if n, ok := w.names[id]; ok {
		return n
	}
	return "kernel " + strconv.FormatUint(id, 10)
}

// Launch remembers a launch site until its parent CTA's row gives it a
// lane; a coalesced group waits for its first CTA. What the lane did
// (its outcome, not the site's verdict: under DTBL's default
// dtbl.fallback=dispatch a site's launch may coalesce when its command
// arrives) says where the flow ends: at the kernel launched, or at the
// first CTA of the group. A controller's view at the decision (SPAWN's n
// and n_con) becomes two counters.
func (w *Writer) Launch(l results.Launch) {
	if l.SpawnN != nil {
		w.counter("SPAWN n (child CTAs queued)", l.Cycle, "n", float64(*l.SpawnN))
	}
	if l.SpawnNCon != nil {
		w.counter("SPAWN n_con (concurrent child CTAs)", l.Cycle, "n_con", *l.SpawnNCon)
	}
	child := l.ChildKernelID
	switch l.Outcome {
	case "launched", "coalesced", "aggregated":
		if l.Outcome == "coalesced" {
			w.groups[l.ChildKernelID] = true
		}
		if l.Outcome == "aggregated" {
			child = *l.TargetKernelID // the kernel KLAP launched for the lane's group
		}
		k := ctaKey{l.ParentKernelID, l.ParentCTA}
		if tid, ok := w.ended[k]; ok {
			w.flow("s", child, tid, l.Cycle) // its parent's row came first
			return
		}
		w.sites[k] = append(w.sites[k], site{cycle: l.Cycle, child: child})
	}
}

// Kernel writes a kernel's wait and run, the end of the flow from its
// launch site, and for a host kernel its launch call on the host track.
func (w *Writer) Kernel(k results.Kernel) {
	w.names[k.KernelID] = k.Name
	tid := w.lane(kernelTID, &w.kernels, "kernels", k.LaunchCycle, k.EndCycle)
	args := fmt.Sprintf(`"kernel_id":%d,"origin":%q,"stream":%d,"ctas":%d,"ready_cycle":%d`, k.KernelID, k.Origin, k.Stream, k.CTAs, k.ReadyCycle)
	if k.StartCycle > k.LaunchCycle {
		w.slice(tid, "queued "+k.Name, k.LaunchCycle, k.StartCycle, args)
	}
	if k.StartCycle >= 0 {
		w.slice(tid, k.Name, k.StartCycle, k.EndCycle, args)
	}
	if k.ParentKernelID != nil {
		w.flow("f", k.KernelID, tid, k.LaunchCycle)
	} else if w.hostIssue > 0 {
		end := k.LaunchCycle + w.hostIssue
		host := w.lane(hostTID, &w.host, "host", k.LaunchCycle, end)
		w.slice(host, w.hostCall+" "+k.Name, k.LaunchCycle, end, fmt.Sprintf(`"kernel_id":%d`, k.KernelID))
		w.flow("s", k.KernelID, host, k.LaunchCycle)
		w.flow("f", k.KernelID, tid, k.LaunchCycle)
	}
}

// Occupancy sets an SM's resident-warp counter for the row's span: rows
// come per SM, lazily (an SM's unchanged windows are one row), so each SM
// has a counter of its own rather than a GPU-wide sum.
func (w *Writer) Occupancy(o results.Occupancy) {
	w.counter(fmt.Sprintf("SM %d resident warps", o.SM), o.Cycle, "warps", o.ActiveWarps)
}

func (w *Writer) counter(name string, cycle int64, key string, v float64) {
	w.event(fmt.Sprintf(`"ph":"C","pid":%d,"name":%q,"ts":%s,"args":{%q:%s}`, w.pid, name, w.us(cycle), key, strconv.FormatFloat(v, 'g', 6, 64)))
}

// Page is not drawn: page events are points, and there are many; the
// report plots their readiness over time.
func (w *Writer) Page(results.Page) {}

// Stage writes a host I/O stage or a copy engine's busy span.
func (w *Writer) Stage(s results.Stage) {
	w.slice(w.lane(stageTID, &w.stages, "host I/O and copies", s.StartCycle, s.EndCycle), s.Stage, s.StartCycle, s.EndCycle, "")
}

// Summary closes the run's counters with its utilisation.
func (w *Writer) Summary(s results.Summary) {
	if s.IssueUtilization != nil {
		w.counter("issue utilisation", 0, "fraction", *s.IssueUtilization)
		w.counter("issue utilisation", s.MakespanCycles, "fraction", *s.IssueUtilization)
	}
	if s.DRAMUtilization != nil {
		w.counter("DRAM utilisation", 0, "fraction", *s.DRAMUtilization)
		w.counter("DRAM utilisation", s.MakespanCycles, "fraction", *s.DRAMUtilization)
	}
}

// endRun flushes what a run left open.
func (w *Writer) endRun() {
	if w.pid == 0 {
		return
	}
	if w.dropped > 0 {
		w.meta("process_labels", 0, fmt.Sprintf("%d CTA slices left out (--timeline-ctas %d)", w.dropped, w.opt.MaxCTAs))
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
