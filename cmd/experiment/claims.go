package main

import (
	"math"
	"slices"
)

// The papers' claims each experiment is scored against (headlines.go), with
// the sentences they come from. Every workload cost behind them is a
// hand-set constant in samples/ until measured workloads replace them, so
// each claim's restsOn names the stated inputs and the invented costs.

// dtblHeadlines are DTBL §5.2 (C)'s averages over the flat
// implementations: "As CDPI and DTBLI decrease control flow divergence
// and increases memory efficiency, they achieve average 1.43x and 1.63x
// ideal speedup respectively. However the non-trivial overhead of kernel
// launching negates the CDP performance gain, which results in an average
// of 1.16x slow down from the flat implementations. DTBL, on the other
// hand, shows an average of 1.21x speedup over the flat implementation
// and 1.40x over the CDP". The ideal ones are held to ±20%, the rest to
// ±30% (issue 16). And one benchmark's: "Two benchmarks have slow down
// instead of speedup: clr_graph500 (0.97x) and regx_string (0.95x)".
var dtblHeadlines = []headline{
	{claim: "DTBL over flat", source: "§5.2 (C)", lo: 1.21, unit: "×", band: 0.30, value: speedupOf("dtbl", "flat"), restsOn: dtblRestsOn},
	{claim: "DTBL over CDP", source: "§5.2 (C)", lo: 1.40, unit: "×", band: 0.30, value: speedupOf("dtbl", "cdp"), restsOn: dtblRestsOn, bound: dtblOverCDPBound},
	{claim: "CDP over flat", source: "§5.2 (C): 1.16× slower", lo: 1 / 1.16, unit: "×", band: 0.30, value: speedupOf("cdp", "flat"), restsOn: dtblRestsOn, bound: cdpOverFlatBound},
	{claim: "CDP-ideal over flat", source: "§5.2 (C)", lo: 1.43, unit: "×", band: 0.20, value: speedupOf("cdp-ideal", "flat"), restsOn: dtblIdealRestsOn},
	{claim: "DTBL-ideal over flat", source: "§5.2 (C)", lo: 1.63, unit: "×", band: 0.20, value: speedupOf("dtbl-ideal", "flat"), restsOn: dtblIdealRestsOn},
	{claim: "clr_graph500: DTBL over flat", source: "§5.2 (C)", lo: 0.97, unit: "×", band: 0.30, value: speedupOf("dtbl", "flat"), bench: "clr-graph500",
		restsOn: "invented: gc's costs (samples/gccost.go); stated: Table 3's latencies, a Kronecker graph"},
}

const (
	// dragonliMeasured is what the Dragon_li generators' measured costs
	// are, and how far the captures they were not fitted on stay from them.
	dragonliMeasured = "join's search step and its flat code's staged loop, a warp instruction's issue and join_gather's first-wave queues, DRAM service an atom and request loop, a kernel's cold start, amr's sub-cell, look and energy (GPGPU-Sim runs of Dragon_li, docs/calibration.md; held out, the captures' other CTAs: sssp on 128- and 2,048-vertex R-MAT graphs its relaxation kernels 0.94× (1.02× as Reg) and 1.03× (1.02× as Reg), children 0.97× and each relaxation's atomics 0.95× to 1.02×, join's other kernels 0.83× to 1.07× and at 30,720 keys with launches its children's CTAs 0.95×, its gather kernel 1.15× and makespan 0.97× (1.07× and 0.93× at 46,080), its flat code's at 38,400 makespan 1.06×, amr's launching CTAs 0.30× to 0.43× and AmrReg's CTAs of several looping warps 0.24× to 0.78×)"
	dtblRestsOn      = "measured: sssp's per-operation costs, " + dragonliMeasured + "; invented: the other workload costs (samples/*cost.go); stated: Table 2's GPU, Table 3's latencies, Table 4's inputs (sizes in dtbl-paper)"
	dtblIdealRestsOn = "measured: sssp's per-operation costs, " + dragonliMeasured + "; invented: the other workload costs (samples/*cost.go); stated: Table 2's GPU, Table 4's inputs (sizes in dtbl-paper)"
)

