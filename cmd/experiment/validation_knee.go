package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/policies"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

// validationKnee compares the contention model's knee with GPGPU-Sim's on
// our microbenchmark (validation/gpgpusim/programs/knee.cu): one kernel of
// k CTAs per SM, compute-bound and memory-bound. The model's inputs are
// the k = 1 run's (each CTA's cycles and its share of the warp
// instructions and DRAM bytes, as the importer spreads them); the runs at
// k > 1 are what it is validated on.
var validationKnee = &experiment{
	doc:    "ground truth: the contention model's knee against GPGPU-Sim's (validation/gpgpusim/knee)",
	custom: runValidationKnee,
}

var kneeLog = regexp.MustCompile(`^(compute|memory)-k([0-9]+)\.log\.xz$`)

// ctaStats gathers a converted log's CTA records.
type ctaStats struct {
	header      *trace.Header
	n           int
	cycles      float64
	insts, dram float64
	threads     uint32
	wall, cpu   float64 // converting the log
}

func (c *ctaStats) Write(r trace.Record) error {
	switch r := r.(type) {
	case *trace.Header:
		c.header = r
	case *trace.Kernel:
		c.threads = r.Block[0] * r.Block[1] * r.Block[2]
	case *trace.CTA:
		c.n++
		c.cycles += float64(r.Cycles)
		c.insts += float64(r.Insts)
		c.dram += float64(r.DRAMBytes)
	}
	return nil
}

func (c *ctaStats) mean() float64 { return c.cycles / float64(max(c.n, 1)) }

