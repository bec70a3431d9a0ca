package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gpureplay/gpureplay/samples"
)

// experiments are the papers' evaluations this command can rerun.
var experiments = map[string]*experiment{
	"dtbl":            dtblExperiment,
	"spawn":           spawnExperiment,
	"spawn-amortised": spawnAmortisedExperiment,
	"dtbl-paper":      dtblPaperExperiment,
	"spawn-paper":     spawnPaperExperiment,
	"spawn-streams":   spawnStreamsExperiment,
	"crcs":            crcsExperiment,
	"crcs-hsp":        crcsHSPExperiment,
	"crcs-stated":     crcsStatedExperiment(),

	"pagoda":         pagodaExperiment,
	"pagoda-model":   pagodaModelExperiment,
	"pagoda-host1":   pagodaHostExperiment(1),
	"pagoda-host2":   pagodaHostExperiment(2),
	"pagoda-host20":  pagodaHostExperiment(20),
	"pagoda-scaling": pagodaScaling,
	"pagoda-table5":  pagodaTable5,

	"contention-knee": kneeExperiment,

	"ties": tiesExperiment,

	"validation-gpgpusim":  validationGPGPUSim,
	"validation-knee":      validationKnee,
	"validation-accelsim":  validationAccelSim,
	"validation-whatif":    validationWhatIf,
	"validation-dtbl-fork": validationDTBLFork,
	"dtbl-fork":            dtblFork,
}

// dtblExperiment is DTBL §5 (Table 4 applications, Figure 11): flat, CDP
// and DTBL on the K20c model of DTBL Table 2, and CDP and DTBL with no
// launch latency (CDP-ideal, DTBL-ideal). The paper reports DTBL 1.21×
// over flat and 1.40× over CDP on average, CDP 1.16× slower than flat
// (0.86×), and the ideal ones 1.43× and 1.63× (§5.2 (C)). The means and
// headlines are over Table 4's applications with the inputs it pairs them
// with (at small sizes: dtbl-paper has the papers' sizes); SPAWN's
// benchmarks are averaged apart.
var dtblExperiment = &experiment{
	doc:        "DTBL §5 quick check, small graphs (dtbl-paper is the result of record): flat vs CDP vs DTBL and the zero-latency CDP-ideal and DTBL-ideal (k20c)",
	gpu:        "k20c",
	policies:   dtblPolicies,
	searches:   dtblSearches,
	benchmarks: append(slices.Clone(dtblOwn), dtblSPAWN...),
	paperMean:  dtblPaperMean,
	coverage:   dtblCoverage,
	detail:     &dtblDetail,
	extra:      dtblFindings,
	headlines:  dtblHeadlines,
	unstated:   []unstated{launchServers("0"), joinSpread},
}

// dtblWithout prints the headlines again over Table 4's benchmarks less
// one: amr, whose input neither paper sizes (DTBL Table 4 names the
// combustion simulation; its source, Dragon_li, starts from one cell of
// random value, which sets the whole refinement tree: 9 child kernels
// from the default seed's 375.7, 789 from the 5041.13 of the source's
// unseeded glibc rand()), and whose ideal speedups are the largest of
// the eight (DTBL-ideal over flat 5.63× on dtbl).
func dtblWithout(name string) func(*experiment, io.Writer, []outcome) {
	return func(x *experiment, w io.Writer, outs []outcome) {
		var rest []outcome
		for _, o := range ownOutcomes(outs) {
			if o.bench.name != name {
				rest = append(rest, o)
			}
		}
		var parts []string
		for _, v := range evalHeadlines(x.headlines, rest) {
			if v.bench != "" {
				continue // a claim about one benchmark, not a mean
			}
			inside := "outside"
			if v.inside {
				inside = "inside"
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s ±%.0f%%)", v.claim, v.format(v.ours), inside, 100*v.band))
		}
		fmt.Fprintf(w, "Without %s: %s.\n", name, strings.Join(parts, ", "))
	}
}

// dtblPolicies are the dtbl experiment's columns: DTBL §5's, and KLAP at
// its three granularities beside CDP and DTBL (klapFindings).
var dtblPolicies = []string{"flat", "inlined", "cdp", "dtbl", "klap-warp", "klap-block", "klap-kernel", "cdp-ideal", "dtbl-ideal"}

// dtblPaperMean is DTBL §5.2 (C)'s means. KLAP's paper reports its
// speedups over CDP, not over flat: klapFindings sets them beside ours.
var dtblPaperMean = map[string]string{"inlined": "—", "cdp": "0.86×", "dtbl": "1.21×", "klap-warp": "—", "klap-block": "—", "klap-kernel": "—", "cdp-ideal": "1.43×", "dtbl-ideal": "1.63×"}

