package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/accelsim"
	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// validationAccelSim compares gpureplay's Accel-Sim importer and model
// with Accel-Sim's cycle-level run of the same SASS traces on the same
// GPU: each committed run (validation/accelsim/TRACE.CONFIG) gives the
// simulator's per-kernel cycles and, in the options it printed, the GPU;
// the trace is converted with the importer's cost model at that GPU's
// clock and replayed on that GPU with the contention model on.
var validationAccelSim = &experiment{
	doc:    "ground truth: Accel-Sim importer and model against Accel-Sim's cycle-level runs (validation/accelsim)",
	custom: runValidationAccelSim,
}

// accelsimTraceDirs are where a run's trace is looked for, by name.
var accelsimTraceDirs = []string{
	filepath.Join("..", "shared", "traces", "accelsim"),
	filepath.Join("convert", "accelsim", "testdata", "samples"),
	filepath.Join("convert", "accelsim", "testdata", "golden"),
	filepath.Join(validationDir, "accelsim", "traces"),
}

// importerSets are the accelsim importer's options for this experiment
// (--set importer.KEY=VALUE on the command line adds to them).
func importerSets(sets []string) (opts []string, rest []string) {
	for _, s := range sets {
		if k, ok := strings.CutPrefix(s, "importer."); ok {
			opts = append(opts, k)
		} else {
			rest = append(rest, s)
		}
	}
	return opts, rest
}

// asRun is one committed Accel-Sim run and what replaying its trace needs.
type asRun struct {
	name, trace, config string
	list                string // the trace's kernelslist.g
	calibration         bool   // a hand-made trace (convert/accelsim's goldens): calibrates; the others validate
	sim                 []simKernel
	cfg                 model.Config
	time                [2]float64 // Accel-Sim's wall and CPU seconds
}

func loadAccelsimRuns(sets []string, log io.Writer) ([]*asRun, error) {
	logs, err := filepath.Glob(filepath.Join(validationDir, "accelsim", "*", "accelsim.log.xz"))
	if err != nil || len(logs) == 0 {
		return nil, fmt.Errorf("no Accel-Sim runs in %s (run from the repository root)", filepath.Join(validationDir, "accelsim"))
	}
	sort.Strings(logs)
	var runs []*asRun
	for _, logPath := range logs {
		runDir := filepath.Dir(logPath)
		r := &asRun{name: filepath.Base(runDir)}
		r.trace, r.config, _ = strings.Cut(r.name, ".")
		if r.list = findAccelsimTrace(r.trace); r.list == "" {
			fmt.Fprintf(log, "%s: trace %s not found in %v; skipped\n", r.name, r.trace, accelsimTraceDirs)
			continue
		}
		r.calibration = strings.Contains(filepath.ToSlash(r.list), "testdata/golden/")
		if r.sim, err = accelsimKernels(logPath); err != nil {
			return nil, err
		}
		if len(r.sim) == 0 {
			fmt.Fprintf(log, "%s: the log has no finished kernel; skipped\n", r.name)
			continue
		}
		h, err := gpgpusim.ReadGPU(logPath, gpgpusim.DefaultOptions())
		if err != nil {
			return nil, err
		}
		base, err := model.Preset("k20c")
		if err != nil {
			return nil, err
		}
		if r.cfg, err = model.FromHeader(base, h); err != nil {
			return nil, err
		}
		// The importer's cycles are each CTA alone; the model shares.
		r.cfg.Model.Contention = "on"
		if err := applySets(&r.cfg, sets); err != nil {
			return nil, err
		}
		r.time, _ = readTime(filepath.Join(runDir, "time.txt"))
		runs = append(runs, r)
	}
	return runs, nil
}

// replay converts r's trace with the importer's options o (at r's GPU's
// clock) into dir, named r's name and then as, and replays it; it
// returns the kernels' cycles, first CTA start to last CTA end, in
// kernel order, and the seconds it took. Each conversion has a name of
// its own: a trace this process has read is not written again
// (trace.Create).
func (r *asRun) replay(o accelsim.Options, dir, as string) (cycles []float64, wall, cpu float64, err error) {
	o.ClockMHz = r.cfg.GPU.ClockMHz
	tr := filepath.Join(dir, r.name+as+".trace.zst")
	sw := startWatch()
	if err := convertAccelsim(r.list, tr, o); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", r.name, err)
	}
	_, kernels, err := replayFile(r.cfg, "cdp", tr)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", r.name, err)
	}
	wall, cpu = sw.read()
	sort.Slice(kernels, func(i, j int) bool { return kernels[i].KernelID < kernels[j].KernelID })
	for _, k := range kernels {
		cycles = append(cycles, float64(k.EndCycle-k.StartCycle))
	}
	return cycles, wall, cpu, nil
}

