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

func runValidationAccelSim(x *experiment, dir string, stdout, log io.Writer) error {
	runs, err := filepath.Glob(filepath.Join(validationDir, "accelsim", "*", "accelsim.log.xz"))
	if err != nil || len(runs) == 0 {
		return fmt.Errorf("no Accel-Sim runs in %s (run from the repository root)", filepath.Join(validationDir, "accelsim"))
	}
	sort.Strings(runs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	impOpts, sets := importerSets(x.sets)
	fmt.Fprintln(stdout, "| trace | config | SMs | kernel | CTAs | Accel-Sim cycles | gpureplay cycles | error |")
	fmt.Fprintln(stdout, "|---|---|---:|---|---:|---:|---:|---:|")
	var all errStats
	perConfig := map[string]*errStats{}
	var speed []string
	for _, logPath := range runs {
		runDir := filepath.Dir(logPath)
		name := filepath.Base(runDir)
		traceName, config, _ := strings.Cut(name, ".")
		list := findAccelsimTrace(traceName)
		if list == "" {
			fmt.Fprintf(log, "%s: trace %s not found in %v; skipped\n", name, traceName, accelsimTraceDirs)
			continue
		}
		sim, err := accelsimKernels(logPath)
		if err != nil {
			return err
		}
		if len(sim) == 0 {
			fmt.Fprintf(log, "%s: the log has no finished kernel; skipped\n", name)
			continue
		}
		h, err := gpgpusim.ReadGPU(logPath, gpgpusim.DefaultOptions())
		if err != nil {
			return err
		}
		base, err := model.Preset("k20c")
		if err != nil {
			return err
		}
		cfg, err := model.FromHeader(base, h)
		if err != nil {
			return err
		}
		// The importer's cycles are each CTA alone; the model shares.
		cfg.Model.Contention = "on"
		if err := applySets(&cfg, sets); err != nil {
			return err
		}
		o := accelsim.DefaultOptions()
		o.ClockMHz = cfg.GPU.ClockMHz
		for _, kv := range impOpts {
			k, v, _ := strings.Cut(kv, "=")
			if err := o.Set(k, v); err != nil {
				return err
			}
		}
		tr := filepath.Join(dir, name+".trace.zst")
		sw := startWatch()
		if err := convertAccelsim(list, tr, o); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		st, kernels, err := replayFile(cfg, "cdp", tr)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		wall, cpu := sw.read()
		sort.Slice(kernels, func(i, j int) bool { return kernels[i].KernelID < kernels[j].KernelID })
		cs := perConfig[config]
		if cs == nil {
			cs = &errStats{}
			perConfig[config] = cs
		}
		for i, k := range kernels {
			if i >= len(sim) {
				break
			}
			got, want := float64(k.EndCycle-k.StartCycle), float64(sim[i].cycles)
			all.add(got, want)
			cs.add(got, want)
			fmt.Fprintf(stdout, "| %s | %s | %d | %s | %d | %d | %.0f | %s |\n", traceName, config, cfg.GPU.SMs, shortName(k.Name), k.CTAs, sim[i].cycles, got, relErr(got, want))
		}
		t, _ := readTime(filepath.Join(runDir, "time.txt"))
		speed = append(speed, fmt.Sprintf("| %s | %s | %.1f | %.1f | %.3f | %.3f | %.0f× |", traceName, config, t[0], t[1], wall, cpu, t[1]/max(cpu, 1e-3)))
		_ = st
	}
	fmt.Fprintf(stdout, "\nKernel cycles are first CTA start to last CTA end, in each tool. All %d kernels: MAPE %.1f%%, worst %+.1f%%, correlation %.3f.", len(all.abs), all.mape(), 100*all.worstSigned, all.corr())
	for _, c := range sortedKeys(perConfig) {
		e := perConfig[c]
		fmt.Fprintf(stdout, " %s: %d kernels, MAPE %.1f%%.", c, len(e.abs), e.mape())
	}
	opts := "the defaults"
	if len(impOpts) > 0 {
		opts = strings.Join(impOpts, ", ")
	}
	fmt.Fprintf(stdout, " Importer options: %s.\n\n", opts)
	fmt.Fprintln(stdout, "| trace | config | Accel-Sim wall s | CPU s | gpureplay convert + replay wall s | CPU s | CPU ratio |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|")
	for _, s := range speed {
		fmt.Fprintln(stdout, s)
	}
	fmt.Fprintln(stdout, "\nAccel-Sim's seconds are the capture's (time.txt beside each log); gpureplay's are this run's, on this machine.")
	return nil
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
	if cerr := w.Close(); err == nil {
		err = cerr
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
