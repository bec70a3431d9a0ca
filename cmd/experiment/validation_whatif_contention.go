package main

import (
	"fmt"
	"path/filepath"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
)

// The contention pairs (docs/validation.md, "What-if predictions"): one
// kernel of a mixed compute and memory body
// (validation/gpgpusim/programs/contention.cu) on the knee's scaled-down
// V100 (10 SMs, 4 memory channels), run at one CTA per SM
// (-gpgpu_shader_cta 1, capture A) and at k (capture B, the same grid).
// The prediction replays A's CTAs, each measured alone on its SM, with
// gpu.max_ctas_per_sm raised to k and the contention model on: the CTAs
// that now share an SM share its issue width (the config's schedulers, 4,
// the width the knee validation reads from the same config) and all SMs
// share the DRAM bandwidth GPGPU-Sim reaches (the config's peak times
// the efficiency its DRAM model measured on one of these runs,
// dramEfficiency), each CTA asking what it asked alone (its warp
// instructions and DRAM bytes over its cycles). The pair whose run B the
// efficiency comes from is calibration; the others are held out.
func init() {
	whatIfPairs = append(whatIfPairs, contentionPairs...)
}

// contentionRests is what a contention prediction rests on.
const contentionRests = "measured cycles, warp instructions and DRAM bytes at 1 CTA/SM; the config's schedulers (issue width 4); the DRAM bandwidth GPGPU-Sim reaches (the config's peak times the efficiency measured on " + dramReachRun + ")"

// contentionAt are the settings that predict run B at k CTAs per SM.
func contentionAt(k int) []string {
	return []string{"model.contention=on", fmt.Sprintf("gpu.max_ctas_per_sm=%d", k)}
}

// contentionPair predicts capture NAME-kK from NAME-k1, with the DRAM
// bandwidth GPGPU-Sim reaches (dramEfficiency); the pair whose run B
// that is measured on is calibration.
func contentionPair(name string, k int) whatIf {
	to := fmt.Sprintf("%s-k%d", name, k)
	return whatIf{kind: "contention", from: name + "-k1", to: to, policy: "cdp",
		sets: contentionAt(k), restsOn: contentionRests, dramReach: true, calibrated: to == dramReachRun}
}

// dramReachRun is the capture GPGPU-Sim's DRAM efficiency is measured
// on: the run of one shape (256 threads, 4 FMAs a load) at the most
// CTAs per SM, its DRAM busiest.
const dramReachRun = "contention-256-f4-k8"

// dramEfficiency is the fraction of the DRAM's peak GPGPU-Sim moves while
// a channel is active, on dramReachRun: the mean of the log's dram_eff
// (each channel's data transfers over its active cycles). Row activations,
// precharges and the turnarounds between reads and write-backs take the
// rest, on real DRAM as in GPGPU-Sim's model of it; the config's
// bandwidth is the peak, which no channel sustains.
func dramEfficiency() (float64, error) {
	eff, err := gpgpusim.DRAMEfficiency(filepath.Join(validationDir, "gpgpusim", "whatif", dramReachRun+".log.xz"))
	if err != nil {
		return 0, fmt.Errorf("%w (run from the repository root)", err)
	}
	return eff, nil
}

var contentionPairs = []whatIf{
	contentionPair("contention-256-f4", 2),
	contentionPair("contention-256-f4", 4),
	contentionPair("contention-256-f4", 8),
	contentionPair("contention-128-f4", 4),
	contentionPair("contention-128-f4", 8),
	contentionPair("contention-128-f4", 16),
	contentionPair("contention-256-f16", 2),
	withWhy(contentionPair("contention-256-f16", 4), 14),
	contentionPair("contention-256-f16", 8),
	contentionPair("contention-64-f16", 8),
	withWhy(contentionPair("contention-64-f16", 16), 15),
	contentionPair("contention-64-f16", 32),
}

// withWhy holds p to tol, for the reason in dramShort.
func withWhy(p whatIf, tol float64) whatIf {
	p.tol, p.why = tol, dramShort
	return p
}

// dramShort is why the contention predictions at the DRAM knee fall
// short.
const dramShort = "the DRAM's rounded knee: the model slows the CTAs only once their demand passes the bandwidth (here the peak, 96.1 B a cycle, times the 0.913 GPGPU-Sim reaches, measured on contention-256-f4-k8), with a sharp corner; in GPGPU-Sim near the knee (demand 0.96 to 1.25 times the peak) the warps, each waiting on its load before its FMAs, queue at the channels before the demand reaches the bandwidth (about 80 B a cycle at 1.25 times), so the slowdown starts earlier and rises gradually. Far past the knee the same predictions are within 1.7%, and below it within 2.3%. The plan: a queueing delay below saturation in the contention model (a channel's waiting time growing with its utilisation), measured from the knee's GPGPU-Sim sweep and validated on these pairs; a capture at 1 CTA per SM does not measure it"
