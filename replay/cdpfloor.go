package replay

import "github.com/gpureplay/gpureplay/model"

// The CDP floor (Stats.CDPFloorCycles): a makespan no run of the trace in
// which every launching lane launches its child through the device runtime
// (policy cdp, and cdp with other costs: cdp-ideal) can beat, on the same
// GPU and costs, whatever the SMX scheduler, the contention model, the
// launch servers or the pending pool do. It is computed beside the run
// from the trace and the model's parameters alone: every term below is a
// sum of costs the engine charges for certain, never a time the run's
// schedule chose, so the floor is the same in every such run. It is the
// largest of the bounds below.
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
//     least their transfer (channel.move, rounded to a whole cycle).
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
//   - A child reaches the KMU when its site's call returns (launchChild),
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
type cdpFloor struct {
	cdp      model.CDP // the engine's converted device-runtime costs
	gpu      model.GPU
	issue    int64 // lat.host_issue
	launch   int64 // lat.host_launch
	dispatch int64 // lat.kernel_dispatch
	perByte  float64
	serial   bool  // one host thread: its calls are serial
	hostFree int64 // serial: when the thread is free for the next call, at the earliest

	ownStreams bool // the policy gives each task group a fresh stream (Policy.OwnStreams)

	off       bool             // a verdict other than a runtime launch was given
	streamEnd map[uint64]int64 // an idle stream's last operation's end, at the earliest
	path      int64            // the latest end of any chain so far
	service   int64            // the launch servers' summed service
	firstCall int64            // the earliest a call reaches the servers; -1 before one

	contention bool                  // model.contention=on
	all        gpuLoad               // what the run's CTAs and kernels hold and ask
	trees      map[*Kernel]*treeLoad // the same of each running host kernel's tree
}

// treeLoad is the load of a host kernel's tree: all of it, and that of
// its device kernels alone, none of which takes its Kernel Distributor
// entry before kidsFrom (-1 before one does).
type treeLoad struct {
	all, kids gpuLoad
	kidsFrom  int64
}

func newCDPFloor(cfg model.Config, cdp model.CDP, ownStreams bool) cdpFloor {
	return cdpFloor{
		ownStreams: ownStreams,
		cdp:        cdp, gpu: cfg.GPU,
		issue: cfg.Lat.HostIssue, launch: cfg.Lat.HostLaunch, dispatch: cfg.Lat.KernelDispatch,
		perByte:    pcieCyclesPerByte(cfg.GPU.ClockMHz, cfg.IO.PCIeGBps),
		serial:     cfg.Lat.HostThreads <= 1,
		streamEnd:  map[uint64]int64{},
		trees:      map[*Kernel]*treeLoad{},
		firstCall:  -1,
		contention: cfg.Model.Contention == "on",
	}
}

// verdict notes a lane's verdict: only runtime launches keep the floor.
func (f *cdpFloor) verdict(v Verdict) {
	if v.Decision != Launch || v.Hardware {
		f.off = true
	}
}

// hostCall is a host call read in trace order that may issue no earlier
// than earliest (its t, after the host stages' launch base: a plan made
// from the trace before the run) and costs its thread cost cycles: k
// reaches its stream at k.floorReady at the earliest.
func (f *cdpFloor) hostCall(k *Kernel, earliest, cost int64) {
	at := earliest
	if f.serial {
		at = max(at, f.hostFree)
		f.hostFree = at + cost
	}
	k.floorReady = at + f.issue + f.launch
}

// streamHead is host operation k at the head of its stream, after the
// operation whose end is at prev at the earliest: a kernel is ready
// lat.kernel_dispatch after it may take its entry, a copy ends its
// transfer after it may start.
func (f *cdpFloor) streamHead(k *Kernel, prev int64) {
	at := max(k.floorReady, prev)
	if c := k.copyOp(); c != nil {
		k.floorReady = at
		k.floorEnd = at + roundCycle(float64(c.bytes)*f.perByte)
		return
	}
	f.ready(k, at+f.dispatch, nil)
	f.trees[k] = &treeLoad{kidsFrom: -1}
}

// ready is kernel k ready at cycle at at the earliest, having held its
// Kernel Distributor entry lat.kernel_dispatch; tree is the load of the
// host kernel's tree a device kernel is in (nil for a host kernel, whose
// dispatch is before its tree's time).
func (f *cdpFloor) ready(k *Kernel, at int64, tree *treeLoad) {
	k.floorReady, k.floorEnd = at, at
	f.all.entries += f.dispatch
	if tree != nil {
		tree.all.entries += f.dispatch
		tree.kids.entries += f.dispatch
		if tree.kidsFrom < 0 || at-f.dispatch < tree.kidsFrom {
			tree.kidsFrom = at - f.dispatch
		}
	}
}

// tree is the load of the host kernel's tree k is in; nil where k's
// launcher is an aggregated group (no CDP floor then).
func (f *cdpFloor) tree(k *Kernel) *treeLoad {
	for k != nil && !k.host {
		k = k.owner.k
	}
	if k == nil {
		return nil
	}
	return f.trees[k]
}

