package replaycli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
)

const studySynopsis = `replay study — a study (traces × policies × swept values) as data, split any way

Usage:
  replay study plan [--policy ...] [--gpu ...] [--set k=v] [--sweep k=v1,v2] TRACE... -o study.jsonl
  replay study run study.jsonl --out OUT [--shard i/N] [--jobs J]
  replay study status OUT
  replay study slurm study.jsonl --out OUT [--array-size N] [--partition P] [--time T] -o study.sbatch

plan numbers every replay the replay flags ask for (one JSON line each,
with a stable id). run replays shard i of N of it (all of it without
--shard) into a hive-partitioned dataset, one file per replay and table:

  OUT/<table>/policy=<policy>/shard=<i>/part-<id>.parquet

so shards can run anywhere, side by side or again: a rerun replaces only
its own files. status says which replays are done, failed, corrupt (a
part file cut short or overwritten: its Parquet or Arrow footer, or its
CSV header and final newline, is not whole) or missing (exit status 1
until every replay is done, once).
slurm writes an sbatch script that runs the shards as a Slurm job array.
Read the result with DuckDB:

  SELECT * FROM read_parquet('OUT/summary/**/*.parquet', hive_partitioning = true)

docs/scale-out.md walks through a study on a cluster.
`

func runStudy(args []string, stdout, stderr io.Writer) error {
	subs := map[string]func([]string, io.Writer, io.Writer) error{
		"plan": runStudyPlan, "run": runStudyRun, "status": runStudyStatus, "slurm": runStudySlurm,
	}
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(stdout, studySynopsis)
		if len(args) == 0 {
			return usagef("study: name a subcommand: plan, run, status or slurm")
		}
		return nil
	}
	sub, ok := subs[args[0]]
	if !ok {
		return usagef("study: unknown subcommand %q: want plan, run, status or slurm (see replay study --help)", args[0])
	}
	return sub(args[1:], stdout, stderr)
}

func runStudyPlan(args []string, stdout, stderr io.Writer) error {
	var f replayFlags
	fs := newFlags("study plan", studySynopsis, stdout)
	f.planFlags(fs)
	out := fs.StringP("output", "o", "", "write the manifest to this file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("study plan: no trace given")
	}
	if len(f.policies) == 0 {
		return usagef("--policy is empty; name at least one policy (see replay policies)")
	}
	plan, err := planReplays(fs.Args(), f, stderr)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := checkOutputs(replayInputs(fs.Args(), f.gpu), []named{{"-o", *out}}); err != nil {
			return err
		}
	}
	// Paths absolute, so array tasks find the traces (and a GPU file) from
	// any directory.
	gpu := f.gpu
	if gpu != "captured" && fileExists(gpu) {
		if gpu, err = filepath.Abs(gpu); err != nil {
			return err
		}
	}
	for i := range plan {
		if plan[i].Trace, err = filepath.Abs(plan[i].Trace); err != nil {
			return err
		}
		plan[i].GPU = gpu
	}
	var buf bytes.Buffer
	if err := study.WriteManifest(&buf, plan); err != nil {
		return err
	}
	if err := writeOutput(*out, buf.Bytes(), stdout); err != nil || *out == "" {
		return err
	}
	fmt.Fprintf(stderr, "replay: %s: %s\n", *out, replaysIn(plan))
	return nil
}

