package main

import (
	"fmt"
	"io"
	"math"
)

// crcsBounds prints, under a CRCS table, the most any CTA scheduler could
// gain on each benchmark under CRCS's rules and the paper's host model,
// computed from this run's own replays.
//
// The ideal run (idealCRCS) is the as-soon-as-possible schedule: every
// CTA gets as far as its pages allow as early as they allow, so the work
// it still has after the prelude's end is left after it in any schedule
// (bounds.AfterPrelude). On the experiment's GPU that work takes at least
// its CTA-cycles over what its SMs hold at once (CTA slots, warps,
// registers, shared memory, each weighed by what a CTA holds), its warp
// instructions over the SMs' issue width, and its DRAM bytes over the
// bandwidth (the contention model's resources; a CTA alone is never
// faster than its trace says); the postlude's pages that came back after
// the prelude take their write time too. So any schedule takes at least
// the prelude plus the largest of those (the dependency-cone bound), and
// at least the ideal run's makespan; the speedup over the baseline is at
// most the baseline over the larger of the two.
//
// For 3MM the dependencies give it in closed form: G = E×F reads every
// row of F, and each row of F needs every row of D, the last of which is
// the prelude's last page; so G's CTAs cannot get past their first step,
// nor any page of G be written back, before the prelude ends, and the
// speedup is at most B / (P + K/3 + Q) for a baseline B = P + Q + K + X
// (prelude, postlude, three products of equal cost, copies and gaps). The
// paper's 1.67× then needs K ≥ (1.67·(P + Q) − (P + Q + X)) / (1 −
// 1.67/3): the line says what share of the baseline that is.
//
// For BFS, any overlap (the paper's single-kernel bound included) saves
// at most the copies and the kernels, so the speedup is at most B / (P +
// Q); the paper's overlap1 1.254× needs them to be at least 1 − 1/1.254
// of its baseline.
func crcsBounds(x *experiment, w io.Writer, outs []outcome) {
	cfg, err := x.config()
	if err != nil {
		fmt.Fprintf(w, "(no bounds: %v)\n", err)
		return
	}
	g := cfg.GPU
	base := map[string]*stats{}
	ideal := map[string]*stats{}
	var names []string
	for _, o := range outs {
		switch o.policy {
		case "baseline":
			base[o.bench.name] = o.stats
			names = append(names, o.bench.name)
		case "ideal":
			ideal[o.bench.name] = o.stats
		}
	}
	fmt.Fprintln(w, "Bounds on any CTA scheduler under CRCS's rules (cmd/experiment/crcsbounds.go): the ideal run, and the prelude plus the work the ideal run still had after it, at the GPU's throughput.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| benchmark | prelude | after it: CTAs / SM room, insts / issue width, bytes / DRAM, postlude | ideal makespan | bound on the speedup |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|")
	for _, name := range names {
		b, id := base[name], ideal[name]
		if id == nil {
			continue
		}
		a := id.AfterPrelude
		// What the SMs hold at once: CTAs, warps, registers, shared memory.
		sms := float64(g.SMs)
		slotTime := math.Max(math.Max(float64(a.CTACycles)/(sms*float64(g.MaxCTAsPerSM)), a.WarpCycles/(sms*float64(g.MaxWarpsPerSM()))),
			math.Max(a.RegCycles/(sms*float64(g.RegsPerSM)), a.SmemCycles/(sms*float64(max(g.SmemPerSM, 1)))))
		parts := []float64{
			slotTime,
			a.Insts / (float64(g.SMs) * g.IssueWidth),
			a.DRAMBytes / g.DRAMBytesPerCycle(),
			float64(a.PostludeCycles),
		}
		after := 0.0
		for _, p := range parts {
			after = math.Max(after, p)
		}
		least := math.Max(float64(b.PreludeCycles)+after, float64(id.MakespanCycles))
		fmt.Fprintf(w, "| %s | %d | %.0f, %.0f, %.0f, %.0f | %d | %.2f× |\n", name, b.PreludeCycles,
			parts[0], parts[1], parts[2], parts[3], id.MakespanCycles, float64(b.MakespanCycles)/least)
	}
	if b := base["3mm"]; b != nil {
		B, P, Q, K := float64(b.MakespanCycles), float64(b.PreludeCycles), float64(b.PostludeCycles), float64(b.KernelsCycles)
		fmt.Fprintf(w, "\n3MM: G = E×F needs every row of F, which needs the prelude's last page, so any schedule takes at least prelude + G + postlude = %.0f + %.0f + %.0f cycles: speedup ≤ %.2f× (paper 1.67×). Reaching 1.67× would need the three products to take %.0f%% of the baseline; here they take %.1f%%.\n",
			P, K/3, Q, B/(P+Q+K/3), threeMMNeed(b, 1.67), 100*K/B)
	}
	if b := base["bfs"]; b != nil {
		B, P, Q := float64(b.MakespanCycles), float64(b.PreludeCycles), float64(b.PostludeCycles)
		fmt.Fprintf(w, "BFS: any overlap saves at most the copies and kernels, %.1f%% of the baseline: speedup ≤ %.2f× (paper: overlap1 1.25×, which needs them to be ≥ %.1f%% of its baseline).\n",
			100*(B-P-Q)/B, B/(P+Q), 100*(1-1/1.254))
	}
}

// threeMMNeed is the share of the baseline, in percent, the three
// products of 3MM must take for any schedule to reach speedup (the bound
// B / (P + K/3 + Q) of crcsBounds), with b's prelude P, postlude Q and
// copies and gaps X as they are: K = (speedup·(P + Q) − (P + Q + X)) /
// (1 − speedup/3), of a baseline P + Q + X + K.
func threeMMNeed(b *stats, speedup float64) float64 {
	B, P, Q, K := float64(b.MakespanCycles), float64(b.PreludeCycles), float64(b.PostludeCycles), float64(b.KernelsCycles)
	X := B - P - Q - K
	need := (speedup*(P+Q) - (P + Q + X)) / (1 - speedup/3)
	return 100 * need / (P + Q + X + need)
}
