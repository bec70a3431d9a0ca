package samples

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// runMergeJoin (algo=merge, the default) writes the trace of Dragon_li's
// block merge join (joinmergeloop.go gives its structure, file by file):
// a header, the buffers, and the host kernels in stream 0:
//
//   - join_bounds: a thread per join_main CTA finds that CTA's range of
//     the right input (joinRegFindBoundsKernel);
//   - the prefix scan of the grid+1 per-CTA output bounds, as
//     util/primitive.h's prefixScan runs it: join_scan_blocks
//     (scanBlocks), and when that takes more than one CTA,
//     join_scan_totals (scanTotals) and join_scan_distribute
//     (scanDistribute);
//   - join_main: the persistent grid (grid CTAs of block threads, the
//     source's CTAS × THREADS) looping over its partition's blocks
//     (mergeSteps), with the join_output child of each launch site after
//     its CTAs;
//   - the same scan of the per-CTA output counts;
//   - join_gather: a CTA per partition compacting its outputs.
//
// The kernels reach the keys through searches, so they have no access
// records.
//
// Inputs. Both relations' keys come from joinKeys over [0, max_key),
// sorted, as the source's generateRandomData sorts them on the host.
// Uniform keys are the source's (rand() % max); the public source has no
// gaussian generator, so dist=gaussian keeps this generator's own normal
// distribution (sigma). The sizes are inputs no paper states: neither
// DTBL nor SPAWN sizes JOIN's data, and the source's defaults (1024
// tuples a side, keys below 1024) give its 240 CTAs partitions of 5 left
// tuples, below the 128 a launch needs (a thread's matches lie in one left
// block, so it launches only when a whole 128-tuple block holds its key,
// and a partition must hold one). The defaults keep the hash join's key
// range, 8,192 keys, and its sigma, 0.01 of the range (sd 82 keys), and
// take 65,536 tuples a side, the smallest power of two whose partitions
// (274 tuples) hold two full blocks: uniform keys repeat about 8 times
// each, never filling a block, so JOIN-uniform has no launch site (SPAWN
// §V Observation 2: "Join-uniform's input is regular, and the workload is
// balanced across all parent threads"), and the gaussian peak, about 320
// copies of a key, fills blocks for the central keys.
//
// Launch-site times. A join_main thread holds one right key per joined
// block and launches from inside the CTA's block loop (the package doc's
// looping case): its site is at the cycle the loop reaches that block's
// launch, after the prologue, every earlier step and the block's staging,
// searches and prefix sum. The loop's __syncthreads make every step end
// for the whole CTA when its slowest warp does, so all warps share one
// timeline: a step's output loop lasts for the CTA's longest loop among
// lanes that do not launch (and launching lanes' remainders), at
// loop_cycles an output. The launches' own costs, which the replay adds to
// the launching warp alone, cannot hold the CTA's other warps at the next
// barrier: the trace format has no barrier.
//
// variant=flat is Dragon_li's non-CDP JoinReg, the DTBL paper's flat
// code (§5.1: "the nested algorithmic structure is flattened and
// effectively serialized within each thread"): the same kernels and loop,
// every thread writing all its foundCount outputs in its own loop, but
// through shared memory: JoinReg stages a step's outputs in a 128-pair
// cache the CTA copies out, in rounds when they do not fit, so the
// threads' loops of a step run in turn, not side by side (joinstage.go),
// at the flat kernel's registers (joinMainFlatRegs).
func runMergeJoin(p Params, cfg joinConfig, out trace.Sink) error {
	rng := newRand(cfg.seed)
	left := sortedJoinKeys(rng, cfg.rTuples, cfg)
	right := sortedJoinKeys(rng, cfg.sTuples, cfg)
	t := newMergeTrace(cfg, left, right)
	return writeTallied(out, t.records, func() *trace.Header {
		meta := joinMeta(p, cfg)
		meta["matches"] = strconv.Itoa(t.matches)
		meta["joined_blocks"] = strconv.Itoa(t.joined)
		meta["max_found"] = strconv.Itoa(t.maxFound)
		return k20cHeader("gen:join", meta)
	})
}

