package timeline

import (
	"fmt"
	"strconv"

	"github.com/gpureplay/gpureplay/tables"
)

// CTA writes a CTA's slices on its SM's lane, the starts of the arrows of
// the launch sites it reached, and, for the first CTA of a coalesced
// group, the ends of the arrows into the group.
func (w *Writer) CTA(c tables.CTA) {
	key := ctaKey{c.KernelID, c.CTA}
	sites := w.flows.sites[key]
	delete(w.flows.sites, key)
	var into []uint64
	if c.GroupID != nil {
		into = w.flows.toGroup[*c.GroupID]
		delete(w.flows.toGroup, *c.GroupID)
	}
	if c.EndCycle != w.flows.endedAt {
		clear(w.flows.ended)
		w.flows.endedAt = c.EndCycle
	}
	if w.opt.MaxCTAs > 0 && w.ctas >= w.opt.MaxCTAs {
		w.dropped++
		for _, s := range sites {
			w.drop(s.id)
		}
		for _, id := range into {
			w.drop(id)
		}
		w.flows.ended[key] = span{tid: -1}
		return
	}
	w.ctas++
	l := w.sms[c.SM]
	if l == nil {
		l = &lanes{}
		w.sms[c.SM] = l
	}
	pid := w.pid(smProc)
	tid := w.lane(pid, 1+int(c.SM)*smLanes, l, fmt.Sprintf("SM %d", c.SM), c.DispatchCycle, c.EndCycle)
	name := c.Name
	if name == "" {
		name = "kernel " + strconv.FormatUint(c.KernelID, 10)
	}
	args := fmt.Sprintf(`"kernel_id":%d,"cta":%d,"stall_cycles":%d`, c.KernelID, c.CTA, c.StallCycles)
	if c.GroupID != nil {
		args += fmt.Sprintf(`,"group_id":%d`, *c.GroupID)
	}
	if c.Slowdown != nil {
		args += `,"slowdown":` + strconv.FormatFloat(*c.Slowdown, 'g', 6, 64)
	}
	if w.ns(c.StartCycle) > w.ns(c.DispatchCycle) {
		w.slice(pid, tid, "stalled", c.DispatchCycle, c.StartCycle, args)
	}
	w.slice(pid, tid, name, c.StartCycle, c.EndCycle, args)
	sp := span{pid, tid, w.ns(c.StartCycle), w.ns(c.EndCycle)}
	for _, s := range sites {
		w.start(s.id, sp, s.ns)
	}
	w.flows.ended[key] = sp
	w.end(into, pid, tid, sp.start)
}

// Launch gives each lane that launched (or coalesced, or went into an
// aggregated kernel) its arrow, which starts on its parent CTA's lane
// once that CTA's row has come. What the lane did (its outcome, not the
// site's verdict: under DTBL's default dtbl.fallback=dispatch a site's
// launch may coalesce when its command arrives) says where the arrow
// ends. A controller's view at the decision (SPAWN's n and n_con)
// becomes two counters.
func (w *Writer) Launch(l tables.Launch) {
	// A decision per launching lane: bounded as the kernels are, at
	// --timeline-kernels values per run of each counter.
	if l.SpawnN != nil || l.SpawnNCon != nil {
		if w.opt.MaxKernels > 0 && w.decisions >= w.opt.MaxKernels {
			w.droppedDecisions++
		} else {
			w.decisions++
			if l.SpawnN != nil {
				w.counter(w.pid(runProc), "SPAWN n (child CTAs queued)", l.Cycle, "n", float64(*l.SpawnN))
			}
			if l.SpawnNCon != nil {
				w.counter(w.pid(runProc), "SPAWN n_con (concurrent child CTAs)", l.Cycle, "n_con", *l.SpawnNCon)
			}
		}
	}
	f := &w.flows
	id := f.id()
	switch l.Outcome {
	case "launched":
		f.toKernel[l.ChildKernelID] = append(f.toKernel[l.ChildKernelID], id)
	case "aggregated": // the kernel KLAP launched for the lane's group
		f.toKernel[*l.TargetKernelID] = append(f.toKernel[*l.TargetKernelID], id)
	case "coalesced":
		f.toGroup[l.ChildKernelID] = append(f.toGroup[l.ChildKernelID], id)
	default:
		return
	}
	k := ctaKey{l.ParentKernelID, l.ParentCTA}
	if sp, ok := f.ended[k]; ok { // its parent's row came first
		if sp.tid < 0 {
			w.drop(id)
		} else {
			w.start(id, sp, w.ns(l.Cycle))
		}
		return
	}
	f.sites[k] = append(f.sites[k], site{w.ns(l.Cycle), id})
}

