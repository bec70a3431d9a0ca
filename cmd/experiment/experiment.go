package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/bounds"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// benchmark is one generated workload of an experiment.
type benchmark struct {
	name   string   // the trace name in the tables
	gen    string   // generator
	params []string // generator parameters
	paper  string   // what the paper reports for it, free text
	// flatParams are the generator parameters, after params, of the
	// benchmark's faithful flat variant: the original non-DP code the
	// papers compare against (variant=flat). Its trace,
	// traces/NAME-flat.trace.zst, is what the flat column replays; nil
	// when the generator has no such variant, and the flat column then
	// replays the dp trace with every site inlined, as inlined does.
	flatParams []string
	// group is "" for the paper's own benchmarks, which its means and
	// headlines cover; another benchmark names the separate geometric-mean
	// row it is averaged in (another paper's, with no number here).
	group string
	// notUnder are the columns the paper did not run the benchmark under
	// (Pagoda's SLUD has no GeMTC version): it is replayed and printed
	// under them, but a mean of a speedup over or of such a column leaves
	// it out, as the paper's did.
	notUnder []string
}

// in says whether the paper ran b under both columns num and den: whether
// a mean of num's speedup over den counts it.
func (b benchmark) in(num, den string) bool {
	return !slices.Contains(b.notUnder, num) && !slices.Contains(b.notUnder, den)
}

// experiment is a paper's evaluation: benchmarks, a GPU and the policies
// compared, the first being the baseline speedups are measured against.
type experiment struct {
	doc        string
	gpu        string
	sets       []string
	policies   []string
	benchmarks []benchmark
	paperMean  map[string]string // policy -> the paper's mean speedup over the baseline
	// coverage says, in the own mean's row, how much of the paper's
	// benchmark set the mean covers where it is not all of it.
	coverage string
	// headlines are the paper's summary claims, recomputed from the
	// outcomes and printed under the table beside the paper's numbers.
	headlines []headline
	// searches are pseudo-policies: a real policy replayed once per value
	// of a key, keeping the shortest makespan (SPAWN's Offline-Search).
	searches map[string]search
	// extra prints experiment-specific findings under the table.
	extra func(x *experiment, w io.Writer, outs []outcome)
	// detail is the column printed after the speedups (default: the launch
	// sites and the last policy's decisions).
	detail *detail
	// custom runs an experiment that is not a benchmarks × policies
	// table (the contention model's validations) and prints its report.
	custom func(x *experiment, dir string, stdout, log io.Writer) error
	// unstated are the inputs no paper states that the experiment's bounds
	// are recomputed across (unstated.go); points is the grid of them with
	// the outcomes at each, filled by runUnstated.
	unstated []unstated
	points   []point
	// sensitive are the inputs the scorecard's verdicts are judged
	// across besides, each on its own (sensitivity.go), set by
	// runUnstated; their points follow the unstated grid's in points.
	sensitive []unstated
	// stated, when set, is a paper's stated value of a quantity the
	// experiment takes as measured (stated.go); beside is the run with
	// it, filled by runStated, whose scorecard rows follow the record's.
	stated *statedValue
	beside *besideRun
	// costsIn, where set, is the quick experiment whose grid varies the
	// invented cost constants this one's leaves out unless --cost-grid
	// asks for them (a paper-size run, where they take most of an hour):
	// sensitivity.go.
	costsIn string
	// made, where set, are traces an earlier run of the experiment wrote
	// (runUnstated: the main run's), which run takes for a benchmark of
	// the same generator and parameters instead of generating them again.
	made *madeTraces
	// summaries, where set, keeps each replay's summary row alone (the
	// grid's points, whose totals are all the scorecard reads): a
	// replay then builds no row a CTA, kernel and launch, and writes
	// none for the tables' merge to wait on (summaryOnly).
	summaries bool
}

// madeTraces are the traces of a run's benchmarks in dir (traceVariants'
// paths under dir/traces), by benchmark name.
type madeTraces struct {
	dir     string
	benches map[string]benchmark
}