// sortedJoinKeys draws n keys of cfg's distribution over [0, max_key) and
// sorts them.
func sortedJoinKeys(rng *rand.Rand, n int, cfg joinConfig) []int32 {
	keys := joinKeys(rng, n, cfg.maxKey, cfg.gaussian, cfg.sigma)
	slices.Sort(keys)
	return keys
}

// mergeTrace is one merge join, costed once: writeTallied writes its
// records twice.
type mergeTrace struct {
	cfg         joinConfig
	left, right []int32
	parts       []mergePartition
	main        []mergeCTA // join_main's CTAs, by index

	matches, joined, maxFound int
	scanned                   bool  // the first prefix scan is written: the scans' code is warm
	found                     []int // costCTA's scratch: a join step's foundCount a thread

	out trace.Sink
	ids dpKernels
}

// mergeCTA is a costed join_main CTA: its warps' cycles (one timeline,
// the barriers'), its launch sites in loop order, and its output pairs;
// and, for the fit of its costs (joinIssueFit), its prefix steps and its
// longest warp's instructions.
type mergeCTA struct {
	cycles      int64
	cold        int64 // of cycles, its cold start (coldstart.go)
	sites       []mergeSite
	outputs     int
	prefixSteps int64
	insts       int64
	stageTrips  int64 // variant=flat: its staged loops' trips, in turn (joinstage.go)
}

// mergeSite is a join_main thread that launches: its warp, lane and
// cycle, and its foundCount.
type mergeSite struct {
	warp, lane int
	at         int64
	found      int
}

// mergeRates are the fitted costs costCTA charges: a prefix step's
// latency and a warp instruction's issue (joinissue.go). The fit costs
// the CTAs at none of either.
type mergeRates struct {
	prefixStep int64
	issue      float64
}

// joinRates are the rates as fitted (or solved again by a run's costs).
func joinRates() mergeRates { return mergeRates{joinPrefixStepCycles, joinIssueCycles} }

func newMergeTrace(cfg joinConfig, left, right []int32) *mergeTrace {
	t := &mergeTrace{cfg: cfg, left: left, right: right, parts: mergePartitions(left, right, cfg.grid)}
	t.main = make([]mergeCTA, len(t.parts))
	wave := coldWave(cfg.block, cfg.mainRegs())
	r := joinRates()
	for id, p := range t.parts {
		t.main[id] = t.costCTA(p, coldCTA(id, wave, joinMainColdLines), r)
		t.matches += t.main[id].outputs
	}
	return t
}

