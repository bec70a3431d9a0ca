package replaycli

import (
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/timeline"
	"github.com/gpureplay/gpureplay/trace"
	"github.com/spf13/pflag"
)

const replaySynopsis = `replay — replay GPU execution traces under scheduling policies

Usage:
  replay [flags] TRACE...

Each TRACE (*.trace.zst or *.jsonl) is replayed once per policy on the
chosen GPU model; the terminal shows a summary, and --out writes the
summary, kernels, ctas, launches, occupancy, pages and stages tables.

Examples:
  replay samples/bfs-kron12.trace.zst
  replay --policy=cdp,flat,threshold --set launch.threshold=64 --out out samples/bfs-kron12.trace.zst
  replay --gpu=k20c-spawn --set gpu.sms=26 --format=csv --out out app.trace.zst
  replay --policy=flat,threshold --sweep launch.threshold=16,32,64,128 --best app.trace.zst
  replay --gpu=gk110-64 --policy=baseline,overlap1,crcs,ppcs pipeline.trace.zst   (host I/O stages)
  replay --gpu=titanx --policy=hyperq,gemtc,pagoda tasks.trace.zst              (narrow tasks)
  replay --policy=cdp,dtbl --timeline schedule.json app.trace.zst               (open in ui.perfetto.dev)

Other commands:
  replay convert --from=accelsim|gpgpusim|kineto|nsys|jsonl IN -o OUT.trace.zst   (captured runs)
  replay gen WORKLOAD [--param k=v ...] -o OUT.trace.zst   (replay gen --list)
  replay inspect TRACE [--json]      replay dump TRACE
  replay policies                    replay gpus
  replay params [--policy=P] [KEY...]   (every --set key: defaults per GPU, unit, range, meaning)
  replay report OUT -o OUT/report.html   (HTML page of tables and figures)
  replay study plan|run|status|slurm ...   (many replays in shards, on a cluster; replay study --help)

Exit status: 0 success, 2 bad usage or bad input, 1 other failure.
`

// replayFlags are the main command's settings.
type replayFlags struct {
	policies []string
	gpu      string
	sets     []string
	out      string
	format   string
	quiet    bool
	cpuprof  string
	progress time.Duration
	sweeps   []string
	best     bool
	timeline string
	tlCTAs   int64
	tlKerns  int64
	version  bool
	jobs     int
}

// planFlags are the flags that say which replays to run, shared by replay
// and replay study plan.
func (f *replayFlags) planFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.policies, "policy", []string{"cdp"}, "policies to replay under, comma separated; join with + to combine (see replay policies)")
	fs.StringVar(&f.gpu, "gpu", "k20c", "GPU preset, preset JSON file, or 'captured' for the GPU recorded in the trace (see replay gpus)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a model parameter, key=value (repeatable; replay params lists the keys)")
	fs.StringArrayVar(&f.sweeps, "sweep", nil, "replay once per value: key=v1,v2,... (repeatable: every combination, at most 1,000,000 replays a command; the summary's params column names it; a key also given to --set, or two values that set it alike, such as 64,064, are refused)")
}