// path is where b's trace already is, if m holds one of b's generator and
// parameters, its flat variant's too, written (an experiment whose own
// run writes no traces there, such as a custom one, leaves none), else "".
func (m *madeTraces) path(b benchmark) string {
	if m == nil {
		return ""
	}
	old, ok := m.benches[b.name]
	if !ok || old.gen != b.gen || !slices.Equal(old.params, b.params) || !slices.Equal(old.flatParams, b.flatParams) {
		return ""
	}
	path := filepath.Join(m.dir, "traces", b.name+".trace.zst")
	for _, v := range traceVariants(path, b) {
		if _, err := os.Stat(v.path); err != nil {
			return ""
		}
	}
	return path
}

// detail is the table's last columns describing a benchmark: cell gets
// its baseline run and its last policy's run.
type detail struct {
	header string
	cell   func(base, last *stats) string
	policy string // the column cell gets as last; "" for the last one
}

// column is the index of the policy d describes among policies.
func (d *detail) column(policies []string) int {
	for i, p := range policies {
		if p == d.policy {
			return i
		}
	}
	return len(policies) - 1
}

// launchDetail is the DP experiments' column.
var launchDetail = detail{
	header: "sites | launched / coalesced / inlined (%s)",
	cell: func(_, st *stats) string {
		return fmt.Sprintf("%d | %d / %d / %d", st.LaunchSites, st.Launched, st.Coalesced, st.Inlined)
	},
}

// search is an offline parameter search standing for one column.
type search struct {
	policy string
	sets   []string // applied first, to every run
	key    string   // "" for one run with sets
	values []string
	// flatTrace replays the benchmark's faithful flat variant's trace
	// (benchmark.flatParams), where it has one, instead of its dp trace.
	flatTrace bool
}

// baselines are the DP experiments' two flat columns, which any
// experiment may name: flat, the original non-DP benchmark (the papers'
// baseline: DTBL §5.1's "original CUDA implementations", SPAWN §V's "flat
// (non-DP) variant of each benchmark"), and inlined, the dp trace with
// every launch site's work done by its own lane (the flat policy).
var baselines = map[string]search{
	"flat":    {policy: "flat", flatTrace: true},
	"inlined": {policy: "flat"},
}

// variantFlat is the flatParams of the generators whose variant=flat is
// the original benchmark (samples' variantParam).
var variantFlat = []string{"variant=flat"}

// flatTracePath is where the flat variant of the trace at path goes.
func flatTracePath(path string) string {
	return strings.TrimSuffix(path, ".trace.zst") + "-flat.trace.zst"
}

// outcome is one replay's summary.
// stats is a run's totals and the floors computed beside it (package
// bounds): what the tables and findings compare.
type stats struct {
	replay.Stats
	CDPFloorCycles   int64 // bounds.CDPFloor
	BlindFloorCycles int64 // bounds.BlindFloor
	AfterPrelude     bounds.AfterPreludeWork
	Tasks            bounds.TaskWork
}

type outcome struct {
	bench  benchmark
	policy string
	stats  *stats
	// offload is the column's best run that launched a child kernel (of
	// a search, the best such value; nil when no run launched one): what
	// a claim about offloading part of the work (SPAWN Obs. 4) compares.
	offload *stats
}