// errors adds r's kernels' errors under o to e.
func (r *asRun) errors(o accelsim.Options, dir string, e *errStats) error {
	got, _, _, err := r.replay(o, dir, fmt.Sprintf("-latency-%g", o.GlobalLatency))
	for i := range got {
		if i < len(r.sim) {
			e.add(got[i], float64(r.sim[i].cycles))
		}
	}
	return err
}

// calibrationLatencies are the importer's global_latency values the
// calibration tries: its default is 400 cycles.
var calibrationLatencies = func() []float64 {
	var v []float64
	for l := 100.0; l <= 1500; l += 25 {
		v = append(v, l)
	}
	return v
}()

func runValidationAccelSim(x *experiment, dir string, stdout, log io.Writer) error {
	impOpts, sets := importerSets(x.sets)
	runs, err := loadAccelsimRuns(sets, log)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	o := accelsim.DefaultOptions()
	for _, kv := range impOpts {
		k, v, _ := strings.Cut(kv, "=")
		if err := o.Set(k, v); err != nil {
			return err
		}
	}
	// Calibration: per config, the global_latency that minimises the
	// mean absolute error over the hand-made traces' kernels.
	latency := map[string]float64{}
	calMAPE := map[string]float64{}
	for _, r := range runs {
		if !r.calibration {
			continue
		}
		if _, done := latency[r.config]; done {
			continue
		}
		best, bestErr := o.GlobalLatency, -1.0
		for _, l := range calibrationLatencies {
			oc := o
			oc.GlobalLatency = l
			var e errStats
			for _, c := range runs {
				if c.calibration && c.config == r.config {
					if err := c.errors(oc, dir, &e); err != nil {
						return err
					}
				}
			}
			if m := e.mape(); bestErr < 0 || m < bestErr {
				best, bestErr = l, m
			}
		}
		latency[r.config], calMAPE[r.config] = best, bestErr
	}
	fmt.Fprintf(stdout, "Importer options: %s; calibrated: global_latency per config, on the hand-made traces (convert/accelsim/testdata/golden), tried from %g to %g cycles.\n\n",
		importerDesc(impOpts), calibrationLatencies[0], calibrationLatencies[len(calibrationLatencies)-1])
	fmt.Fprintln(stdout, "| trace | set | config | SMs | kernel | Accel-Sim cycles | gpureplay, defaults | error | gpureplay, calibrated | error |")
	fmt.Fprintln(stdout, "|---|---|---|---:|---|---:|---:|---:|---:|---:|")
	stats := map[string]*errStats{}
	stat := func(k string) *errStats {
		if stats[k] == nil {
			stats[k] = &errStats{}
		}
		return stats[k]
	}
	var speed []string
	for _, r := range runs {
		def, wall, cpu, err := r.replay(o, dir, "")
		if err != nil {
			return err
		}
		cal := def
		oc := o
		l, calibrated := latency[r.config]
		if calibrated {
			oc.GlobalLatency = l
			if cal, _, _, err = r.replay(oc, dir, "-calibrated"); err != nil {
				return err
			}
		}
		set := "validation"
		if r.calibration {
			set = "calibration"
		}
		for i, got := range def {
			if i >= len(r.sim) {
				break
			}
			want := float64(r.sim[i].cycles)
			stat(set+"/defaults").add(got, want)
			calCell, calErr := "—", "—"
			if calibrated {
				stat(set+"/calibrated").add(cal[i], want)
				calCell, calErr = fmt.Sprintf("%.0f", cal[i]), relErr(cal[i], want)
			}
			fmt.Fprintf(stdout, "| %s | %s | %s | %d | %s | %d | %.0f | %s | %s | %s |\n", r.trace, set, r.config, r.cfg.GPU.SMs, shortName(r.sim[i].name), r.sim[i].cycles, got, relErr(got, want), calCell, calErr)
		}
		speed = append(speed, fmt.Sprintf("| %s | %s | %.1f | %.1f | %.3f | %.3f | %.0f× |", r.trace, r.config, r.time[0], r.time[1], wall, cpu, r.time[1]/max(cpu, 1e-3)))
	}
	fmt.Fprintf(stdout, "\nKernel cycles are first CTA start to last CTA end in each tool.")
	for _, c := range sortedKeys(latency) {
		fmt.Fprintf(stdout, " %s: global_latency %g (calibration MAPE %.1f%%).", c, latency[c], calMAPE[c])
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "\n| kernels | options | n | MAPE | worst | correlation |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|")
	for _, k := range []string{"validation/defaults", "validation/calibrated", "calibration/defaults", "calibration/calibrated"} {
		if e := stats[k]; e != nil {
			set, opts, _ := strings.Cut(k, "/")
			fmt.Fprintf(stdout, "| %s | %s | %d | %.1f%% | %+.1f%% | %.3f |\n", set, opts, len(e.abs), e.mape(), 100*e.worstSigned, e.corr())
		}
	}
	fmt.Fprintln(stdout)
	speedTable(stdout, "| trace | config | Accel-Sim wall s | CPU s | gpureplay convert + replay wall s | CPU s | CPU ratio |", 2, speed,
		"Accel-Sim's seconds are the capture's (time.txt beside each log); gpureplay's are this run's, on this machine (defaults).")
	return nil
}

