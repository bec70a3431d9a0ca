package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/study"
)

// validationWhatIf checks what the replay exists for: a prediction of a
// run nobody captured. Each pair is one program simulated two ways in
// GPGPU-Sim; the replay converts run A, predicts run B with the what-if's
// settings or policy, and run B is the answer. docs/validation.md, "What-if
// predictions".
var validationWhatIf = &experiment{
	doc:    "ground truth for predictions: GPGPU-Sim capture A replayed as run B (another policy, setting or stream), against GPGPU-Sim's run B",
	custom: runValidationWhatIf,
}

// whatIf is one pair: capture from predicts capture to under policy with
// sets. calibrated marks a pair some constant of the model was set from;
// the others are held out. The makespan error is held to whatIfTolerance
// (TestValidationWhatIf), or to tol where why names the mechanism that
// the model leaves out.
type whatIf struct {
	kind, from, to string
	policy         string
	sets           []string
	restsOn        string
	calibrated     bool
	tol            float64
	why            string
}

// whatIfTolerance is the makespan error a prediction is held to, in
// percent: the bar of issue 52, which GCoM's 10.0% mean error against
// Accel-Sim sets for a fast model.
const whatIfTolerance = 10.0

// tolerance is the pair's bound on its makespan error, in percent.
func (p whatIf) tolerance() float64 {
	if p.tol > 0 {
		return p.tol
	}
	return whatIfTolerance
}

// whatIfPairs are the committed pairs (validation/gpgpusim/README.md says
// how each capture was made). No constant of the model was fitted on
// them: each is a held-out check.
var whatIfPairs = []whatIf{
	{kind: "device streams", from: "cdpstreams-default", to: "cdpstreams-created", policy: "cdp", sets: []string{"cdp.streams=child"},
		restsOn: "measured cycles; -cdp_latency's stream creation"},
	{kind: "device streams", from: "cdpstreams-default-w4", to: "cdpstreams-created-w4", policy: "cdp", sets: []string{"cdp.streams=child"},
		restsOn: "measured cycles; -cdp_latency's stream creation"},
	{kind: "device streams", from: "cdpstreams-created", to: "cdpstreams-default", policy: "cdp", sets: []string{"cdp.streams=cta"},
		restsOn: "measured cycles"},
	{kind: "device streams", from: "cdpstreams-created-w4", to: "cdpstreams-default-w4", policy: "cdp", sets: []string{"cdp.streams=cta"},
		restsOn: "measured cycles"},
	{kind: "CDP → flat", from: "balanced-cdp", to: "balanced-flat", policy: "flat",
		restsOn: "measured cycles; the importer's inline_cycles (estimate)", tol: 250, why: flatSpread},
	{kind: "CDP → flat", from: "skewed-cdp", to: "skewed-flat", policy: "flat",
		restsOn: "measured cycles; the importer's inline_cycles (estimate)", tol: 300, why: flatSpread},
	{kind: "CDP → flat", from: "nested-cdp", to: "nested-flat", policy: "flat",
		restsOn: "measured cycles; the importer's inline_cycles (estimate)", tol: 110, why: flatSpread},
	{kind: "launch latency", from: "cdp", to: "cdp-lat0", policy: "cdp", sets: []string{"lat.kernel_dispatch=1"},
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdp-lat0", to: "cdp", policy: "cdp", sets: []string{"lat.kernel_dispatch=5001"},
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpmulti", to: "cdpmulti-lat0", policy: "cdp", sets: []string{"lat.kernel_dispatch=1"},
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpmulti-lat0", to: "cdpmulti", policy: "cdp", sets: []string{"lat.kernel_dispatch=5001"},
		restsOn: "measured cycles", tol: 13,
		why: "GPGPU-Sim's stream manager hands out one stream's head a cycle, round-robin (stream_manager::front, src/stream_manager.cc:330-369 at 667834cf), and a kernel's -gpgpu_kernel_launch_latency counts down only in the cycles its stream is handed out (stream_operation::do_operation, lines 158-173), so with n device kernels waiting out -gpgpu_kernel_launch_latency each waits about n times as long; the replay gives every kernel lat.kernel_dispatch. A simulator artefact: a GPU's grid management unit is not documented to serialise launch countdowns."},
}

