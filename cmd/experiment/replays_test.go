package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
)

// The replays of an experiment run side by side (run, at one and at four
// slots) give the tables, the outcomes and the log of one replay after
// another through the tables' writer (oneByOne): a search column
// (offline-search, one replay a threshold) and the baseline's speedups
// included. A run keeping summaries alone (a grid point's) gives the same
// outcomes, log and summary table.
func TestRunSideBySideSameAsOneByOne(t *testing.T) {
	if testing.Short() {
		t.Skip("replays two small benchmarks under five columns twice")
	}
	x := *spawnExperiment
	x.benchmarks = nil
	for _, b := range spawnExperiment.benchmarks {
		if b.name == "mandel" || b.name == "sa" {
			x.benchmarks = append(x.benchmarks, b)
		}
	}
	if len(x.benchmarks) != 2 {
		t.Fatalf("want spawn's mandel and sa, got %d benchmarks", len(x.benchmarks))
	}
	dir0 := t.TempDir()
	var log0 bytes.Buffer
	outs0, err := oneByOne(&x, dir0, &log0)
	if err != nil {
		t.Fatal(err)
	}
	run := func(slots int) (string, []outcome, string) {
		t.Helper()
		saved := replaySlots
		replaySlots = make(chan struct{}, slots)
		defer func() { replaySlots = saved }()
		dir := t.TempDir()
		var log bytes.Buffer
		outs, err := x.run(dir, &log)
		if err != nil {
			t.Fatal(err)
		}
		return dir, outs, log.String()
	}
	dir1, outs1, log1 := run(1)
	dir4, outs4, log4 := run(4)
	x.summaries = true
	dirS, outsS, logS := run(2)
	x.summaries = false
	kept, err := os.ReadFile(filepath.Join(dirS, "tables", "ctas.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if all, err := os.ReadFile(filepath.Join(dir1, "tables", "ctas.parquet")); err != nil || len(kept) >= len(all) {
		t.Errorf("a run keeping summaries alone wrote a ctas table of %d bytes, the whole run's %d (%v)", len(kept), len(all), err)
	}
	for _, l := range []string{log1, log4, logS} {
		if l != log0.String() {
			t.Errorf("log:\n%s\nagainst one by one:\n%s", l, log0.String())
		}
	}
	if strings.Count(log1, " cycles\n") < 2*(len(x.policies)+len(offlineSearch.values)-1) {
		t.Errorf("log has too few replays:\n%s", log1)
	}
	if len(outs0) != 2*len(x.policies) {
		t.Fatalf("%d outcomes one by one, want %d", len(outs0), 2*len(x.policies))
	}
	files, err := filepath.Glob(filepath.Join(dir0, "tables", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tables in %s: %v", dir0, err)
	}
	for _, side := range []struct {
		dir       string
		outs      []outcome
		summaries bool
	}{{dir1, outs1, false}, {dir4, outs4, false}, {dirS, outsS, true}} {
		if len(side.outs) != len(outs0) {
			t.Fatalf("%d outcomes, want %d", len(side.outs), len(outs0))
		}
		for i, a := range outs0 {
			b := side.outs[i]
			if a.bench.name != b.bench.name || a.policy != b.policy || a.stats.MakespanCycles != b.stats.MakespanCycles || (a.offload == nil) != (b.offload == nil) {
				t.Errorf("outcome %d: %s %s %d against %s %s %d one by one", i, b.bench.name, b.policy, b.stats.MakespanCycles, a.bench.name, a.policy, a.stats.MakespanCycles)
			}
		}
		for _, f := range files {
			if side.summaries && filepath.Base(f) != "summary.parquet" {
				continue // a grid point's run keeps its summary rows alone
			}
			a, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(side.dir, "tables", filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs from one by one's", filepath.Base(f))
			}
		}
	}
}

// oneByOne is run as it was before replays ran side by side: each
// column's replays one after another into the tables' writer.
func oneByOne(x *experiment, dir string, log io.Writer) ([]outcome, error) {
	var outs []outcome
	err := x.eachTrace(dir, log, func(cfg model.Config, b benchmark, path string, w *results.Writer) error {
		var base int64
		for _, p := range x.policies {
			st, offload, err := x.replayColumn(cfg, p, b, path, base, w, log)
			if err != nil {
				return err
			}
			if base == 0 {
				base = st.MakespanCycles
			}
			outs = append(outs, outcome{bench: b, policy: p, stats: st, offload: offload})
		}
		return nil
	})
	return outs, err
}

// Traces made ahead on slots (generateAhead) are those made one after
// another (generateVariants), flat variants included, and a generator's
// error comes back from its benchmark's wait, naming what failed.
func TestGenerateAheadSameAsOneAfterAnother(t *testing.T) {
	var benches []benchmark
	for _, b := range spawnExperiment.benchmarks {
		if b.name == "bfs-graph500" || b.name == "mandel" {
			b.params = mergeParams(b.params, []string{map[string]string{"bfs": "scale=8", "mandel": "width=64"}[b.gen]})
			benches = append(benches, b)
		}
	}
	if len(benches) != 2 || benches[0].flatParams == nil {
		t.Fatalf("want spawn's bfs-graph500 (with a flat variant) and mandel, got %+v", benches)
	}
	benches = append(benches, benchmark{name: "none", gen: "no-such-generator"})
	saved := replaySlots
	replaySlots = make(chan struct{}, 2)
	defer func() { replaySlots = saved }()
	ahead, one := t.TempDir(), t.TempDir()
	paths := make([]string, len(benches))
	for i, b := range benches {
		paths[i] = filepath.Join(ahead, b.name+".trace.zst")
	}
	waits, stop := generateAhead(paths, benches, nil)
	defer stop()
	for i, b := range benches {
		err := waits[i]()
		errOne := generateVariants(filepath.Join(one, b.name+".trace.zst"), b, io.Discard)
		if b.gen == "no-such-generator" {
			if err == nil || !strings.Contains(err.Error(), `no generator "no-such-generator"`) {
				t.Errorf("%s: error %v, want the generator named", b.name, err)
			}
			continue
		}
		if err != nil || errOne != nil {
			t.Fatalf("%s: %v, %v", b.name, err, errOne)
		}
		for _, v := range traceVariants(b.name+".trace.zst", b) {
			a, err := os.ReadFile(filepath.Join(ahead, v.path))
			if err != nil {
				t.Fatal(err)
			}
			o, err := os.ReadFile(filepath.Join(one, v.path))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, o) {
				t.Errorf("%s: made ahead, %d bytes differ from one after another's %d", v.path, len(a), len(o))
			}
		}
	}
	if n := len(replaySlots); n != 0 {
		t.Errorf("%d slots still held after every wait", n)
	}
}

// generateAhead takes the slots for the generations in benchmark order
// (one slot: each starts when the one before has ended) and starts none
// more than generateLookahead benchmarks past the last awaited (four
// slots, none awaited yet: only the first ones start); its stop drops
// the generations not started, which their waits report.
func TestGenerateAheadInOrder(t *testing.T) {
	saved, savedGen := replaySlots, generateTrace
	defer func() { replaySlots, generateTrace = saved, savedGen }()
	var mu sync.Mutex
	var started []string
	generateTrace = func(_ string, b benchmark) error {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, b.name)
		return nil
	}
	benches := make([]benchmark, 6)
	paths := make([]string, len(benches))
	for i := range benches {
		benches[i] = benchmark{name: fmt.Sprint("b", i), gen: "bfs"}
		paths[i] = benches[i].name + ".trace.zst"
	}
	replaySlots = make(chan struct{}, 1)
	waits, stop := generateAhead(paths, benches, nil)
	for _, w := range waits {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if got, want := strings.Join(started, " "), "b0 b1 b2 b3 b4 b5"; got != want {
		t.Errorf("one slot: generated %s, want %s", got, want)
	}

	started = nil
	replaySlots = make(chan struct{}, 4)
	waits, stop = generateAhead(paths, benches, nil)
	time.Sleep(50 * time.Millisecond) // time to start more, were it allowed
	mu.Lock()
	early := len(started)
	mu.Unlock()
	if early > generateLookahead {
		t.Errorf("before any wait, %d benchmarks generating, want at most %d", early, generateLookahead)
	}
	if err := waits[0](); err != nil {
		t.Fatal(err)
	}
	stop()
	stopped := 0
	for i := 1; i < len(waits); i++ {
		switch err := waits[i](); {
		case errors.Is(err, errGenerationStopped):
			stopped++
		case err != nil:
			t.Errorf("b%d after stop: %v", i, err)
		}
	}
	if stopped == 0 {
		t.Errorf("stop after b0's wait dropped no generation of %d benchmarks", len(waits))
	}
	if n := len(replaySlots); n != 0 {
		t.Errorf("%d slots still held after stop", n)
	}
}

// A point replays the main run's traces of a benchmark whose generator
// and parameters it leaves as they were (madeTraces.path), and makes its
// own where it changes one, or where the main run wrote none.
func TestMadeTracesOnlyForTheSameRecords(t *testing.T) {
	dir := t.TempDir()
	b := benchmark{name: "g", gen: "bfs", params: []string{"scale=8"}, flatParams: []string{"variant=flat"}}
	made := &madeTraces{dir: dir, benches: map[string]benchmark{b.name: b}}
	if p := made.path(b); p != "" {
		t.Errorf("no trace written yet: got %s", p)
	}
	paths := []string{filepath.Join(dir, "traces", b.name+".trace.zst")}
	if err := os.MkdirAll(filepath.Dir(paths[0]), 0o755); err != nil {
		t.Fatal(err)
	}
	waits, stop := generateAhead(paths, []benchmark{b}, nil)
	defer stop()
	if err := waits[0](); err != nil {
		t.Fatal(err)
	}
	if p := made.path(b); p != paths[0] {
		t.Errorf("same generator and parameters: got %q, want %s", p, paths[0])
	}
	other := b
	other.params = []string{"scale=9"}
	if p := made.path(other); p != "" {
		t.Errorf("another scale: got %s, want none", p)
	}
	noFlat := b
	noFlat.flatParams = nil
	if p := made.path(noFlat); p != "" {
		t.Errorf("another flat variant: got %s, want none", p)
	}
	if err := os.Remove(flatTracePath(paths[0])); err != nil {
		t.Fatal(err)
	}
	if p := made.path(b); p != "" {
		t.Errorf("its flat variant gone: got %s, want none", p)
	}
	var none *madeTraces
	if p := none.path(b); p != "" {
		t.Errorf("no traces made: got %s", p)
	}
}

// A trace's columns run shareWidth at a time, a batch after the one
// before has ended: a lockstep set holds its replays alive at once, and
// two of a trace's sets alive together were killed for memory on
// spawn-paper's sssp-graph500.
func TestRunJobsBatches(t *testing.T) {
	defer func(f func(replayJob, int64, rowWriter, io.Writer, io.Writer) (*stats, error)) { replayJobFn = f }(replayJobFn)
	var mu sync.Mutex
	n := 2*shareWidth - 1
	alive, most, started, filled := 0, 0, 0, 0
	replayJobFn = func(j replayJob, base int64, w rowWriter, log, _ io.Writer) (*stats, error) {
		if j.bodies != nil {
			defer j.bodies.Close()
		}
		mu.Lock()
		alive++
		started++
		most = max(most, alive)
		if alive == shareWidth {
			filled++
		}
		// Each replay stays alive until its batch is (shareWidth of
		// them, or the last batch's, once every job has started), not
		// for a fixed sleep, which a loaded machine outlasted before the
		// batch's last replay started; a batch that never fills ends
		// the wait after two seconds, and the test fails below.
		batch := filled
		for end := time.Now().Add(2 * time.Second); filled == batch && alive < shareWidth && started < n && time.Now().Before(end); {
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
		}
		alive--
		mu.Unlock()
		return &stats{}, nil
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.trace.zst")
	if err := generate(path, benchmark{name: "t", gen: "synth", params: []string{"kernels=1", "ctas=10"}}); err != nil {
		t.Fatal(err)
	}
	jobs := make([]replayJob, n)
	for i := range jobs {
		jobs[i] = replayJob{policy: "cdp", column: "cdp", path: path, bench: benchmark{name: "t"}}
	}
	w, err := results.Create(filepath.Join(dir, "tables"), results.Parquet)
	if err != nil {
		t.Fatal(err)
	}
	m := study.NewMerge(w, len(jobs))
	saved := replaySlots
	replaySlots = make(chan struct{}, 4*shareWidth) // slots never the bound here
	defer func() { replaySlots = saved }()
	if _, err := runJobs(jobs, 0, m, 0, io.Discard, true); err != nil {
		t.Fatal(err)
	}
	m.Abort()
	if most > shareWidth {
		t.Errorf("%d replays alive at once, want at most %d", most, shareWidth)
	}
	if most < shareWidth {
		t.Errorf("at most %d replays alive at once: a batch of %d did not run side by side", most, shareWidth)
	}
}