// idle is a stream left with nothing after k: the next operation on it
// starts after k's end. Under a policy of fresh streams per task group
// most streams are never used again, so none is remembered (the floor
// only loses that term).
func (f *cdpFloor) idle(stream uint64, k *Kernel) {
	if !f.ownStreams {
		f.streamEnd[stream] = k.floorEnd
	}
}

// reopen is an operation entering idle stream: what it follows.
func (f *cdpFloor) reopen(stream uint64) int64 {
	end := f.streamEnd[stream]
	delete(f.streamEnd, stream)
	return end
}

// cta adds a CTA of k starting at k's floorReady at the earliest: its
// chain (each warp's cycles and calls), its children's ready times, and
// its room held for that long.
func (f *cdpFloor) cta(k *Kernel, spec *ctaSpec) {
	tree := f.tree(k)
	chain := spec.alone()
	if x := spec.x; x != nil && len(x.sites) > 0 {
		sortSites(x.sites)
		chain = max(chain, f.sited(k.floorReady, spec, tree))
	}
	hold := max(0, k.floorReady+chain-k.floorEnd)
	k.floorEnd = max(k.floorEnd, k.floorReady+chain)
	insts, dram := f.demand(k, spec)
	f.all.cta(k.need, chain, hold, insts, dram)
	if tree == nil {
		return
	}
	tree.all.cta(k.need, chain, hold, insts, dram)
	if !k.host {
		tree.kids.cta(k.need, chain, hold, insts, dram)
	}
}

// demand adds what a CTA with a recorded demand asks of the shared
// hardware under the contention model (shared.go): a CTA without sites
// is one job of its time alone at its demand; one with sites is a job per
// warp with sites, of at least the warp's own cycles, and one for the
// others of their longest warp's, each at its share of the demand, so at
// least the demand × its warps' mean cycles.
func (f *cdpFloor) demand(k *Kernel, spec *ctaSpec) (insts, dram float64) {
	if !f.contention || (spec.issue <= 0 && spec.dram <= 0) {
		return 0, 0
	}
	work := float64(spec.alone())
	if x := spec.x; x != nil && len(x.sites) > 0 {
		n := int(k.need.warps)
		var sum int64
		for w := 0; w < n; w++ {
			sum += warpCycles(spec, w)
		}
		work = float64(sum) / float64(n)
	}
	return float64(spec.issue) * work, float64(spec.dram) * work
}

// sited is the longest chain of the warps with sites of a CTA starting at
// start, and sets each site's children's ready time: its call's return
// plus lat.kernel_dispatch.
func (f *cdpFloor) sited(start int64, spec *ctaSpec, tree *treeLoad) int64 {
	sites := spec.x.sites
	var chain, shift int64
	for first := 0; first < len(sites); {
		w := int(sites[first].warp)
		_, last := siteLanes(sites, first, w)
		x := int64(last - first)
		reach := start + sites[first].at + shift
		f.call(reach+f.cdp.ParamCost(x)+f.cdp.LaunchLatency(), x)
		back := reach + f.cdp.APICost(x)
		for _, l := range sites[first:last] {
			f.ready(l.child, back+f.dispatch, tree)
		}
		shift += f.cdp.APICost(x)
		if last == len(sites) || int(sites[last].warp) != w {
			chain = max(chain, max(warpCycles(spec, w), sites[first].at)+shift)
			shift = 0
		}
		first = last
	}
	return chain
}

// call is a site's call for x lanes reaching the launch servers at
// cycle arrive at the earliest.
func (f *cdpFloor) call(arrive, x int64) {
	if f.firstCall < 0 || arrive < f.firstCall {
		f.firstCall = arrive
	}
	f.service += f.cdp.LaunchService(x)
}

// done is kernel k complete: its parent (or, for a host kernel, its
// stream's next operation) completes after it. A host kernel completes
// no earlier than its tree's load fits in the GPU from its ready time:
// every CTA and entry of the tree is held, and every demand made, after
// the kernel is ready and before it completes.
func (f *cdpFloor) done(k *Kernel) {
	if t := f.trees[k]; t != nil {
		k.floorEnd = max(k.floorEnd, k.floorReady+f.fit(&t.all))
		if t.kidsFrom >= 0 {
			k.floorEnd = max(k.floorEnd, t.kidsFrom+f.fit(&t.kids))
		}
		delete(f.trees, k)
	}
	f.path = max(f.path, k.floorEnd)
	if p := k.owner.k; p != nil {
		p.floorEnd = max(p.floorEnd, k.floorEnd)
	}
}

// cycles is the floor once the run is over: 0 when a verdict was not a
// runtime launch.
func (f *cdpFloor) cycles() int64 {
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
func (f *cdpFloor) fit(l *gpuLoad) int64 { return l.cycles(f.gpu, f.contention) }
