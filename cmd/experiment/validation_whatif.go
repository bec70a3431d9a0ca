package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/gpgpusim"
	"github.com/gpureplay/gpureplay/internal/grfile"
	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/trace"
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
	inline         string // the importer's inline option for capture A ("lane" when empty)
	once           bool   // convert A with cta_once measured (ctaOnce)
	loop           bool   // convert A with cta_once and loop_share measured on Dragon_li (loopRule)
	calibrated     bool
	tol            float64
	why            string
	// dramReach: predict with the DRAM bandwidth GPGPU-Sim reaches, the
	// peak times the efficiency measured on dramReachRun (contention
	// pairs), rather than the peak.
	dramReach bool
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

// launchLatency is GPGPU-Sim's -gpgpu_kernel_launch_latency l as the
// model's keys, as the importer records it (convert/gpgpusim,
// streammgr.go): l cycles on the GPU before the first CTA and the
// cycle after (lat.kernel_dispatch), and before that, for a device
// kernel, l+1 services of the stream manager (lat.stream_countdown), at
// SM7_QV100's 1,751 passes per 1000 cycles (lat.stream_passes, which a
// capture at latency 0 does not record). docs/model.md, "The
// simulator's stream manager".
func launchLatency(l int64) []string {
	return []string{
		"lat.kernel_dispatch=" + strconv.FormatInt(l+1, 10),
		"lat.stream_countdown=" + strconv.FormatInt(l, 10),
		"lat.stream_passes=1751",
	}
}

// cdpLatency2x and cdpLatencyHalf are -cdp_latency 14400,16000,200,24000,3200
// and 3600,4000,50,6000,800 (GPGPU-Sim's default ×2 and ×0.5) as the
// model's keys, in the simulator's cycles (the captures set
// cdp.clock_mhz 0).
var (
	cdpLatency2x   = []string{"cdp.stream_create=14400", "cdp.param_b=16000", "cdp.param_a=200", "cdp.launch_b=24000", "cdp.launch_a=3200"}
	cdpLatencyHalf = []string{"cdp.stream_create=3600", "cdp.param_b=4000", "cdp.param_a=50", "cdp.launch_b=6000", "cdp.launch_a=800"}
)

