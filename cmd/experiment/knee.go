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
	"github.com/gpureplay/gpureplay/tables"
	"github.com/gpureplay/gpureplay/trace"
)

// kneeExperiment validates the contention model on a microbenchmark: one
// kernel whose CTAs all fit at once, at 1 to 16 CTAs per SM, for a CTA
// that asks one warp instruction per cycle (issue-bound past
// gpu.issue_width CTAs per SM) and one that moves 4 bytes per cycle
// (DRAM-bound past dram bytes per cycle ÷ (SMs × 4) CTAs per SM). The CTA
// run time must stay at its cycles up to the knee and grow in proportion
// to the demand after it.
var kneeExperiment = &experiment{
	doc:    "contention model: CTA run time against CTAs per SM for an issue-bound and a DRAM-bound CTA (k20c)",
	gpu:    "k20c",
	custom: runKnee,
}

// kneeProfile is one CTA shape of the sweep.
type kneeProfile struct {
	name             string
	insts, dramBytes int64 // per cycle alone
}

var kneeProfiles = []kneeProfile{{"issue", 1, 0}, {"dram", 0, 4}}

const (
	kneeCycles  = 10000 // each CTA's time alone
	kneeThreads = 128   // 4 warps: 16 CTAs fill a K20c SMX's 2048 threads
)

func runKnee(x *experiment, dir string, stdout, log io.Writer) error {
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
	g := cfg.GPU
	perCycle := g.DRAMBytesPerCycle()
	fit, _ := g.CTAsPerSM(kneeThreads, 0, 0)
	fmt.Fprintf(stdout, "GPU %s: %d SMs, issue width %g, DRAM %g GB/s = %.1f bytes/cycle; CTAs of %d threads, %d cycles alone; %s\n\n",
		g.Name, g.SMs, g.IssueWidth, g.DRAMGBps, perCycle, kneeThreads, kneeCycles, x.model())
	fmt.Fprintln(stdout, "| CTAs/SM | occupancy | issue-bound run/alone | predicted | DRAM-bound run/alone | predicted |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|---:|---:|")
	for n := 1; n <= fit; n++ {
		occ := float64(n*kneeThreads/model.WarpSize) / float64(g.MaxWarpsPerSM())
		fmt.Fprintf(stdout, "| %d | %.0f%% |", n, 100*occ)
		for _, p := range kneeProfiles {
			name := fmt.Sprintf("knee-%s-%d", p.name, n)
			path := filepath.Join(traces, name+".trace.zst")
			if err := writeKneeTrace(path, g, n, p); err != nil {
				w.Abort()
				return err
			}
			run, err := kneeRun(cfg, path, name, w)
			if err != nil {
				w.Abort()
				return fmt.Errorf("%s: %w", name, err)
			}
			// Processor sharing: n CTAs per SM ask n·insts of the issue
			// width, and n·SMs·bytes of the bandwidth.
			want := max(1, float64(n)*float64(p.insts)/g.IssueWidth, float64(n*g.SMs)*float64(p.dramBytes)/perCycle)
			fmt.Fprintf(stdout, " %.3f | %.3f |", run/kneeCycles, want)
			fmt.Fprintf(log, "%s: mean CTA run %.0f cycles\n", name, run)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "\nknees: issue-bound at %g CTAs/SM (issue width ÷ 1 instruction per cycle), DRAM-bound at %.2f CTAs/SM (%.1f bytes per cycle ÷ (%d SMs × 4 bytes))\n",
		g.IssueWidth, perCycle/float64(4*g.SMs), perCycle, g.SMs)
	return w.Close()
}

// writeKneeTrace writes one kernel of n CTAs per SM, all at once, at the
// GPU's own clock (no rescaling).
func writeKneeTrace(path string, g model.GPU, n int, p kneeProfile) error {
	out, err := trace.Create(path)
	if err != nil {
		return err
	}
	ctas := uint64(n * g.SMs)
	recs := []trace.Record{
		&trace.Header{Version: 1, ClockMHz: g.ClockMHz, Source: "experiment:contention-knee", GPU: g.Name},
		&trace.Kernel{ID: 1, Name: "knee_" + p.name, Grid: [3]uint32{uint32(ctas), 1, 1}, Block: [3]uint32{kneeThreads, 1, 1}},
		&trace.Launch{Kernel: 1},
	}
	for _, r := range recs {
		if err := out.Write(r); err != nil {
			out.Abort()
			return err
		}
	}
	for i := uint64(0); i < ctas; i++ {
		c := &trace.CTA{Kernel: 1, CTA: i, Cycles: kneeCycles, Insts: uint64(p.insts * kneeCycles), DRAMBytes: uint64(p.dramBytes * kneeCycles)}
		if err := out.Write(c); err != nil {
			out.Abort()
			return err
		}
	}
	return out.Close()
}

// kneeRun replays one trace under cdp and returns the mean CTA run time.
func kneeRun(cfg model.Config, path, name string, w *results.Writer) (float64, error) {
	pol, err := policies.New("cdp", cfg)
	if err != nil {
		return 0, err
	}
	w.Begin(tables.Run{Trace: name, Policy: "cdp"})
	m := &meanRun{Sink: w}
	st, err := replay.Run(func() (trace.Source, error) { return trace.Open(path) }, replay.Options{Config: cfg, Policy: pol}, m)
	if err != nil {
		return 0, err
	}
	w.Summary(st.Summary(cfg.GPU.Name, st.MakespanCycles))
	return m.sum / float64(m.n), nil
}

// meanRun passes rows on and averages the CTAs' run times.
type meanRun struct {
	tables.Sink
	sum float64
	n   int
}

func (m *meanRun) CTA(c tables.CTA) {
	m.sum += float64(c.EndCycle - c.StartCycle)
	m.n++
	m.Sink.CTA(c)
}

// model says whether the run had the contention model on.
func (x *experiment) model() string {
	for _, s := range x.sets {
		if strings.TrimSpace(s) == "model.contention=off" {
			return "model.contention=off"
		}
	}
	return "model.contention=on"
}