// dtblOwn are DTBL Table 4's applications and inputs that have a
// generator, in §5.2's names: AMR on the combustion simulation, BFS on the
// citation network, CLR (the gc generator) on the citation network and
// graph500 logn20, JOIN on uniform and gaussian data, and SSSP on the
// citation network and cage15 (a uniform random graph of cage15's mean
// degree, 18: 99.2 M nonzeros less the 5.15 M diagonal over 5.15 M rows).
// Graph inputs are small here (2^10–2^16 vertices) so the experiment runs
// in seconds. No generator makes the USA road or flight networks, the
// cage15 input of BFS and CLR (bfs and gc offer no uniform graph), or
// BHT, REGX and PRE.
var dtblOwn = []benchmark{
	{name: "amr", gen: "amr", paper: "amr_combustion" + substituteAMR, flatParams: variantFlat},
	{name: "bfs-citation", gen: "bfs", params: []string{"graph=citation", "edgefactor=4", "scale=16", "site_threshold=32"}, paper: "bfs_citation" + substituteCitation, flatParams: variantFlat},
	{name: "clr-citation", gen: "gc", params: []string{"graph=citation", "edgefactor=4", "scale=14"}, paper: "clr_citation" + substituteCitation, flatParams: variantFlat},
	{name: "clr-graph500", gen: "gc", params: []string{"graph=kron"}, paper: "clr_graph500: DTBL 0.97×", flatParams: variantFlat},
	{name: "join-uniform", gen: "join", params: []string{"dist=uniform"}, paper: "join_uniform", flatParams: variantFlat},
	{name: "join-gaussian", gen: "join", params: []string{"dist=gaussian"}, paper: "join_gaussian", flatParams: variantFlat},
	{name: "sssp-citation", gen: "sssp", params: []string{"graph=citation", "edgefactor=4", "site_threshold=32"}, paper: "sssp_citation" + substituteCitation, flatParams: variantFlat},
	{name: "sssp-cage15", gen: "sssp", params: []string{"graph=uniform", "edgefactor=9", "site_threshold=32"}, paper: "sssp_cage15 (substitute: a uniform random graph of cage15's mean degree)", flatParams: variantFlat},
}

// The substitutes flagged in the benchmarks' paper column: inputs the
// papers name that no generator makes, and what stands for them.
const (
	substituteAMR      = " (substitute: Dragon_li's seeded initial cell for the combustion input)"
	substituteCitation = " (substitute: a Price-model citation graph for DIMACS's citation network)"
)

// dtblCoverage is how much of DTBL Table 4 dtblOwn covers: 8 of its 16
// application–input pairs.
const dtblCoverage = " (8 of Table 4's 16 pairs; no generator: BHT, REGX's two, PRE, BFS on the USA road network and cage15, CLR on cage15, SSSP on the flight network)"

// spawnInDTBL labels SPAWN's benchmarks in the dtbl experiments: DTBL's
// mechanism applies to them, but the DTBL paper has no number for them.
const spawnInDTBL = "SPAWN's benchmarks (no DTBL paper number)"

// dtblSPAWN are SPAWN's benchmarks run in the dtbl experiments, averaged
// apart from Table 4's.
var dtblSPAWN = []benchmark{
	{name: "spmm", gen: "spmm", paper: "— (SPAWN MM)", group: spawnInDTBL, flatParams: variantFlat},
	{name: "mandel", gen: "mandel", paper: "— (SPAWN Mandel)", group: spawnInDTBL, flatParams: variantFlat},
	{name: "sa", gen: "sa", paper: "— (SPAWN SA)", group: spawnInDTBL, flatParams: variantFlat},
}

// zeroLaunchLatency removes every latency of DTBL Table 3 ("Latency
// Modeling for CDP and DTBL"): stream creation, cudaGetParameterBuffer,
// cudaLaunchDevice and kernel dispatching. DTBL §5.2 (B) defines the
// ideal runs as CDP and DTBL "without modeling launching latency" ("We
// isolate the influences of scheduling strategy and launching latency by
// comparing the measurement with and without launching latency"). What
// stays: the KDE search (a cycle per Kernel Distributor entry) and the
// AGT spill loads, which are scheduling costs, not launch latency; and
// host kernels dispatch with no latency too (283 cycles each, not the
// flat baseline's), since the model has one dispatch latency for all.
var zeroLaunchLatency = []string{
	"cdp.stream_create=0", "cdp.param_b=0", "cdp.param_a=0",
	"cdp.launch_b=0", "cdp.launch_a=0", "lat.kernel_dispatch=0",
}

// dtblSearches are the dtbl experiment's columns that are a policy with
// settings: the zero-latency ones, and KLAP at each klap.granularity.
var dtblSearches = map[string]search{
	"cdp-ideal":   {policy: "cdp", sets: zeroLaunchLatency},
	"dtbl-ideal":  {policy: "dtbl", sets: zeroLaunchLatency},
	"klap-warp":   {policy: "klap", sets: []string{"klap.granularity=warp"}},
	"klap-block":  {policy: "klap", sets: []string{"klap.granularity=block"}},
	"klap-kernel": {policy: "klap", sets: []string{"klap.granularity=kernel"}},
}