func runValidationKnee(x *experiment, dir string, stdout, log io.Writer) error {
	kneeDir := filepath.Join(validationDir, "gpgpusim", "knee")
	entries, err := os.ReadDir(kneeDir)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root)", err)
	}
	times, err := simTimes(filepath.Join(kneeDir, "times.tsv"))
	if err != nil {
		return err
	}
	runs := map[string]map[int]*ctaStats{}
	var speed []string
	for _, e := range entries {
		m := kneeLog.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		k, _ := strconv.Atoi(m[2])
		st := &ctaStats{}
		sw := startWatch()
		if _, err := gpgpusim.Convert(filepath.Join(kneeDir, e.Name()), st, gpgpusim.DefaultOptions()); err != nil {
			return err
		}
		st.wall, st.cpu = sw.read()
		if runs[m[1]] == nil {
			runs[m[1]] = map[int]*ctaStats{}
		}
		runs[m[1]][k] = st
	}
	if len(runs) == 0 {
		return fmt.Errorf("no knee logs in %s", kneeDir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, mode := range sortedKeys(runs) {
		byK := runs[mode]
		one, ok := byK[1]
		if !ok {
			return fmt.Errorf("%s: no k=1 run to take the model's inputs from", mode)
		}
		base, err := model.Preset("k20c")
		if err != nil {
			return err
		}
		cfg, err := model.FromHeader(base, one.header)
		if err != nil {
			return err
		}
		cfg.Model.Contention = "on"
		if err := applySets(&cfg, x.sets); err != nil {
			return err
		}
		alone := one.mean()
		insts, dram := one.insts/float64(one.n), one.dram/float64(one.n)
		g := cfg.GPU
		fmt.Fprintf(stdout, "**%s-bound** (%d SMs, issue width %g, DRAM %.1f GB/s = %.1f B/cycle; CTAs of %d threads). Model inputs from k = 1: a CTA runs %.0f cycles alone, issuing %.0f warp instructions (%.3f a cycle) and moving %.0f DRAM bytes (%.2f a cycle).\n\n",
			mode, g.SMs, g.IssueWidth, g.DRAMGBps, g.DRAMBytesPerCycle(), one.threads, alone, insts, insts/alone, dram, dram/alone)
		// A second reading of the SM's throughput, from the same config: its
		// FP32 pipes (units ÷ initiation interval), the binding limit of
		// FP32-heavy code in GPGPU-Sim, where the model's gpu.issue_width
		// (the schedulers) is the limit of any instruction.
		fp := cfg
		if v, err := strconv.ParseFloat(one.header.Meta["gpgpusim.fp32_warp_insts_per_cycle"], 64); err == nil && v > 0 {
			fp.GPU.IssueWidth = v
		}
		fmt.Fprintf(stdout, "| CTAs/SM | GPGPU-Sim mean CTA cycles | × alone | model, issue width %g (schedulers) | × alone | error | model, issue width %g (FP32 pipes) | × alone | error |\n", g.IssueWidth, fp.GPU.IssueWidth)
		fmt.Fprintln(stdout, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		ks := make([]int, 0, len(byK))
		for k := range byK {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		var e, efp errStats
		simKnee, modelKnee, fpKnee := 0, 0, 0
		for _, k := range ks {
			sim := byK[k].mean()
			rw := startWatch()
			got, err := kneeModelRun(cfg, filepath.Join(dir, fmt.Sprintf("%s-k%d.trace.zst", mode, k)), k*g.SMs, one.threads, alone, insts, dram)
			if err != nil {
				return err
			}
			replayWall, replayCPU := rw.read()
			t := times[fmt.Sprintf("%s-k%d", mode, k)]
			speed = append(speed, fmt.Sprintf("| %s | %d | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f |", mode, k, t[0], t[1], byK[k].wall, byK[k].cpu, replayWall, replayCPU))
			gotFP, err := kneeModelRun(fp, filepath.Join(dir, fmt.Sprintf("%s-fp-k%d.trace.zst", mode, k)), k*g.SMs, one.threads, alone, insts, dram)
			if err != nil {
				return err
			}
			if k > 1 {
				e.add(got, sim)
				efp.add(gotFP, sim)
			}
			if fpKnee == 0 && gotFP > 1.1*alone {
				fpKnee = k
			}
			if simKnee == 0 && sim > 1.1*alone {
				simKnee = k
			}
			if modelKnee == 0 && got > 1.1*alone {
				modelKnee = k
			}
			fmt.Fprintf(stdout, "| %d | %.0f | %.2f | %.0f | %.2f | %s | %.0f | %.2f | %s |\n", k, sim, sim/alone, got, got/alone, relErr(got, sim), gotFP, gotFP/alone, relErr(gotFP, sim))
		}
		fmt.Fprintf(stdout, "\nFirst k more than 10%% slower than alone: GPGPU-Sim %s; model %s with the schedulers' width, %s with the FP32 pipes'. Over k > 1, MAPE %.1f%% (worst %+.1f%%) and %.1f%% (worst %+.1f%%).\n\n",
			kneeName(simKnee), kneeName(modelKnee), kneeName(fpKnee), e.mape(), 100*e.worstSigned, efp.mape(), 100*efp.worstSigned)
	}
	speedTable(stdout, "| run | CTAs/SM | GPGPU-Sim wall s | CPU s | gpureplay convert wall s | CPU s | model replay wall s | CPU s |", 1, speed,
		"GPGPU-Sim's seconds are the capture's (knee/times.tsv); gpureplay's are this run's, on this machine; the model replay writes and replays the k-CTA trace once (issue width of the schedulers).")
	return nil
}

func kneeName(k int) string {
	if k == 0 {
		return "none in the sweep"
	}
	return fmt.Sprintf("k = %d", k)
}

// kneeModelRun replays one kernel of n identical CTAs, all resident at
// once, with contention on, and returns the mean CTA run time.
func kneeModelRun(cfg model.Config, path string, n int, threads uint32, cycles, insts, dram float64) (float64, error) {
	out, err := trace.Create(path)
	if err != nil {
		return 0, err
	}
	c := int64(cycles + 0.5)
	recs := []trace.Record{
		&trace.Header{Version: 1, ClockMHz: cfg.GPU.ClockMHz, Source: "experiment:validation-knee", GPU: cfg.GPU.Name},
		&trace.Kernel{ID: 1, Name: "knee", Grid: [3]uint32{uint32(n), 1, 1}, Block: [3]uint32{threads, 1, 1}},
		&trace.Launch{Kernel: 1},
	}
	for i := 0; i < n; i++ {
		recs = append(recs, &trace.CTA{Kernel: 1, CTA: uint64(i), Cycles: c, Insts: uint64(insts + 0.5), DRAMBytes: uint64(dram + 0.5)})
	}
	for _, r := range recs {
		if err := out.Write(r); err != nil {
			out.Abort()
			return 0, err
		}
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		return 0, err
	}
	m := &meanRun{Sink: &kernelRows{}}
	if _, err := replay.Run(func() (trace.Source, error) { return trace.Open(path) }, replay.Options{Config: cfg, Policy: pol}, m); err != nil {
		return 0, err
	}
	return m.sum / float64(max(m.n, 1)), nil
}
