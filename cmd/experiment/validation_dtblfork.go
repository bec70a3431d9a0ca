package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
)

// validationDTBLFork predicts each DTBL run of the DTBL authors' simulator
// (validation/gpgpusim/dtbl-sim, github.com/howardwangph/gpgpu-sim-dcc at
// 68e84ab) from its CDP twin: the CDP run's log is converted and replayed
// under --policy=dtbl on the captured GPU, once with the simulator's
// reading of DTBL (forkDTBLSets) and once with the project's default, and
// the flat twin is predicted under --policy=flat. The DTBL run's own log
// is replayed under dtbl with the simulator's keys too (the self-replay),
// which separates the model's mechanism from what the CDP run's measured
// CTA cycles carry.
var validationDTBLFork = &experiment{
	doc:    "ground truth: DTBL predicted from CDP runs of the DTBL authors' simulator (validation/gpgpusim/dtbl-sim)",
	custom: runValidationDTBLFork,
}

// dtblFork is validation-dtbl-fork's headline table alone: DTBL's
// speedups over CDP and over flat measured on its authors' simulator
// with Dragon_li's programs, beside the paper's and the replay's
// prediction (docs/experiments.md's DTBL section).
var dtblFork = &experiment{
	doc:    "DTBL's headlines measured on its authors' simulator (gpgpu-sim-dcc) with Dragon_li's programs, and the replay's prediction from the CDP runs",
	custom: runDTBLFork,
}

// forkDTBLSets are the settings that replay the DTBL authors' simulator's
// reading of DTBL (docs/model.md, "The paper's DTBL and its authors'
// simulator").
var forkDTBLSets = []string{"dtbl.match=function", "dtbl.launch_cost=cdp", "dtbl.agt_spill=0"}

// setFlags is sets as a user types them: one --set a setting, since
// --set takes a single key=value.
func setFlags(sets []string) string {
	flags := make([]string, len(sets))
	for i, kv := range sets {
		flags[i] = "--set " + kv
	}
	return strings.Join(flags, " ")
}

// dtblForkPairs are the CDP run each DTBL run is predicted from, and the
// settings of the DTBL run the CDP run lacks (its -kernel_queue_entry_cnt
// as the table's size).
var dtblForkPairs = []struct {
	cdp, dtbl string
	sets      []string
}{
	{"balanced-cdp", "balanced-dtbl", nil},
	{"skewed-cdp", "skewed-dtbl", nil},
	{"nested-cdp", "nested-dtbl", nil},
	{"cdp-cdp", "cdp-dtbl", nil},
	{"balanced-cdp-maxk32", "balanced-dtbl-maxk32", nil},
	{"nested-cdp-maxk32", "nested-dtbl-maxk32", nil},
	{"balanced-cdp-cdplat0", "balanced-dtbl-cdplat0", nil},
	{"balanced-cdp-launch5000", "balanced-dtbl-launch5000", nil},
	{"balanced-cdp-smk", "balanced-dtbl-smk", nil},
	{"balanced-cdp", "balanced-dtbl-kq8", []string{"dtbl.agt_entries=8"}},
	{"dragonli-bfs-tree-cdp", "dragonli-bfs-tree-dtbl", nil},
	{"dragonli-sssp-tree-cdp", "dragonli-sssp-tree-dtbl", nil},
	{"dragonli-bfs-tree400-cdp", "dragonli-bfs-tree400-dtbl", nil},
	{"dragonli-bfs-tree1000-cdp", "dragonli-bfs-tree1000-dtbl", nil},
	{"dragonli-sssp-rmat11-cdp", "dragonli-sssp-rmat11-dtbl", nil},
	{"dragonli-join-30720-cdp", "dragonli-join-30720-dtbl", nil},
}