// dtblDetail is launchDetail for the dtbl column (not the last, ideal one).
var dtblDetail = detail{header: launchDetail.header, cell: launchDetail.cell, policy: "dtbl"}

// thresholds is the Offline-Search grid of SPAWN §III: from launching
// every site (0) to launching none (2^40), doubling in between.
var thresholds = []string{"0", "8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096", "1099511627776"}

// spawnExperiment is SPAWN §V (Table I benchmarks, Figure 15): flat, CDP,
// the best static THRESHOLD per benchmark (Offline-Search) and SPAWN on the
// GPU of SPAWN Table II, with flat and inlined as in dtblExperiment. The paper reports SPAWN 1.69× over flat and 1.57×
// over CDP on average, within 4% of Offline-Search (§V-B), with 73% fewer
// child kernels than CDP on average per benchmark. The graph benchmarks'
// parent loops are sssp's measured one and, where none is measured, the
// premise SPAWN states for its benchmarks (spawnLoops); the scorecard
// scores sssp's at the premise beside (ssspPremise).
var spawnExperiment = &experiment{
	doc:        "SPAWN §V quick check, small graphs (spawn-paper is the result of record): flat vs CDP vs Offline-Search vs SPAWN, parent iterations measured (sssp) or at Eq. 2's premise (k20c-spawn)",
	gpu:        "k20c-spawn",
	policies:   []string{"flat", "inlined", "cdp", "offline-search", "spawn"},
	searches:   map[string]search{"offline-search": offlineSearch},
	benchmarks: withParams(spawnBenchmarks, spawnLoops),
	stated:     ssspPremise,
	paperMean:  spawnPaperMean,
	extra:      spawnFindings,
	headlines:  spawnHeadlines,
	unstated:   []unstated{launchServers("1"), joinSpread},
}

// spawnStreamsExperiment is SPAWN's Figure 8: CDP with one SWQ (stream)
// per child kernel, the way every SPAWN benchmark launches (Figure 3b
// lines 6-8: cudaStreamCreateWithFlags, then the launch into that
// stream) against one per parent CTA (§II-B: "If the application does
// not specify c_stream, each parent CTA assigns the same SWQ ID to all
// its child kernels"), through the cdp.streams what-if. The paper:
// "assigning each child kernel a unique SWQ id always performs better".
// k20c-spawn prices no stream creation (SPAWN Table II's launch latency
// has no stream term), which favours one stream per child; the grid
// holds DTBL Table 3's 7165 cycles beside it.
var spawnStreamsExperiment = &experiment{
	doc:        "SPAWN Figure 8: CDP with one stream per child kernel against one per parent CTA (cdp.streams), parent iterations measured (sssp) or at Eq. 2's premise (k20c-spawn)",
	gpu:        "k20c-spawn",
	policies:   []string{"cdp-per-cta", "cdp"},
	searches:   map[string]search{"cdp-per-cta": {policy: "cdp", key: "cdp.streams", values: []string{"cta"}}},
	benchmarks: withParams(spawnBenchmarks, spawnLoops),
	stated:     ssspPremise,
	paperMean:  map[string]string{"cdp": "> 1× on every benchmark (Figure 8)"},
	headlines:  []headline{spawnStreams},
	unstated: []unstated{launchServers("1"), {name: "cdp.stream_create", choices: []choice{
		{label: "0 (the preset's: SPAWN Table II)"},
		{label: "7165 (DTBL Table 3)", sets: []string{"cdp.stream_create=7165"}},
	}}},
}

// spawnPaperMean is SPAWN's means, by column (both SPAWN readings are
// held to the paper's one figure).
var spawnPaperMean = map[string]string{"inlined": "—", "cdp": "1.08× (1.69/1.57)", "offline-search": "SPAWN within 4%", "spawn": "1.69×", "spawn-busy": "1.69×"}

// offlineSearch is SPAWN §III's static THRESHOLD, the best per benchmark.
var offlineSearch = search{policy: "threshold", key: "launch.threshold", values: thresholds}