// Kernel writes a kernel's wait on the launch queue and its run on the
// kernels track, the ends of the arrows into it (at its wait, or at its
// run when it did not wait), and for a host kernel its launch call on the
// host track with the arrow from it.
func (w *Writer) Kernel(k tables.Kernel) {
	if w.opt.MaxKernels > 0 && w.kernelSlices >= w.opt.MaxKernels {
		w.droppedKernels++
		for _, id := range w.flows.toKernel[k.KernelID] {
			w.drop(id)
		}
		delete(w.flows.toKernel, k.KernelID)
		if k.ParentKernelID == nil {
			w.hostKernelEnded(k, span{tid: -1}) // the calls it released draw no arrow
		}
		return
	}
	w.kernelSlices++
	args := fmt.Sprintf(`"kernel_id":%d,"origin":%s,"stream":%d,"ctas":%d,"ready_cycle":%d`, k.KernelID, jsonString(k.Origin), k.Stream, k.CTAs, k.ReadyCycle)
	var endPid, endTid, runTid int
	var endNs int64
	if k.StartCycle >= 0 && w.ns(k.StartCycle) > w.ns(k.LaunchCycle) {
		pid := w.pid(queueProc)
		tid := w.lane(pid, queueTID, &w.queue, "queued", k.LaunchCycle, k.StartCycle)
		w.slice(pid, tid, "queued "+k.Name, k.LaunchCycle, k.StartCycle, args)
		endPid, endTid, endNs = pid, tid, w.ns(k.LaunchCycle)
	}
	if k.StartCycle >= 0 {
		pid := w.pid(runProc)
		tid := w.lane(pid, kernelTID, &w.kernels, "kernels", k.StartCycle, k.EndCycle)
		w.slice(pid, tid, k.Name, k.StartCycle, k.EndCycle, args)
		runTid = tid
		if endTid == 0 {
			endPid, endTid, endNs = pid, tid, w.ns(k.StartCycle)
		}
	}
	ids := w.flows.toKernel[k.KernelID]
	delete(w.flows.toKernel, k.KernelID)
	if endTid == 0 {
		for _, id := range ids {
			w.drop(id)
		}
		return
	}
	w.end(ids, endPid, endTid, endNs)
	if k.ParentKernelID == nil && runTid != 0 {
		w.hostKernelEnded(k, span{w.pid(runProc), runTid, w.ns(k.StartCycle), w.ns(k.EndCycle)})
	}
	if k.ParentKernelID == nil && w.hostIssue > 0 {
		pid := w.pid(runProc)
		end := k.LaunchCycle + w.hostIssue
		host := w.lane(pid, hostTID, &w.host, "host", k.LaunchCycle, end)
		w.slice(pid, host, w.hostCall+" "+k.Name, k.LaunchCycle, end, fmt.Sprintf(`"kernel_id":%d`, k.KernelID))
		id := w.flows.id()
		w.flow("s", id, pid, host, w.ns(k.LaunchCycle))
		w.flow("f", id, endPid, endTid, endNs)
	}
}

// hostKernelEnded starts the release arrows that waited for host kernel
// k's row at the end of its running slice sp, and keeps sp for the calls
// whose rows come later, forgetting the kernels that ended more than
// lat.host_sync before k: rows come in order of their end, so no call
// still to come was released by one of those.
func (w *Writer) hostKernelEnded(k tables.Kernel, sp span) {
	f := &w.flows
	for _, id := range f.fromKernel[k.KernelID] {
		if sp.tid < 0 {
			w.drop(id)
		} else {
			w.start(id, sp, sp.end)
		}
	}
	delete(f.fromKernel, k.KernelID)
	n := 0
	for n < len(f.hostOrder) && f.hostOrder[n].cycle < k.EndCycle-w.hostSync {
		delete(f.hostEnded, f.hostOrder[n].kernel)
		n++
	}
	f.hostOrder = append(f.hostOrder[:0], f.hostOrder[n:]...)
	f.hostEnded[k.KernelID] = sp
	f.hostOrder = append(f.hostOrder, ended{k.KernelID, k.EndCycle})
}