// spawnGap is SPAWN's gap to Offline-Search, which the blind floors
// bound from below (spawnfloor.go). §V-B states it: "Note that, SPAWN is
// able to achieve within 4% of the Offline-Search's performance." (§I
// says "within 6%"; Figure 15's bars imply about 2.5%.) It is held to
// the evaluation's 4%: any gap up to 4% (SPAWN faster included) is the
// paper's, and the band reaches 5.2%.
var spawnGap = headline{claim: "SPAWN's gap to Offline-Search", source: "§V-B: within 4%", lo: math.Inf(-1), hi: 4, unit: "%", band: 0.30,
	value: gapTo("spawn", "offline-search"), restsOn: spawnRestsOn, bound: gapBound("spawn")}

// spawnHeadlines are SPAWN's: "SPAWN outperforms the flat (non-DP)
// implementations by 69% on average", "an average speedup of 57%" over
// the baseline DP (CDP) (§I), the gap to Offline-Search (spawnGap), "With
// SPAWN, the number of child kernels launched significantly reduces (by
// 73% on average)" (§V-B, of Figure 18's per-benchmark counts: a mean
// over the benchmarks, fewerKernels), and Observation 4's two ends: "All
// the other benchmarks gain significant (8.6× in SA-thaliana) to modest
// (4% in Join-Gaussian) performance improvements by offloading parts of
// their computational workloads to child kernels" (§III-A2, Figure 5:
// over flat, the best threshold that offloads anything). JOIN-gaussian's
// 4% is scored as a gain in percent, so its band is ±30% of the 4%.
var spawnHeadlines = []headline{
	{claim: "SPAWN over flat", source: "§I", lo: 1.69, unit: "×", band: 0.30, value: speedupOf("spawn", "flat"), restsOn: spawnRestsOn},
	{claim: "SPAWN over CDP", source: "§I", lo: 1.57, unit: "×", band: 0.30, value: speedupOf("spawn", "cdp"), restsOn: spawnRestsOn},
	spawnGap,
	{claim: "child kernels: SPAWN fewer than CDP, mean per benchmark", source: "§V-B", lo: 73, unit: "%", band: 0.30, value: fewerKernels("spawn", "cdp"), restsOn: spawnRestsOn},
	{claim: "SA-thaliana: best offloading threshold over flat", source: "§III Obs. 4", lo: 8.6, unit: "×", band: 0.30, value: offloadSpeedup("offline-search", "flat"), bench: "sa",
		restsOn: "invented: sa's costs and genome (samples/sacost.go, sagenome.go); stated: Table II's GPU"},
	{claim: "JOIN-gaussian: gain of the best offloading threshold over flat", source: "§III Obs. 4", lo: 4, unit: "%", band: 0.30, value: offloadGain("offline-search", "flat"), bench: "join-gaussian",
		restsOn: "measured: join's search step and its flat code's staged loop, a warp instruction's issue and join_gather's first-wave queues, DRAM service an atom and request loop, a kernel's cold start, join_main's registers (docs/calibration.md; held out: join's other kernels 0.83× to 1.07× and at 30,720 keys with launches its children's CTAs 0.95×, its gather kernel 1.15× and makespan 0.97× (1.07× and 0.93× at 46,080), its flat code's at 38,400 makespan 1.06× of the capture); invented: join's other costs and keys (samples/joincost.go, joinmergecost.go); stated: Table II's GPU"},
}

const spawnRestsOn = "measured: sssp's per-operation costs and parent loop (422 cycles a trip; §IV-A's premise scored beside), " + bfsDragonliMeasured + ", " + dragonliMeasured + "; invented: the other workload costs (samples/*cost.go); stated: Table II's GPU, §IV-A's parent loop premise for bfs, gc and join (their own loops in spawn-amortised: bfs's measured, gc's and join's amortised), DIMACS sizes (spawn-paper)"