// eq2Premise calibrates the graph generators' parent loop on what SPAWN
// §IV-A states of its benchmarks: "Generally, the parent thread will
// perform the computation in an iterative fashion. Each iteration time is
// approximately similar to the counterpart's child warp execution time."
// bfs, sssp and gc then charge an iteration of a parent lane's neighbour
// loop (loop_cycles) one full child warp's run from their own child cost
// models: bfs 120+40+32·2 = 224 (expandBaseCycles + expandEdgeCycles +
// 32·expandGatherCycles), sssp 373+32·2 = 437 (ssspChildBaseCycles, the
// thread's prologue and edge, solved warm, + 32·ssspGatherCycles), gc
// 120+50+32·4 = 298,
// where the generators' defaults are their amortised 40–50 cycles (loads
// of successive iterations overlapping, a modelling choice no paper
// states; spawn-amortised keeps them), but for sssp, whose default, 422,
// and child costs are measured (GPGPU-Sim's runs of Dragon_li's SSSP,
// docs/calibration.md): there a parent iteration takes 0.97 of a warm
// child warp's run (422 of 437), the premise's "approximately similar"
// (0.54 of 788 while the child's costs held its code's cold start). bfs and sssp run Dragon_li's code
// here (dragonliCode), whose children are 32-thread CTAs over whole warps
// of neighbours: every child warp is full, so 224 and 437 are each child
// warp's run (sssp's plus its atomics where a lane lowers a distance), the
// values the default code's full warps gave; its 64-thread children's
// partial last warps are gone, not the premise. join's parent loop writes
// an output pair an iteration, its default two stores (40); its
// join_output child warp writes 32 pairs in 202, a CTA's base measured on
// GPGPU-Sim's run of Dragon_li's join (joinOutputChildCycles: the warp
// waits for its stores' acknowledgement). The flat codes loop the same
// way, so they take the same iteration cost, but for join's: Dragon_li's
// flat join writes its pairs through a shared cache the CTA copies out
// in rounds, at its measured trip (samples/joinstage.go), which
// loop_cycles does not set. The other generators have no loop_cycles and
// keep their own cost models.
var eq2Premise = map[string][]string{
	"bfs": {"loop_cycles=224"}, "sssp": {"loop_cycles=437"}, "gc": {"loop_cycles=298"}, "join": {"loop_cycles=202"},
}

// spawnLoops are the spawn experiments' parent loops: sssp's measured one
// (its generator default, 422: Dragon_li's own loop iteration on
// GPGPU-Sim, docs/calibration.md), the result of record, and §IV-A's
// premise (eq2Premise) for bfs, gc and join. bfs's code=dragonli loop is
// measured too now (133 cycles, Dragon_li's expand loop copying a
// neighbour id; samples/bfsdlcost.go), which spawn-amortised runs; these
// experiments keep the premise for it, as they did before it was
// measured.
var spawnLoops = func() map[string][]string {
	m := maps.Clone(eq2Premise)
	delete(m, "sssp")
	return m
}()

// ssspPremise is the premise's sssp loop (eq2Premise), scored beside the
// measured one.
var ssspPremise = &statedValue{
	label:  "sssp's parent iteration at §IV-A's premise, a warm child warp's run (437 cycles; measured: 422)",
	short:  "§IV-A's premise for sssp's loop",
	params: map[string][]string{"sssp": eq2Premise["sssp"]},
}

// spawnBenchmarks are SPAWN Table I's 13 benchmarks with the generators'
// own costs.
var spawnBenchmarks = []benchmark{
	{name: "amr", gen: "amr", paper: "AMR", flatParams: variantFlat},
	{name: "bfs-citation", gen: "bfs", params: dragonliCode("graph=citation", "edgefactor=4", "scale=14"), paper: "BFS-citation" + substituteCitation, flatParams: variantFlat},
	{name: "bfs-graph500", gen: "bfs", params: dragonliCode("scale=14"), paper: "BFS-graph500", flatParams: variantFlat},
	{name: "sssp-citation", gen: "sssp", params: dragonliCode("graph=citation", "edgefactor=4"), paper: "SSSP-citation" + substituteCitation, flatParams: variantFlat},
	{name: "sssp-graph500", gen: "sssp", params: dragonliCode("graph=kron"), paper: "SSSP-graph500", flatParams: variantFlat},
	{name: "join-uniform", gen: "join", params: []string{"dist=uniform"}, paper: "JOIN-uniform", flatParams: variantFlat},
	{name: "join-gaussian", gen: "join", params: []string{"dist=gaussian"}, paper: "JOIN-gaussian", flatParams: variantFlat},
	{name: "gc-citation", gen: "gc", params: []string{"graph=citation", "edgefactor=4", "scale=14"}, paper: "GC-citation" + substituteCitation, flatParams: variantFlat},
	{name: "gc-graph500", gen: "gc", params: []string{"graph=kron"}, paper: "GC-graph500", flatParams: variantFlat},
	{name: "mandel", gen: "mandel", paper: "Mandel", flatParams: variantFlat},
	{name: "mm-small", gen: "spmm", params: []string{"size=small"}, paper: "MM-small", flatParams: variantFlat},
	{name: "mm-large", gen: "spmm", params: []string{"size=large"}, paper: "MM-large", flatParams: variantFlat},
	{name: "sa", gen: "sa", paper: "SA-thaliana", flatParams: variantFlat},
}