// writeOutput writes data to the file path (whole or not at all), or to
// stdout when path is "".
func writeOutput(path string, data []byte, stdout io.Writer) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := tempfile.WriteFile(path, data); err != nil {
		return badInput(err)
	}
	return nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func runStudyRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study run", studySynopsis, stdout)
	out := fs.String("out", "", "the study's dataset directory (required)")
	shardFlag := fs.String("shard", "0/1", "run shard i of N: the groups of replays whose number is i modulo N")
	jobs := fs.Int("jobs", 0, "replays run at once (0: one per CPU)")
	format := fs.String("format", "parquet", "table format: parquet, arrow or csv")
	quiet := fs.BoolP("quiet", "q", false, "print nothing on success")
	every := fs.Duration("progress", 0, progressUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return usagef("study run: want one MANIFEST and --out OUT (see replay study run --help)")
	}
	shard, err := study.ParseShard(*shardFlag)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	f, plan, err := formatAndPlan(*format, fs.Arg(0))
	if err != nil {
		return err
	}
	ds := study.Dataset{Dir: *out, Format: f}
	if err := ds.Claim(plan); err != nil {
		return badInput(err)
	}
	mine := shard.Select(plan)
	if len(mine) == 0 {
		n := study.Groups(plan)
		fmt.Fprintf(stderr, "replay: shard %s holds no replay (the study has %d %s)\n", shard, n, plural(n, "group"))
		return nil
	}
	stale, err := ds.Elsewhere(mine, shard.I)
	if err != nil {
		return err
	}
	prog := newProgress(stderr, len(mine), *every)
	var mu sync.Mutex
	var settleErr error
	settle := func(r study.Replay, runErr error) {
		if err := ds.Settle(r, runErr, stale[r.ID]); err != nil {
			mu.Lock()
			settleErr = errors.Join(settleErr, err)
			mu.Unlock()
		}
	}
	res, err := study.Run(mine, study.Options{
		Jobs:      *jobs,
		KeepGoing: true,
		Open: func(r study.Replay, policy string) (study.Output, error) {
			return ds.Open(r, policy, shard.I)
		},
		Progress: prog.update,
		Finished: func(r study.Replay, s tables.Summary) {
			prog.finished(r, s)
			settle(r, nil)
		},
		Failed: settle,
	})
	prog.done()
	if err == nil {
		err = settleErr
	}
	if !*quiet {
		var rows []summaryRow
		for _, r := range res {
			if r.Policy != "" {
				rows = append(rows, summaryRow{trace: r.Replay.Name, policy: r.Policy, params: r.Replay.Params(), s: r.Summary})
			}
		}
		printSummary(stdout, rows)
		fmt.Fprintf(stdout, "shard %s: %d of %d replays written to %s\n", shard, len(rows), len(mine), *out)
	}
	if err != nil {
		if study.IsInputError(err) {
			err = badInput(err)
		}
		return fmt.Errorf("shard %s: %w (replay study status %s lists them)", shard, err, *out)
	}
	return nil
}

func runStudyStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study status", studySynopsis, stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("study status: want one OUT directory")
	}
	st, err := study.Dataset{Dir: fs.Arg(0)}.Status()
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "%s: %s\n", fs.Arg(0), replaysIn(st.Plan))
	fmt.Fprintf(stdout, "  done     %d\n", len(st.Done))
	fmt.Fprintf(stdout, "  failed   %d\n", len(st.Failed))
	for _, r := range st.Plan {
		if msg, ok := st.Failed[r.ID]; ok {
			fmt.Fprintf(stdout, "    %s: %s\n", describe(r), oneLine(msg))
		}
	}
	fmt.Fprintf(stdout, "  corrupt  %d\n", len(st.Corrupt))
	for _, r := range st.Plan {
		if msg, ok := st.Corrupt[r.ID]; ok {
			fmt.Fprintf(stdout, "    %s: %s\n", describe(r), oneLine(msg))
		}
	}
	fmt.Fprintf(stdout, "  missing  %d\n", len(st.Missing))
	for _, id := range st.Missing {
		fmt.Fprintf(stdout, "    %s\n", describe(st.Plan[id]))
	}
	if len(st.Duplicated) > 0 {
		fmt.Fprintf(stdout, "  in two shards' files: ids %v (a run with another shard count was cut short; rerun their shard)\n", st.Duplicated)
	}
	if !st.Complete() {
		// An error, so scripts can test the exit status.
		return fmt.Errorf("study %s is incomplete: rerun the shards that hold groups %s (shard i of N holds the groups equal to i mod N)", fs.Arg(0), unfinishedGroups(st))
	}
	fmt.Fprintln(stdout, "complete")
	return nil
}