// costCTA runs partition p's block loop through the cost model at rates
// r: the prologue is the CTA's cold start (cold: coldstart.go, for
// join_main's first wave) and its base with the load of its bounds, each
// step stages its blocks, and a join step searches, scans and writes; the
// epilogue stores the CTA's output count and waits for the store's
// acknowledgement. The longest warp's instructions (joinissue.go) are
// charged as they come, so a launch site's cycle holds those before it;
// an output of the loop is loop_cycles whole, its instructions in it (as
// a site's inline_cycles prices it).
func (t *mergeTrace) costCTA(p mergePartition, cold int64, r mergeRates) mergeCTA {
	c := mergeCTA{cold: cold, insts: joinMainEntryInsts}
	if p.lo < p.hi && p.rlo < p.rhi {
		c.insts += joinMainSetupInsts
	}
	if t.cfg.flat && len(t.found) != t.cfg.block {
		t.found = make([]int, t.cfg.block)
	}
	now := cold + joinCTABaseCycles
	at := func() int64 { return now + joinIssueAt(c.insts, r.issue) }
	// The first join step's matches, for line 133's cold wait
	// (joinMainTailCold): warp 0's lanes' largest count mod 4 and in
	// fours, whether they write any, whether another warp writes.
	var tailRem, tailQuads int
	var tailW0, tailOthers, joinedOnce bool
	for _, s := range mergeSteps(t.left, t.right, p, t.cfg.block) {
		now += joinStageCycles()
		c.insts += joinMainTripInsts
		if !s.join {
			continue
		}
		t.joined++
		steps := joinPrefixSteps(t.cfg.block)
		now += joinSearchCycles(s.lb) + steps*r.prefixStep
		c.prefixSteps += steps
		c.insts += joinMainJoinInsts + int64(2*bits.Len(uint(s.lb)))*joinMainSearchInsts + joinPrefixInsts(t.cfg.block)
		loop := 0
		for th := 0; th < s.rb; th++ {
			found := mergeFound(t.left, t.right, s, th)
			if t.cfg.flat {
				t.found[th] = found
			}
			c.outputs += found
			t.maxFound = max(t.maxFound, found)
			if found >= t.cfg.threshold {
				c.sites = append(c.sites, mergeSite{warp: th / warpSize, lane: th % warpSize, at: at(), found: found})
				found -= found >> joinOutputShift << joinOutputShift
			}
			loop = max(loop, found)
			if !joinedOnce && found > 0 {
				if th < warpSize {
					tailW0, tailRem, tailQuads = true, max(tailRem, found&3), max(tailQuads, found>>2)
				} else {
					tailOthers = true
				}
			}
		}
		joinedOnce = true
		if t.cfg.flat {
			cycles, trips := joinStagedCycles(t.found[:s.rb], t.cfg.block, joinStageTripCycles)
			now += cycles
			c.stageTrips += trips
			continue
		}
		now += int64(loop) * t.cfg.loopCycles
	}
	if cold > 0 {
		// Line 133 (coldstart.go): the rest of its miss where warp 0
		// alone writes, else whole, warp 0 on the others' path (it
		// writes nothing) or every warp writing.
		tail := coldLineCycles
		if tailW0 && !tailOthers {
			tail = joinMainTailCold(tailRem, tailQuads, r.issue)
		}
		now += tail
		c.cold += tail
	}
	c.insts += joinMainEpilogueInsts
	c.cycles = now + joinStoreAckCycles() + joinIssueAt(c.insts, r.issue)
	return c
}

// records writes the buffers and the five kernels with join_main's
// children.
func (t *mergeTrace) records(out trace.Sink) error {
	t.out, t.ids, t.scanned = out, dpKernels{}, false
	var heap deviceHeap
	grid := int64(t.cfg.grid)
	est := int64(max(len(t.left), len(t.right))) * joinScaleFactor
	err := writeAll(out,
		heap.alloc("left_keys", 4*int64(len(t.left)), trace.RoleInput),
		heap.alloc("right_keys", 4*int64(len(t.right)), trace.RoleInput),
		heap.alloc("bounds", 4*(3*grid+1), trace.RoleTemp),
		heap.alloc("histogram", 4*(grid+1), trace.RoleTemp),
		heap.alloc("out_scattered", 8*est, trace.RoleTemp),
		heap.alloc("out_pairs", 8*int64(t.matches), trace.RoleOutput),
	)
	for _, step := range []func() error{t.bounds, t.prefixScan, t.joinMain, t.prefixScan, t.gather} {
		if err != nil {
			return err
		}
		err = step()
	}
	return err
}

// hostKernel declares and host-launches a 1-D kernel and writes its CTAs,
// warp w of CTA c costing warp(c, w) after its cold start cold(c)
// (coldstart.go; nil for none). The cold start issues nothing: a cold
// CTA's demand is its kernel's mix over its warm cycles alone.
func (t *mergeTrace) hostKernel(name string, grid, regs int, cold func(c int) int64, warp func(c, w int) int64) (*trace.Kernel, error) {
	return t.hostKernelAlone(name, grid, regs, cold, warp, nil)
}