func importerDesc(opts []string) string {
	if len(opts) == 0 {
		return "the defaults"
	}
	return strings.Join(opts, ", ")
}

// findAccelsimTrace is the kernelslist.g of the named trace, or "".
func findAccelsimTrace(name string) string {
	for _, d := range accelsimTraceDirs {
		p := filepath.Join(d, name, "kernelslist.g")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// convertAccelsim converts an Accel-Sim trace to a validated binary trace.
func convertAccelsim(list, out string, o accelsim.Options) error {
	w, err := trace.Create(out)
	if err != nil {
		return err
	}
	checked := trace.NewCheckedSink(w)
	err = accelsim.Convert(list, checked, o)
	if err == nil {
		err = checked.Finish()
	}
	if err != nil {
		w.Abort()
	} else {
		err = w.Close()
	}
	return err
}

// simKernel is one kernel of an Accel-Sim run.
type simKernel struct {
	uid    uint64
	name   string
	cycles int64
}

// accelsimKernels reads an Accel-Sim log's kernels in uid order, each
// with its span: from its first CTA's start (the LIVENESS lines) to the
// end of its statistics block's run (gpu_tot_sim_cycle, one past its last
// CTA's end cycle). Accel-Sim holds a kernel for its launch latency before
// its first CTA, as GPGPU-Sim does; the span leaves that out.
func accelsimKernels(path string) ([]simKernel, error) {
	var ks []simKernel
	var cur simKernel
	first := map[uint64]int64{}
	err := readLog(path, func(line string) {
		switch {
		case strings.HasPrefix(line, "GPGPU-Sim Cycle ") && strings.Contains(line, "initialized @"):
			i := strings.Index(line, "kernel_uid:")
			cyc, _ := strconv.ParseInt(strings.TrimSpace(line[len("GPGPU-Sim Cycle "):strings.Index(line, ":")]), 10, 64)
			if i < 0 {
				return
			}
			uidText := line[i+len("kernel_uid:"):]
			if j := strings.Index(uidText, ","); j >= 0 {
				uidText = uidText[:j]
			}
			if uid, err := strconv.ParseUint(uidText, 10, 64); err == nil {
				if _, ok := first[uid]; !ok {
					first[uid] = cyc
				}
			}
		case strings.HasPrefix(line, "kernel_name = "):
			cur = simKernel{name: strings.TrimSpace(strings.TrimPrefix(line, "kernel_name = "))}
		case strings.HasPrefix(line, "kernel_launch_uid = "):
			cur.uid, _ = strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "kernel_launch_uid = ")), 10, 64)
		case strings.HasPrefix(line, "gpu_tot_sim_cycle = ") && cur.name != "":
			tot, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "gpu_tot_sim_cycle = ")), 10, 64)
			if s, ok := first[cur.uid]; ok {
				cur.cycles = tot - 1 - s
				ks = append(ks, cur)
			}
			cur = simKernel{}
		}
	})
	sort.Slice(ks, func(i, j int) bool { return ks[i].uid < ks[j].uid })
	return ks, err
}

// readLog calls fn with every line of a (possibly compressed) log.
func readLog(path string, fn func(string)) error {
	rc, err := gpgpusim.OpenLog(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	for sc.Scan() {
		fn(sc.Text())
	}
	return sc.Err()
}

// readTime reads a /usr/bin/time -f '%e %U %S %M' line: wall and CPU seconds.
func readTime(path string) ([2]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [2]float64{}, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return [2]float64{}, fmt.Errorf("%s: want wall user sys", path)
	}
	w, _ := strconv.ParseFloat(f[0], 64)
	u, _ := strconv.ParseFloat(f[1], 64)
	s, _ := strconv.ParseFloat(f[2], 64)
	return [2]float64{w, u + s}, nil
}

// shortName is a kernel name cut for a table cell.
func shortName(s string) string {
	if len(s) > 32 {
		return s[:29] + "…"
	}
	return s
}
