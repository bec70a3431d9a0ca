package samples

import (
	"math"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// The dragonli code of the graph generators (bfs, sssp; code=dragonli):
// the structure of the code SPAWN's Table I cites for BFS and SSSP
// ("Breadth-First Search [22, 44]", "Single Source Shortest Path [6, 44]"),
// [44] being Wang and Yalamanchili, "Characterization and Analysis of
// Dynamic Parallelism in Unstructured GPU Applications" (IISWC 2014), whose
// suite is Dragon_li (github.com/gtcasl/dragon_li, by DTBL's first author).
// SPAWN §III-A's static study varies the same knob, "changing THRESHOLD
// in the application code" (Dragon_li's CDP_THRESHOLD). Its
// expand kernels (bfs/bfsCdpDevice.h, sssp/ssspCdpDevice.h) differ from
// the default code (code=dtbl, one thread per vertex in a grid sized to
// the frontier) in three ways:
//
//  1. A persistent grid: the host launches CTAS×THREADS threads whatever
//     the frontier's size, and each CTA walks the frontier in grid-stride
//     chunks of THREADS vertices (util/ctaWorkAssignment.h: CTA c takes
//     vertices c·THREADS, then (c+CTAS)·THREADS, …), one vertex a thread a
//     chunk; after its last chunk it takes one more, empty, assignment and
//     leaves. A thread thus holds several vertices one after another, and
//     its warp's launch sites are spread over the chunks its loop reaches
//     (package doc, "Launch-site times", the looping case).
//  2. `if (rowLength >= CDP_THRESHOLD)` launches a child of
//     rowLength >> CDP_THREADS_BITS CTAs of CDP_THREADS threads, one
//     neighbour a thread, and the thread then loops over the rest,
//     rowLength mod CDP_THREADS neighbours, itself; every other thread
//     loops over all its neighbours. The non-CDP code (bfsRegDevice.h,
//     ssspRegDevice.h; variant=flat here) is the same chunk loop with
//     every thread looping over all its neighbours: no block- or
//     warp-level expansion.
//  3. bfs's chunk computes its output offsets with a CTA-wide prefix sum
//     and __syncthreads() before the launch branch, so its warps start
//     each chunk's neighbour loop together; sssp's has that code commented
//     out, so its warps run their chunks independently.
//
// The configuration is Dragon_li's K20c-era one, THREADS=256, CTAS=104,
// CDP_THREADS_BITS=5, CDP_THRESHOLD=32: tests/testSssp.cu's, and
// tests/testBfs.cu's until its commit 3dc0609 "use configuration for
// K40c" (Sept 2015) moved bfs to 128/240/7/128. 104 CTAs of 256 threads is
// one full wave on the K20c (13 SMXs × 8 such CTAs); the block parameter
// keeps THREADS (default 256), and bfs's ctas and child_bits parameters
// CTAS and CDP_THREADS_BITS (testBfs at 1397e03, the captures' code:
// block=128, ctas=240, child_bits=7, site_threshold=127). Our
// site_threshold means "more neighbours than this" (bfs.go, sssp.go), so
// CDP_THRESHOLD=32 (rowLength ≥ 32) is site_threshold=31; a lower value
// would launch children of no CTAs, which the code cannot, so
// code=dragonli refuses it.
//
// What is kept from the default code: the graph and the search (bfs's
// levels, sssp's worklists and which edges lower a distance). sssp's cost
// constants are its own (ssspcost.go), measured on Dragon_li's code and
// charged by both codes. bfs code=dragonli has its own, measured on
// GPGPU-Sim's runs of testBfs (bfsdlcost.go), because its kernels are
// other code: Dragon_li's BFS is expand-contract (bfsdragonli.go), its
// expand copying neighbour ids and a contract kernel testing them, where
// the default code's bfs_level tests and appends each neighbour. A
// chunk's barrier waits are in each warp's warp_cycles (at no demand, as
// twc.go's), but a replay that lengthens one warp at a launch site does
// not delay the others at the next barrier, so a dragonli bfs trace
// slightly understates what launches cost it.
const (
	// dragonliCTAs is Dragon_li's CTAS: the persistent grid.
	dragonliCTAs = 104
	// dragonliChildBits is CDP_THREADS_BITS: a child has rowLength >> 5
	// CTAs of 1<<5 threads.
	dragonliChildBits  = 5
	dragonliChildBlock = 1 << dragonliChildBits
	// dragonliMinThreshold is the least site_threshold code=dragonli
	// takes: a site needs rowLength ≥ CDP_THREADS for a child of at least
	// one CTA. Dragon_li's own CDP_THRESHOLD (rowLength ≥ 32) is this
	// site_threshold, 31.
	dragonliMinThreshold = dragonliChildBlock - 1
)

// codeParam chooses the kernel structure of bfs and sssp.
var codeParam = Param{
	Name:    "code",
	Default: "dtbl",
	Doc: "dtbl: a grid of one thread per vertex, a site's child of 64-thread CTAs covering all its neighbours; " +
		"dragonli: Dragon_li's code (SPAWN's [44]): a persistent 104-CTA grid walking the vertices in chunks, " +
		"a site (site_threshold ≥ 31; Dragon_li's CDP_THRESHOLD 32 is 31) launching degree>>5 CTAs of 32 threads " +
		"and looping over the remainder; its variant=flat is Dragon_li's Reg kernel, each thread looping over all its neighbours",
}

// parseDragonli reads code and, for dragonli's DP variant (flat has no
// sites), checks the site threshold against what its children of
// 1<<bits threads (CDP_THREADS_BITS) can cover.
func parseDragonli(p Params, threshold int, flat bool, bits int) (bool, error) {
	code, err := p.Choice(codeParam.Name, "dtbl", "dragonli")
	if err != nil || code != "dragonli" {
		return false, err
	}
	if least := 1<<bits - 1; !flat && threshold < least {
		return false, p.errorf("site_threshold", strconv.Itoa(threshold),
			"code=dragonli launches degree>>%d CTAs, so a site needs at least %d neighbours: want site_threshold ≥ %d (Dragon_li's CDP_THRESHOLD %d is %d)",
			bits, 1<<bits, least, 1<<bits, least)
	}
	return true, nil
}

// dragonliSplit is a site's split of its degree neighbours: the child's
// share, whole CTAs of dragonliChildBlock, and the rest the thread loops
// over.
func dragonliSplit(degree int) (child, rest int) {
	child = degree >> dragonliChildBits << dragonliChildBits
	return child, degree - child
}

// dlLane is one thread's part of a chunk: whether it launches, and what
// its own loop costs (over the remainder, for a launching thread); looped
// whether it enters that loop at all (a lane with edges of its own), the
// branch whose code a cold start fetches only then (dlKernel.coldLoop).
type dlLane struct {
	site   bool
	looped bool
	loop   int64
}

// dlSite is a launching thread of the persistent grid: the index of its
// item (into the frontier or worklist), its place, and the cycle of its
// warp's own run at which it reaches the launch.
type dlSite struct {
	item, cta, warp, lane int
	at                    int64
}

// dlSiteLanes is, for each of sites, how many of sites reach the launch
// in the same instruction as it: those of its CTA and warp at its cycle,
// the lanes that in the flat code loop over their children's threads
// side by side (laneLoopPortCycles).
func dlSiteLanes(sites []dlSite) []int {
	type at struct {
		cta, warp int
		at        int64
	}
	count := make(map[at]int, len(sites))
	for _, s := range sites {
		count[at{s.cta, s.warp, s.at}]++
	}
	lanes := make([]int, len(sites))
	for i, s := range sites {
		lanes[i] = count[at{s.cta, s.warp, s.at}]
	}
	return lanes
}

// RegLoopAccesses is, for a generator whose code=dragonli writes a
// Dragon_li code (sssp, bfs, join), the memory instructions of the loop
// body of its Reg kernel that send one access a lane
// (laneLoopPortCycles), counted on the code: SSSP 5
// (ssspRegLoopAccesses), BFS 2 (dlBFSRegLoopAccesses), JOIN 0 (its loop
// writes shared memory, joinRegDevice.h:231-238 at 1397e03). The
// importer's --opt loop_accesses for the captures of each code takes it.
func RegLoopAccesses(generator string) int64 {
	switch generator {
	case "sssp":
		return ssspRegLoopAccesses
	case "bfs":
		return dlBFSRegLoopAccesses
	}
	return 0
}

// dlKernel is one persistent parent kernel over n items.
type dlKernel struct {
	n, block int
	// ctas is the persistent grid, Dragon_li's CTAS (0: dragonliCTAs).
	ctas    int
	base    int64 // a warp's chunk prologue before the launch branch, when it holds an item
	idle    int64 // a warp's pass over a chunk where it holds no item, and over the final empty one
	barrier bool  // the chunk's __syncthreads before the launch branch (bfs)
	// queue is what each older CTA on its SM adds to a CTA holding no
	// item, waiting on the SM's issue (idleQueueWait); 0 prices every
	// empty CTA as if alone on its SM.
	queue int64
	lane  func(item int) dlLane
	// warp, where set, is the loop of a warp holding items [lo, hi) in
	// step (SIMT), which replaces the longest of its lanes' dlLane.loop.
	warp func(lo, hi int) int64
	mix  warpMix // the kernel's demand rates, charged on its warps' cycles bar barrier waits
	// prologue, where set, is the accesses past a lone lane's that the
	// chunk prologue's memory instructions of a warp holding items
	// [lo, hi) send through its SM's load/store unit, and regs the
	// kernel's registers a thread, which bound its first wave (dlport.go).
	prologue func(lo, hi int) int64
	regs     int
	// cold is the cold start (coldstart.go) each warp of a first-wave
	// CTA pays before its first chunk, where this launch is the first of
	// its code in the program (0 otherwise), and wave the CTAs of that
	// first wave; the stall issues nothing, so it counts as a wait.
	cold int64
	wave int
	// coldChunk, coldSite and coldLoop are the cold start of the code
	// only some warps run, which a first-wave warp pays the first time it
	// runs it: coldChunk, every warp of a CTA before the prologue of its
	// first chunk holding items (code that tests per CTA, not per lane,
	// whether it holds any), coldSite before the warp's first launch (the
	// launch branch's lines), coldLoop before its lanes first enter their
	// own loop (the loop's lines). cold is then the path of an empty CTA.
	coldChunk, coldSite, coldLoop int64
	// coldAhead is the part of cold a warp holding items of its first
	// chunk does not wait for where a warp of its SM's first CTAs holds
	// none (coldIdleOnSM): the lines of the empty path past the item's
	// first load, which the empty warps, not waiting on it, ask for
	// first, less the rest of each miss it still waits for where it lags
	// them by less than a miss (coldstart.go's rule, coldPartialCycles).
	// coldSiteAhead is what such a warp's first launch no longer waits
	// of that rest: the rest of a line past the launch branch, which the
	// launching warp reaches more than a miss late (coldSite less it).
	coldAhead, coldSiteAhead int64
}

// coldIdleOnSM is whether a warp of first-wave CTA c's SMX holds no item
// of its first chunk: the SMX's first CTAs are c's residue mod 13 in
// index order (coldWave's dispatch), and the last warp of the last of
// them holds the SMX's highest first item.
func (k dlKernel) coldIdleOnSM(c int) bool {
	last := c%k20cSMs + k20cSMs*(k.wave/k20cSMs-1)
	for last >= min(k.wave, k.grid()) {
		last -= k20cSMs
	}
	last = max(last, c)
	return last*k.block+(ceilDiv(k.block, warpSize)-1)*warpSize >= k.n
}

// grid is the kernel's persistent grid: ctas, or Dragon_li's K20c CTAS.
func (k dlKernel) grid() int {
	if k.ctas > 0 {
		return k.ctas
	}
	return dragonliCTAs
}

// dlWarps is a persistent CTA's warps as its chunks advance them: each
// one's time so far and how much of it was spent waiting (at barriers,
// on a cold start), and, in a first-wave CTA, whether it has still to
// fetch a chunk's, the launch branch's and the loop's code
// (dlKernel.coldChunk, coldSite, coldLoop).
type dlWarps struct {
	t, wait                       []int64
	coldChunk, coldSite, coldLoop []bool
	// ahead: the warp was spared coldAhead (dlKernel.coldSiteAhead).
	ahead []bool
}

// cta costs CTA c of the persistent grid and finds its sites, in the
// order its chunks reach them (then warp, then lane). Each warp's time is
// its chunks' in turn: the prologue (k.idle for a warp holding no
// item of the chunk), then, with the barrier, a wait for the CTA's
// slowest prologue, then its longest lane's loop; the launching lanes of a
// warp take the launch branch together, one warp-level site at the end of
// the prologue (or barrier). The final empty assignment costs every warp
// k.idle, as does a CTA whose first chunk is already past the end.
func (k dlKernel) cta(kernel uint64, c int) (*trace.CTA, []dlSite) {
	n := ceilDiv(k.block, warpSize)
	ws := dlWarps{t: make([]int64, n), wait: make([]int64, n),
		coldChunk: make([]bool, n), coldSite: make([]bool, n), coldLoop: make([]bool, n), ahead: make([]bool, n)}
	if c < k.wave {
		idle := k.coldAhead > 0 && k.coldIdleOnSM(c)
		for w := range ws.t {
			cold := k.cold
			if idle && c*k.block+w*warpSize < k.n {
				cold -= k.coldAhead
				ws.ahead[w] = true
			}
			ws.t[w], ws.wait[w] = cold, cold
			ws.coldChunk[w], ws.coldSite[w], ws.coldLoop[w] = true, true, true
		}
	}
	if c*k.block >= k.n {
		// An empty CTA: its warps' one pass waits on the SM's issue
		// behind the older CTAs', where the cold start does not
		// already hold it longer.
		q := idleQueueWait(c, k.queue)
		for w := range ws.t {
			if q > ws.t[w] {
				ws.t[w], ws.wait[w] = q, q
			}
		}
	}
	var sites []dlSite
	for lo := c * k.block; lo < k.n; lo += k.grid() * k.block {
		sites = k.chunk(ws, c, lo, min(lo+k.block, k.n), sites)
	}
	rec := &trace.CTA{Kernel: kernel, CTA: uint64(c), WarpCycles: ws.t}
	var own int64
	for w := range ws.t {
		ws.t[w] += k.idle
		own += ws.t[w] - ws.wait[w]
	}
	rec.Cycles = dpWarpMax(ws.t)
	rec.Insts = uint64(math.Round(float64(own) * k.mix.ipc))
	rec.DRAMBytes = uint64(math.Round(float64(own) * k.mix.bpc))
	return rec, sites
}

// chunk advances the warps over items [lo, hi), the CTA's chunk, and
// appends its sites. A warp of a first-wave CTA fetches the code of a
// chunk holding items (coldChunk) before its first such chunk, the
// launch branch's (coldSite) before its first launch and the loop's
// (coldLoop) before its lanes first loop, once each.
func (k dlKernel) chunk(ws dlWarps, c, lo, hi int, sites []dlSite) []dlSite {
	t := ws.t
	loops := make([]int64, len(t))
	launches := make([]bool, len(t))
	looped := make([]bool, len(t))
	var found []dlSite
	wait := k.portWait(c, lo)
	for w := range t {
		if ws.coldChunk[w] {
			t[w] += k.coldChunk
			ws.wait[w] += k.coldChunk
			ws.coldChunk[w] = false
		}
		first := lo + w*warpSize
		if first >= hi {
			t[w] += k.idle
			continue
		}
		t[w] += k.base
		if port := wait(w); port > 0 {
			t[w] += port
			ws.wait[w] += port
		}
		for i := first; i < min(first+warpSize, hi); i++ {
			l := k.lane(i)
			loops[w] = max(loops[w], l.loop)
			looped[w] = looped[w] || l.looped
			if l.site {
				launches[w] = true
				found = append(found, dlSite{item: i, cta: c, warp: w, lane: i - first})
			}
		}
		if k.warp != nil {
			loops[w] = k.warp(first, min(first+warpSize, hi))
		}
	}
	if k.barrier {
		release := dpWarpMax(t)
		for w := range t {
			ws.wait[w] += release - t[w]
			t[w] = release
		}
	}
	for w := range t {
		if launches[w] && ws.coldSite[w] {
			site := k.coldSite
			if ws.ahead[w] {
				site = max(0, site-k.coldSiteAhead)
			}
			t[w] += site
			ws.wait[w] += site
			ws.coldSite[w] = false
		}
	}
	for i := range found {
		found[i].at = t[found[i].warp]
	}
	for w := range t {
		if looped[w] && ws.coldLoop[w] {
			t[w] += k.coldLoop
			ws.wait[w] += k.coldLoop
			ws.coldLoop[w] = false
		}
		t[w] += loops[w]
	}
	return append(sites, found...)
}

// dlParent writes a persistent parent kernel's declaration, host launch
// and CTAs, and returns its sites in CTA order.
func dlParent(out trace.Sink, decl *trace.Kernel, k dlKernel) ([]dlSite, error) {
	if err := writeAll(out, decl, &trace.Launch{Kernel: decl.ID}); err != nil {
		return nil, err
	}
	return writeCTAs(out, k.grid(), func(c int) (*trace.CTA, []dlSite) { return k.cta(decl.ID, c) })
}

// idleQueueWait is how long an empty CTA c of the persistent grid waits
// on its SM's issue before its own pass ends as a lone CTA's would, at
// step cycles for each older CTA on the SM. The grid is one wave (104
// CTAs, 8 an SMX on the K20c the generators' cycles are in), dispatched
// in index order one an SM in turn ("unsigned ctaid =
// kernel.get_next_cta_id_single();", shader_core_ctx::issue_block2core,
// src/gpgpu-sim/gpu-sim.cc:1813 at 667834cf), so CTA c is the c/13-th to
// start on its SM; all its warps are ready at once and GPGPU-Sim's
// greedy-then-oldest schedulers (`-gpgpu_scheduler gto`) issue the
// oldest ready warp's instructions first ("ORDERING_GREEDY_THEN_PRIORITY_FUNC,
// scheduler_unit::sort_warps_by_oldest_dynamic_id", gto_scheduler::
// order_warps, src/gpgpu-sim/shader.cc:1597 at 667834cf), so an SM's empty CTAs end one
// after another, step apart (docs/calibration.md, "SSSP's per-operation
// costs"). A lone CTA (rank 0) waits for nothing. What the step counts is
// the older CTAs' instructions the SM's 4 schedulers issue first (46
// warp instructions a warp, 8 warps: 92 single-issue cycles a scheduler,
// less what dual issue and the older CTAs' own stalls give back).
func idleQueueWait(c int, step int64) int64 {
	return int64(c/k20cSMs) * step
}