// unfinishedGroups lists the groups of the failed, missing and duplicated
// replays, "0 2 5".
func unfinishedGroups(st study.Status) string {
	var ids []int
	ids = append(append(ids, st.Missing...), st.Duplicated...)
	for id := range st.Failed {
		ids = append(ids, id)
	}
	for id := range st.Corrupt {
		ids = append(ids, id)
	}
	var groups []int
	for _, id := range ids {
		groups = append(groups, st.Plan[id].Group)
	}
	slices.Sort(groups)
	return strings.Trim(fmt.Sprint(slices.Compact(groups)), "[]")
}

// describe names a replay for a person.
func describe(r study.Replay) string {
	s := fmt.Sprintf("replay %d (group %d): %s %s", r.ID, r.Group, r.Name, r.Policy)
	if p := r.Params(); p != "" {
		s += " " + p
	}
	return s
}

func runStudySlurm(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study slurm", studySynopsis, stdout)
	out := fs.String("out", "", "the study's dataset directory, on storage every node sees (required)")
	tasks := fs.Int("array-size", 0, "array tasks, one shard each (default: one per group, at most 100)")
	jobs := fs.Int("jobs", 1, "replays at once within a task (its --cpus-per-task)")
	mem := fs.Int("mem", 0, "memory a task asks for, in MiB (default: measured by replaying the study's largest trace once)")
	partition := fs.String("partition", "", "Slurm partition")
	limit := fs.String("time", "", "time limit of a task (Slurm format, e.g. 1:00:00)")
	extra := fs.StringArray("sbatch", nil, "another #SBATCH option, e.g. --sbatch=--account=lab (repeatable)")
	name := fs.String("job-name", "gpureplay-study", "Slurm job name")
	bin := fs.String("replay", "", "the replay binary the tasks run (default: this one)")
	format := fs.String("format", "parquet", "table format: parquet, arrow or csv")
	script := fs.StringP("output", "o", "", "write the script to this file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return usagef("study slurm: want one MANIFEST and --out OUT (see replay study slurm --help)")
	}
	if *jobs < 1 || *tasks < 0 || *mem < 0 {
		return usagef("study slurm: --jobs must be at least 1, --array-size and --mem not negative")
	}
	f, plan, err := formatAndPlan(*format, fs.Arg(0))
	if err != nil {
		return err
	}
	if *script != "" {
		var traces []string
		for _, r := range plan {
			traces = append(traces, r.Trace)
		}
		in := append(replayInputs(traces, plan[0].GPU), named{"the manifest", fs.Arg(0)})
		if err := checkOutputs(in, []named{{"-o", *script}}); err != nil {
			return err
		}
	}
	manifest, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	exe, err := replayBinary(*bin)
	if err != nil {
		return err
	}
	ds := study.Dataset{Dir: dir, Format: f}
	if err := ds.Claim(plan); err != nil {
		return badInput(err)
	}
	// Slurm does not create the directory of --output: a task would fail
	// before it starts.
	if err := os.MkdirAll(filepath.Join(ds.StudyDir(), "slurm"), 0o777); err != nil {
		return badInput(err)
	}
	n := *tasks
	if n == 0 {
		n = min(study.Groups(plan), 100)
	}
	n = min(n, study.Groups(plan))
	job := study.SlurmJob{Replay: exe, Manifest: manifest, Out: ds, Tasks: n, Jobs: *jobs, MemMB: *mem,
		Name: *name, Partition: *partition, Time: *limit, Extra: *extra, Groups: study.Groups(plan), Replays: len(plan)}
	if job.MemMB == 0 {
		if job.MemMB, job.MemNote, err = measureMemory(plan, *jobs, f, stderr); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := job.WriteScript(&buf); err != nil {
		return err
	}
	if err := writeOutput(*script, buf.Bytes(), stdout); err != nil || *script == "" {
		return err
	}
	fmt.Fprintf(stderr, "replay: %s: %d array %s of %d %s; submit it with sbatch %s\n", *script, n, plural(n, "task"), len(plan), plural(len(plan), "replay"), study.ShellQuote(*script))
	return nil
}

// replayBinary is the binary array tasks run: bin, or this one unless it
// is go run's temporary build, which is gone once the command ends.
func replayBinary(bin string) (string, error) {
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return "", err
		}
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			return "", usagef("replay runs from go run's temporary build (%s), which the tasks would not find: go install ./cmd/replay and run that, or pass --replay PATH", exe)
		}
		return exe, nil
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if !fileExists(abs) {
		return "", badInput(fmt.Errorf("--replay %s: no such file", bin))
	}
	return abs, nil
}