// dragonliCode is params with the code SPAWN's BFS and SSSP ran: Table I
// cites for them [44] (Wang and Yalamanchili, IISWC 2014), whose code is
// Dragon_li, which the generators' code=dragonli models (samples/dragonli.go):
// a persistent 104×256 grid, a site at 32 neighbours or more (its
// CDP_THRESHOLD; site_threshold=31 in our "more than" terms) launching
// 32-thread CTAs over whole warps of its neighbours, and as the flat code
// its Reg kernel, each thread looping over all its neighbours.
func dragonliCode(params ...string) []string {
	return append(params, "code=dragonli", "site_threshold=31")
}

// spawnAmortisedExperiment is the SPAWN comparison with the generators'
// own parent loops (their amortised 40–50 cycles an iteration, where
// spawn calibrates them on Eq. 2's premise): how much the comparison rests
// on that calibration. SPAWN runs twice: with n_con averaged over the
// whole window (docs/design.md) and over the cycles a child CTA runs
// (spawn.ncon=busy), the two readings of its "average number of
// concurrent CTAs".
var spawnAmortisedExperiment = &experiment{
	doc:      "SPAWN §V with the generators' amortised parent loops; SPAWN with n_con over the window and over busy cycles (k20c-spawn)",
	gpu:      "k20c-spawn",
	policies: []string{"flat", "inlined", "cdp", "offline-search", "spawn", "spawn-busy"},
	searches: map[string]search{
		"offline-search": offlineSearch,
		"spawn-busy":     {policy: "spawn", key: "spawn.ncon", values: []string{"busy"}},
	},
	benchmarks: spawnBenchmarks,
	paperMean:  spawnPaperMean,
	extra:      spawnFindings,
	headlines:  withRestsOn(spawnHeadlines, spawnRestsOn, spawnAmortisedRestsOn),
	unstated:   []unstated{launchServers("1"), joinSpread},
}

// spawnFindings prints how many child kernels SPAWN launched against CDP
// and how close it came to the best static threshold on each benchmark.
func spawnFindings(x *experiment, w io.Writer, outs []outcome) {
	cdp, best, flat := column(outs, "cdp"), column(outs, "offline-search"), column(outs, "flat")
	own := ownOutcomes(outs)
	if len(best) > 0 {
		fmt.Fprintf(w, "Child kernels launched by Offline-Search (each benchmark's best threshold): %d, %.1f%% fewer than CDP on average per benchmark (%.0f%% pooled).\n",
			sumKernels(best), fewerKernels("offline-search", "cdp")(own), fewerPooled("offline-search", "cdp")(own))
	}
	for _, name := range []string{"spawn", "spawn-busy"} {
		if sp := column(outs, name); len(sp) > 0 {
			fmt.Fprintf(w, "Child kernels: %s %.1f%% fewer than CDP on average per benchmark, the paper's measure (73%%); %.1f%% pooled.\n",
				name, fewerKernels(name, "cdp")(own), fewerPooled(name, "cdp")(own))
			spawnColumnFindings(w, name, benchNames(outs, name), sp, cdp, best, flat)
			spawnGapAcross(w, x, name)
		}
	}
}

// spawnColumnFindings prints one SPAWN column's findings.
func spawnColumnFindings(w io.Writer, name string, names []string, sp, cdp, best, flat []*stats) {
	cdpKernels, spKernels := sumKernels(cdp), sumKernels(sp)
	worst, within := 0.0, 0
	for i := range sp {
		gap := float64(sp[i].MakespanCycles)/float64(best[i].MakespanCycles) - 1
		worst = max(worst, gap)
		if gap <= 0.15 {
			within++
		}
	}
	label := "SPAWN"
	if name != "spawn" {
		label = "SPAWN (" + name + ")"
	}
	fmt.Fprintf(w, "Child kernels launched: %s %d, CDP %d.\n", label, spKernels, cdpKernels)
	fmt.Fprintf(w, "%s within 15%% of Offline-Search on %d of %d benchmarks; largest gap %.0f%% (paper: within 4%% on average, §V-B).\n", label, within, len(sp), 100*worst)
	blindFindings(w, label, names, sp, cdp, best)
	floorFindings(w, label, names, sp, cdp, best, flat)
}

