package main

import (
	"fmt"
	"io"
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

// forkDTBLSets are the settings that replay the DTBL authors' simulator's
// reading of DTBL (docs/model.md, "The paper's DTBL and its authors'
// simulator").
var forkDTBLSets = []string{"dtbl.match=function", "dtbl.launch_cost=cdp", "dtbl.agt_spill=0"}

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
}

// dtblForkFlat are the flat runs, each predicted from a CDP run with the
// flat code's own inlining (gpgpusim inline=cta: cdpbalanced's flat mode
// hands each parent thread's child work to its CTA's threads).
var dtblForkFlat = []struct{ cdp, flat string }{
	{"balanced-cdp", "balanced-flat"},
}

func runValidationDTBLFork(x *experiment, dir string, stdout, log io.Writer) error {
	simDir := filepath.Join(validationDir, "gpgpusim", "dtbl-sim")
	cycles, err := forkCycles(filepath.Join(simDir, "times.tsv"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	runs := map[string]simRun{}
	conv := func(name, inline string) (simRun, error) {
		key := name + "/" + inline
		if r, ok := runs[key]; ok {
			return r, nil
		}
		o := gpgpusim.DefaultOptions()
		o.Inline = inline
		r, err := convertCapture(filepath.Join(simDir, name+".log.xz"), dir, o)
		if err != nil {
			return simRun{}, fmt.Errorf("%s: %w", name, err)
		}
		runs[key] = r
		return r, nil
	}
	replayOn := func(r simRun, pol string, sets ...[]string) (int64, []tables.Kernel, error) {
		cfg, err := study.CapturedConfig(r.trace)
		if err != nil {
			return 0, nil, err
		}
		for _, s := range append(sets, x.sets) {
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

	fmt.Fprintln(stdout, "| CDP run | predicts | fork CDP | fork DTBL | DTBL over CDP | dtbl, fork's keys | error | spans MAPE | dtbl, default | error | spans MAPE | DTBL run's self-replay | error | child span, DTBL run / CDP run |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var all, fork errStats
	for _, p := range dtblForkPairs {
		c, err := conv(p.cdp, "loop")
		if err != nil {
			return err
		}
		d, err := conv(p.dtbl, "loop")
		if err != nil {
			return err
		}
		cdpCycles, dtblCycles := cycles[p.cdp], cycles[p.dtbl]
		want := float64(dtblCycles - 1) // the last CTA's end
		row := fmt.Sprintf("| %s | %s | %d | %d | %.2f× |", p.cdp, p.dtbl, cdpCycles, dtblCycles, float64(cdpCycles)/float64(dtblCycles))
		for i, sets := range [][]string{forkDTBLSets, nil} {
			m, kernels, err := replayOn(c, "dtbl", sets, p.sets)
			if err != nil {
				return fmt.Errorf("%s under dtbl: %w", p.cdp, err)
			}
			spans := functionSpanErrors(kernels, d.measured)
			row += fmt.Sprintf(" %d | %s | %.1f%% |", m, relErr(float64(m), want), spans.mape())
			all.add(float64(m), want)
			if i == 0 {
				fork.add(float64(m), want)
			}
			fmt.Fprintf(log, "%s -> %s (%s): %d, fork %d\n", p.cdp, p.dtbl, strings.Join(sets, ","), m, dtblCycles)
		}
		self, _, err := replayOn(d, "dtbl", forkDTBLSets, p.sets)
		if err != nil {
			return fmt.Errorf("%s under dtbl: %w", p.dtbl, err)
		}
		row += fmt.Sprintf(" %d | %s | %.2f |", self, relErr(float64(self), want), childCTARatio(d, c))
		fmt.Fprintln(stdout, row)
	}
	fmt.Fprintf(stdout, "\n%d pairs; --policy=dtbl with the fork's keys (--set %s): makespan MAPE %.1f%%, worst %+.1f%%.\n\n",
		len(dtblForkPairs), strings.Join(forkDTBLSets, ","), fork.mape(), 100*fork.worstSigned)

	fmt.Fprintln(stdout, "| CDP run | predicts | fork flat | flat, inline=cta | error | spans MAPE |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|")
	for _, p := range dtblForkFlat {
		c, err := conv(p.cdp, "cta")
		if err != nil {
			return err
		}
		f, err := conv(p.flat, "loop")
		if err != nil {
			return err
		}
		m, kernels, err := replayOn(c, "flat")
		if err != nil {
			return fmt.Errorf("%s under flat: %w", p.cdp, err)
		}
		spans := functionSpanErrors(kernels, f.measured)
		fmt.Fprintf(stdout, "| %s | %s | %d | %d | %s | %.1f%% |\n", p.cdp, p.flat, cycles[p.flat], m, relErr(float64(m), float64(cycles[p.flat]-1)), spans.mape())
	}
	fmt.Fprintln(stdout, "\nEach prediction replays the CDP run's log converted (`replay convert --from=gpgpusim`) with `--gpu=captured` (the fork's 15 SMs, 8 concurrent kernels, its latencies; model.contention=off: the CTA cycles are the CDP run's). Errors are against the DTBL (or flat) run's last CTA end; spans are each function's, first CTA start to last end with its children, against the DTBL run's, and their MAPE is over the functions. The self-replay replays the DTBL run's own log, its groups written as launches, under dtbl with the fork's keys. The last column is the mean span of a device launch's CTAs (a child kernel's, or a group's) in the DTBL run over the CDP run's: how much slower the same children ran there.")
	return nil
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