// flatSpread is why the CDP -> flat pairs are off.
const flatSpread = "the importer's inline_cycles is one lane running the child's warps one after another (SPAWN's and DTBL's flat codes, where the launching thread loops over its own workload), but this flat twin spreads the child's threads over all 128 threads of the parent CTA, so the launching warp does a quarter of it and the CTA's other warps the rest. The plan: an inline rule calibrated on part of these pairs (issue 52 item 4), with the flat code's spread as the trace's to state."

// whatIfDirs are where the captures are looked for, in order.
var whatIfDirs = []string{"captures", "whatif"}

func runValidationWhatIf(x *experiment, dir string, stdout, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "| kind | capture A | predicts B | how | GPGPU-Sim B cycles | predicted | error | kernel spans: MAPE | rests on | role |")
	fmt.Fprintln(stdout, "|---|---|---|---|---:|---:|---:|---:|---|---|")
	var held errStats
	for _, p := range whatIfPairs {
		a, err := whatIfCapture(dir, p.from)
		if err != nil {
			return err
		}
		b, err := whatIfCapture(dir, p.to)
		if err != nil {
			return err
		}
		cfg, err := study.CapturedConfig(a.trace)
		if err != nil {
			return err
		}
		if err := applySets(&cfg, append(slices.Clone(x.sets), p.sets...)); err != nil {
			return fmt.Errorf("%s -> %s: %w", p.from, p.to, err)
		}
		st, kernels, err := replayFile(cfg, p.policy, a.trace)
		if err != nil {
			return fmt.Errorf("%s under %s: %w", p.from, p.policy, err)
		}
		// Kernel spans pair up where B ran the same kernels (same ids and
		// names): a what-if that keeps the launches.
		var spans errStats
		for _, k := range kernels {
			m, ok := b.measured[k.KernelID]
			if !ok || m.Name != a.measured[k.KernelID].Name {
				continue
			}
			spans.add(float64(k.EndCycle-k.StartCycle), float64(b.ends[k.KernelID]-m.Start))
		}
		mape := "—"
		if len(spans.abs) > 0 {
			mape = fmt.Sprintf("%.1f%%", spans.mape())
		}
		role := "held out"
		if p.calibrated {
			role = "calibration"
		} else {
			held.add(float64(st.MakespanCycles), float64(b.end))
		}
		how := "--policy=" + p.policy
		for _, s := range p.sets {
			how += " --set " + s
		}
		fmt.Fprintf(log, "%s -> %s: predicted %d, GPGPU-Sim %d\n", p.from, p.to, st.MakespanCycles, b.end)
		fmt.Fprintf(stdout, "| %s | %s | %s | `%s` | %d | %d | %s | %s | %s | %s |\n", p.kind, p.from, p.to, how, b.end, st.MakespanCycles,
			relErr(float64(st.MakespanCycles), float64(b.end)), mape, p.restsOn, role)
	}
	fmt.Fprintf(stdout, "\nHeld-out pairs: %d, makespan MAPE %.1f%%, worst %+.1f%%. Each prediction replays capture A with --gpu=captured (A's measured CTA cycles, the config's latencies, contention off) and the what-if's settings; B's cycles are GPGPU-Sim's last CTA end. Each error is held to %.0f%% (go test ./cmd/experiment -run WhatIf), except:\n\n",
		len(held.abs), held.mape(), 100*held.worstSigned, whatIfTolerance)
	for _, p := range whatIfPairs {
		if p.why != "" {
			fmt.Fprintf(stdout, "- %s -> %s, held to %.0f%%: %s\n", p.from, p.to, p.tolerance(), p.why)
		}
	}
	return nil
}

// whatIfCapture converts the committed capture name into dir.
func whatIfCapture(dir, name string) (simRun, error) {
	for _, d := range whatIfDirs {
		p := filepath.Join(validationDir, "gpgpusim", d, name+".log.xz")
		if _, err := os.Stat(p); err == nil {
			return convertCapture(p, dir)
		}
	}
	return simRun{}, fmt.Errorf("no capture %s in validation/gpgpusim/{%s} (run from the repository root)", name, strings.Join(whatIfDirs, ","))
}