// run generates every trace and replays it under every policy, writing
// the tables into dir/tables. A benchmark's replays run side by side
// (runJobs): its first column's, then, against their best as the
// speedups' baseline, the other columns'; the tables and the log hold
// them in the order one after another would.
func (x *experiment) run(dir string, log io.Writer) ([]outcome, error) {
	cfg, err := x.config()
	if err != nil {
		return nil, err
	}
	traces := filepath.Join(dir, "traces")
	// Every replay's place in the tables is known before the first runs.
	cols := make([][][]replayJob, len(x.benchmarks))
	paths := make([]string, len(x.benchmarks))
	made := make([]bool, len(x.benchmarks)) // the traces are there already
	n := 0
	for i, b := range x.benchmarks {
		path := x.made.path(b)
		if made[i] = path != ""; !made[i] {
			path = filepath.Join(traces, b.name+".trace.zst")
		}
		paths[i] = path
		for _, p := range x.policies {
			jobs, err := x.columnJobs(cfg, p, b, path)
			if err != nil {
				return nil, err
			}
			cols[i] = append(cols[i], jobs)
			n += len(jobs)
		}
	}
	if err := os.MkdirAll(traces, 0o755); err != nil {
		return nil, err
	}
	w, err := results.Create(filepath.Join(dir, "tables"), results.Parquet)
	if err != nil {
		return nil, err
	}
	m := study.NewMerge(w, n)
	lw := &syncWriter{w: log}
	generated, stop := generateAhead(paths, x.benchmarks, made)
	defer stop()
	var outs []outcome
	next := 0
	for i, b := range x.benchmarks {
		for _, v := range traceVariants("", b) {
			fmt.Fprintf(lw, "%s: generating %s %s\n", b.name, b.gen, strings.Join(v.bench.params, " "))
		}
		if err := generated[i](); err != nil {
			m.Abort()
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		var base int64
		for c, jobs := range [][][]replayJob{cols[i][:1], cols[i][1:]} {
			sts, err := runJobs(slices.Concat(jobs...), base, m, next, lw, x.summaries)
			if err != nil {
				m.Abort()
				return nil, err
			}
			next += len(sts)
			for k, col := range jobs {
				best, offload := pick(sts[:len(col)])
				sts = sts[len(col):]
				if c == 0 {
					base = best.MakespanCycles
				}
				outs = append(outs, outcome{bench: b, policy: x.policies[c+k], stats: best, offload: offload})
			}
		}
	}
	return outs, m.Close()
}

// eachTrace generates each benchmark's trace into dir/traces and calls
// replay with it and the tables writer (dir/tables), which it closes at
// the end; the first error aborts the writer, leaving no table.
func (x *experiment) eachTrace(dir string, log io.Writer, replay func(cfg model.Config, b benchmark, path string, w *results.Writer) error) error {
	cfg, err := x.config()
	if err != nil {
		return err
	}
	traces := filepath.Join(dir, "traces")
	if err := os.MkdirAll(traces, 0o755); err != nil {
		return err
	}
	w, err := results.Create(filepath.Join(dir, "tables"), results.Parquet)
	if err != nil {
		return err
	}
	for _, b := range x.benchmarks {
		path := filepath.Join(traces, b.name+".trace.zst")
		fmt.Fprintf(log, "%s: generating %s %s\n", b.name, b.gen, strings.Join(b.params, " "))
		if err := generateVariants(path, b, log); err != nil {
			w.Abort()
			return fmt.Errorf("%s: %w", b.name, err)
		}
		if err := replay(cfg, b, path, w); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// config is the experiment's GPU with its sets applied.
func (x *experiment) config() (model.Config, error) {
	cfg, err := model.Load(x.gpu)
	if err != nil {
		return cfg, err
	}
	for _, kv := range x.sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.Validate()
}

// replayColumn replays one benchmark for one column of the table, one
// run after another: a policy, or a search keeping its best run. Every
// run lands in the tables. offload is the best run that launched a child
// kernel, nil if none did.
func (x *experiment) replayColumn(cfg model.Config, column string, b benchmark, path string, base int64, w rowWriter, log io.Writer) (best, offload *stats, err error) {
	jobs, err := x.columnJobs(cfg, column, b, path)
	if err != nil {
		return nil, nil, err
	}
	sts := make([]*stats, len(jobs))
	for i, j := range jobs {
		if sts[i], err = replayOnce(j, base, w, log, log); err != nil {
			return nil, nil, err
		}
	}
	best, offload = pick(sts)
	return best, offload, nil
}

// replayOnce replays j, its rows into w, its line (the makespan) into log
// and, with --progress, its progress lines into progressLog. base is the
// speedups' baseline, 0 for the replay's own makespan.
func replayOnce(j replayJob, base int64, w rowWriter, log, progressLog io.Writer) (*stats, error) {
	cfg, policy, params, b, path := j.cfg, j.policy, j.params, j.bench, j.path
	pol, err := policies.New(policy, cfg)
	if err != nil {
		if j.bodies != nil {
			j.bodies.Close()
		}
		return nil, err
	}
	w.Begin(tables.Run{Trace: b.name, Policy: policy, Params: params})
	open := func() (trace.Source, error) { return trace.Open(path) }
	opt := replay.Options{Config: cfg, Policy: pol, Bodies: j.bodies, Progress: progress.watch(progressLog, b.name+" "+policy+" "+params, cfg.GPU.ClockMHz)}
	found := bounds.Attach(&opt)
	rs, err := replay.Run(open, opt, w)
	if err != nil {
		return nil, err
	}
	progress.finished()
	bs := found(rs)
	st := &stats{Stats: *rs, CDPFloorCycles: bs.CDPFloor, BlindFloorCycles: bs.BlindFloor, AfterPrelude: bs.AfterPrelude, Tasks: bs.Tasks}
	if base == 0 {
		base = st.MakespanCycles
	}
	row := summaryRow(cfg, st, base)
	w.Summary(row)
	fmt.Fprintf(log, "%s: %-10s %-24s %12d cycles\n", b.name, policy, params, st.MakespanCycles)
	return st, nil
}

// generateVariants writes b's traces, one after another
// (traceVariants), the first at path, logging each.
func generateVariants(path string, b benchmark, log io.Writer) error {
	for i, v := range traceVariants(path, b) {
		if i > 0 {
			fmt.Fprintf(log, "%s: generating %s %s\n", b.name, b.gen, strings.Join(v.bench.params, " "))
		}
		if err := generate(v.path, v.bench); err != nil {
			return err
		}
	}
	return nil
}

// A traceVariant is one trace a benchmark replays: its generator's
// parameters and where the trace goes.
type traceVariant struct {
	path  string
	bench benchmark
}

// traceVariants are b's traces: its own at path and, where b has a
// faithful flat variant, that variant's beside it (flatTracePath).
func traceVariants(path string, b benchmark) []traceVariant {
	vs := []traceVariant{{path, b}}
	if b.flatParams != nil {
		b.params = append(slices.Clone(b.params), b.flatParams...)
		vs = append(vs, traceVariant{flatTracePath(path), b})
	}
	return vs
}

func generate(path string, b benchmark) error {
	g, ok := samples.Lookup(b.gen)
	if !ok {
		return fmt.Errorf("no generator %q", b.gen)
	}
	p, err := g.ParseParams(b.params)
	if err != nil {
		return err
	}
	out, err := trace.Create(path)
	if err != nil {
		return err
	}
	if err := g.Run(p, out); err != nil {
		out.Abort()
		return err
	}
	return out.Close()
}

func summaryRow(cfg model.Config, st *stats, base int64) tables.Summary {
	return st.Summary(cfg.GPU.Name, base)
}

// report prints the scorecard (the paper's headlines judged), then the
// Markdown table: per benchmark the baseline's makespan and every other
// policy's speedup over it, then the geometric means beside the paper's,
// then the experiment's findings.
func (x *experiment) report(w io.Writer, outs []outcome) error {
	if len(x.headlines) > 0 {
		printScorecard(w, x, ownOutcomes(outs))
		fmt.Fprintln(w)
	}
	base := x.policies[0]
	fmt.Fprintf(w, "| benchmark | %s (cycles) |", base)
	for _, p := range x.policies[1:] {
		fmt.Fprintf(w, " %s vs %s |", p, base)
	}
	d := x.detail
	if d == nil {
		d = &launchDetail
	}
	header := d.header
	if strings.Contains(header, "%s") {
		header = fmt.Sprintf(header, x.policies[d.column(x.policies)])
	}
	fmt.Fprintf(w, " %s | paper |\n", header)
	fmt.Fprint(w, "|---|---:|")
	for range x.policies[1:] {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w, strings.Repeat("---|", strings.Count(header, "|")+2))
	for i := 0; i < len(outs); i += len(x.policies) {
		row := outs[i : i+len(x.policies)]
		b0 := row[0].stats.MakespanCycles
		fmt.Fprintf(w, "| %s | %d |", row[0].bench.name, b0)
		for _, o := range row[1:] {
			fmt.Fprintf(w, " %.2f× |", float64(b0)/float64(o.stats.MakespanCycles))
		}
		fmt.Fprintf(w, " %s | %s |\n", d.cell(row[0].stats, row[d.column(x.policies)].stats), row[0].bench.paper)
	}
	x.meanRows(w, outs, strings.Repeat(" |", strings.Count(header, "|")+2))
	if x.extra != nil {
		fmt.Fprintln(w)
		x.extra(x, w, outs)
	}
	return nil
}

// column returns each benchmark's stats for one column, in order.
func column(outs []outcome, policy string) []*stats {
	var out []*stats
	for _, o := range outs {
		if o.policy == policy {
			out = append(out, o.stats)
		}
	}
	return out
}