// dtblForkFlat are the flat runs, each predicted from a CDP run with the
// flat code's own inlining: cdpbalanced's flat mode hands each parent
// thread's child work to its CTA's threads (gpgpusim inline=cta);
// Dragon_li's Reg code loops over a vertex's edges in the thread that
// holds it (inline=loop, priced by the fork's own loopRule pairs, as
// validation-whatif prices GPGPU-Sim 4.2's).
var dtblForkFlat = []struct {
	cdp, flat, inline string
}{
	{"balanced-cdp", "balanced-flat", "cta"},
	{"dragonli-sssp-tree-cdp", "dragonli-sssp-tree-reg", "loop"},
	{"dragonli-bfs-tree-cdp", "dragonli-bfs-tree-reg", "loop"},
	{"dragonli-bfs-tree400-cdp", "dragonli-bfs-tree400-reg", "loop"},
	{"dragonli-bfs-tree1000-cdp", "dragonli-bfs-tree1000-reg", "loop"},
	{"dragonli-sssp-rmat11-cdp", "dragonli-sssp-rmat11-reg", "loop"},
	{"dragonli-join-30720-cdp", "dragonli-join-30720-reg", "loop"},
}

// forkHeadlines are the runs of Dragon_li's programs (github.com/gtcasl/
// dragon_li 1397e03: the DTBL paper's own AMR, BFS, JOIN and SSSP code)
// on the fork that score the paper's headlines (DTBL §5.2 (C): "DTBL
// ... shows an average of 1.21x speedup over the flat implementation
// and 1.40x over the CDP"): the CDP program in mode cdp and dtbl, and
// its Reg build (flat).
var forkHeadlines = []struct {
	bench, input    string
	cdp, dtbl, flat string
}{
	{"BFS", "out-tree: root 1,000 edges, 800 of them 130", "dragonli-bfs-tree1000-cdp", "dragonli-bfs-tree1000-dtbl", "dragonli-bfs-tree1000-reg"},
	{"SSSP", "R-MAT scale 11, 16 arcs a vertex", "dragonli-sssp-rmat11-cdp", "dragonli-sssp-rmat11-dtbl", "dragonli-sssp-rmat11-reg"},
	{"JOIN", "30,720 × 64 keys in 0..15", "dragonli-join-30720-cdp", "dragonli-join-30720-dtbl", "dragonli-join-30720-reg"},
}

// forkPred is what the experiment measured and predicted for one run.
type forkPred struct {
	cdpReplay, forkKeys, dflt, flat int64
}

