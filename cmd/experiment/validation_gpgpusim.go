package main

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/trace"
)

// validationGPGPUSim replays each committed GPGPU-Sim capture of our own
// programs (validation/gpgpusim/captures) under cdp on the captured GPU
// and compares the makespan and every kernel's span with the simulator's;
// flat, dtbl and spawn run on the same trace for the model's predictions.
var validationGPGPUSim = &experiment{
	doc:    "ground truth: replay of GPGPU-Sim captures (validation/gpgpusim/captures) against the simulator's own cycles",
	custom: runValidationGPGPUSim,
}

// validationPolicies are replayed on every capture; the first is the
// captured run's own mechanism.
var validationPolicies = []string{"cdp", "flat", "dtbl", "spawn"}

func runValidationGPGPUSim(x *experiment, dir string, stdout, log io.Writer) error {
	capDir := filepath.Join(validationDir, "gpgpusim", "captures")
	logs, err := filepath.Glob(filepath.Join(capDir, "*.log.xz"))
	if err != nil || len(logs) == 0 {
		return fmt.Errorf("no captures in %s (run from the repository root)", capDir)
	}
	times, err := simTimes(filepath.Join(capDir, "times.tsv"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "| capture | kernels (device) | CTAs | GPGPU-Sim cycles | cdp replay | error | kernel spans: MAPE | worst | flat | dtbl | spawn | cdp error, stream manager off |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var speed []string
	contention := ""
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".log.xz")
		sw := startWatch()
		// The flat column prices a launching lane's work as one warp
		// running the child's warps (inline=warp): these are our own
		// programs, whose children are wide loops of FMAs no flat code of
		// theirs runs in one lane.
		o := gpgpusim.DefaultOptions()
		o.Inline = "warp"
		c, err := convertCapture(path, dir, o)
		if err != nil {
			return err
		}
		convWall, convCPU := sw.read()
		sum, tr, measured, ends, simEnd := c.sum, c.trace, c.measured, c.ends, c.end
		cfg, err := study.CapturedConfig(tr)
		if err != nil {
			return err
		}
		if err := applySets(&cfg, x.sets); err != nil {
			return err
		}
		contention = string(cfg.Model.Contention)
		row := fmt.Sprintf("| %s | %d (%d) | %d | %d |", name, sum.Kernels, sum.DeviceKernels, sum.CTAs, simEnd)
		var cdpMakespan int64
		var replayWall, replayCPU float64
		for _, pol := range validationPolicies {
			sw := startWatch()
			st, kernels, err := replayFile(cfg, pol, tr)
			if err != nil {
				return fmt.Errorf("%s under %s: %w", name, pol, err)
			}
			if pol != "cdp" {
				row += fmt.Sprintf(" %d (%.2f×) |", st.MakespanCycles, float64(cdpMakespan)/float64(st.MakespanCycles))
				continue
			}
			replayWall, replayCPU = sw.read()
			cdpMakespan = st.MakespanCycles
			var e errStats
			for _, k := range kernels {
				m, ok := measured[k.KernelID]
				if !ok {
					continue
				}
				e.add(float64(k.EndCycle-k.StartCycle), float64(ends[k.KernelID]-m.Start))
				fmt.Fprintf(log, "%s kernel %d %s: GPGPU-Sim %d-%d, replay %d-%d\n", name, k.KernelID, m.Name, m.Start, ends[k.KernelID], k.StartCycle, k.EndCycle)
			}
			row += fmt.Sprintf(" %d | %s | %.1f%% | %+.1f%% |", st.MakespanCycles, relErr(float64(st.MakespanCycles), float64(simEnd)), e.mape(), 100*e.worstSigned)
		}
		// The simulator's artefact's share of the error: the cdp replay
		// again without GPGPU-Sim's stream manager (docs/model.md, "The
		// simulator's stream manager"), where the capture records one.
		if cfg.Lat.StreamCountdown > 0 {
			off := cfg
			off.Lat.StreamCountdown = 0
			st, _, err := replayFile(off, "cdp", tr)
			if err != nil {
				return fmt.Errorf("%s without the stream manager: %w", name, err)
			}
			row += fmt.Sprintf(" %s |", relErr(float64(st.MakespanCycles), float64(simEnd)))
		} else {
			row += " — |"
		}
		fmt.Fprintln(stdout, row)
		t := times[name]
		speed = append(speed, fmt.Sprintf("| %s | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f | %.0f× |", name, t[0], t[1], convWall, convCPU, replayWall, replayCPU, t[1]/max(convCPU+replayCPU, 1e-3)))
	}
	fmt.Fprintf(stdout, "\nSpans are first CTA start to last CTA end, children included; cdp replays with --gpu=captured (model.contention=%s: the measured cycles hold the run's sharing). flat, dtbl and spawn are the model's predictions on the same trace (speedup over the cdp replay); GPGPU-Sim ran only the launches. The last column replays cdp without GPGPU-Sim's stream manager (lat.stream_countdown=0; — where the capture's launch latency is 0 and the importer records none).\n\n", contention)
	speedTable(stdout, "| capture | GPGPU-Sim wall s | CPU s | convert wall s | CPU s | replay (cdp) wall s | CPU s | CPU ratio |", 1, speed,
		"GPGPU-Sim's seconds are the capture's, from validation/gpgpusim/captures/times.tsv; gpureplay's are this run's, on this machine.")
	return nil
}