// measureMemory replays the replay of the study's largest trace with
// tables, in this process, and sizes a task's memory from the peak
// resident size: as many replays at once as may hold their state
// (study.Engines), with half again as headroom.
func measureMemory(plan []study.Replay, jobs int, f results.Format, stderr io.Writer) (int, string, error) {
	probe := plan[0]
	var biggest int64 = -1
	for _, r := range plan {
		if st, err := os.Stat(r.Trace); err == nil && st.Size() > biggest {
			probe, biggest = r, st.Size()
		}
	}
	fmt.Fprintf(stderr, "replay: measuring memory: replaying %s under %s once...\n", probe.Name, probe.Policy)
	tmp, err := os.MkdirTemp("", "replay-probe-")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(tmp)
	ds := study.Dataset{Dir: tmp, Format: f}
	probe.Group = 0
	_, err = study.Run([]study.Replay{probe}, study.Options{Jobs: 1,
		Open: func(r study.Replay, policy string) (study.Output, error) { return ds.Open(r, policy, 0) },
	})
	if err != nil {
		if study.IsInputError(err) {
			err = badInput(err)
		}
		return 0, "", fmt.Errorf("measuring memory: %w", err)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, "", errors.New("measuring memory: getrusage failed; pass --mem")
	}
	peakMB := int((ru.Maxrss + 1023) / 1024) // Linux reports KiB
	atOnce := study.Engines(plan, jobs)      // a trace's replays run all at once, over one decode of it
	memMB := max(256, atOnce*peakMB*3/2)
	note := fmt.Sprintf("replay %d (%s, %s), of the largest trace, peaked at %d MiB resident; %d at once with half again as headroom: %d MiB (override with --mem)",
		probe.ID, probe.Name, probe.Policy, peakMB, atOnce, memMB)
	return memMB, note, nil
}

// formatAndPlan parses --format and reads the manifest, as study run and
// study slurm both do.
func formatAndPlan(format, manifest string) (results.Format, []study.Replay, error) {
	f, err := results.ParseFormat(format)
	if err != nil {
		return "", nil, usagef("%v", err)
	}
	plan, err := study.ReadManifest(manifest)
	if err != nil {
		return "", nil, badInput(err)
	}
	// A policy this binary lacks is named before its keys are read (the
	// first replay's config would fail on "unknown key mine.k").
	for _, r := range plan {
		if name := policies.Unknown(r.Policy); name != "" {
			return "", nil, badInput(fmt.Errorf("%s: replay %d runs policy %s, which this replay binary does not have (it has %s): run the study with the binary that planned it, the one that registers %s (docs/policies.md)", manifest, r.ID, name, strings.Join(policies.Names(), ", "), name))
		}
	}
	return f, plan, nil
}

// replaysIn counts a plan's replays and groups: "24 replays in 6 groups",
// "1 replay in 1 group".
func replaysIn(plan []study.Replay) string {
	n, g := len(plan), study.Groups(plan)
	return fmt.Sprintf("%d %s in %d %s", n, plural(n, "replay"), g, plural(g, "group"))
}