// spawnAmortisedRestsOn is what spawn-amortised's means rest on: the
// generators' own parent loops, invented but for sssp's.
const spawnAmortisedRestsOn = "measured: sssp's per-operation costs and parent loop, " + bfsDragonliMeasured + " and parent loop (133 cycles a trip), " + dragonliMeasured + "; invented: the other workload costs (samples/*cost.go), gc's and join's parent loops amortised (40–50 cycles a trip); stated: Table II's GPU"

// bfsDragonliMeasured is what the spawn experiments' BFS (code=dragonli)
// rests on: its costs measured on GPGPU-Sim's runs of Dragon_li's
// testBfs, fitted on one out-tree and held out on another
// (docs/calibration.md).
const bfsDragonliMeasured = "bfs's per-operation costs (Dragon_li's expand-contract BFS; held out on a 400-edge out-tree, its makespans 0.95× as Reg and 0.97× as CDP)"

// withRestsOn is hs with every restsOn old replaced by new.
func withRestsOn(hs []headline, old, new string) []headline {
	out := slices.Clone(hs)
	for i := range out {
		if out[i].restsOn == old {
			out[i].restsOn = new
		}
	}
	return out
}

// spawnStreams is SPAWN §III-A's Figure 8 claim: "We compare these two
// mechanisms in Figure 8, and observe that assigning each child kernel a
// unique SWQ id always performs better." Its bars are not given as
// numbers, so it is held one-sided on every benchmark: the least speedup
// of one stream per child over one per parent CTA is at least 1.
var spawnStreams = headline{claim: "one stream per child over one per parent CTA, least over the benchmarks", source: "§III-A, Figure 8: always better",
	lo: 1, hi: math.Inf(1), unit: "×", band: 0, value: leastSpeedup("cdp", "cdp-per-cta"), restsOn: spawnRestsOn}

// leastSpeedup is the least speedup of column num over column den over
// the benchmarks: what a claim that one "always performs better" needs.
func leastSpeedup(num, den string) func([]outcome) float64 {
	return func(own []outcome) float64 {
		a, b := column(own, num), column(own, den)
		least := math.Inf(1)
		for i := range b {
			if i < len(a) && a[i].MakespanCycles > 0 {
				least = min(least, float64(b[i].MakespanCycles)/float64(a[i].MakespanCycles))
			}
		}
		return least
	}
}

// offloadSpeedup is the geometric-mean speedup over column den of column
// num's best run that launched a child kernel (outcome.offload); NaN
// where no run of num launched one.
func offloadSpeedup(num, den string) func([]outcome) float64 {
	return func(own []outcome) float64 {
		var off []outcome
		for _, o := range own {
			if o.policy == num {
				if o.offload == nil {
					return math.NaN()
				}
				o.stats = o.offload
			}
			off = append(off, o)
		}
		return geoSpeedup(off, num, den)
	}
}

// gainOf is the geometric-mean speedup of column num over column den as
// a gain in percent.
func gainOf(num, den string) func([]outcome) float64 {
	return func(own []outcome) float64 { return 100 * (geoSpeedup(own, num, den) - 1) }
}

// offloadGain is offloadSpeedup as a gain in percent.
func offloadGain(num, den string) func([]outcome) float64 {
	speedup := offloadSpeedup(num, den)
	return func(own []outcome) float64 { return 100 * (speedup(own) - 1) }
}