// simRun is a converted GPGPU-Sim capture: the conversion's summary, its
// trace, what the simulator measured of each kernel, each kernel's end
// with its descendants', and the run's makespan, its last CTA's end (the
// simulator's cycle count is one more, counting cycle 0).
type simRun struct {
	sum      gpgpusim.Summary
	trace    string
	measured map[uint64]gpgpusim.Kernel
	ends     map[uint64]int64
	end      int64
}

// convertCapture converts the capture log into dir with the importer's
// options o, once a process: a trace is named by the options that make it
// (inline, and a digest of the others where they are not the defaults),
// and a conversion asked for again is the first's. A trace this process
// has read is not written again (trace.Create, as every command's
// output: internal/tempfile's inputs), and the calibrations convert the
// same captures more than once.
func convertCapture(log, dir string, o gpgpusim.Options) (simRun, error) {
	o.Measured = nil
	key := fmt.Sprintf("%s\x00%s\x00%+v", dir, log, o)
	converted.mu.Lock()
	defer converted.mu.Unlock()
	if r, ok := converted.runs[key]; ok {
		return r, nil
	}
	name := strings.TrimSuffix(filepath.Base(log), ".log.xz") + "-" + o.Inline
	if d := gpgpusim.DefaultOptions(); o.Config != d.Config || o.GPU != d.GPU || o.CTAOnce != d.CTAOnce || o.LoopShare != d.LoopShare || o.LoopAccesses != d.LoopAccesses || o.Syncs != d.Syncs {
		name += fmt.Sprintf("-%08x", crc32.ChecksumIEEE([]byte(fmt.Sprintf("%+v", o))))
	}
	r := simRun{trace: filepath.Join(dir, name+".trace.zst"), measured: map[uint64]gpgpusim.Kernel{}}
	o.Measured = func(k gpgpusim.Kernel) { r.measured[k.ID] = k }
	sum, err := convertGPGPUSim(log, r.trace, o)
	if err != nil {
		return simRun{}, err
	}
	r.sum, r.ends = sum, subtreeEnds(r.measured)
	for _, e := range r.ends {
		r.end = max(r.end, e)
	}
	converted.runs[key] = r
	return r, nil
}

// converted is every capture convertCapture has converted, by directory,
// log and options.
var converted = struct {
	mu   sync.Mutex
	runs map[string]simRun
}{runs: map[string]simRun{}}

// convertGPGPUSim converts a log to a validated binary trace.
func convertGPGPUSim(log, out string, o gpgpusim.Options) (gpgpusim.Summary, error) {
	w, err := trace.Create(out)
	if err != nil {
		return gpgpusim.Summary{}, err
	}
	checked := trace.NewCheckedSink(w)
	sum, err := gpgpusim.Convert(log, checked, o)
	if err == nil {
		err = checked.Finish()
	}
	if err != nil {
		w.Abort()
	} else {
		err = w.Close()
	}
	return sum, err
}

// subtreeEnds is each kernel's end with its descendants' (what the
// replay's kernels.end_cycle is: completion waits for the children).
func subtreeEnds(m map[uint64]gpgpusim.Kernel) map[uint64]int64 {
	ends := make(map[uint64]int64, len(m))
	for id, k := range m {
		ends[id] = max(ends[id], k.End)
		for p := k.Parent; p != 0; p = m[p].Parent {
			ends[p] = max(ends[p], k.End)
		}
	}
	return ends
}

// applySets applies key=value settings.
func applySets(cfg interface{ Set(k, v string) error }, sets []string) error {
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := cfg.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}