// crcsExperiment is the CRCS paper's §5.2 (Table 2 workloads, Figure 9):
// the non-overlapped baseline, the state-of-the-art bound (overlap1),
// CRCS with the FIFO CTA scheduler and CRCS with PPCS, on the GPGPU-Sim
// GPU of Table 1 with the §5.1 host model (SSD 500 MB/s, PCIe 15.75 GB/s,
// 4 KB pages). The paper reports CRCS+PPCS 1.33× on average (up to 1.67×),
// PPCS up to 40% (14% overall) over FIFO, and the bound of the state of
// the art at 11%.
var crcsExperiment = &experiment{
	doc:      "CRCS §5.2: baseline vs overlap1 vs CRCS (FIFO) vs CRCS+PPCS on the Table 2 pipelines (gk110-64)",
	gpu:      "gk110-64",
	sets:     []string{"io.model=stages"},
	policies: []string{"baseline", "overlap1", "crcs", "ppcs", "ideal"},
	searches: map[string]search{"ideal": idealCRCS},
	benchmarks: []benchmark{
		{name: "hsp", gen: "hotspot", params: []string{"kernel_cost=" + samples.HotspotMeasuredKernelCost}, paper: "HSP: FIFO 1.10×, PPCS 1.50×"},
		{name: "lpc", gen: "laplace", paper: "LPC: FIFO 1.20×, PPCS 1.39×"},
		{name: "conv", gen: "conv", paper: "CONV: FIFO 1.10×, PPCS 1.51×"},
		{name: "3mm", gen: "3mm", paper: "3MM: PPCS 1.67×, FIFO ~5% higher"},
		{name: "path", gen: "pathfinder", paper: "PATH: 1.04× (95% prelude)"},
		{name: "stn", gen: "stencil3d", paper: "STN: little (over-conservative ranges)"},
		{name: "bfs", gen: "bfs-levels", paper: "BFS: overlap1 1.25×; CRCS = PPCS (irregular)"},
	},
	paperMean: map[string]string{"overlap1": "1.11× (its bound, §5.2)", "crcs": "—", "ppcs": "1.33×", "ideal": "—"},
	detail:    &stallDetail,
	extra:     crcsBounds,
	headlines: crcsHeadlines,
	stated:    hspShares,
}

// hspShares is HSP's kernel cost at CRCS §5.3's stated kernel shares
// (samples.HotspotStatedKernelCost: the kernels take 9.0% of the baseline
// with 5 kernels and 66% with 100), scored beside the one GPGPU-Sim
// measured (samples.HotspotMeasuredKernelCost), the result of record
// (docs/calibration.md).
var hspShares = &statedValue{
	label:  "HSP's kernel cost at §5.3's kernel shares (kernel_cost " + samples.HotspotStatedKernelCost + "; measured: " + samples.HotspotMeasuredKernelCost + ")",
	short:  "§5.3's HSP kernel shares",
	params: map[string][]string{"hotspot": {"kernel_cost=" + samples.HotspotStatedKernelCost}},
}

// crcsStatedExperiment is crcs with HSP at CRCS §5.3's stated kernel
// shares (hspShares) instead of GPGPU-Sim's measured kernel cost: the
// whole table under the stated value the scorecard scores beside the
// record's. It prints the table only.
func crcsStatedExperiment() *experiment {
	x := crcsExperiment.withStated()
	x.doc = "CRCS §5.2 as crcs, with HSP at §5.3's stated kernel shares instead of GPGPU-Sim's measured kernel cost (gk110-64)"
	x.headlines, x.extra = nil, nil
	return x
}

// idealCRCS is the bound on any CTA scheduler under CRCS's rules: CRCS
// with SMs and Kernel Distributor entries for every CTA and kernel at
// once (traces of up to 1024 kernels of up to 4096 CTAs each), no contention, no pre-profiler or L1 flush. Every CTA then starts
// as soon as its pages pass and finishes its own cycles later (the
// as-soon-as-possible schedule), which no scheduler on a real GPU can
// beat; its speedup over the 64-SM baseline bounds FIFO and PPCS.
var idealCRCS = search{policy: "crcs", sets: []string{
	// SMs that each hold a whole kernel of up to 4096 CTAs (one kernel
	// an SM under CRCS), for up to 1024 kernels at once; registers for
	// 255 a thread, the most ptxas gives (model's range).
	"gpu.sms=1024", "gpu.max_ctas_per_sm=4096", "gpu.max_threads_per_sm=4194304",
	"gpu.regs_per_sm=1069547520", "gpu.smem_per_sm=1099511627776", "gpu.max_kernels=1024",
	"model.contention=off", "crcs.profile_cycles=0", "crcs.l1_flush=0",
}}

// crcsHSPExperiment is the CRCS paper's sensitivity study (§5.3, Figure
// 12): HSP with 5 to 100 iterations, so the kernels' share of the run grows.
var crcsHSPExperiment = &experiment{
	doc:      "CRCS §5.3: HSP speedups as the iterations (kernels) grow from 5 to 100 (gk110-64)",
	gpu:      "gk110-64",
	sets:     []string{"io.model=stages"},
	policies: []string{"baseline", "overlap1", "crcs", "ppcs", "ideal"},
	searches: map[string]search{"ideal": idealCRCS},
	benchmarks: []benchmark{
		{name: "hsp-5", gen: "hotspot", params: []string{"iterations=5"}, paper: "PPCS 1.51×, overlap1 1.07× (§5.3)"},
		{name: "hsp-10", gen: "hotspot", params: []string{"iterations=10"}, paper: "PPCS 1.50×, FIFO 1.10× (§5.2)"},
		{name: "hsp-20", gen: "hotspot", params: []string{"iterations=20"}, paper: "Figure 12: between"},
		{name: "hsp-50", gen: "hotspot", params: []string{"iterations=50"}, paper: "Figure 12: between"},
		{name: "hsp-100", gen: "hotspot", params: []string{"iterations=100"}, paper: "PPCS 1.26×, overlap1 1.02× (§5.3)"},
	},
	paperMean: map[string]string{},
	detail:    &stallDetail,
	extra:     crcsBounds,
}

