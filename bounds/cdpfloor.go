package bounds

import (
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// The CDP floor (CDPFloor.Cycles): a makespan no run of the trace in
// which every launching lane launches its child through the device runtime
// (policy cdp, and cdp with other costs: cdp-ideal) can beat, on the same
// GPU and costs, whatever the SMX scheduler (the FCFS gate below: the
// baseline's FCFS placement), the contention model, the launch servers or
// the pending pool do. It is computed beside the run
// from the trace and the model's parameters alone: every term below is a
// sum of costs the engine charges for certain, never a time the run's
// schedule chose, so the floor is the same in every such run (but for the
// FCFS gate, which needs a host kernel to run alone: on traces of more
// than one stream whether it does is the run's). It is the largest of the
// bounds below.
//
// The path: the longest chain of things that must happen one after
// another.
//   - A host call issues no earlier than its t (after the launch base of
//     the host stages, io.model, planned from the trace's buffers before
//     the run) and than the host thread allows: with one host thread
//     (lat.host_threads=1) each call after the previous one has held it
//     (lat.host_issue, and a synchronous copy's own transfer,
//     syncCopyWait), since hostThreads.assign never issues a call before
//     its thread is free. The call reaches its stream lat.host_issue +
//     lat.host_launch later (engine.issue).
//   - A host operation starts no earlier than the one before it in its
//     stream has ended (nextInStream lets the next one through only
//     then). A kernel then waits for a Kernel Distributor entry, which
//     it holds lat.kernel_dispatch before its CTAs may be placed
//     (fillKD); a copy moves its bytes on its copy engine, taking at
//     least io.copy_latency and their transfer (channel.moveAfter,
//     rounded to a whole cycle).
//   - A CTA starts no earlier than its kernel is ready, and each warp of
//     it runs its own cycles and pays, at each of its sites in order, the
//     site's full device-runtime call: cudaGetParameterBuffer and
//     cudaLaunchDevice for the site's x launching lanes and one stream
//     (model.CDP.APICost of the engine's own converted costs, e.g. DTBL
//     Table 3: 7165 + 8023 + 129x + 12187 + 1592x cycles at 706 MHz). A
//     warp reaches its next site at its start plus the site's position
//     plus the calls before it (siteEngine.goOn), or later under the
//     contention model, where a job of w cycles of progress takes at least
//     w cycles (every SM's rate is at most 1, and the model wakes a job at
//     the first whole cycle at or after its exact finish); a call returns
//     no earlier than its buffers, latency and service (launchPath.serve:
//     a busy server or a full pending pool only delays it). The warp ends
//     at the latest of its own cycles and its last site, plus its calls.
//   - A child reaches the KMU when its site's call returns (launchChildren),
//     takes a Kernel Distributor entry and lat.kernel_dispatch (fillKD),
//     and its CTAs follow the same rule, recursively.
//   - A kernel completes no earlier than its CTAs have ended and its
//     children have completed: a parent whose CTAs are done waits for
//     its children (maybeComplete: kids must be 0), and the next host
//     operation on its stream waits for that.
//
// An `after` dependency only delays a kernel further; the floor does not
// count it (it would only raise the floor).
//
// The room: every CTA holds its SM's room — one of gpu.max_ctas_per_sm
// slots, its warps of the threads, its registers and its shared memory —
// from its placement to its end (sm.reserve, sm.release), at least its
// chain as above, and an SM never holds more than its limits (sm.fits). So
// the run lasts at least, per resource, the CTAs' summed use × chain over
// the GPU's total (gpu.sms × the per-SM limit), rounded up (the makespan
// is a whole cycle). The sums are exact (128 bits).
//
// The entries: a kernel holds one of the gpu.max_kernels Kernel
// Distributor entries from its dispatch until its CTAs have all ended
// (enterKD; maybeComplete gives it back when nothing is left to
// distribute), at least lat.kernel_dispatch and its longest CTA's chain,
// and no more than gpu.max_kernels are held at once (fillKD). So the run
// lasts at least the summed hold over the entries, rounded up. A CTA's
// chain counts only as far as it raises its kernel's end past what the
// kernel had: a child that completed first can only make the sum smaller.
//
// The demand: under the contention model (model.contention=on) a CTA
// with a recorded demand asks for issue slots and DRAM bytes in proportion
// to its progress, at least its warps' own cycles' worth, and the model
// never gives an SM more than gpu.issue_width slots a cycle nor the SMs
// together more than the DRAM's bytes a cycle (the issue share and the
// DRAM water level, internal/contention). So the run lasts at least the
// CTAs' instructions over gpu.sms × issue_width and their bytes over the
// DRAM bandwidth, as TaskWork bounds the task runtimes.
//
// The trees: every CTA, entry and demand of a host kernel's tree (its
// CTAs and its children's, recursively) falls between the kernel's ready
// time and its completion — a child is launched by a running CTA of its
// parent, and a kernel completes after its children — so the kernel
// completes no earlier than its ready time plus its tree's room, entries
// and demand (gpuLoad.cycles), and its stream's next operation starts
// after that: a host loop's kernels add their trees' loads up. Its device
// kernels' load alone falls after the first of them takes its entry,
// which is no earlier than a site's call can return: the kernel completes
// no earlier than that plus their load.
//
// The waves: at most r of a host kernel's CTAs are resident at once, r =
// gpu.sms × the CTAs of its size an empty SM holds (sm.fits; other
// kernels' CTAs only leave fewer), and a CTA is resident from its
// placement, no later than its start, to its end, at least its chain
// after its start. So with its CTAs numbered in the order they start
// (CDPFloor.CTAStarted is called at each start), the i-th starts no earlier
// than the (i-1)-th, nor before i-r of the CTAs started before it have
// ended: at its start at most r-1 others are resident, the rest of the
// i-1 have ended. By induction each starts no earlier than s_i, the same
// recurrence over the kernel's ready time and the chains (waves), since a
// larger set of ends has no smaller order statistic: the kernel
// completes no earlier than any s_i plus its chain. This holds under any
// placement.
//
// The FCFS gate: under the baseline SMX scheduler (RoundRobin, kernels
// in FCFS order; no gate, CRCS scoreboard or exclusive SMs, so a CTA
// starts when placed: fcfsPlacement) a kernel places a CTA only after
// every kernel that reached the Kernel Distributor before it has either
// placed all its CTAs or fits on no SM (its loop leaves a kernel only
// then; SMs only fill during one Place call) — GPGPU-Sim's select_kernel,
// which DTBL's authors extended for dynamic parallelism (docs/model.md,
// "CTA placement"). Every device kernel of a host kernel K's tree arrives
// after K. Suppose none of its CTAs fits beside an SM holding as many of
// K's CTAs as fit, and no other host kernel headed a stream while K was
// not complete (alone: then no CTA of another tree is resident in K's
// life). Then no CTA of K's tree below K is placed before K's last CTA:
// at the first such placement, K fits on no SM, every SM holds only K's
// CTAs, so as many as fit, and the device kernel's CTA fits beside them,
// against the premise. K's last CTA starts at s_N at the earliest
// (the waves); so K completes no earlier than s_N plus the longest any
// device kernel of the tree takes from its CTAs' start to its completion
// (its floor end - ready: the chains are relative to the start), nor
// than s_N plus what must fit after it (gpuLoad.cycles): the device
// kernels' room and demand, K's last CTA's chain, room and demand, and
// the entries the device kernels hold after s_N — all of their holds but
// a dispatch for each of those holding an entry at s_N, at most
// gpu.max_kernels-1 of them (K holds one, and none gives its entry back
// before its CTAs have ended), and K's own for its last CTA's chain. The
// gate depends on the placement rule: other placers, a gate on CTA
// starts, or children that fit beside their parent's CTAs, lose it; and
// on the run keeping host kernels apart (a trace on one stream always
// does).
//
// The servers: with cdp.launch_servers > 0 each site's call holds one of
// its SM's servers for its service, launch_a·x, one call at a time, and
// no call reaches a server before its site's earliest reach plus its
// parameter buffers and latency (launchPath.serve). Of the gpu.sms ×
// launch_servers servers the busiest serves at least the summed service
// over their number, rounded up, none of it before the earliest call
// arrives; its last call's children then reach the KMU and take
// lat.kernel_dispatch before they can run. As blindfloor.go bounds the
// blind lanes' calls per SM, this bounds all of them over the GPU, for
// the SM a CTA runs on is the schedule's choice.
//
// The floor is computed only while every verdict is a device-runtime
// launch: a run in which any lane is inlined, coalesced or launched by
// DTBL's hardware has no CDP floor (0).
//
// CDPFloor is the floor's analysis. It keeps each host operation's and
// each running device kernel's times, a host kernel's tree's load while it
// runs, and for each idle stream its last operation's end: memory grows
// with the work in flight.
type CDPFloor struct {
	replay.NoAnalysis
	cfg      model.Config
	cdp      model.CDP // the device-runtime costs, converted as the engine's (cfg.LaunchCosts)
	gpu      model.GPU
	issue    int64 // lat.host_issue
	launch   int64 // lat.host_launch
	dispatch int64 // lat.kernel_dispatch
	serial   bool  // one host thread: its calls are serial
	hostFree int64 // serial: when the thread is free for the next call, at the earliest

	ownStreams bool // the policy gives each task group a fresh stream (Policy.OwnStreams)
	fcfs       bool // the baseline FCFS placement, CTAs starting when placed (fcfsPlacement)

	off       bool // a verdict other than a runtime launch was given
	times     map[*replay.Kernel]*floorTimes
	streamEnd map[uint64]int64 // an idle stream's last operation's end, at the earliest
	path      int64            // the latest end of any chain so far
	service   int64            // the launch servers' summed service
	firstCall int64            // the earliest a call reaches the servers; -1 before one

	contention bool                         // model.contention=on
	all        gpuLoad                      // what the run's CTAs and kernels hold and ask
	trees      map[*replay.Kernel]*treeLoad // the same of each running host kernel's tree
	heads      int64                        // host kernels that have come to a stream's head
}

// treeLoad is the load of a host kernel's tree: all of it, and that of
// its device kernels alone, none of which takes its Kernel Distributor
// entry before kidsFrom (-1 before one does); and what the waves and the
// FCFS gate need (cdpfcfs.go).
type treeLoad struct {
	all, kids gpuLoad
	kidsFrom  int64

	host  *replay.Kernel
	waves waveFront // the host kernel's CTAs, in the order they start
	last  struct {
		chain       int64
		insts, dram float64
	} // the last of them
	nKids int64       // device kernels in the tree
	tail  int64       // the longest a device kernel takes from its CTAs' start to its completion
	alone bool        // no other host kernel was at a stream's head when this one came to its
	head  int64       // CDPFloor.heads when it came: alone while no other host kernel came since
	sneak bool        // a device kernel's CTA fits beside a full SM of the host kernel's
	seen  replay.Need // the last device kernel's need checked for sneak
}

// NewCDPFloor is the CDP floor of a run of pol on cfg.
func NewCDPFloor(cfg model.Config, pol replay.Policy) *CDPFloor {
	return &CDPFloor{
		cfg:        cfg,
		ownStreams: pol.OwnStreams,
		fcfs:       fcfsPlacement(pol, cfg.GPU),
		cdp:        cfg.LaunchCosts(), gpu: cfg.GPU,
		issue: cfg.Lat.HostIssue, launch: cfg.Lat.HostLaunch, dispatch: cfg.Lat.KernelDispatch,
		serial:     cfg.Lat.HostThreads <= 1,
		times:      map[*replay.Kernel]*floorTimes{},
		streamEnd:  map[uint64]int64{},
		trees:      map[*replay.Kernel]*treeLoad{},
		firstCall:  -1,
		contention: cfg.Model.Contention == model.On,
	}
}

// floorTimes is the floor's of one kernel: when its CTAs may be placed at
// the earliest (for a host operation, until it heads its stream, when it
// reaches the stream), and when it completes at the earliest. A device
// kernel's are let go when it completes (its parent has them then), a
// host operation's once its stream has gone on past it.
type floorTimes struct {
	ready, end int64
}

// kernelTimes is k's floor times, zero on first use.
func (f *CDPFloor) kernelTimes(k *replay.Kernel) *floorTimes {
	t := f.times[k]
	if t == nil {
		t = &floorTimes{}
		f.times[k] = t
	}
	return t
}

// end is when k completes at the earliest; 0 when not known.
func (f *CDPFloor) end(k *replay.Kernel) int64 {
	if t := f.times[k]; t != nil {
		return t.end
	}
	return 0
}

// Decided notes a site's verdicts: only runtime launches keep the floor.
func (f *CDPFloor) Decided(out []replay.Verdict) {
	for _, v := range out {
		if !f.off && (v.Decision != replay.Launch || v.Hardware) {
			f.off, f.trees, f.streamEnd, f.times = true, nil, nil, nil
		}
	}
}

// hostCall is a host call read in trace order that may issue no earlier
// than earliest (its t, after the host stages' launch base: a plan made
// from the trace before the run) and costs its thread cost cycles: k
// reaches its stream at its floor's ready at the earliest.
func (f *CDPFloor) HostCall(k *replay.Kernel, earliest, cost int64) {
	if f.off {
		return
	}
	at := earliest
	if f.serial {
		at = max(at, f.hostFree)
		f.hostFree = at + cost
	}
	f.kernelTimes(k).ready = at + f.issue + f.launch
}

// StreamHead is host operation k at the head of its stream, after prev
// (nil: after the operation that left the stream idle): a kernel is
// ready lat.kernel_dispatch after it may take its entry, a copy ends its
// transfer after it may start.
func (f *CDPFloor) StreamHead(k, prev *replay.Kernel) {
	if f.off {
		return
	}
	var after int64
	if prev == nil {
		after = f.reopen(k.Stream())
	} else {
		after = f.end(prev)
		delete(f.times, prev)
	}
	kt := f.kernelTimes(k)
	at := max(kt.ready, after)
	if bytes, ok := k.CopyBytes(); ok {
		kt.ready = at
		kt.end = at + f.cfg.IO.CopyLatency + replay.CopyCycles(f.cfg, bytes)
		return
	}
	f.ready(k, at+f.dispatch, nil)
	f.heads++
	f.trees[k] = &treeLoad{host: k, kidsFrom: -1, alone: len(f.trees) == 0, head: f.heads}
}

// ready is kernel k ready at cycle at at the earliest, having held its
// Kernel Distributor entry lat.kernel_dispatch; tree is the load of the
// host kernel's tree a device kernel is in (nil for a host kernel, whose
// dispatch is before its tree's time).
func (f *CDPFloor) ready(k *replay.Kernel, at int64, tree *treeLoad) {
	*f.kernelTimes(k) = floorTimes{ready: at, end: at}
	f.all.entries += f.dispatch
	if tree != nil {
		tree.all.entries += f.dispatch
		tree.kids.entries += f.dispatch
		tree.nKids++
		if tree.kidsFrom < 0 || at-f.dispatch < tree.kidsFrom {
			tree.kidsFrom = at - f.dispatch
		}
	}
}

// tree is the load of the host kernel's tree k is in; nil where k's
// launcher is an aggregated group (no CDP floor then).
func (f *CDPFloor) tree(k *replay.Kernel) *treeLoad {
	if k = hostRoot(k); k == nil {
		return nil
	}
	return f.trees[k]
}

// StreamIdle is a stream left with nothing after k: the next operation
// on it starts after k's end. Under a policy of fresh streams per task
// group most streams are never used again, so none is remembered (the
// floor only loses that term).
func (f *CDPFloor) StreamIdle(k *replay.Kernel) {
	if f.off {
		return
	}
	if !f.ownStreams {
		f.streamEnd[k.Stream()] = f.end(k)
	}
	delete(f.times, k)
}

// reopen is an operation entering idle stream: what it follows.
func (f *CDPFloor) reopen(stream uint64) int64 {
	end := f.streamEnd[stream]
	delete(f.streamEnd, stream)
	return end
}

// CTAStarted adds a CTA of k starting at k's floor ready time at the
// earliest: its chain (each warp's cycles and calls), its children's
// ready times, and its room held for that long.
func (f *CDPFloor) CTAStarted(ev *replay.CTAEvent) {
	if f.off {
		return
	}
	k := ev.Kernel
	tree := f.tree(k)
	chain := ev.Alone()
	kt := f.kernelTimes(k)
	if ev.HasSites() {
		chain = max(chain, f.sited(kt.ready, ev, tree))
	}
	hold := max(0, kt.ready+chain-kt.end)
	kt.end = max(kt.end, kt.ready+chain)
	insts, dram := ctaDemand(ev, f.contention)
	n := k.Need()
	f.all.cta(n, chain, hold, insts, dram)
	if tree == nil {
		return
	}
	tree.all.cta(n, chain, hold, insts, dram)
	if k.Host() {
		if tree.waves.n == 0 {
			tree.waves.begin(kt.ready, n.PerSM(&f.gpu)*int64(f.gpu.SMs))
		}
		tree.waves.start(chain)
		tree.last.chain, tree.last.insts, tree.last.dram = chain, insts, dram
		return
	}
	tree.kids.cta(n, chain, hold, insts, dram)
	f.checkSneak(tree, k)
}

// ctaDemand is what a CTA of k with a recorded demand asks of the shared
// hardware under the contention model (shared.go; 0 without it): a CTA
// without sites is one job of its time alone at its demand; one with
// sites is a job per warp with sites, of at least the warp's own cycles,
// and one for the others of their longest warp's, each at its share of
// the demand, so at least the demand × its warps' mean cycles.
func ctaDemand(ev *replay.CTAEvent, contention bool) (insts, dram float64) {
	issue, bytes := ev.Demand()
	if !contention || (issue <= 0 && bytes <= 0) {
		return 0, 0
	}
	work := float64(ev.Alone())
	if ev.HasSites() {
		n := int(ev.Kernel.Need().Warps)
		var sum int64
		for w := 0; w < n; w++ {
			sum += ev.WarpCycles(w)
		}
		work = float64(sum) / float64(n)
	}
	return issue * work, bytes * work
}

// sited is the longest chain of the warps with sites of a CTA starting at
// start, and sets each site's children's ready time: its call's return
// plus lat.kernel_dispatch.
func (f *CDPFloor) sited(start int64, ev *replay.CTAEvent, tree *treeLoad) int64 {
	var chain, shift, lastAt int64
	w := -1 // the warp whose sites are being walked
	for s := range ev.Sites() {
		if s.Warp != w {
			if w >= 0 {
				chain = max(chain, max(ev.WarpCycles(w), lastAt)+shift)
			}
			w, shift = s.Warp, 0
		}
		x, create := int64(s.Len()), s.CreatesStream()
		reach := start + s.At + shift
		f.call(reach+f.cdp.ParamCost(x)+f.cdp.LaunchLatency(create), x)
		back := reach + f.cdp.APICost(x, create)
		for i := range s.Len() {
			f.ready(s.Child(i), back+f.dispatch, tree)
		}
		shift += f.cdp.APICost(x, create)
		lastAt = s.At
	}
	if w >= 0 {
		chain = max(chain, max(ev.WarpCycles(w), lastAt)+shift)
	}
	return chain
}

// call is a site's call for x lanes reaching the launch servers at
// cycle arrive at the earliest.
func (f *CDPFloor) call(arrive, x int64) {
	if f.firstCall < 0 || arrive < f.firstCall {
		f.firstCall = arrive
	}
	f.service += f.cdp.LaunchService(x)
}

// KernelDone is kernel k complete: its parent (or, for a host kernel,
// its stream's next operation) completes after it. A host kernel
// completes no earlier than its tree's load fits in the GPU from its
// ready time: every CTA and entry of the tree is held, and every demand
// made, after the kernel is ready and before it completes.
func (f *CDPFloor) KernelDone(k *replay.Kernel) {
	if f.off {
		return
	}
	kt := f.kernelTimes(k)
	if t := f.trees[k]; t != nil {
		kt.end = max(kt.end, kt.ready+f.fit(&t.all))
		if t.kidsFrom >= 0 {
			kt.end = max(kt.end, t.kidsFrom+f.fit(&t.kids))
		}
		kt.end = max(kt.end, f.afterWaves(k, t))
		delete(f.trees, k)
	} else if !k.Host() {
		if t := f.tree(k); t != nil {
			t.tail = max(t.tail, kt.end-kt.ready)
		}
	}
	f.path = max(f.path, kt.end)
	if p := k.Parent(); p != nil {
		pt := f.kernelTimes(p)
		pt.end = max(pt.end, kt.end)
	}
	if !k.Host() {
		delete(f.times, k)
	}
}

// Cycles is the floor once the run is over: 0 when a verdict was not a
// runtime launch.
func (f *CDPFloor) Cycles() int64 {
	if f.off {
		return 0
	}
	floor := max(f.path, f.fit(&f.all))
	if n := f.cdp.LaunchServers * int64(f.gpu.SMs); n > 0 && f.firstCall >= 0 {
		floor = max(floor, f.firstCall+(f.service+n-1)/n+f.dispatch)
	}
	return floor
}

// fit is the least time load takes on the GPU.
func (f *CDPFloor) fit(l *gpuLoad) int64 { return l.cycles(f.gpu, f.contention) }
