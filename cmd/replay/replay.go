package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/timeline"
	"github.com/gpureplay/gpureplay/trace"
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
  replay convert --from=accelsim|kineto|nsys|jsonl IN -o OUT.trace.zst   (captured traces)
  replay gen WORKLOAD [--param k=v ...] -o OUT.trace.zst   (replay gen --list)
  replay inspect TRACE [--json]      replay dump TRACE
  replay policies                    replay gpus
  replay report OUT -o report.html   (HTML page of tables and figures)

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
	sweeps   []string
	best     bool
	timeline string
	tlCTAs   int64
	version  bool
}

func runReplay(args []string, stdout, stderr io.Writer) error {
	var f replayFlags
	fs := newFlags("replay", replaySynopsis, stdout)
	fs.StringSliceVar(&f.policies, "policy", []string{"cdp"}, "policies to replay under, comma separated; join with + to combine (see replay policies)")
	fs.StringVar(&f.gpu, "gpu", "k20c", "GPU preset, preset JSON file, or 'captured' for the GPU recorded in the trace (see replay gpus)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a model parameter, key=value (repeatable; an unknown key lists the valid ones)")
	fs.StringArrayVar(&f.sweeps, "sweep", nil, "replay once per value: key=v1,v2,... (repeatable: every combination; the summary's params column names it)")
	fs.BoolVar(&f.best, "best", false, "report the swept combination with the shortest makespan per trace and policy (with threshold: SPAWN's Offline-Search)")
	fs.StringVar(&f.out, "out", "", "write the result tables into this directory")
	fs.StringVar(&f.format, "format", "parquet", "table format: parquet, arrow or csv")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing on success")
	fs.StringVar(&f.timeline, "timeline", "", "also write the simulated schedule to this file as Chrome trace-event JSON, for the Perfetto UI or chrome://tracing (one process per run)")
	fs.Int64Var(&f.tlCTAs, "timeline-ctas", timeline.DefaultMaxCTAs, "at most this many CTA slices per run in --timeline (0: all); kernels, stages and flows are always drawn")
	fs.BoolVar(&f.version, "version", false, "print the version of replay and exit")
	fs.StringVar(&f.cpuprof, "cpuprofile", "", "write a Go CPU profile of the replay to this file (for go tool pprof)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.version {
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	if f.cpuprof != "" {
		stop, err := startCPUProfile(f.cpuprof)
		if err != nil {
			return err
		}
		defer stop()
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
	var sink tableSink = discard{}
	if f.out != "" {
		w, err := results.Create(f.out, format)
		if err != nil {
			return badInput(fmt.Errorf("--out %s: %w", f.out, err))
		}
		sink = w
	}
	if f.timeline != "" {
		if f.tlCTAs < 0 {
			sink.Abort()
			return usagef("--timeline-ctas %d: want 0 (all) or more", f.tlCTAs)
		}
		tl, err := timeline.Create(f.timeline, timeline.Options{MaxCTAs: f.tlCTAs})
		if err != nil {
			sink.Abort()
			return err
		}
		sink = tee{tables: sink, tl: tl}
	}
	warnUnread(f.sweeps, f.policies, stderr)
	var rows []summaryRow
	names := traceNames(fs.Args())
	for i, path := range fs.Args() {
		if names[i] != traceName(path) {
			fmt.Fprintf(stderr, "replay: note: %s shares its file name with another trace; its trace column is %q\n", path, names[i])
		}
		r, err := replayTrace(path, names[i], f, sink, stderr)
		rows = append(rows, r...)
		if err != nil {
			sink.Abort()
			return err
		}
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if !f.quiet {
		printSummary(stdout, rows)
		if f.best {
			printBest(stdout, rows)
		}
		if f.out != "" {
			fmt.Fprintf(stdout, "tables written to %s (%s)\n", f.out, format)
		}
		if f.timeline != "" {
			fmt.Fprintf(stdout, "timeline written to %s (open it in ui.perfetto.dev or chrome://tracing)\n", f.timeline)
		}
	}
	return nil
}

// tableSink is where rows go: the table writer, or nowhere without --out.
type tableSink interface {
	results.Sink
	Begin(results.Run)
	Summary(results.Summary)
	Close() error
	Abort()
}

type discard struct{}

func (discard) Kernel(results.Kernel)       {}
func (discard) CTA(results.CTA)             {}
func (discard) Launch(results.Launch)       {}
func (discard) Occupancy(results.Occupancy) {}
func (discard) Page(results.Page)           {}
func (discard) Stage(results.Stage)         {}
func (discard) Begin(results.Run)           {}
func (discard) Summary(results.Summary)     {}
func (discard) Close() error                { return nil }
func (discard) Abort()                      {}

// summaryRow is one line of the terminal summary.
type summaryRow struct {
	trace, policy, params string
	s                     results.Summary
}

// replayTrace replays one trace under every policy, once per swept
// combination. Speedups are against the first policy with the same
// combination; with a single policy, against its first combination.
func replayTrace(path, name string, f replayFlags, sink tableSink, stderr io.Writer) ([]summaryRow, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, badInput(err)
	} else if st.IsDir() {
		return nil, badInput(fmt.Errorf("%s is a directory, not a trace (*.trace.zst or *.jsonl)", path))
	}
	base, err := loadConfig(path, f.gpu, f.sets)
	if err != nil {
		return nil, err
	}
	if f.gpu == "captured" {
		if h, err := readHeader(path); err == nil && h.GPUSpec != nil && h.GPUSpec.SMs == 0 && !setsKey(f.sets, "gpu.sms") {
			fmt.Fprintf(stderr, "replay: note: %s records no SM count; replaying on %d SMs (k20c's; --set gpu.sms=N for the captured GPU's)\n", path, base.GPU.SMs)
		}
	}
	axes, err := parseSweeps(f.sweeps, base)
	if err != nil {
		return nil, err
	}
	var rows []summaryRow
	var baseline int64 // 0: each combination's first policy
	for _, c := range combos(axes) {
		cfg, err := c.apply(base)
		if err != nil {
			return rows, usagef("--sweep %s: %v", c, err)
		}
		r, err := replayPolicies(path, name, cfg, c, f.policies, baseline, sink, stderr)
		if len(f.policies) == 1 && baseline == 0 && len(r) > 0 {
			baseline = r[0].s.MakespanCycles
		}
		rows = append(rows, r...)
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// replayPolicies replays one trace on one configuration under every policy.
func replayPolicies(path, name string, cfg model.Config, c combo, specs []string, baseline int64, sink tableSink, stderr io.Writer) ([]summaryRow, error) {
	open := func() (trace.Source, error) { return trace.Open(path) }
	var rows []summaryRow
	first := baseline
	for i, spec := range specs {
		pol, err := policies.New(spec, cfg)
		if err != nil {
			return rows, usagef("%v", err)
		}
		if m, ok := sink.(modelSetter); ok {
			m.setModel(cfg)
		}
		sink.Begin(results.Run{Trace: name, Policy: pol.Name, Params: c.String()})
		prog := newProgress(stderr, name, pol.Name, cfg.GPU.ClockMHz)
		st, err := replay.Run(open, replay.Options{Config: cfg, Policy: pol, Progress: prog.update}, sink)
		prog.done()
		if err != nil {
			if replay.IsInputError(err) {
				err = badInput(err)
			}
			return rows, fmt.Errorf("%s (%s): %w", path, pol.Name, err)
		}
		if st.Kernels == 0 {
			return rows, badInput(fmt.Errorf("%s launches no kernel: nothing to replay", path))
		}
		if i == 0 && baseline == 0 {
			first = st.MakespanCycles
		}
		row := summarize(cfg, st, first)
		sink.Summary(row)
		rows = append(rows, summaryRow{trace: name, policy: pol.Name, params: c.String(), s: row})
	}
	return rows, nil
}

// loadConfig builds the model: a preset, a JSON file or the trace's
// captured GPU, then the --set overrides in order.
func loadConfig(path, gpu string, sets []string) (model.Config, error) {
	var cfg model.Config
	var err error
	if gpu == "captured" {
		cfg, err = capturedConfig(path)
	} else {
		cfg, err = model.Load(gpu)
	}
	if err != nil {
		return cfg, badInput(err)
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return cfg, usagef("--set %q: want key=value", kv)
		}
		if err := cfg.Set(k, v); err != nil {
			return cfg, usagef("--set: %v", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, badInput(err)
	}
	return cfg, nil
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

// capturedConfig is the k20c model with the GPU the trace header records.
func capturedConfig(path string) (model.Config, error) {
	base, err := model.Preset("k20c")
	if err != nil {
		return base, err
	}
	h, err := readHeader(path)
	if err != nil {
		return base, err
	}
	if h.GPUSpec == nil {
		return base, fmt.Errorf("%s: --gpu=captured, but the trace header records no gpu_spec", path)
	}
	return model.FromSpec(base, h.GPU, h.GPUSpec), nil
}

// readHeader reads a trace's first record.
func readHeader(path string) (*trace.Header, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	r, err := trace.NewValidator(src).Next()
	if err != nil {
		return nil, err
	}
	h, ok := r.(*trace.Header)
	if !ok {
		return nil, fmt.Errorf("%s: first record is not a header", path)
	}
	return h, nil
}

// summarize turns a run's totals into its summary row.
func summarize(cfg model.Config, st *replay.Stats, first int64) results.Summary {
	return st.Summary(cfg.GPU.Name, first)
}

// traceNames are the trace column's values for the paths: each file's
// name without its trace extensions, or, for files that share a name, the
// path without them, so their rows stay apart.
func traceNames(paths []string) []string {
	count := map[string]int{}
	for _, p := range paths {
		count[traceName(p)]++
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = traceName(p)
		if count[names[i]] > 1 {
			names[i] = filepath.ToSlash(filepath.Join(filepath.Dir(filepath.Clean(p)), names[i]))
		}
	}
	return names
}

// traceName is the trace column's value for one trace: the file name
// without its trace extensions.
func traceName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".zst", ".trace", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
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
