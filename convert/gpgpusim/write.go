package gpgpusim

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// headerRecord describes the simulated GPU, and in meta the simulator's
// latencies as model settings (see the package doc, "Replaying").
func (r *Reader) headerRecord() *trace.Header {
	g := r.g
	spec := g.spec
	meta := map[string]string{
		"importer":                       "gpgpusim",
		"gpgpusim.kernel_launch_latency": strconv.FormatInt(g.launchLatency, 10),
		"gpgpusim.cdp_latency":           joinInts(g.cdpLatency[:]),
		"gpgpusim.cdp_enabled":           strconv.FormatBool(g.cdp),
	}
	if r.version != "" {
		meta["gpgpusim.version"] = traceString(r.version)
	}
	if g.fp32Rate > 0 {
		// Not a setting: the model has one issue width for every
		// instruction (gpu.issue_width, the schedulers); FP32-bound code on
		// the simulator is bound by this instead (docs/validation.md).
		meta["gpgpusim.fp32_warp_insts_per_cycle"] = strconv.FormatFloat(g.fp32Rate, 'f', -1, 64)
	}
	if g.tbLatency != 0 {
		meta["gpgpusim.tb_launch_latency"] = strconv.FormatInt(g.tbLatency, 10)
	}
	set := func(k, v string) { meta[model.SetPrefix+k] = v }
	// GPGPU-Sim's host takes no simulated time to call a launch; the kernel
	// waits out gpgpu_kernel_launch_latency at its stream's head and its
	// CTAs issue the cycle after (measured: 5001 for a latency of 5000).
	set("lat.host_issue", "0")
	set("lat.host_launch", "0")
	set("lat.kernel_dispatch", strconv.FormatInt(g.launchLatency+1, 10))
	// Before that, a device kernel's countdown at its stream's head: the
	// round-robin of 4.x (667834cf). Not for 3.x (the DTBL authors' fork,
	// dialect322.go), whose stream_manager::front serves the first ready
	// stream only (src/stream_manager.cc:313-350 at 68e84ab), one
	// countdown at a time, which the setting's shares do not describe
	// (docs/validation.md, the fork's launch-latency pair).
	if !strings.HasPrefix(r.version, "3.") {
		setStreamManager(set, g)
	}
	// cdp_latency: the warp stalls b + a·x at cudaGetParameterBufferV2 and
	// again at cudaLaunchDeviceV2 (shader.cc), for x active lanes, each warp
	// on its own: the model's Table 3 cost with no launch servers, in the
	// simulator's own cycles; and its first figure at
	// cudaStreamCreateWithFlags, once a warp, which the model charges at
	// the launch that creates its stream (siteTimes takes it out of the
	// warp's time there).
	set("cdp.clock_mhz", "0")
	set("cdp.stream_create", strconv.FormatInt(g.cdpLatency[0], 10))
	set("cdp.param_b", strconv.FormatInt(g.cdpLatency[1], 10))
	set("cdp.param_a", strconv.FormatInt(g.cdpLatency[2], 10))
	set("cdp.launch_b", strconv.FormatInt(g.cdpLatency[3], 10))
	set("cdp.launch_a", strconv.FormatInt(g.cdpLatency[4], 10))
	set("cdp.launch_servers", "0")
	// The CTAs' measured cycles already hold the sharing of the captured
	// run; the demands are for replays that change who runs beside whom.
	set("model.contention", "off")
	// -gpgpu_concurrent_kernel_sm 0 (the simulator's default and its tested
	// configs'): an SM takes CTAs of one kernel at a time.
	if g.concurrentSM {
		set("gpu.concurrent_kernel_sm", "on")
	} else {
		set("gpu.concurrent_kernel_sm", "off")
	}
	// A cluster issues at most one CTA a core cycle (simt_core_cluster::
	// issue_block2core stops after one), so an SM takes at most one a
	// cycle: exactly the cluster's rate with one SM a cluster (every
	// config we capture); with more, their shared rate is not modelled.
	set("gpu.cta_issue_interval", "1")
	if g.dramGBps > 0 {
		set("gpu.dram_gbps", strconv.FormatFloat(g.dramGBps, 'f', -1, 64))
	}
	if g.issueWidth > 0 {
		set("gpu.issue_width", strconv.Itoa(g.issueWidth))
	}
	return &trace.Header{
		Version: 1, ClockMHz: spec.ClockMHz, PageBytes: 4096, Source: "gpgpusim",
		GPU: r.opts.GPU, GPUSpec: &spec, Meta: meta,
	}
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// flush queues every launch tree at the head of the host order that the
// log has shown whole, and forgets it.
func (r *Reader) flush() error {
	for len(r.host) > 0 {
		op := r.host[0]
		if op.k != nil {
			tree, ok := r.tree(op.k)
			if !ok {
				return nil
			}
			if r.opts.Syncs {
				// GPGPU-Sim's host takes no cycles between calls: a call
				// after a blocking one is made when that one returned.
				op.k.t = max(op.k.t, r.hostClock)
				r.hostClock = op.k.t
			}
			if err := r.write(tree); err != nil {
				return err
			}
			for _, k := range tree {
				delete(r.kernels, k.id)
			}
		} else if !op.skip {
			s := op.sync
			if op.drain {
				// Everything before it has been written, so the GPU went
				// idle at the end of the last statistics block.
				s.Ret = r.now()
			} else if !op.done {
				return nil
			}
			s.T = max(s.T, r.hostClock)
			s.Ret = max(s.Ret, s.T)
			r.hostClock = s.Ret
			if s.Ret == s.T {
				s.Ret = 0 // returned at once
			}
			r.out = append(r.out, s)
			r.sum.Syncs++
		}
		r.host[0] = nil
		r.host = r.host[1:]
	}
	return nil
}

// tree is the launch tree of h in breadth-first order (a parent before
// its children, children in launch order); ok is false while any of it
// has CTAs to run or statistics to come.
func (r *Reader) tree(h *kernel) ([]*kernel, bool) {
	var tree []*kernel
	ok := r.eachInTree(h, func(k *kernel) bool {
		tree = append(tree, k)
		return k.finished() && k.stats
	})
	if !ok {
		return nil, false
	}
	return tree, true
}

// eachInTree calls f on h's launch tree in breadth-first order, stopping
// where f returns false; it reports whether f held for every kernel.
func (r *Reader) eachInTree(h *kernel, f func(*kernel) bool) bool {
	queue := []*kernel{h}
	for i := 0; i < len(queue); i++ {
		k := queue[i]
		if !f(k) {
			return false
		}
		for _, id := range k.kids {
			queue = append(queue, r.kernels[id])
		}
	}
	return true
}

// write queues a tree's records.
func (r *Reader) write(tree []*kernel) error {
	placed := r.placeSites(tree)
	at := func(s *site) int64 { return placed[s] }
	cycles := make(map[uint64][]int64, len(tree))
	for _, k := range tree {
		cycles[k.id] = k.siteTimes(r.g, at)
	}
	if r.opts.Inline == "levels" {
		return r.writeLevels(tree, cycles, at)
	}
	inline := treeWork(tree, cycles, r.opts.CTAOnce)
	opened := map[createdStream]bool{}
	for _, k := range tree {
		r.out = append(r.out, &trace.Kernel{ID: k.id, Name: traceString(k.name), Grid: k.grid, Block: k.block, Regs: k.regs, Smem: k.smem})
		l := &trace.Launch{Kernel: k.id}
		if k.host {
			l.T, l.Stream = k.t, k.stream
		} else {
			s := k.site
			l.Parent = &trace.Parent{Kernel: s.parent.id, CTA: s.cta, Warp: s.warp, Lane: k.lane, At: s.at}
			w := inline[k.id]
			l.Workload, l.InlineCycles = w.price(r.opts, s.parent, len(s.kids))
			l.DeviceStream, l.CreatesStream = k.devStream, k.creates
			if k.devStream == trace.CreatedStream {
				l.Stream = k.devStreamU
				if err := r.intoCreated(opened, k); err != nil {
					return err
				}
			}
		}
		r.out = append(r.out, l)
		if r.opts.Measured != nil {
			r.opts.Measured(k.measured(at))
		}
		r.writeCTAs(k, k.id, 0, cycles[k.id])
	}
	return nil
}

// createdStream is a stream a CTA created: the parent kernel, its CTA
// and the stream's uid.
type createdStream struct{ parent, cta, stream uint64 }

// intoCreated checks device kernel k's launch into a created stream
// against the streams its parent's CTA created (opened, in the order the
// tree's launches are written): the first launch into a stream created
// since takes it as its creator's (creates), and a launch into one that
// no launch of that CTA before it created is the log's fault, where the
// trace would name a stream that does not exist (a "Create stream" line
// the reader did not recognise, or a stream created by another CTA).
func (r *Reader) intoCreated(opened map[createdStream]bool, k *kernel) error {
	key := createdStream{k.site.parent.id, k.site.cta, k.devStreamU}
	if k.creates {
		opened[key] = true
		return nil
	}
	if !opened[key] {
		return &Error{File: r.name, Line: k.line, Msg: fmt.Sprintf("a device launch of kernel %d into stream %d, which no \"Create stream %d\" line before it created for CTA %d of kernel %d", k.id, k.devStreamU, k.devStreamU, k.site.cta, k.site.parent.id)}
	}
	return nil
}

// writeCTAs queues k's CTAs, each with its own cycles, as CTAs from
// first on of the trace kernel id.
func (r *Reader) writeCTAs(k *kernel, id, first uint64, cycles []int64) {
	for i, n := range cycles {
		c := &k.ctas[i]
		// The demand was spread by measured spans; the rate limits hold
		// for the cycles left once the sites' stalls are taken out.
		w := uint64(k.warps()) * uint64(n)
		r.out = append(r.out, &trace.CTA{Kernel: id, CTA: first + uint64(i), Cycles: n, Insts: min(c.insts, 2*w), DRAMBytes: min(c.dramBytes, 1024*w)})
		r.sum.CTAs++
	}
}

// writeLevels queues a host kernel's launch tree as a level-by-level flat
// code runs it (Options.Inline "levels"): no kernel launches another, and
// the device-launched kernels at depth d (the host kernel's children at
// 1, theirs at 2, ...) run as one host kernel for depth d, launched into
// the host kernel's stream after the host waits for depth d−1's, as
// Dragon_li's AmrReg does (amrReg.h:35-85 at 1397e03: one
// amrRegRefineKernel a refinement level, then cudaDeviceSynchronize).
//
//   - The host kernel is written as captured, each CTA its own cycles less
//     its warps' launch stalls (siteTimes): the launching parents are
//     charged nothing for the launches, which the form does not make.
//   - Depth d's kernel takes the id of its first child (the least: the
//     simulator numbers kernels as they launch), and the children's CTAs
//     in launch order: child c's CTA i is the level kernel's CTA o_c + i,
//     o_c the CTAs of the children launched before c, with c's own cycles
//     (less its own launch stalls), instructions and DRAM bytes. Its name
//     is the children's names in launch order, each once, joined by "+";
//     its block is the largest child's (the most threads a CTA, the first
//     of those), its registers and shared memory the most any child
//     takes, so a child of smaller CTAs is placed on the SMs as a CTA of
//     that shape.
//   - Lost: when each child was launched and its stream (depth d's CTAs
//     are placed only after depth d−1's have all ended, in the order
//     above, never beside their parents); the children's separate
//     kernels (an SM holding CTAs of one kernel at a time now holds
//     several children's); what the parents did to decide on a launch
//     stays in their cycles; and what a real level code does otherwise
//     (its own grid, a thread a cell rather than the children's shape).
//   - The host waits: with Options.Syncs, a device sync before each level
//     kernel, at the host kernel's t and returning there (the capture has
//     no time for calls it did not make; the replay moves the host's
//     later calls by its own return); without, the level kernels follow
//     each other in the host kernel's stream.
func (r *Reader) writeLevels(tree []*kernel, cycles map[uint64][]int64, at func(*site) int64) error {
	root := tree[0]
	depth := map[uint64]int{root.id: 0}
	var levels [][]*kernel
	for _, k := range tree[1:] { // breadth-first: a parent before its children
		d := depth[k.site.parent.id] + 1
		depth[k.id] = d
		if d > len(levels) {
			levels = append(levels, nil)
		}
		levels[d-1] = append(levels[d-1], k)
	}
	r.out = append(r.out, &trace.Kernel{ID: root.id, Name: traceString(root.name), Grid: root.grid, Block: root.block, Regs: root.regs, Smem: root.smem},
		&trace.Launch{Kernel: root.id, T: root.t, Stream: root.stream})
	r.writeCTAs(root, root.id, 0, cycles[root.id])
	for d, kids := range levels {
		slices.SortFunc(kids, func(a, b *kernel) int { return cmp.Compare(a.id, b.id) })
		lk := &trace.Kernel{ID: kids[0].id, Block: kids[0].block}
		var names []string
		var n uint64
		for _, k := range kids {
			if !slices.Contains(names, k.name) {
				names = append(names, k.name)
			}
			if k.threads() > int64(lk.Block[0])*int64(lk.Block[1])*int64(lk.Block[2]) {
				lk.Block = k.block
			}
			lk.Regs, lk.Smem = max(lk.Regs, k.regs), max(lk.Smem, k.smem)
			n += uint64(len(cycles[k.id]))
		}
		if n > math.MaxUint32 {
			return &Error{File: r.name, Line: root.line, Msg: fmt.Sprintf("inline=levels: depth %d of kernel %d's launch tree has %d CTAs, more than one grid's x dimension holds (2^32-1)", d+1, root.id, n)}
		}
		lk.Name, lk.Grid = strings.Join(names, "+"), [3]uint32{uint32(n), 1, 1}
		if r.opts.Syncs {
			r.out = append(r.out, &trace.Sync{Op: trace.SyncDevice, T: root.t})
			r.sum.Syncs++
		}
		r.out = append(r.out, lk, &trace.Launch{Kernel: lk.ID, T: root.t, Stream: root.stream})
		var first uint64
		for _, k := range kids {
			r.writeCTAs(k, lk.ID, first, cycles[k.id])
			first += uint64(len(cycles[k.id]))
		}
		r.sum.Levels++
	}
	if r.opts.Measured != nil {
		for _, k := range tree {
			r.opts.Measured(k.measured(at))
		}
	}
	return nil
}

// launchCycle is where in [lo, hi] a site's launch lies: no later than its
// children could reach the Kernel Distributor, launch latency + 1 cycles
// before the first of their CTAs starts (a bound that is exact when an SM
// had room for that CTA at once).
func (r *Reader) launchCycle(s *site) int64 {
	l := s.hi
	if l < 0 {
		l = r.now()
	}
	for _, k := range s.kids {
		if k.started >= 0 {
			l = min(l, k.started-r.g.launchLatency-1)
		}
	}
	return max(l, s.lo)
}

// placeSites is each of a tree's launch sites' launch cycle: launchCycle,
// except where the CTAs' ends place the launches closer.
//
// GPGPU-Sim launches when the warp's cudaLaunchDeviceV2 issues, after
// its stall (shader.cc:1391-1407 sets m_cdp_latency, lines 1303-1305
// count it down, and the issue runs the call: cuda_device_runtime.cc's
// gpgpusim_cuda_launchDeviceV2 queues the launch, line 230), and the
// warp then runs the rest of its kernel: the call's return and what
// follows it, the same instructions in every CTA of the kernel. So where
// the launching warp is its CTA's last, the CTA ends a fixed tail after
// the launch (in cdpqueue's PTX_SIM_DEBUG=3 log, where the stream
// manager's lines time each push, 330 to 333 cycles for all 16). For
// the last site of each CTA of one kernel name, the tail T lies in
// [end − hi, end − lo]; where those ranges meet, each such site is placed
// at end − T with T the least of them (the latest launches that fit every
// window, as launchCycle takes the latest). This matters where many
// launches share a wide window: at PTX_SIM_DEBUG=1 a window is the gap
// between stamps, up to thousands of cycles, and the window's end would
// put launches that GPGPU-Sim made tens of cycles apart hundreds apart.
// Where the ranges do not meet (the warps' tails differ), launchCycle
// stands.
//
// The device runtime pushes one queued launch to the stream manager a
// core cycle (launch_one_device_kernel, gpu-sim.cc:2155), in launch
// order, so each site is placed no earlier than a cycle after the one
// before it in the log, and never past launchCycle's bound.
func (r *Reader) placeSites(tree []*kernel) map[*site]int64 {
	type span struct{ lo, hi int64 }
	tails := map[string]span{}
	var last []*site
	for _, k := range tree {
		lastOf := map[uint64]*site{}
		for _, s := range k.sites {
			lastOf[s.cta] = s
		}
		for _, s := range k.sites {
			e := k.ctas[s.cta].end
			if lastOf[s.cta] != s || e < 0 || s.hi < 0 {
				continue
			}
			last = append(last, s)
			t, ok := tails[k.name]
			if !ok {
				t = span{0, 1 << 62}
			}
			t.lo, t.hi = max(t.lo, e-s.hi), min(t.hi, e-s.lo)
			tails[k.name] = t
		}
	}
	placed := map[*site]int64{}
	var all []*site
	for _, k := range tree {
		for _, s := range k.sites {
			placed[s] = r.launchCycle(s)
			all = append(all, s)
		}
	}
	for _, s := range last {
		if t := tails[s.parent.name]; t.lo <= t.hi {
			placed[s] = min(max(s.parent.ctas[s.cta].end-t.lo, s.lo), placed[s])
		}
	}
	// In launch order: GPGPU-Sim numbers kernels as they launch.
	slices.SortFunc(all, func(a, b *site) int { return cmp.Compare(a.kids[0].id, b.kids[0].id) })
	for i := 1; i < len(all); i++ {
		s, p := all[i], all[i-1]
		placed[s] = min(max(placed[s], placed[p]+1), r.launchCycle(s))
	}
	return placed
}

// siteTimes places k's launch sites in its warps' own time and returns
// each CTA's cycles without them (the trace's cta.cycles excludes
// launch-site work, which the replay's policy prices).
//
// GPGPU-Sim stalls a warp b + a·x cycles at cudaGetParameterBufferV2 and
// again at cudaLaunchDeviceV2 (x its active lanes), and launches when the
// second call issues, at the launch cycle L. So the site lies at
// L − start − cost − (the costs of the warp's earlier sites) into the
// warp's own run, and the CTA's own cycles are its measured span less the
// largest total of site costs of any one warp.
func (k *kernel) siteTimes(g gpu, at func(*site) int64) []int64 {
	cycles := make([]int64, len(k.ctas))
	for i, c := range k.ctas {
		cycles[i] = c.end - c.start
	}
	if len(k.sites) == 0 {
		return cycles
	}
	type warpKey struct {
		cta  uint64
		warp int
	}
	spent := map[warpKey]int64{}
	last := map[warpKey]int64{}
	worst := map[uint64]int64{}
	for _, s := range k.sites { // in log order, so each warp's in its own order
		x := int64(len(s.kids))
		cost := g.cdpLatency[1] + g.cdpLatency[2]*x + g.cdpLatency[3] + g.cdpLatency[4]*x
		if s.creates() {
			cost += g.cdpLatency[0]
		}
		key := warpKey{s.cta, s.warp}
		s.at = max(at(s)-k.ctas[s.cta].start-cost-spent[key], last[key], 0)
		last[key] = s.at
		spent[key] += cost
		worst[s.cta] = max(worst[s.cta], spent[key])
	}
	for cta, w := range worst {
		cycles[cta] = max(cycles[cta]-w, 0)
	}
	return cycles
}

// work is what a launching lane would do instead of launching, as SPAWN
// and the flat policies price it: the threads of the child's tree as loop
// iterations (workload), and the tree's measured run two ways: its warps'
// cycles (each CTA's own cycles, less Options.CTAOnce, times its warps)
// and its threads' (the same times its threads). The tree, not the child
// alone: a child inlined never runs, so the launches its CTAs would have
// made are the inlining lane's to do as well, as the generators price them
// (AMR's "the cells its child's tree computes"). GPGPU-Sim ran the
// launches, not this: it is an estimate, not a measurement.
//
// Inlined work. A GPGPU-Sim log stamps CTAs, not warps or threads; the
// warps of a CTA run side by side, so each takes at most the CTA's own
// cycles, and under SIMT one thread takes as long as its warp's path
// through the code. What a flat code spends in the lane depends on how it
// does the child's threads (Options.Inline):
//
//   - loop: the launching thread loops over them one at a time (SPAWN
//     Fig. 3b, "while(local_workload){...}"; Dragon_li's Reg kernels,
//     ssspRegDevice.h:72-90 at 1397e03): each thread costs its warp's
//     time, LoopShare × (CTA cycles − CTAOnce). SPAWN prices the same
//     loop so: "t_parent ← workload × t_warp" (Algorithm 1, line 6).
//     LoopShare 1 is that estimate, an upper bound: alone, a thread issues
//     one lane's memory transactions where its warp issued 32 (gathers to
//     32 lines, 32 atomics on one counter, serialised), and follows one
//     path of a diverged warp. Both are lost from a CTA's cycles; a GPU's
//     and code's share is measured against a flat run.
//   - warp: the launching warp's lanes share them, 32 at a time (a
//     warp-cooperative flat code): one warp running the tree's warps one
//     after another, each as long as its CTA's own cycles less CTAOnce.
//   - cta: the parent CTA's threads share them, each taking the child
//     threads it stands for: the warp figure divided among the parent
//     CTA's warps (spread).
type work struct{ threads, warpCycles, threadCycles int64 }

// treeWork is each device kernel's tree's work, from its CTAs' own cycles,
// less once (Options.CTAOnce) each, and its children's trees'. tree has
// every parent before its children.
func treeWork(tree []*kernel, cycles map[uint64][]int64, once int64) map[uint64]work {
	w := make(map[uint64]work, len(tree))
	for i := len(tree) - 1; i >= 0; i-- {
		k := tree[i]
		own := work{threads: int64(k.total()) * k.threads()}
		for _, c := range cycles[k.id] {
			c = max(c-once, 0)
			own.warpCycles = min(own.warpCycles+capMul(c, k.warps()), trace.MaxCycles)
			own.threadCycles = min(own.threadCycles+capMul(c, k.threads()), trace.MaxCycles)
		}
		for _, id := range k.kids {
			own.threads += w[id].threads
			own.warpCycles = min(own.warpCycles+w[id].warpCycles, trace.MaxCycles)
			own.threadCycles = min(own.threadCycles+w[id].threadCycles, trace.MaxCycles)
		}
		w[k.id] = own
	}
	return w
}

// capMul is a·b for a, b ≥ 0, capped at trace.MaxCycles.
func capMul(a, b int64) int64 {
	if a == 0 || b <= trace.MaxCycles/a {
		return min(a*b, trace.MaxCycles)
	}
	return trace.MaxCycles
}

// price is the workload and inline_cycles of w in a lane of a CTA of
// parent whose launch instruction had lanes lanes, for the flat code
// o.Inline names (a LoopShare outside (0, 1] counts as 1; see loopShare):
// under "loop" each thread of w's tree at the lone lane's share of its
// warp's time, and what its warp's other looping lanes add at the SM's
// load/store unit (portCycles).
func (w work) price(o Options, parent *kernel, lanes int) (threads, cycles int64) {
	switch o.Inline {
	case "warp":
		return w.threads, w.warpCycles
	case "cta":
		s := w.spread(parent)
		return s.threads, s.warpCycles
	}
	c := min(int64(math.Round(o.loopShare()*float64(w.threadCycles))), trace.MaxCycles)
	return w.threads, min(c+capMul(o.portCycles(lanes), w.threads), trace.MaxCycles)
}

// portCycles is what a looping lane's iteration (one child thread) waits
// for its warp's other looping lanes at the SM's load/store unit, when
// lanes lanes of its warp launched in one instruction and so loop side
// by side in the flat code: each of the loop body's LoopAccesses
// instructions whose lanes' addresses differ sends one access a lane,
// one a cycle ("m_icnt->push(mf); inst.accessq_pop_back();", the unit
// holding the warp's instruction while accesses remain,
// ldst_unit::memory_cycle, src/gpgpu-sim/shader.cc:2284-2306 at
// 667834cf), so each further lane adds LoopAccesses cycles an
// iteration. A rerun of dragonli-sssp-tree3-reg that counts them
// (validation/gpgpusim/whatif, dragonli-sssp-tree3-reg-ldst) shows the
// Reg loop's five such instructions (ssspRegDevice.h:72-90 at 1397e03)
// sending 165 accesses an iteration for 32 lanes and 7 for one, where
// the capture's 32-lane warp takes 155 cycles an iteration more than
// its lone lane: 5 · 31 = 155. Lanes past a warp's 32 are another
// warp's, which has its own instructions.
func (o Options) portCycles(lanes int) int64 {
	return int64(min(max(lanes, 1), 32)-1) * o.LoopAccesses
}

// loopShare is the share of its child warp's time (past CTAOnce) that a
// thread of a looping lane costs alone: LoopShare, or 1 outside (0, 1].
// What the lanes looping beside it add is portCycles.
func (o Options) loopShare() float64 {
	if share := o.LoopShare; share > 0 && share <= 1 {
		return share
	}
	return 1
}

// spread is w shared by the threads of a CTA of parent (Options.Inline
// "cta"): the launching warp's part is its share of the warps' run, the
// other warps doing theirs beside it.
func (w work) spread(parent *kernel) work {
	n := parent.warps()
	return work{threads: (w.threads + parent.threads() - 1) / parent.threads(), warpCycles: (w.warpCycles + n - 1) / n}
}

// spread divides a statistics block's warp instructions and DRAM bytes
// over its CTAs in proportion to their cycles (the block gives totals
// only), exactly: the parts sum to the totals. write caps each part at
// the trace format's per-warp rates for the CTA's own cycles.
func spread(runs []*ctaRun, insts, dram uint64) {
	var total uint64
	for _, c := range runs {
		total += uint64(c.end - c.start)
	}
	if total == 0 {
		return
	}
	var cum, prevI, prevD uint64
	for _, c := range runs {
		cum += uint64(c.end - c.start)
		ni, nd := share(insts, cum, total), share(dram, cum, total)
		c.insts, c.dramBytes = ni-prevI, nd-prevD
		prevI, prevD = ni, nd
	}
}

// share is ⌊v·num/den⌋ without overflow (num ≤ den).
func share(v, num, den uint64) uint64 {
	hi, lo := bits.Mul64(v, num)
	q, _ := bits.Div64(hi, lo, den)
	return q
}

// measured is k's run as the log shows it.
func (k *kernel) measured(launch func(*site) int64) Kernel {
	m := Kernel{ID: k.id, Name: k.name, Launch: k.t, Start: k.started}
	for _, c := range k.ctas {
		m.End = max(m.End, c.end)
	}
	if !k.host {
		m.Parent, m.Launch = k.site.parent.id, launch(k.site)
	}
	return m
}