func runReplay(args []string, stdout, stderr io.Writer) error {
	var f replayFlags
	fs := newFlags("replay", replaySynopsis, stdout)
	f.planFlags(fs)
	fs.BoolVar(&f.best, "best", false, "report the swept combination with the shortest makespan per trace and policy (with threshold: SPAWN's Offline-Search)")
	fs.StringVar(&f.out, "out", "", "write the result tables into this directory")
	fs.StringVar(&f.format, "format", "parquet", "table format: parquet, arrow or csv")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing on success")
	fs.StringVar(&f.timeline, "timeline", "", "also write the simulated schedule to this file as Chrome trace-event JSON, for the Perfetto UI or chrome://tracing (one process per run); - writes it to standard output and the summary to standard error. An existing file is replaced only if it is a timeline")
	fs.Int64Var(&f.tlCTAs, "timeline-ctas", timeline.DefaultMaxCTAs, "at most this many CTA slices per run in --timeline (0: all); stages and counters are always drawn")
	fs.Int64Var(&f.tlKerns, "timeline-kernels", timeline.DefaultMaxKernels, "at most this many kernels per run in --timeline, each its run, its wait and its launch call (0: all)")
	fs.BoolVar(&f.version, "version", false, "print the version of replay and exit")
	fs.IntVar(&f.jobs, "jobs", 0, "replays run at once (0: one per CPU); the tables are the same for any number")
	fs.StringVar(&f.cpuprof, "cpuprofile", "", "write a Go CPU profile of the replay to this file (for go tool pprof)")
	fs.DurationVar(&f.progress, "progress", 0, progressUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.version {
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usagef("no trace given")
	}
	if len(f.policies) == 0 {
		return usagef("--policy is empty; name at least one policy (see replay policies)")
	}
	format, err := results.ParseFormat(f.format)
	if err != nil {
		return usagef("%v", err)
	}
	if f.tlCTAs < 0 {
		return usagef("--timeline-ctas %d: want 0 (all) or more", f.tlCTAs)
	}
	if f.tlKerns < 0 {
		return usagef("--timeline-kernels %d: want 0 (all) or more", f.tlKerns)
	}
	if f.jobs < 0 {
		return usagef("--jobs %d: want 1 or more (0: one per CPU)", f.jobs)
	}
	plan, err := planReplays(fs.Args(), f, stderr)
	if err != nil {
		return err
	}
	if len(plan) > 0 {
		cfg, err := plan[0].Config()
		if err != nil {
			return err
		}
		if err := refuseTasks(fs.Args(), f.policies, cfg); err != nil {
			return err
		}
	}
	if err := checkReplayOutputs(fs.Args(), f, format); err != nil {
		return err
	}
	if f.out != "" {
		if others := results.OtherFormats(f.out, format); len(others) > 0 {
			more := ""
			if len(others) > 1 {
				more = fmt.Sprintf(" and %d more", len(others)-1)
			}
			fmt.Fprintf(stderr, "replay: note: %s also holds %s%s, an earlier run's tables in another format, which stay; replay report refuses a directory of both, and other readers cannot tell the runs apart: move those away\n", f.out, others[0], more)
		}
	}
	if f.cpuprof != "" {
		stop, err := startCPUProfile(f.cpuprof)
		if err != nil {
			return badInput(fmt.Errorf("--cpuprofile: %w", err))
		}
		defer stop()
	}
	var w *results.Writer
	if f.out != "" {
		if w, err = results.Create(f.out, format); err != nil {
			return badInput(fmt.Errorf("--out %s: %w", f.out, err))
		}
	}
	var tl *timeline.Writer
	tlOpt := timeline.Options{MaxCTAs: f.tlCTAs, MaxKernels: f.tlKerns}
	switch f.timeline {
	case "":
	case "-":
		// The timeline is standard output, so the summary goes to
		// standard error: replay --timeline - app.trace.zst | gzip works.
		tl = timeline.New(stdout, tlOpt)
		stdout = stderr
	default:
		if tl, err = timeline.Create(f.timeline, tlOpt); err != nil {
			if w != nil {
				w.Abort()
			}
			return badInput(fmt.Errorf("--timeline: %w", err))
		}
	}
	res, err := runPlan(plan, f.jobs, w, tl, stderr, f.progress)
	if err != nil {
		return err
	}
	rows := make([]summaryRow, len(res))
	for i, r := range res {
		rows[i] = summaryRow{trace: r.Replay.Name, policy: r.Policy, params: r.Replay.Params(), s: r.Summary}
	}
	if !f.quiet {
		printSummary(stdout, rows)
		if f.best {
			printBest(stdout, rows)
		}
		if f.out != "" {
			fmt.Fprintf(stdout, "tables written to %s (%s)\n", f.out, format)
		}
		if f.timeline != "" && f.timeline != "-" {
			fmt.Fprintf(stdout, "timeline written to %s (open it in ui.perfetto.dev or chrome://tracing)\n", f.timeline)
		}
	}
	return nil
}

// checkReplayOutputs refuses, before any replay, outputs that would
// destroy a trace, a GPU preset or each other (checkOutputs), and a
// --timeline that would replace a file that is not a timeline.
func checkReplayOutputs(traces []string, f replayFlags, format results.Format) error {
	var out []named
	if f.out != "" {
		out = tableFiles(f.out, format)
	}
	if f.timeline != "" && f.timeline != "-" {
		if err := checkTimelinePath(f.timeline); err != nil {
			return err
		}
		out = append(out, named{"--timeline", f.timeline})
	}
	if f.cpuprof != "" {
		out = append(out, named{"--cpuprofile", f.cpuprof})
	}
	return checkOutputs(replayInputs(traces, f.gpu), out)
}

// replayInputs are the files replays read: their traces, and a --gpu
// preset file.
func replayInputs(traces []string, gpu string) []named {
	var in []named
	for _, t := range traces {
		in = append(in, named{"an input trace", t})
	}
	if fileExists(gpu) {
		in = append(in, named{"the --gpu preset", gpu})
	}
	return in
}

// maxReplays is the most replays one command plans: its plan, the
// replays' results and their bookkeeping take some 600 bytes a replay
// before any runs (a million: about 600 MB), and a sweep's values
// multiply (three keys of 300 values are 27 million replays, which grew
// past 5 GB while the first few ran).
const maxReplays = 1_000_000

// checkPlanSize refuses a command whose traces, swept combinations and
// policies come to more than maxReplays replays, before the plan is made,
// saying how many they are and of what.
func checkPlanSize(traces int, axes []study.Axis, policies int) error {
	policies = max(policies, 1) // none given: the default, one
	n := big.NewInt(int64(traces) * int64(policies))
	terms := []string{fmt.Sprint(traces, " ", plural(traces, "trace"))}
	for _, ax := range axes {
		n.Mul(n, big.NewInt(int64(len(ax.Values))))
		terms = append(terms, fmt.Sprint(len(ax.Values), " ", plural(len(ax.Values), ax.Key+" value")))
	}
	if n.IsInt64() && n.Int64() <= maxReplays {
		return nil
	}
	if policies == 1 {
		terms = append(terms, "1 policy")
	} else {
		terms = append(terms, fmt.Sprint(policies, " policies"))
	}
	return usagef("%s replays asked for (%s): one command runs at most %s; sweep fewer values, or split the sweep over several commands",
		grouped(n.String()), strings.Join(terms, " × "), grouped(fmt.Sprint(maxReplays)))
}

// grouped writes the decimal digits ds in groups of three: 27,000,000.
func grouped(ds string) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 && (len(ds)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// kindOf names a file mode that is not a regular file's or a directory's,
// for a message: a pipe (cat ... | replay /dev/stdin, a FIFO), a device
// or a socket. Opened twice, a pipe gives its second reader what the first
// left (a replay reported an empty trace) or, a FIFO, waits for a writer
// that never comes.
func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// summaryRow is one line of the terminal summary.
type summaryRow struct {
	trace, policy, params string
	s                     tables.Summary
}

// planReplays checks the traces, policies and sweeps before anything
// runs, so a typo fails at once rather than after hours of replays, and
// numbers the replays they ask for.
func planReplays(traces []string, f replayFlags, stderr io.Writer) ([]study.Replay, error) {
	var axes []study.Axis
	var files []os.FileInfo
	var notes []string // printed once every check has passed: a refused command line says one thing
	for i, path := range traces {
		st, err := os.Stat(path)
		if err != nil {
			return nil, badInput(err)
		} else if st.IsDir() {
			return nil, badInput(fmt.Errorf("%s is a directory, not a trace (*.trace.zst or *.jsonl)", path))
		} else if !st.Mode().IsRegular() {
			return nil, badInput(fmt.Errorf("%s is %s, not a file: a replay reads its trace more than once (its header first, then each replay), which a stream cannot give; write the trace to a file and replay that", path, kindOf(st.Mode())))
		}
		for j, prev := range files {
			if os.SameFile(prev, st) {
				return nil, usagef("%s and %s are the same trace file: their rows could not be told apart; give it once", traces[j], path)
			}
		}
		files = append(files, st)
		base, err := study.Replay{Trace: path, GPU: f.gpu, Sets: f.sets}.Config()
		if err != nil {
			return nil, err
		}
		if f.gpu == "captured" {
			if h, err := study.ReadHeader(path); err == nil && h.GPUSpec != nil && h.GPUSpec.SMs == 0 && !setsKey(f.sets, "gpu.sms") && !setsKey(f.sweeps, "gpu.sms") {
				notes = append(notes, fmt.Sprintf("replay: note: %s records no SM count; replaying on %d SMs (k20c's; --set gpu.sms=N for the captured GPU's)", path, base.GPU.SMs))
			}
		}
		if axes, err = parseSweeps(f.sweeps, f.sets, base); err != nil {
			return nil, err
		}
		if i == 0 {
			for j, spec := range f.policies {
				if slices.Contains(f.policies[:j], spec) {
					return nil, usagef("--policy: %s given twice: its rows could not be told apart; give it once", spec)
				}
				if _, err := policies.New(spec, base); err != nil {
					if isError[*model.PolicyPanic](err) {
						return nil, err
					}
					return nil, usagef("%v", err)
				}
			}
		}
	}
	if err := checkPlanSize(len(traces), axes, len(f.policies)); err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
	warnUnread(f.sweeps, f.policies, stderr)
	plan := study.Expand(study.Spec{Traces: traces, GPU: f.gpu, Sets: f.sets, Sweeps: axes, Policies: f.policies})
	for i, r := range plan {
		if i == 0 || r.Trace != plan[i-1].Trace {
			if r.Name != study.TraceName(r.Trace) {
				fmt.Fprintf(stderr, "replay: note: %s shares its file name with another trace; its trace column is %q\n", r.Trace, r.Name)
			}
		}
	}
	return plan, nil
}

// refuseTasks refuses a command that replays traces under a policy that
// runs a task runtime (replay.Policy.Tasks: gemtc, pagoda) where a
// trace's host index lists a host call the runtimes refuse
// (replay.TasksRefuse), before any replay runs: a replay's refusal at a
// sync late in the trace stopped the command's other replays, and their
// rows were lost. cfg is the plan's first replay's: whether a policy
// runs a task runtime does not depend on it. A trace with no index
// (JSONL, a binary trace whose host operations outgrew it), or one that
// cannot be opened or whose index is damaged, is left to the replays,
// which say what they find. (A study keeps going past a failed replay
// and lists it, losing nothing: study plan does not refuse.)
func refuseTasks(traces, specs []string, cfg model.Config) error {
	var tasks []string
	for _, spec := range specs {
		if pol, err := policies.New(spec, cfg); err == nil && pol.Tasks != nil {
			tasks = append(tasks, spec)
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	for _, path := range traces {
		if err := tasksRefuse(path); err != nil {
			return badInput(fmt.Errorf("%s (%s): %v; leave %s out of --policy to replay it under the others", path, strings.Join(tasks, ", "), err, strings.Join(tasks, " and ")))
		}
	}
	return nil
}

// tasksRefuse is replay.TasksRefuse of the trace at path's host index,
// nil where it has none or it cannot be read.
func tasksRefuse(path string) error {
	src, err := trace.Open(path)
	if err != nil {
		return nil
	}
	defer src.Close()
	x, err := trace.HostIndexOf(src)
	if err != nil {
		return nil
	}
	return replay.TasksRefuse(x)
}

// shareBytes bounds the decode the replays of one trace share
// (study.Options.ShareBytes): 0 is the default bound, and tests set
// less than 0 (each replay decodes alone) or 1 (the tape lets every
// replay but the first go at once).
var shareBytes int64

// runPlan replays the plan on jobs workers, its rows merged into w's
// tables (if any) in plan order, and completes the tables. A timeline is
// drawn one replay at a time.
func runPlan(plan []study.Replay, jobs int, w *results.Writer, tl *timeline.Writer, stderr io.Writer, every time.Duration) ([]study.Result, error) {
	var merge *study.Merge
	if w != nil {
		merge = study.NewMerge(w, len(plan))
	}
	if tl != nil {
		jobs = 1
	}
	prog := newProgress(stderr, len(plan), every)
	res, err := study.Run(plan, study.Options{
		Jobs: jobs,
		Open: func(r study.Replay, _ string) (study.Output, error) {
			var out study.Output = discard{}
			if merge != nil {
				out = merge.Output(r.ID)
			}
			if tl == nil {
				return out, nil
			}
			cfg, err := r.Config()
			if err != nil {
				out.Abort()
				return nil, err
			}
			tl.SetModel(cfg.GPU.ClockMHz, cfg.Lat.HostIssue, cfg.Lat.HostSync)
			return tee{out, tl}, nil
		},
		Progress:   prog.update,
		Finished:   prog.finished,
		ShareBytes: shareBytes,
		Apart:      tl != nil,
	})
	prog.done()
	if err != nil {
		if merge != nil {
			merge.Abort()
		}
		if tl != nil {
			tl.Abort()
		}
		if study.IsInputError(err) {
			err = badInput(err)
		}
		return nil, err
	}
	if merge != nil {
		err = merge.Close()
	}
	if tl != nil {
		if err != nil {
			tl.Abort()
		} else {
			err = tl.Close()
		}
	}
	return res, err
}

// setsKey reports whether a --set names key.
func setsKey(sets []string, key string) bool {
	for _, kv := range sets {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			return true
		}
	}
	return false
}

func printSummary(w io.Writer, rows []summaryRow) {
	swept := false
	for _, r := range rows {
		swept = swept || r.params != ""
	}
	fmt.Fprintf(w, "%-20s %-12s ", "trace", "policy")
	if swept {
		fmt.Fprintf(w, "%-28s ", "params")
	}
	fmt.Fprintf(w, "%14s %12s %8s %9s %9s %9s %9s\n",
		"makespan(cyc)", "makespan(us)", "speedup", "occupancy", "launched", "inlined", "coalesced")
	for _, r := range rows {
		s := r.s
		fmt.Fprintf(w, "%-20s %-12s ", r.trace, r.policy)
		if swept {
			fmt.Fprintf(w, "%-28s ", r.params)
		}
		fmt.Fprintf(w, "%14d %12.1f %7.3fx %8.1f%% %9d %9d %9d\n",
			s.MakespanCycles, s.MakespanUS, s.Speedup, 100*s.AvgOccupancy, s.Launched, s.Inlined, s.Coalesced)
	}
}