func runValidationDTBLFork(x *experiment, dir string, stdout, log io.Writer) error {
	f, err := newForkStudy(x, dir)
	if err != nil {
		return err
	}
	preds := map[string]*forkPred{}
	pred := func(name string) *forkPred {
		if preds[name] == nil {
			preds[name] = &forkPred{}
		}
		return preds[name]
	}
	cycles := f.cycles

	fmt.Fprintln(stdout, "| CDP run | predicts | fork CDP | fork DTBL | DTBL over CDP | dtbl, fork's keys | error | spans MAPE | dtbl, default | error | spans MAPE | DTBL run's self-replay | error | child span, DTBL run / CDP run |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var fork errStats
	for _, p := range dtblForkPairs {
		c, err := f.conv(p.cdp, "loop")
		if err != nil {
			return err
		}
		d, err := f.conv(p.dtbl, "loop")
		if err != nil {
			return err
		}
		cdpCycles, dtblCycles := cycles[p.cdp], cycles[p.dtbl]
		want := float64(dtblCycles - 1) // the last CTA's end
		row := fmt.Sprintf("| %s | %s | %d | %d | %.2f× |", p.cdp, p.dtbl, cdpCycles, dtblCycles, float64(cdpCycles)/float64(dtblCycles))
		for i, sets := range [][]string{forkDTBLSets, nil} {
			m, kernels, err := f.replayOn(c, "dtbl", sets, p.sets)
			if err != nil {
				return fmt.Errorf("%s under dtbl: %w", p.cdp, err)
			}
			spans := functionSpanErrors(kernels, d.measured)
			row += fmt.Sprintf(" %d | %s | %.1f%% |", m, relErr(float64(m), want), spans.mape())
			if i == 0 {
				fork.add(float64(m), want)
				pred(p.dtbl).forkKeys = m
			} else {
				pred(p.dtbl).dflt = m
			}
			fmt.Fprintf(log, "%s -> %s (%s): %d, fork %d\n", p.cdp, p.dtbl, strings.Join(sets, ","), m, dtblCycles)
		}
		own, _, err := f.replayOn(c, "cdp", p.sets)
		if err != nil {
			return fmt.Errorf("%s under cdp: %w", p.cdp, err)
		}
		pred(p.dtbl).cdpReplay = own
		self, _, err := f.replayOn(d, "dtbl", forkDTBLSets, p.sets)
		if err != nil {
			return fmt.Errorf("%s under dtbl: %w", p.dtbl, err)
		}
		row += fmt.Sprintf(" %d | %s | %.2f |", self, relErr(float64(self), want), childCTARatio(d, c))
		fmt.Fprintln(stdout, row)
	}
	fmt.Fprintf(stdout, "\n%d pairs; --policy=dtbl with the fork's keys (%s): makespan MAPE %.1f%%, worst %+.1f%%.\n\n",
		len(dtblForkPairs), setFlags(forkDTBLSets), fork.mape(), 100*fork.worstSigned)

	fmt.Fprintln(stdout, "| CDP run | predicts | fork flat | flat | how | error | spans MAPE |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---|---:|---:|")
	for _, p := range dtblForkFlat {
		c, err := f.convRule(p.cdp, p.inline)
		if err != nil {
			return err
		}
		fl, err := f.conv(p.flat, "loop")
		if err != nil {
			return err
		}
		m, kernels, err := f.replayOn(c, "flat")
		if err != nil {
			return fmt.Errorf("%s under flat: %w", p.cdp, err)
		}
		pred(p.flat).flat = m
		spans := functionSpanErrors(kernels, fl.measured)
		fmt.Fprintf(stdout, "| %s | %s | %d | %d | `%s` | %s | %.1f%% |\n", p.cdp, p.flat, cycles[p.flat], m, f.how(p.inline), relErr(float64(m), float64(cycles[p.flat]-1)), spans.mape())
	}
	fmt.Fprintf(stdout, "\nEach prediction replays the CDP run's log converted (`replay convert --from=gpgpusim`) with `--gpu=captured` (the fork's 15 SMs, 8 concurrent kernels, its latencies; model.contention=off: the CTA cycles are the CDP run's). Errors are against the DTBL (or flat) run's last CTA end; spans are each function's, first CTA start to last end with its children, against the DTBL run's, and their MAPE is over the functions. The self-replay replays the DTBL run's own log, its groups written as launches, under dtbl with the fork's keys. The last column is the mean span of a device launch's CTAs (a child kernel's, or a group's) in the DTBL run over the CDP run's: how much slower the same children ran there. The Dragon_li flat predictions price a launching lane's loop over its child's threads with cta_once and loop_share measured on the fork's own %s and %s pairs (validation-whatif's loopRule): %d cycles and %g; those two pairs are that rule's calibration.\n\n", loopRuns[0].pair, loopRuns[1].pair, f.loopOnce, f.loopShare)
	return printForkHeadlines(stdout, cycles, preds)
}

// runDTBLFork prints only the headline table of validation-dtbl-fork
// (the results page's).
func runDTBLFork(x *experiment, dir string, stdout, log io.Writer) error {
	var buf strings.Builder
	if err := runValidationDTBLFork(x, dir, &buf, log); err != nil {
		return err
	}
	out := buf.String()
	i := strings.Index(out, forkHeadlinesHeader)
	if i < 0 {
		return fmt.Errorf("validation-dtbl-fork printed no headline table")
	}
	_, err := io.WriteString(stdout, out[i:])
	return err
}

const forkHeadlinesHeader = "| benchmark | input | fork CDP | fork DTBL | fork flat |"

// printForkHeadlines scores DTBL's two averaged headlines on the fork's
// runs of Dragon_li's programs: the measured speedups, the replay's
// prediction of each from the CDP run alone (the CDP run's replay under
// cdp over its replay under dtbl with the fork's keys; flat's
// replay over the same dtbl one) and its error, with geometric means.
func printForkHeadlines(w io.Writer, cycles map[string]int64, preds map[string]*forkPred) error {
	fmt.Fprintln(w, forkHeadlinesHeader+" DTBL over CDP, fork | predicted | error | predicted, default keys | error | DTBL over flat, fork | predicted | error |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var lc, lpc, lpd, lf, lpf float64
	n := 0
	for _, h := range forkHeadlines {
		p, q := preds[h.dtbl], preds[h.flat]
		if p == nil || q == nil || p.forkKeys == 0 || q.flat == 0 {
			return fmt.Errorf("%s: no prediction of %s or %s", h.cdp, h.dtbl, h.flat)
		}
		cdp, dtbl, flat := float64(cycles[h.cdp]), float64(cycles[h.dtbl]), float64(cycles[h.flat])
		overCDP, overFlat := cdp/dtbl, flat/dtbl
		predCDP := float64(p.cdpReplay) / float64(p.forkKeys)
		predDflt := float64(p.cdpReplay) / float64(p.dflt)
		predFlat := float64(q.flat) / float64(p.forkKeys)
		fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %.0f | %.2f× | %.2f× | %s | %.2f× | %s | %.2f× | %.2f× | %s |\n",
			h.bench, h.input, cdp, dtbl, flat, overCDP, predCDP, relErr(predCDP, overCDP), predDflt, relErr(predDflt, overCDP), overFlat, predFlat, relErr(predFlat, overFlat))
		lc += math.Log(overCDP)
		lpc += math.Log(predCDP)
		lpd += math.Log(predDflt)
		lf += math.Log(overFlat)
		lpf += math.Log(predFlat)
		n++
	}
	g := func(l float64) float64 { return math.Exp(l / float64(n)) }
	fmt.Fprintf(w, "| **geometric mean** | | | | | **%.2f×** | %.2f× | %s | %.2f× | %s | **%.2f×** | %.2f× | %s |\n",
		g(lc), g(lpc), relErr(g(lpc), g(lc)), g(lpd), relErr(g(lpd), g(lc)), g(lf), g(lpf), relErr(g(lpf), g(lf)))
	fmt.Fprintln(w, "| paper (§5.2 (C), mean of Table 4's 16 benchmark–input pairs) | | | | | 1.40× | | | | | 1.21× | | |")
	fmt.Fprintf(w, "\nMeasured: the fork's gpu_tot_sim_cycle (times.tsv) of each Dragon_li program run as CDP (`-agg_blocks_support 0`), as DTBL (`-agg_blocks_support 1`) and its Reg build (flat). Predicted: from the CDP run's log alone, its replay under --policy=cdp over its replay under --policy=dtbl (the fork's keys, %s; or the project's defaults), and its replay under --policy=flat (inline=loop, above) over the same dtbl replay. Errors are the predicted speedup's against the measured one.\n", setFlags(forkDTBLSets))
	return nil
}

// forkStudy converts the fork's runs (once each) and replays them.
type forkStudy struct {
	x           *experiment
	dir, simDir string
	cycles      map[string]int64
	runs        map[string]simRun
	loopOnce    int64
	loopShare   float64
}

func newForkStudy(x *experiment, dir string) (*forkStudy, error) {
	f := &forkStudy{x: x, dir: dir, simDir: filepath.Join(validationDir, "gpgpusim", "dtbl-sim"), runs: map[string]simRun{}}
	var err error
	if f.cycles, err = forkCycles(filepath.Join(f.simDir, "times.tsv")); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f.loopOnce, f.loopShare, err = loopRuleFrom(func(name string) (simRun, error) { return f.conv(name, "loop") })
	if err != nil {
		return nil, err
	}
	return f, nil
}

// how is the convert options a flat prediction's CDP run is read with.
func (f *forkStudy) how(inline string) string {
	if inline == "loop" {
		return fmt.Sprintf("inline=loop, cta_once=%d, loop_share=%g", f.loopOnce, f.loopShare)
	}
	return "inline=" + inline
}

// conv converts the run name with inline; for inline=loop the flat
// predictions take the fork's loop rule (convRule).
func (f *forkStudy) conv(name, inline string) (simRun, error) {
	return f.convert(name, inline, false)
}

func (f *forkStudy) convRule(name, inline string) (simRun, error) {
	return f.convert(name, inline, inline == "loop")
}

func (f *forkStudy) convert(name, inline string, rule bool) (simRun, error) {
	key := fmt.Sprintf("%s/%s/%v", name, inline, rule)
	if r, ok := f.runs[key]; ok {
		return r, nil
	}
	o := gpgpusim.DefaultOptions()
	o.Inline = inline
	dir := f.dir
	if rule {
		o.CTAOnce, o.LoopShare = f.loopOnce, f.loopShare
		dir = filepath.Join(f.dir, "loop-rule")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return simRun{}, err
		}
	}
	r, err := convertCapture(filepath.Join(f.simDir, name+".log.xz"), dir, o)
	if err != nil {
		return simRun{}, fmt.Errorf("%s: %w", name, err)
	}
	f.runs[key] = r
	return r, nil
}