// Sync writes a blocking host call as a slice on its thread's track, from
// its call to its return, and the release arrow into its end from the
// host kernel whose completion ended its wait. Writer is a
// tables.SyncSink.
func (w *Writer) Sync(s tables.Sync) {
	pid := w.pid(runProc)
	th := min(max(s.Thread, 0), maxThreads-1)
	l := w.threads[th]
	if l == nil {
		l = &lanes{}
		w.threads[th] = l
	}
	end := max(s.ReturnCycle, s.CallCycle)
	tid := w.lane(pid, syncTID+int(th)*syncLanes, l, fmt.Sprintf("host thread %d", s.Thread), s.CallCycle, end)
	args := fmt.Sprintf(`"seq":%d,"call":%s,"thread":%d`, s.Seq, jsonString(s.Call), s.Thread)
	if s.Stream != nil {
		args += fmt.Sprintf(`,"stream":%d`, *s.Stream)
	}
	if s.Event != nil {
		args += fmt.Sprintf(`,"event":%d`, *s.Event)
	}
	args += fmt.Sprintf(`,"captured_return_cycle":%d,"wait_cycles":%d`, s.CapturedReturn, s.WaitCycles())
	if s.LastKernel != nil {
		args += fmt.Sprintf(`,"last_kernel_id":%d`, *s.LastKernel)
	}
	w.slice(pid, tid, syncName(s.Call), s.CallCycle, end, args)
	if s.LastKernel == nil || w.ns(end) <= w.ns(s.CallCycle) {
		return // nothing released it, or its slice is too short to hold an arrow's end
	}
	// The arrow ends on a slice of its own, the call's last nanosecond
	// nested in it: Perfetto draws an arrow from the earlier-starting of
	// its two slices, and the call began before the kernel that released
	// it (or it would not have waited), while its return cannot come
	// before that kernel's start.
	at := w.ns(end) - 1
	w.event(fmt.Sprintf(`"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":0.001,"name":"released","args":{"seq":%d,"last_kernel_id":%d,"return_cycle":%d}`,
		pid, tid, us(at), s.Seq, *s.LastKernel, s.ReturnCycle))
	f := &w.flows
	sp, ok := f.hostEnded[*s.LastKernel]
	if ok && sp.tid < 0 {
		return // the kernel's slices were left out by the cap
	}
	id := f.id()
	f.release[id] = true
	if ok {
		w.start(id, sp, sp.end)
		w.end([]uint64{id}, pid, tid, at)
		return
	}
	f.fromKernel[*s.LastKernel] = append(f.fromKernel[*s.LastKernel], id)
	w.end([]uint64{id}, pid, tid, at)
}

// syncName is the slice name of a blocking call of the syncs table.
func syncName(call string) string {
	switch call {
	case "device":
		return "cudaDeviceSynchronize"
	case "stream":
		return "cudaStreamSynchronize"
	case "event":
		return "cudaEventSynchronize"
	case "memcpy":
		return "cudaMemcpy (blocking)"
	}
	return call
}

// Occupancy sets an SM's resident-warp counter for the row's span: rows
// come per SM, lazily (an SM's unchanged windows are one row), so each SM
// has a counter of its own rather than a GPU-wide sum.
//
// The counter changes with each CTA's arrival and departure, so
// --timeline-ctas N bounds it too, at 2N values per run: a trace of 10^6
// one-CTA kernels wrote 4 million of them (280 MB) with
// --timeline-ctas=1000 (issue 75).
func (w *Writer) Occupancy(o tables.Occupancy) {
	if w.opt.MaxCTAs > 0 && w.occupancy >= 2*w.opt.MaxCTAs {
		w.droppedOccupancy++
		return
	}
	w.occupancy++
	w.counter(w.pid(smProc), fmt.Sprintf("SM %d resident warps", o.SM), o.Cycle, "warps", o.ActiveWarps)
}

// Page is not drawn: page events are points, and there are many; the
// report plots their readiness over time.
func (w *Writer) Page(tables.Page) {}

// Stage writes a host I/O stage or a copy engine's busy span.
func (w *Writer) Stage(s tables.Stage) {
	pid := w.pid(runProc)
	w.slice(pid, w.lane(pid, stageTID, &w.stages, "host I/O and copies", s.StartCycle, s.EndCycle), s.Stage, s.StartCycle, s.EndCycle, "")
}

// Summary closes the run's counters with its utilisation.
func (w *Writer) Summary(s tables.Summary) {
	pid := w.pid(runProc)
	if s.IssueUtilization != nil {
		w.counter(pid, "issue utilisation", 0, "fraction", *s.IssueUtilization)
		w.counter(pid, "issue utilisation", s.MakespanCycles, "fraction", *s.IssueUtilization)
	}
	if s.DRAMUtilization != nil {
		w.counter(pid, "DRAM utilisation", 0, "fraction", *s.DRAMUtilization)
		w.counter(pid, "DRAM utilisation", s.MakespanCycles, "fraction", *s.DRAMUtilization)
	}
}