// stallDetail is the CRCS experiments' columns: the baseline's runtime
// breakdown (the prelude's and the kernels' share of its makespan, what
// Figure 11 and §5.3 state and each generator's kernel cost is calibrated
// to), and how long the last policy's CTAs sat on their SMs waiting for
// pages, summed over CTAs.
var stallDetail = detail{
	header: "baseline prelude / kernels | CTA stall cycles (%s)",
	cell: func(base, st *stats) string {
		return fmt.Sprintf("%s / %s | %d", share(base.PreludeCycles, base.MakespanCycles), share(base.KernelsCycles, base.MakespanCycles), st.StallCycles)
	},
	policy: "ppcs",
}

// share is part of whole as a percentage, one decimal.
func share(part, whole int64) string {
	if whole == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// pagodaBenchmarks are Pagoda Table 3's benchmarks plus its
// multi-programmed mix (MPE), 32K tasks of 128 threads each (§6.2) but
// SLUD's 273K (Table 3; 279,552 = 273·1024, as 32K is 32,768), with the
// task costs of record (pagodaWork).
var pagodaBenchmarks = withParams([]benchmark{
	{name: "mb", gen: "tasks", params: []string{"kind=mandelbrot", "count=32768"}, paper: "MB: GeMTC < HyperQ (irregular)"},
	{name: "fb", gen: "tasks", params: []string{"kind=filterbank", "count=32768"}, paper: "FB"},
	{name: "bf", gen: "tasks", params: []string{"kind=beamformer", "count=32768"}, paper: "BF"},
	{name: "conv", gen: "tasks", params: []string{"kind=conv", "count=32768"}, paper: "CONV"},
	{name: "dct", gen: "tasks", params: []string{"kind=dct", "count=32768"}, paper: "DCT: low (copy bound)"},
	{name: "mm", gen: "tasks", params: []string{"kind=matmul", "count=32768"}, paper: "MM"},
	{name: "slud", gen: "tasks", params: []string{"kind=slud", "count=279552"}, paper: "SLUD (no GeMTC version)", notUnder: []string{"gemtc"}},
	{name: "3des", gen: "tasks", params: []string{"kind=3des", "count=32768"}, paper: "3DES: GeMTC < HyperQ (irregular)"},
	{name: "mpe", gen: "tasks", params: []string{"kind=mixed", "count=32768"}, paper: "MPE"},
}, pagodaWork)

// pagodaWork are the Pagoda experiments' task costs: the tasks
// generator's work=measured, MM's and DCT's costs as fitted to GPGPU-Sim
// runs of the CUDA SDK codes Pagoda ran (docs/calibration.md), the result
// of record, and the other kinds', which nothing measured, scaled to
// Table 3's copy shares at the experiments' 11 GB/s.
var pagodaWork = map[string][]string{"tasks": {"work=measured"}}

// table3Work is MM's and DCT's task costs scaled to Table 3's copy
// shares as the other kinds' are (work=table3), scored beside the
// measured ones.
var table3Work = &statedValue{
	label:  "MM's and DCT's task costs scaled to Table 3's copy shares (×1.64 and ×1.02; measured: unscaled)",
	short:  "Table 3's shares for MM and DCT",
	params: map[string][]string{"tasks": {"work=table3"}},
}

// pagodaCopies are the Pagoda experiments' copies at
// 11 GB/s, a pinned host-to-device rate measured on a Titan X over
// PCIe 3.0 ×16 (a reader of NVIDIA's "How to Optimize Data Transfers in
// CUDA C/C++", forums.developer.nvidia.com/t/148400). Copies still
// overlap other tasks' kernels: Fig. 1a's cudaMemcpy runs beside the
// resident MasterKernel, which a copy on CUDA's legacy default stream
// would wait for forever, so the paper's build used per-thread default
// streams (docs/experiments.md).
var pagodaCopies = []string{"io.pcie_gbps=11"}

// pagodaSets is everything the Pagoda experiments set: the copies' rate
// and the host, pagodaHosts' first (table3host.go): §6.1's quad-core on
// four threads, Fig. 1a's synchronous cudaMemcpy, and the per-call cost
// Table 3 allows that host.
var pagodaSets = append(slices.Clone(pagodaCopies), pagodaHosts[0].sets()...)

// pagodaExperiment is Pagoda §6.2 (Figure 5): HyperQ, GeMTC and Pagoda on
// the Maxwell Titan X with 32K tasks of 128 threads. The paper reports
// Pagoda 1.51× over HyperQ and 1.69× over GeMTC (geometric means).
var pagodaExperiment = &experiment{
	doc:        "Pagoda §6.2: HyperQ vs GeMTC vs Pagoda on 32K narrow tasks, the host Table 3 allows: 4 spawning threads, synchronous copies at 11 GB/s (titanx)",
	gpu:        "titanx",
	sets:       pagodaSets,
	policies:   []string{"hyperq", "gemtc", "pagoda"},
	benchmarks: pagodaBenchmarks,
	paperMean:  map[string]string{"gemtc": "0.89× (1.51/1.69)", "pagoda": "1.51×"},
	detail:     &occupancyDetail,
	extra:      pagodaBounds,
	headlines:  pagodaHeadlines,
	unstated:   []unstated{pagodaHostGrid()},
	stated:     table3Work,
}

// pagodaModelExperiment is the same comparison with the tasks' costs
// unscaled (the tasks generator's work=model): the per-warp cost model
// alone, against which pagoda's Table 3 calibration (the generator's
// default, at the experiments' 11 GB/s) can be read.
var pagodaModelExperiment = &experiment{
	doc:        "Pagoda §6.2 with the cost model's task costs, not scaled to Table 3 (titanx)",
	gpu:        "titanx",
	sets:       pagodaSets,
	policies:   []string{"hyperq", "gemtc", "pagoda"},
	benchmarks: withParams(pagodaBenchmarks, map[string][]string{"*": {"work=model"}}),
	paperMean:  map[string]string{"gemtc": "0.89× (1.51/1.69)", "pagoda": "1.51×"},
	detail:     &occupancyDetail,
}

// pagodaHostExperiment is the comparison with the host's API calls on
// threads threads instead of the experiments' four, at the same per-call
// cost: the sensitivity of every runtime to the host. One thread is
// docs/design.md's default host; twenty the Xeon node's cores.
func pagodaHostExperiment(threads int) *experiment {
	return &experiment{
		doc:        fmt.Sprintf("Pagoda §6.2 on %d host threads (titanx)", threads),
		gpu:        "titanx",
		sets:       append(slices.Clone(pagodaSets), fmt.Sprintf("lat.host_threads=%d", threads)),
		policies:   []string{"hyperq", "gemtc", "pagoda"},
		benchmarks: pagodaBenchmarks,
		paperMean:  map[string]string{"gemtc": "0.89× (1.51/1.69)", "pagoda": "1.51×"},
		detail:     &occupancyDetail,
	}
}

// withParams returns bs with extra generator parameters: extra[gen] on
// each benchmark of that generator, extra["*"] on every one. A parameter
// the benchmark already sets takes the extra value instead.
func withParams(bs []benchmark, extra map[string][]string) []benchmark {
	out := make([]benchmark, len(bs))
	for i, b := range bs {
		b.params = mergeParams(b.params, append(slices.Clone(extra["*"]), extra[b.gen]...))
		out[i] = b
	}
	return out
}

// pagodaScaling is Pagoda §6.2's weak scaling (Figure 6): the mixed
// benchmark from 32 to 32K tasks. The paper finds HyperQ and GeMTC
// competitive below about 512 tasks, Pagoda ahead beyond.
var pagodaScaling = &experiment{
	doc:      "Pagoda §6.2 weak scaling: 32 to 32K mixed tasks, the host Table 3 allows: 4 spawning threads, synchronous copies at 11 GB/s (titanx)",
	gpu:      "titanx",
	sets:     pagodaSets,
	policies: []string{"hyperq", "gemtc", "pagoda"},
	benchmarks: withParams([]benchmark{
		{name: "mpe-32", gen: "tasks", params: []string{"kind=mixed", "count=32"}, paper: "Figure 6"},
		{name: "mpe-128", gen: "tasks", params: []string{"kind=mixed", "count=128"}, paper: "Figure 6"},
		{name: "mpe-512", gen: "tasks", params: []string{"kind=mixed", "count=512"}, paper: "Figure 6: Pagoda ahead from here"},
		{name: "mpe-2k", gen: "tasks", params: []string{"kind=mixed", "count=2048"}, paper: "Figure 6"},
		{name: "mpe-8k", gen: "tasks", params: []string{"kind=mixed", "count=8192"}, paper: "Figure 6"},
		{name: "mpe-32k", gen: "tasks", params: []string{"kind=mixed", "count=32768"}, paper: "Figure 6"},
	}, pagodaWork),
	paperMean: map[string]string{},
	detail:    &occupancyDetail,
	extra:     pagodaBounds,
}

// occupancyDetail is the task experiments' column: the last policy's
// average occupancy (executor warps busy with task work, for Pagoda).
var occupancyDetail = detail{
	header: "occupancy (%s)",
	cell:   func(_, st *stats) string { return fmt.Sprintf("%.1f%%", 100*st.AvgOccupancy) },
}