func (f *forkStudy) replayOn(r simRun, pol string, sets ...[]string) (int64, []tables.Kernel, error) {
	cfg, err := study.CapturedConfig(r.trace)
	if err != nil {
		return 0, nil, err
	}
	for _, s := range append(sets, f.x.sets) {
		if err := applySets(&cfg, s); err != nil {
			return 0, nil, err
		}
	}
	st, kernels, err := replayFile(cfg, pol, r.trace)
	if err != nil {
		return 0, nil, err
	}
	return st.MakespanCycles, kernels, nil
}

// forkCycles reads times.tsv's gpu_tot_sim_cycle by run name.
func forkCycles(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run from the repository root)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	out := map[string]int64{}
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) < 9 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 9", path, i+2, len(f))
		}
		n, err := strconv.ParseInt(f[8], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: gpu_tot_sim_cycle %q", path, i+2, f[8])
		}
		out[f[0]] = n
	}
	return out, nil
}

// functionSpanErrors compares each function's span in a replay (its
// kernels' first start to last end, which waits for their children)
// with the simulator's (its kernels' and aggregated groups' first CTA
// start to the last end of any of them or their descendants): a DTBL
// run's groups are kernels of the trace but CTAs of their grid in the
// replay, so kernels are compared by function.
func functionSpanErrors(kernels []tables.Kernel, measured map[uint64]gpgpusim.Kernel) errStats {
	type span struct{ lo, hi int64 }
	got, want := map[string]span{}, map[string]span{}
	widen := func(m map[string]span, name string, lo, hi int64) {
		s, ok := m[name]
		if !ok {
			s = span{lo, hi}
		}
		m[name] = span{min(s.lo, lo), max(s.hi, hi)}
	}
	for _, k := range kernels {
		widen(got, k.Name, k.StartCycle, k.EndCycle)
	}
	ends := subtreeEnds(measured)
	for id, k := range measured {
		widen(want, k.Name, k.Start, ends[id])
	}
	var e errStats
	for _, name := range sortedKeys(want) {
		if g, ok := got[name]; ok {
			e.add(float64(g.hi-g.lo), float64(want[name].hi-want[name].lo))
		}
	}
	return e
}

// childCTARatio is the mean span of a device launch's CTAs (first start
// to last end: a child kernel's, or an aggregated group's) in run d over
// run c's.
func childCTARatio(d, c simRun) float64 {
	mean := func(r simRun) float64 {
		var sum, n float64
		for _, k := range r.measured {
			if k.Parent != 0 {
				sum += float64(k.End - k.Start)
				n++
			}
		}
		return sum / max(n, 1)
	}
	return mean(d) / max(mean(c), 1)
}