// hostKernelAlone is hostKernel whose warps' demand is the kernel's mix
// over alone(c, w), the warp's cycles with nothing to wait for, where
// alone is given: a wait that issues and moves nothing (join_gather's
// share of a loaded DRAM) stretches a warp, not its work.
func (t *mergeTrace) hostKernelAlone(name string, grid, regs int, cold func(c int) int64, warp, alone func(c, w int) int64) (*trace.Kernel, error) {
	k := t.ids.declare(name, dpLine(grid), dpLine(t.cfg.block), regs)
	if err := writeAll(t.out, k, &trace.Launch{Kernel: k.ID}); err != nil {
		return nil, err
	}
	for c := 0; c < grid; c++ {
		rec := &trace.CTA{Kernel: k.ID, CTA: uint64(c), WarpCycles: make([]int64, ceilDiv(t.cfg.block, warpSize))}
		for w := range rec.WarpCycles {
			rec.WarpCycles[w] = warp(c, w)
		}
		demand := false
		if alone != nil {
			own := &trace.CTA{WarpCycles: make([]int64, len(rec.WarpCycles))}
			for w := range own.WarpCycles {
				own.WarpCycles[w] = alone(c, w)
			}
			joinMixes[name].set(own, len(own.WarpCycles))
			rec.Insts, rec.DRAMBytes, demand = own.Insts, own.DRAMBytes, true
		}
		if cold != nil {
			if s := cold(c); s > 0 {
				if !demand {
					joinMixes[name].set(rec, len(rec.WarpCycles))
				}
				for w := range rec.WarpCycles {
					rec.WarpCycles[w] += s
				}
			}
		}
		rec.Cycles = dpWarpMax(rec.WarpCycles)
		if err := t.out.Write(rec); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// bounds writes join_bounds: a thread per partition. It is the
// program's first kernel, so its first wave starts cold (coldstart.go),
// its idle warps too: they stall on the same lines.
func (t *mergeTrace) bounds() error {
	wave := coldWave(t.cfg.block, joinBoundsRegs)
	cold := func(c int) int64 { return coldCTA(c, wave, joinBoundsColdLines) }
	_, err := t.hostKernel("join_bounds", ceilDiv(t.cfg.grid, t.cfg.block), joinBoundsRegs, cold, func(c, w int) int64 {
		if c*t.cfg.block+w*warpSize >= t.cfg.grid {
			return idleWarpCycles
		}
		return joinBoundsWarpCycles(len(t.right))
	})
	return err
}

// prefixScan writes util/primitive.h's prefixScan over the grid+1
// per-CTA values with CTAs of block threads: join_scan_blocks scans each
// CTA's values, and if there are several CTAs join_scan_totals (one CTA)
// scans their totals, block at a time, and join_scan_distribute adds
// them back. Each kernel's first wave fetches its code: from the L2 in
// the second scan, the L1I having held join_main's code since the first
// (joinRefetchCycles), and in the first, the program's first run of that
// code, DRAM's part of each line that comes from DRAM over that
// (joinColdRefetchCycles).
func (t *mergeTrace) prefixScan() error {
	n := t.cfg.grid + 1
	ctas := ceilDiv(n, t.cfg.block)
	wave := coldWave(t.cfg.block, joinScanRegs)
	fetch := func(lines, dram int) func(c int) int64 {
		s := joinRefetchCycles(lines)
		if !t.scanned {
			s += joinColdRefetchCycles(dram)
		}
		return func(c int) int64 {
			if c >= wave {
				return 0
			}
			return s
		}
	}
	defer func() { t.scanned = true }()
	_, err := t.hostKernel("join_scan_blocks", ctas, joinScanRegs, fetch(joinScanBlocksColdLines, joinScanBlocksDRAMLines), func(int, int) int64 { return joinScanBlockCycles(t.cfg.block) })
	if err != nil || ctas == 1 {
		return err
	}
	_, err = t.hostKernel("join_scan_totals", 1, joinScanRegs, fetch(joinScanTotalsColdLines, joinScanTotalsDRAMLines), func(int, int) int64 {
		return joinScanTotalsCycles(ctas, t.cfg.block)
	})
	if err != nil {
		return err
	}
	_, err = t.hostKernel("join_scan_distribute", ctas, joinScanRegs, fetch(joinScanDistributeColdLines, joinScanDistributeDRAMLines), func(c, w int) int64 {
		if c*t.cfg.block+w*warpSize >= n {
			return idleWarpCycles
		}
		return joinScanDistributeCycles()
	})
	return err
}

// joinMain writes join_main's CTAs, every warp on its CTA's timeline, then
// the children of its sites, CTA by CTA.
func (t *mergeTrace) joinMain() error {
	k, err := t.hostKernel("join_main", t.cfg.grid, t.cfg.mainRegs(), func(c int) int64 { return t.main[c].cold },
		func(c, _ int) int64 { return t.main[c].cycles - t.main[c].cold })
	if err != nil {
		return err
	}
	for c := range t.main {
		for _, s := range t.main[c].sites {
			if err := t.child(k.ID, c, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// child writes a site's join_output: foundCount>>7 CTAs of 128 threads,
// an output pair each. The launch record carries what writing those pairs
// in the parent's loop would cost, so a policy can choose; the remainder
// is the parent's either way.
func (t *mergeTrace) child(parent uint64, cta int, s mergeSite) error {
	grid := s.found >> joinOutputShift
	work := int64(grid * joinOutputBlock)
	k := t.ids.declare("join_output", dpLine(grid), dpLine(joinOutputBlock), joinOutputRegs)
	launch := &trace.Launch{
		Kernel:       k.ID,
		Parent:       &trace.Parent{Kernel: parent, CTA: uint64(cta), Warp: s.warp, Lane: s.lane, At: s.at},
		Workload:     work,
		InlineCycles: t.inline(grid),
	}
	if err := writeAll(t.out, k, launch); err != nil {
		return err
	}
	for c := 0; c < grid; c++ {
		rec := &trace.CTA{Kernel: k.ID, CTA: uint64(c), Cycles: joinOutputChildCycles(), WarpCycles: make([]int64, joinOutputBlock/warpSize)}
		for w := range rec.WarpCycles {
			rec.WarpCycles[w] = joinOutputChildCycles()
		}
		if err := t.out.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

// inline is a site's inline_cycles for a join_output of grid full CTAs:
// the lane's loop over the child's threads, an output pair each, by the
// lane-loop rule (laneLoopCycles), or, with loop_cycles given, loop_cycles
// an output.
func (t *mergeTrace) inline(grid int) int64 {
	work := grid * joinOutputBlock
	if t.cfg.loopGiven {
		return int64(work) * t.cfg.loopCycles
	}
	return laneLoopCycles(work, joinOutputBlock, func(int) int64 { return joinOutputChildCycles() })
}

// gather writes join_gather: CTA c compacts partition c's outputs. Its
// first wave's warps wait for the SM's memory port and at the histogram's
// L2 banks (joinGatherWaveCycles), and its copying warps share its DRAM
// time, when its partitions' bytes overflow an L2 slice
// (joingatherdram.go).
func (t *mergeTrace) gather() error {
	wave := coldWave(t.cfg.block, joinGatherRegs)
	first := func(c int) int64 {
		if c >= wave {
			return 0
		}
		return joinGatherWaveCycles(wave, t.cfg.block)
	}
	copies := t.gatherDRAM(wave)
	warp := func(c, w int) int64 { return joinGatherWarpCycles(t.main[c].outputs, t.cfg.block, w) }
	if copies == nil {
		_, err := t.hostKernel("join_gather", t.cfg.grid, joinGatherRegs, first, warp)
		return err
	}
	_, err := t.hostKernelAlone("join_gather", t.cfg.grid, joinGatherRegs, first, func(c, w int) int64 {
		return joinGatherWarpLoaded(t.main[c].outputs, t.cfg.block, w, copies[c][w])
	}, warp)
	return err
}

// gatherDRAM is each join_gather warp's copy time under its DRAM load
// (joinGatherDRAMCopy, in waves of wave CTAs), nil while the L2 holds
// the copy: the partitions' outputs in their scattered regions, each
// region's room the partition's larger side.
func (t *mergeTrace) gatherDRAM(wave int) [][]int64 {
	outputs, room := make([]int, len(t.parts)), make([]int, len(t.parts))
	trips := make([][]int, len(t.parts))
	for c, p := range t.parts {
		outputs[c] = t.main[c].outputs
		if p.lo < p.hi {
			room[c] = max(p.hi-p.lo, p.rhi-p.rlo)
		}
		trips[c] = make([]int, ceilDiv(t.cfg.block, warpSize))
		for w := range trips[c] {
			trips[c][w] = joinGatherTrips(outputs[c], t.cfg.block, w)
		}
	}
	est := int64(max(len(t.left), len(t.right))) * joinScaleFactor
	return joinGatherDRAMCopy(trips, wave, joinGatherDRAMCycles(outputs, room, est))
}