// flatRestsOn is what a CDP → flat prediction of our own programs rests
// on.
const flatRestsOn = "measured cycles; the importer's inline_cycles (the parent CTA sharing the child's work, each CTA less its once-only cycles)"

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
		restsOn: flatRestsOn, inline: "cta", once: true, calibrated: true},
	{kind: "CDP → flat", from: "skewed-cdp", to: "skewed-flat", policy: "flat",
		restsOn: flatRestsOn, inline: "cta", once: true},
	{kind: "CDP → flat", from: "nested-cdp", to: "nested-flat", policy: "flat",
		restsOn: flatRestsOn, inline: "cta", once: true},
	{kind: "CDP → flat", from: "balanced-c8-cdp", to: "balanced-c8-flat", policy: "flat",
		restsOn: flatRestsOn, inline: "cta", once: true, calibrated: true},
	{kind: "CDP → flat", from: "skewed-s4-cdp", to: "skewed-s4-flat", policy: "flat",
		restsOn: flatRestsOn, inline: "cta", once: true},
	{kind: "CDP → flat", from: "nested-c4-cdp", to: "nested-c4-flat", policy: "flat",
		restsOn: flatRestsOn, inline: "cta", once: true},
	{kind: "machine shape", from: "balanced-cdp", to: "balanced-cdp-sm40", policy: "cdp", sets: []string{"gpu.sms=40"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "balanced-cdp", to: "balanced-cdp-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "balanced-cdp-sm20", to: "balanced-cdp", policy: "cdp", sets: []string{"gpu.sms=80"},
		restsOn: "measured cycles"},
	// Within 5% since the replay runs GPGPU-Sim's stream manager (issue
	// 74): -12.8% and -17.2% before; +10.1% and +5.8% while its blocked
	// heads left the countdown's passes to the others (countdown.go).
	{kind: "machine shape", from: "cdpmulti", to: "cdpmulti-sm40", policy: "cdp", sets: []string{"gpu.sms=40"},
		restsOn: "measured cycles", tol: 5},
	{kind: "machine shape", from: "cdpmulti", to: "cdpmulti-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles", tol: 5},
	{kind: "machine shape", from: "skewed-cdp", to: "skewed-cdp-sm40", policy: "cdp", sets: []string{"gpu.sms=40"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "skewed-cdp", to: "skewed-cdp-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "nested-cdp", to: "nested-cdp-sm40", policy: "cdp", sets: []string{"gpu.sms=40"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "nested-cdp", to: "nested-cdp-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "balanced-flat", to: "balanced-flat-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles"},
	{kind: "machine shape", from: "nested-flat", to: "nested-flat-sm20", policy: "cdp", sets: []string{"gpu.sms=20"},
		restsOn: "measured cycles"},
	{kind: "CDP latency", from: "nested-cdp", to: "nested-cdp-cdplat2x", policy: "cdp", sets: cdpLatency2x,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "CDP latency", from: "nested-cdp", to: "nested-cdp-cdplat05x", policy: "cdp", sets: cdpLatencyHalf,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "launch latency", from: "nested-cdp", to: "nested-cdp-launch2500", policy: "cdp", sets: launchLatency(2500),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "nested-cdp", to: "nested-cdp-launch10000", policy: "cdp", sets: launchLatency(10000),
		restsOn: "measured cycles"},
	{kind: "CDP latency", from: "balanced-cdp", to: "balanced-cdp-cdplat2x", policy: "cdp", sets: cdpLatency2x,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "CDP latency", from: "balanced-cdp", to: "balanced-cdp-cdplat05x", policy: "cdp", sets: cdpLatencyHalf,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "CDP latency", from: "cdpstreams-default", to: "cdpstreams-default-cdplat05x", policy: "cdp", sets: cdpLatencyHalf,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "CDP latency", from: "cdpstreams-created", to: "cdpstreams-created-cdplat05x", policy: "cdp", sets: cdpLatencyHalf,
		restsOn: "measured cycles; -cdp_latency"},
	{kind: "launch latency", from: "balanced-cdp", to: "balanced-cdp-launch2500", policy: "cdp", sets: launchLatency(2500),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "balanced-cdp", to: "balanced-cdp-launch10000", policy: "cdp", sets: launchLatency(10000),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpstreams-default", to: "cdpstreams-default-lat0", policy: "cdp", sets: launchLatency(0),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpstreams-created-w4", to: "cdpstreams-created-w4-lat0", policy: "cdp", sets: launchLatency(0),
		restsOn: "measured cycles"},
	{kind: "device streams", from: "cdpstreams-default-lat0", to: "cdpstreams-created-lat0", policy: "cdp", sets: []string{"cdp.streams=child"},
		restsOn: "measured cycles; -cdp_latency's stream creation"},
	{kind: "device streams", from: "cdpstreams-created-w4-lat0", to: "cdpstreams-default-w4-lat0", policy: "cdp", sets: []string{"cdp.streams=cta"},
		restsOn: "measured cycles"},
	{kind: "concurrency", from: "streams-sm20-cks0", to: "streams-sm20-maxk1", policy: "cdp", sets: []string{"gpu.max_kernels=1"},
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdp", to: "cdp-lat0", policy: "cdp", sets: launchLatency(0),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdp-lat0", to: "cdp", policy: "cdp", sets: launchLatency(5000),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpmulti", to: "cdpmulti-lat0", policy: "cdp", sets: launchLatency(0),
		restsOn: "measured cycles"},
	{kind: "launch latency", from: "cdpmulti-lat0", to: "cdpmulti", policy: "cdp", sets: launchLatency(5000),
		restsOn: "measured cycles"},
	{kind: "CDP → flat", from: "dragonli-sssp-sample-cdp", to: "dragonli-sssp-sample-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn},
	{kind: "CDP → flat", from: "dragonli-sssp-rmat7-cdp", to: "dragonli-sssp-rmat7-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, tol: 15, why: dragonliSiblings},
	{kind: "CDP → flat", from: "dragonli-sssp-tree-cdp", to: "dragonli-sssp-tree-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, calibrated: true},
	{kind: "CDP → flat", from: "dragonli-bfs-tree-cdp", to: "dragonli-bfs-tree-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, calibrated: true},
	{kind: "CDP → flat", from: "dragonli-sssp-rmat11-cdp", to: "dragonli-sssp-rmat11-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, tol: 30, why: dragonliSiblings},
	{kind: "CDP → flat", from: "dragonli-sssp-rmat9-cdp", to: "dragonli-sssp-rmat9-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, tol: 39, why: dragonliNewGraphs},
	{kind: "CDP → flat", from: "dragonli-sssp-uniform9-cdp", to: "dragonli-sssp-uniform9-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, tol: 54, why: dragonliNewGraphs},
	{kind: "CDP → flat", from: "dragonli-sssp-tree3-cdp", to: "dragonli-sssp-tree3-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn, tol: 15, why: dragonliBFSWarpLoop},
	{kind: "CDP → flat", from: "dragonli-bfs-tree3-cdp", to: "dragonli-bfs-tree3-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn},
	{kind: "CDP → flat", from: "dragonli-join-38400-cdp", to: "dragonli-join-38400-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn},
	{kind: "CDP → flat", from: "dragonli-join-30720-cdp", to: "dragonli-join-30720-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn},
	{kind: "CDP → flat", from: "dragonli-bfs-tree400-cdp", to: "dragonli-bfs-tree400-reg", policy: "flat", inline: "loop", loop: true,
		restsOn: dragonliRestsOn},
	{kind: "CDP → flat", from: "dragonli-amr-cdp", to: "dragonli-amr-reg", policy: "flat", inline: "levels",
		restsOn: "measured cycles; the importer's inline=levels (each launch depth a host kernel of its children's measured CTAs, after a device sync, as AmrReg's host loop)", tol: 85, why: dragonliAMRLevels},
}

// dragonliRestsOn is what the Dragon_li CDP → flat pairs rest on. Its Reg
// code gives a vertex's edges to the thread that holds the vertex, which
// loops over them one at a time (ssspRegDevice.h:72-90, bfsRegDevice.h:70-74
// at gtcasl/dragon_li 1397e03), where the CDP code launches a child of one
// thread an edge (ssspCdpDevice.h:73-102, ssspCdpThread.h:19-38;
// bfsCdpDevice.h:73-97): the importer's inline=loop, read from the code,
// with a Kepler CTA's once-only cycles and a lone thread's share of its
// warp's time measured on two of the pairs (loopRule).
const dragonliRestsOn = "measured cycles; the importer's inline_cycles (the launching thread looping over the child's threads, as Dragon_li's Reg code does: each its warp's time past a CTA's once-only cycles, at a lone thread's share)"

// dragonliNewGraphs is why the SSSP CDP → flat predictions miss on the
// graphs captured only to test them: the two parts dragonliSiblings
// names on rmat11, split by TestDragonliNewInputsDecomposition.
const dragonliNewGraphs = "on graphs captured only to test this prediction (rmat.py 9 12 2 and uniform.py 512 32 3; validation/gpgpusim/whatif/README.md) the same two parts as on rmat11 (TestDragonliNewInputsDecomposition). On rmat9 the first relaxation +124,059 cycles (the source's lane priced at 435,613 where B loops its 465 edges in 311,554, 670 an edge), the second −568,651 (166,808 against 735,459: B's frontier of 184 vertices, CTA 0's warp of 1,890 edges issues 1,267 group iterations of its diverged lanes, 580 cycles each, 0.87× the lone lane's edge, where its longest lane holds 183 edges), the other four −109,546, the host's part −6. On the uniform graph (degrees 14 to 54) every relaxation after the first is short, −1,186,075 in all (the second 258,538 against 671,535: B's CTA 0 warp of 1,011 edges issues 791 group iterations, 849 cycles each, 0.88× its lone lane's 966, where its longest lane holds 45), the first −1,564, the host's part −11. The sssp generator, which runs the Reg loop from the graph, predicts B's relaxation kernels at 1.01× (rmat9) and 1.06× (uniform) (TestSSSPHeldOutNewInputs)"

// dragonliBFSWarpLoop is why the BFS and SSSP CDP → flat predictions
// on the three-level tree miss, now that a lane beside its warp's other
// looping lanes pays their accesses at the load/store unit
// (loop_accesses): the root's lone lane priced long, the lower levels'
// children short an edge.
const dragonliBFSWarpLoop = "inline=loop prices a lane among its warp's looping lanes at its lone share and, for each further lane, loop_accesses cycles an edge: the accesses its Reg loop's memory instructions that send one a lane add at the SM's load/store unit, which sends one a cycle and holds the warp's instruction while others remain (\"m_icnt->push(mf); inst.accessq_pop_back();\", ldst_unit::memory_cycle, src/gpgpu-sim/shader.cc:2284-2306 at 667834cf); 2 for BFS (bfsRegDevice.h:70-74 at 1397e03: the neighbour's id and its store at the lane's own frontier offset) and 5 for SSSP (ssspRegDevice.h:72-90), counted on the code, not fitted. A rerun of B that counts each memory instruction's accesses (validation/gpgpusim/whatif, dragonli-sssp-tree3-reg-ldst) shows an SSSP iteration sending 165 accesses for 32 lanes and 7 for a lone lane, five of its instructions an access a lane, where B's 32-lane step is 155 cycles over its lone lane's 949 (1,104): 5·31 = 155 (TestTree3RegLoopAccesses); BFS's 32-lane warps take 1.31× its lone lane's 172 cycles an edge, 1.7 a further lane where the rule gives 2. On the three-level tree (tree.py 200 40x140 20x260, captured only to test this prediction) BFS is then −4.6%: the first expand, the root's lane looping over 200 edges alone, is predicted long, +4,119 cycles (38,512 against 34,393: 193 an edge against B's 172; +4,114 and +9,441 on the earlier trees, where it leaves tree400 at +8.7%), and the two expands whose lanes loop as a warp short, −2,352 (29,148 against 31,500) and −8,810 (42,248 against 51,058): A's children of the lower levels, the same 128-thread CTAs over a vertex's first 128·⌊n/128⌋ edges (bfsCdpDevice.h:75-96, the lane looping over the rest itself, lines 99-103), take 368 to 427 cycles where the root's child takes 515, so the rule prices their edges at about 0.74× the root's where B's lanes take more (TestDragonliNewInputsDecomposition). SSSP on the same tree (−14.1%) shows the same parts: the root's lane +2,414 (192,218 against 189,804) and the warps of looping lanes −43,086 and −42,981 (111,446 against 154,532 and 204,920 against 247,901), where B's 32-lane step is the rule's; its third relaxation's 20 looping lanes each ran alone in its warp in B (5,400 lone-lane iterations in the rerun: the root's 200 and 20 × 260), so what is left there is the lower levels' children's cycles an edge. Under loop_crowd, the rule loop_accesses replaces (a lone lane's share grown by 0.0044 a further lane, fitted on the calibration trees' 4-lane warps: 4.2 cycles a further lane for SSSP where its unit takes 5), the BFS pair was −14.9% and the SSSP pair −15.9%. The generators predict B from the graph: bfs's makespan 1.03× (TestBFSHeldOutTree3), sssp's relaxation kernels 1.01× (TestSSSPHeldOutNewInputs)"

// dragonliSiblings is why the Dragon_li SSSP CDP → flat predictions on
// R-MAT graphs miss: the importer prices a launching lane as if it looped
// alone and the replay runs a warp's lanes side by side, where the Reg
// kernel's diverged lanes run their loops in turn (the SIMT stack
// reconverges them only after the loop); and a child CTA's cycles
// include its siblings' sharing of the frontier counter.
// TestDragonliRmat11Decomposition holds its rmat11 numbers to the
// captures and the graph.
const dragonliSiblings = "inline=loop charges each child thread 0.452·(its CTA's cycles − 135) (measured on the two tree pairs) as a lane looping alone, and loop_accesses cycles for each other lane of its warp's launch (5 for the Reg SSSP loop's five memory instructions that send an access a lane, which the SM's load/store unit sends one a cycle: counted, not fitted), and the replay runs a warp's launching lanes side by side; in Dragon_li's Reg kernel a warp's diverged lanes run their loops in turn. The loop body returns on frontier overflow (ssspRegDevice.h:84-85 at 1397e03), so its lowering branches (the distance test, the atomicMin's result and the overflow test, ssspRegDevice.h:79, 82 and 84: PTX lines 180, 184 and 189 of the run's testSssp-reg.1.sm_35.ptx) reconverge only after the loop (line 201), as GPGPU-Sim prints in the Reg captures' logs, and where some of a warp's lanes lower and others do not, the simulator's SIMT stack runs one group to the loop's end, then the other (simt_stack::update, src/abstract_hardware_model.cc:1046-1183 at 667834cf). On rmat11 the prediction is off by −1,280,599 cycles (3,180,461 against 4,461,060): by relaxation kernel, the first +1,153,366 (2,179,727 against 1,026,361), the second −2,073,671 (395,124 against 2,468,795), the other six −360,286 (604,182 against 964,468), the host's part −8 (the gaps between kernels, as in B's own replay). The first is the price of an edge: both runs relax the source's 1,576 edges, B's lone lane takes 651 an edge, and the source's child (49 one-warp CTAs, a median 3,235 cycles beside its siblings on the one frontier counter: every thread appends what it lowers through an atomicAdd, ctaOutputAssignment.h:61-63, and A's child lowers 1,451 times where B's loop lowers 565) is priced at 1,384 an edge. The second is not more work: A's second relaxation relaxes 160,640 edges in its 979 children (its frontier holds the source's 565 neighbours 1,451 times), against B's 25,700 edges. It is SIMT: B's 565 vertices fill three CTAs, CTA 0 takes 2,468,795 cycles, and its first warp holds 32 lanes of 5,478 edges, its longest lane's 527; relaxed from the graph in the Reg code's order, that warp issues 4,547 group iterations, 543 cycles each, where B's lone lane takes 651 an edge, against 4,685 cycles an iteration of its longest lane. The same count gives rmat7's (250 group iterations, 638 cycles each against its lone lane's 663, its longest lane 53) and the tree's (150, 964 against 949: its 4 looping lanes lower every edge and never split). Capture A cannot give the split: which of a warp's lanes lower at each edge is in neither its log nor its order (A's children relax an edge a thread, its parents' lanes fewer than 32), and a warp's launching lanes priced in turn (their sum) would put rmat11's second relaxation at 2,115,494 and its third at 871,964 (B's 564,219), and the tree's second at 350,758 (B's 144,629, its lanes never split), so the importer keeps the lanes side by side, each charged only what a lane beside others adds at the load/store unit (loop_accesses); the sssp generator runs the Reg loop so from the graph, every warp of the grid at once (dlLoops, samples/ssspdlorder.go), and so predicts B from the graph and no capture: its relaxation kernels come to 1.02× B's (4,538,915 cycles against 4,459,624), the first 1.01×, the second 1.03× (held out, TestSSSPHeldOutRmat11Reg). On rmat7 the same two: the source's child (4 CTAs, a median 2,065 cycles) is priced 33% long (122,732 against 92,150), the second relaxation 50% short (79,842 against 159,490), the next three within 2%, the last 1,339 cycles against 1,202. Pricing a child CTA as if alone on its SM makes rmat11 worse: the captures' LIVENESS lines show every child CTA of the tree, sample, rmat7, tree400, join and amr captures alone on its SM (one kernel an SM at a time, -gpgpu_concurrent_kernel_sm 0), and on rmat11 only the source's child (a mean 3.79 CTAs resident) and the 166 children of 15 and 16 CTAs shared one; the source's child's cycles divided by that residency put rmat11 at −71.4% (the held-out CDP → flat MAPE 14.0% to 18.1%), the median of its function's lone CTAs (531) at −76.4% (both measured before a lane's crowding was priced)"

// dragonliAMRLevels is why the Dragon_li AMR CDP → flat prediction
// (inline=levels) falls short: B does work A never did, and does its
// sub-cells in a loop where A's children run them in lanes.
const dragonliAMRLevels = "inline=levels gives AmrReg's shape, one host kernel a refinement level after a cudaDeviceSynchronize (amrReg.h:35-85 at gtcasl/dragon_li 1397e03), but not its work. B's fourth kernel (291,255 of its 510,353 cycles) has level 3's 2,995 refining cells each write level 4's 32 values, which AmrCdp's level-3 children claim but, at refineLevel 4, launch no kernel to compute (amrCdpThread.h:95-96): A's levels have nothing for it. And B's refining thread computes its 32 sub-cells one after another (amrRegDevice.h:110-115), where A's child computes them in 32 lanes (amrCdpThread.h:38-44): B's first kernel, the start cell's 32, takes 49,775 cycles against A's level-1 child's 6,352. The predicted levels take 4,918 (the host kernel), 6,352, 4,913 and 10,326 cycles against B's 49,775, 46,589, 59,974 and 291,255: a level is A's CTAs of that depth side by side, each its own work past its launch stalls, where B's thread loops over the 32 sub-cells A's child runs in lanes. Level 2 took 83,113 cycles, and the pair −67.3%, while the importer gave each launch of the 32 same-named level-2 kernels (a launch's line names the parent's function and CTA: validation/gpgpusim/whatif/README.md, AMR) to the oldest of them: some took two sites and others none, whose spans kept their stalls; it now gives it to the first of them to finish (convert/gpgpusim, siblings.go), one site each, and A's own replay went from +8.0% to −0.1%. The plan: a level form whose depth-d kernel is depth d−1's parents looping over their children's threads (AmrReg's own form: inline=levels with inline=loop's pricing)"

// onceRuns are the two runs of one kernel at two amounts of work per CTA
// that cta_once is measured from: cdpbalanced's child, whose threads run
// ITERS dependent FMAs, at ITERS 300 and 200.
var onceRuns = [2]struct {
	capture, kernel string
	iters           int64
}{{"balanced-cdp", "_Z5childPfii", 300}, {"balanced-c8-cdp", "_Z5childPfii", 200}}

// ctaOnce measures the cycles a CTA pays once, whatever its work: the
// intercept of the child kernel's median CTA cycles against its work per
// thread, from onceRuns (an input of the capture's, not a fit to a flat
// run: docs/calibration.md).
func ctaOnce(dir string) (int64, error) {
	var med [2]int64
	for i, r := range onceRuns {
		c, err := whatIfCapture(dir, r.capture, gpgpusim.DefaultOptions())
		if err != nil {
			return 0, err
		}
		if med[i], err = medianCTACycles(c.trace, r.kernel); err != nil {
			return 0, err
		}
	}
	perIter := float64(med[0]-med[1]) / float64(onceRuns[0].iters-onceRuns[1].iters)
	return med[0] - int64(math.Round(perIter*float64(onceRuns[0].iters))), nil
}

// loopRuns are the pairs a lone thread's time is measured on (loopRule):
// Dragon_li's SSSP and BFS on the out-tree whose root has 200 edges
// (dragonli-tree-200-4x150.gr). In A the root's child (its first device
// kernel) runs one edge a thread; in B the Reg kernel's CTA that holds the
// root (its first expand kernel's longest CTA) loops over the 200 edges
// in one thread.
var loopRuns = [2]struct {
	pair, graph, regKernel string
}{
	{"dragonli-sssp-tree", "dragonli-tree-200-4x150.gr", "ssspRegExpandKernel"},
	{"dragonli-bfs-tree", "dragonli-tree-200-4x150.gr", "bfsRegExpandKernel"},
}

// loopRule measures what one child thread costs a lane that loops over
// the child's threads (the importer's inline=loop): share·(c − once), c
// its CTA's cycles. Each of loopRuns gives one equation, A's median child
// CTA cycles c against B's cycles an edge e (the root CTA's cycles over
// the root's degree, its prologue in them: a cycle or two an edge); two
// codes whose child warps differ (SSSP's atomics on one counter, BFS's one
// load and store) give once = (e1·c2 − e2·c1)/(e1 − e2) and
// share = e1/(c1 − once). The pairs are marked calibration.
func loopRule(dir string) (once int64, share float64, err error) {
	return loopRuleFrom(func(name string) (simRun, error) {
		return whatIfCapture(dir, name, gpgpusim.DefaultOptions())
	})
}

// loopRuleFrom is loopRule on the loopRuns pairs load converts (by run
// name, with the importer's default options): one simulator's runs.
func loopRuleFrom(load func(name string) (simRun, error)) (once int64, share float64, err error) {
	var c, e [2]float64
	for i, r := range loopRuns {
		a, err := load(r.pair + "-cdp")
		if err != nil {
			return 0, 0, err
		}
		med, err := firstChildMedian(a.trace)
		if err != nil {
			return 0, 0, err
		}
		b, err := load(r.pair + "-reg")
		if err != nil {
			return 0, 0, err
		}
		longest, err := firstLongestCTA(b.trace, r.regKernel)
		if err != nil {
			return 0, 0, err
		}
		deg, err := rootDegree(filepath.Join(validationDir, "gpgpusim", "whatif", r.graph))
		if err != nil {
			return 0, 0, err
		}
		c[i], e[i] = float64(med), float64(longest)/float64(deg)
	}
	once, share, err = solveLoopRule(c, e)
	if err != nil {
		return 0, 0, fmt.Errorf("loopRule: %s and %s: %w", loopRuns[0].pair, loopRuns[1].pair, err)
	}
	return once, share, nil
}

// dragonliLoopAccesses is the importer's loop_accesses for the Dragon_li
// capture named: the memory instructions of its code's Reg loop body that
// send one access a lane (dragonliLoopCounts), as the generator of that
// code counts them (samples.RegLoopAccesses).
func dragonliLoopAccesses(capture string) int64 {
	for _, g := range []string{"sssp", "bfs", "join"} {
		if strings.HasPrefix(capture, "dragonli-"+g+"-") {
			return samples.RegLoopAccesses(g)
		}
	}
	return 0
}

// dragonliLoopCounts says where dragonliLoopAccesses's counts come from.
const dragonliLoopCounts = "SSSP 5 (ssspRegDevice.h:72-90 at 1397e03: the neighbour's id, its weight, its distance, the atomicMin and the frontier counter's atomicAdd; a rerun of dragonli-sssp-tree3-reg that counts each memory instruction's accesses sends 165 an iteration for 32 lanes against 7 for one, and its 32-lane warp takes 155 cycles an iteration more than its lone lane, 5·31), BFS 2 (bfsRegDevice.h:70-74: the neighbour's id and its store at the lane's own frontier offset), JOIN 0 (joinRegDevice.h:231-238 writes shared memory only)"

// ctaZeroCycles is CTA 0's cycles in each of the first n kernels of the
// trace at path whose name contains name.
func ctaZeroCycles(path, name string, n int) ([]int64, error) {
	var ids []uint64
	got := make([]int64, n)
	err := eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.Kernel:
			if len(ids) < n && strings.Contains(r.Name, name) {
				ids = append(ids, r.ID)
			}
		case *trace.CTA:
			if i := slices.Index(ids, r.Kernel); i >= 0 && r.CTA == 0 {
				got[i] = r.Cycles
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for i, c := range got {
		if c == 0 {
			return nil, fmt.Errorf("%s: no CTA 0 of kernel %d named *%s*", path, i+1, name)
		}
	}
	return got, nil
}

// openGR reads the .gr graph at path, plain or xz-compressed (told apart
// by content), with the module's one reader of the format, and refuses
// one whose root (vertex 1) has no arc.
func openGR(path string) (*grfile.Graph, error) {
	r, err := gpgpusim.OpenLog(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	g, err := grfile.Read(path, r, 1<<24, 1<<26)
	if err != nil {
		return nil, err
	}
	if g.Offsets[1] == g.Offsets[0] {
		return nil, fmt.Errorf("%s: no arc out of vertex 1", path)
	}
	return g, nil
}

// solveLoopRule solves share·(c[i] − once) = e[i] for two codes: c a
// child CTA's cycles, e a lone lane's cycles a child thread. once is
// rounded to a cycle and share to three places.
func solveLoopRule(c, e [2]float64) (once int64, share float64, err error) {
	if e[0] == e[1] || c[0] == c[1] {
		return 0, 0, fmt.Errorf("one equation twice (c %v, e %v)", c, e)
	}
	o := (e[0]*c[1] - e[1]*c[0]) / (e[0] - e[1])
	once = int64(math.Round(o))
	share = math.Round(1000*e[0]/(c[0]-float64(once))) / 1000
	if once < 0 || !(share > 0 && share <= 1) {
		return 0, 0, fmt.Errorf("once %d and share %g out of range from c %v and e %v", once, share, c, e)
	}
	return once, share, nil
}

// firstChildMedian is the median CTA cycles of the first device-launched
// kernel in the trace at path.
func firstChildMedian(path string) (int64, error) {
	var first uint64
	var cycles []int64
	err := eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.Launch:
			if first == 0 && r.Parent != nil {
				first = r.Kernel
			}
		case *trace.CTA:
			if first != 0 && r.Kernel == first {
				cycles = append(cycles, r.Cycles)
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if len(cycles) == 0 {
		return 0, fmt.Errorf("%s: no device-launched kernel with CTAs", path)
	}
	slices.Sort(cycles)
	return cycles[len(cycles)/2], nil
}

// firstLongestCTA is the longest CTA of the first kernel in the trace at
// path whose name contains name.
func firstLongestCTA(path, name string) (int64, error) {
	var first uint64
	var longest int64
	err := eachRecord(path, func(rec trace.Record) {
		switch r := rec.(type) {
		case *trace.Kernel:
			if first == 0 && strings.Contains(r.Name, name) {
				first = r.ID
			}
		case *trace.CTA:
			if first != 0 && r.Kernel == first {
				longest = max(longest, r.Cycles)
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if longest == 0 {
		return 0, fmt.Errorf("%s: no CTA of a kernel named *%s*", path, name)
	}
	return longest, nil
}

// rootDegree is the arcs out of vertex 1 (Dragon_li's source) in the
// .gr graph at path.
func rootDegree(path string) (int, error) {
	g, err := openGR(path)
	if err != nil {
		return 0, err
	}
	return int(g.Offsets[1] - g.Offsets[0]), nil
}

// eachRecord calls f on every record of the trace at path.
func eachRecord(path string, f func(trace.Record)) error {
	src, err := trace.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		f(rec)
	}
}

// medianCTACycles is the median of the cycles of the CTAs of the kernels
// named name in the trace at path.
func medianCTACycles(path, name string) (int64, error) {
	src, err := trace.Open(path)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	named := map[uint64]bool{}
	var cycles []int64
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		switch r := rec.(type) {
		case *trace.Kernel:
			named[r.ID] = r.Name == name
		case *trace.CTA:
			if named[r.Kernel] {
				cycles = append(cycles, r.Cycles)
			}
		}
	}
	if len(cycles) == 0 {
		return 0, fmt.Errorf("%s: no CTA of %s", path, name)
	}
	slices.Sort(cycles)
	return cycles[len(cycles)/2], nil
}

// whatIfDirs are where the captures are looked for, in order.
var whatIfDirs = []string{"captures", "whatif", "hostloop"}

func runValidationWhatIf(x *experiment, dir string, stdout, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "| kind | capture A | predicts B | how | GPGPU-Sim B cycles | predicted | error | kernel spans: MAPE | B's own replay | rests on | role |")
	fmt.Fprintln(stdout, "|---|---|---|---|---:|---:|---:|---:|---:|---|---|")
	once, err := ctaOnce(dir)
	if err != nil {
		return err
	}
	loopOnce, loopShare, err := loopRule(dir)
	if err != nil {
		return err
	}
	reach, err := dramEfficiency()
	if err != nil {
		return err
	}
	var held errStats
	byKind := map[string]*errStats{}
	var kinds []string
	for _, p := range whatIfPairs {
		o := gpgpusim.DefaultOptions()
		if p.inline != "" {
			o.Inline = p.inline
		}
		if p.once {
			o.CTAOnce = once
		}
		if p.loop {
			o.CTAOnce, o.LoopShare, o.LoopAccesses = loopOnce, loopShare, dragonliLoopAccesses(p.from)
		}
		a, err := whatIfCapture(dir, p.from, o)
		if err != nil {
			return err
		}
		b, err := whatIfCapture(dir, p.to, gpgpusim.DefaultOptions())
		if err != nil {
			return err
		}
		cfg, err := study.CapturedConfig(a.trace)
		if err != nil {
			return err
		}
		sets := slices.Clone(p.sets)
		if p.dramReach {
			sets = append(sets, "gpu.dram_gbps="+strconv.FormatFloat(math.Round(cfg.GPU.DRAMGBps*reach*10)/10, 'f', -1, 64))
		}
		if err := applySets(&cfg, append(slices.Clone(x.sets), sets...)); err != nil {
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
		own, err := ownReplay(b)
		if err != nil {
			return err
		}
		role := "held out"
		switch {
		case p.calibrated:
			role = "calibration"
		default:
			held.add(float64(st.MakespanCycles), float64(b.end))
			if byKind[p.kind] == nil {
				byKind[p.kind] = &errStats{}
				kinds = append(kinds, p.kind)
			}
			byKind[p.kind].add(float64(st.MakespanCycles), float64(b.end))
		}
		how := "--policy=" + p.policy
		if p.once {
			how = fmt.Sprintf("convert --opt cta_once=%d; %s", o.CTAOnce, how)
		}
		if p.loop {
			how = fmt.Sprintf("convert --opt cta_once=%d --opt loop_share=%g --opt loop_accesses=%d; %s", o.CTAOnce, o.LoopShare, o.LoopAccesses, how)
		}
		if p.inline != "" {
			how = "convert --opt inline=" + p.inline + "; " + how
		}
		for _, s := range sets {
			how += " --set " + s
		}
		fmt.Fprintf(log, "%s -> %s: predicted %d, GPGPU-Sim %d\n", p.from, p.to, st.MakespanCycles, b.end)
		fmt.Fprintf(stdout, "| %s | %s | %s | `%s` | %d | %d | %s | %s | %s | %s | %s |\n", p.kind, p.from, p.to, how, b.end, st.MakespanCycles,
			relErr(float64(st.MakespanCycles), float64(b.end)), mape, relErr(float64(own), float64(b.end)), p.restsOn, role)
	}
	fmt.Fprintln(stdout, "\n| kind | held-out pairs | makespan MAPE | worst |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|")
	for _, k := range kinds {
		e := byKind[k]
		fmt.Fprintf(stdout, "| %s | %d | %.1f%% | %+.1f%% |\n", k, len(e.abs), e.mape(), 100*e.worstSigned)
	}
	fmt.Fprintf(stdout, "\nDRAM efficiency, measured from %s (GPGPU-Sim's dram_eff, a channel's data transfers over its active cycles, the mean over its channels): %.3f of the peak. The pair predicting that run is marked calibration.\n", dramReachRun, reach)
	fmt.Fprintf(stdout, "\ncta_once, measured from %s and %s (the median CTA of %s at %d and %d FMAs a thread): %d cycles. The pairs marked calibration are those two captures' own.\n", onceRuns[0].capture, onceRuns[1].capture, onceRuns[0].kernel, onceRuns[0].iters, onceRuns[1].iters, once)
	fmt.Fprintf(stdout, "\ncta_once and loop_share for a lane looping over a child's threads, measured from %s and %s (A's root child, one edge a thread, its median CTA; B's root CTA looping over the root's edges, its cycles an edge; each CTA's cycles c costing the loop share·(c − cta_once) a thread): %d cycles and %g. The pairs marked calibration are those two. loop_accesses, what each further lane looping beside a lane adds to its iteration at the SM's load/store unit (one access a cycle), is counted on each Reg loop, not measured: %s.\n", loopRuns[0].pair, loopRuns[1].pair, loopOnce, loopShare, dragonliLoopCounts)
	fmt.Fprintf(stdout, "\nHeld-out pairs: %d, makespan MAPE %.1f%%, worst %+.1f%%. Each prediction replays capture A with --gpu=captured (A's measured CTA cycles, the config's latencies, contention off unless the pair turns it on) and the what-if's settings; B's cycles are GPGPU-Sim's last CTA end. Each error is held to %.0f%% (go test ./cmd/experiment -run WhatIf), except:\n\n",
		len(held.abs), held.mape(), 100*held.worstSigned, whatIfTolerance)
	var whys []string
	pairs := map[string][]string{}
	for _, p := range whatIfPairs {
		if p.why == "" {
			continue
		}
		if pairs[p.why] == nil {
			whys = append(whys, p.why)
		}
		pairs[p.why] = append(pairs[p.why], fmt.Sprintf("%s -> %s (%.0f%%)", p.from, p.to, p.tolerance()))
	}
	for _, why := range whys {
		fmt.Fprintf(stdout, "- %s: %s\n", strings.Join(pairs[why], ", "), why)
	}
	return nil
}

// ownReplay replays capture B as it was run (its own GPU and settings,
// under cdp: the launches it made) and returns the makespan: the model's
// error on B itself, beside which a prediction's error is the what-if's.
func ownReplay(b simRun) (int64, error) {
	cfg, err := study.CapturedConfig(b.trace)
	if err != nil {
		return 0, err
	}
	st, _, err := replayFile(cfg, "cdp", b.trace)
	if err != nil {
		return 0, fmt.Errorf("%s under cdp: %w", b.trace, err)
	}
	return st.MakespanCycles, nil
}

// whatIfCapture converts the committed capture name into dir.
func whatIfCapture(dir, name string, o gpgpusim.Options) (simRun, error) {
	for _, d := range whatIfDirs {
		p := filepath.Join(validationDir, "gpgpusim", d, name+".log.xz")
		if _, err := os.Stat(p); err == nil {
			return convertCapture(p, dir, o)
		}
	}
	return simRun{}, fmt.Errorf("no capture %s in validation/gpgpusim/{%s} (run from the repository root)", name, strings.Join(whatIfDirs, ","))
}