// crcsHeadlines are the CRCS paper's (§5.2): "While the state-of-the-art
// was bounded by 11% speedup, combining CRCS with PPCS resulted in an
// overall speedup of 33% (up to 67%). PPCS resulted in up to 40% (14%
// overall) higher performance compared to the FIFO scheduler", and 3MM's
// "the PPCS resulted in 67% speedup over baseline", which needs the three
// products to be a share of the baseline that the run's own prelude,
// postlude and copies set (threeMMNeed); the paper's Figure 11 breakdown
// has no number for it. overlap1 is §5.2's "performance bound of the
// state-of-the-art that only overlaps a single kernel", and "bounded by
// 11%" its overall speedup, as 33% is CRCS+PPCS's: a value, not a side.
// It is held, as a gain in percent like JOIN-gaussian's 4%, to ±30% of
// 11% (7.7% to 14.3%), which a run with no speedup does not meet.
var crcsHeadlines = []headline{
	{claim: "CRCS+PPCS over baseline", source: "§5.2", lo: 1.33, unit: "×", band: 0.30, value: speedupOf("ppcs", "baseline"), restsOn: crcsRestsOn},
	{claim: "PPCS over FIFO", source: "§5.2: 14% overall", lo: 1.14, unit: "×", band: 0.30, value: speedupOf("ppcs", "crcs"), restsOn: crcsRestsOn},
	{claim: "overlap1 (the prior art's bound) over baseline: gain", source: "§5.2: bounded by 11%", lo: 11, unit: "%", band: 0.30, value: gainOf("overlap1", "baseline"), restsOn: crcsRestsOn},
	{claim: "3MM: the products' share of the baseline, as PPCS's 1.67× needs", source: "§5.2", hi: math.Inf(1), unit: "%", band: 0.30,
		value: baselineShare, implied: threeMMNeedOf, bench: "3mm",
		restsOn: "measured: the products' costs (GPGPU-Sim's mm3_kernel1 at 256 on the CRCS-shaped GPU, docs/calibration.md; held out, 3mm-128 on the Kepler Titan: 2.31×); stated: Table 2's 256×256 matrices, §5.1's host"},
}

const crcsRestsOn = "invented: LPC's, CONV's, STN's, BFS's kernel costs (samples/*.go); measured (GPGPU-Sim, docs/calibration.md): 3MM's and PATH's kernel costs (held out: 3MM on the Kepler Titan 2.31×; PATH: none captured), HSP's per-operation costs and kernel cost (0.49, on the Kepler Titan, none held out; §5.3's kernel shares scored beside); stated: Table 1's GPU, §5.1's host, Table 2's sizes"

// baselineShare is the kernels' share of the baseline run, in percent.
func baselineShare(own []outcome) float64 {
	b := column(own, "baseline")
	if len(b) != 1 || b[0].MakespanCycles == 0 {
		return math.NaN()
	}
	return 100 * float64(b[0].KernelsCycles) / float64(b[0].MakespanCycles)
}

// threeMMNeedOf is threeMMNeed of the baseline run, in percent.
func threeMMNeedOf(own []outcome) float64 {
	b := column(own, "baseline")
	if len(b) != 1 {
		return math.NaN()
	}
	return threeMMNeed(b[0], 1.67)
}

// pagodaHeadlines are Pagoda's geometric means (§6.2, Figure 5; the
// conclusion: "Pagoda achieves a geometric mean speedup of 1.51x over
// CUDA-HyperQ, 1.69x over GeMTC"), held to ±20% as pagodabounds.go's
// band lines are.
var pagodaHeadlines = []headline{
	{claim: "Pagoda over HyperQ", source: "§6.2", lo: paperPagodaOverHyperQ, unit: "×", band: 0.20, value: speedupOf("pagoda", "hyperq"), restsOn: pagodaRestsOn, bound: pagodaBound("hyperq")},
	{claim: "Pagoda over GeMTC", source: "§6.2", lo: paperPagodaOverGeMTC, unit: "×", band: 0.20, value: speedupOf("pagoda", "gemtc"), restsOn: pagodaRestsOn, bound: pagodaBound("gemtc")},
}

const pagodaRestsOn = "measured: MM's and DCT's task costs (GPGPU-Sim runs of the CUDA SDK codes, docs/calibration.md; held out: the inverse DCT -4.0%; MM: none captured; Table 3's scaling scored beside); invented: the other kinds' per-warp task costs (samples/taskscost.go), scaled to Table 3's copy shares; stated: Table 3's copy shares, Titan X, 32K tasks, §6.1's quad-core; derived from Table 3: the host's per-call cost (table3host.go); measured elsewhere: 11 GB/s copies"
