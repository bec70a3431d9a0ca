package replay

import (
	"iter"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/taskrun"
)

// Analysis computes something from a replay's events beside the run and
// never changes it: the bounds cmd/experiment compares runs against
// (package bounds: the CDP floor, the SPAWN blind floor). Options.Analyses
// attaches them. A replay with none makes none of these calls, and pays
// nothing for them per CTA: the engine tells an Analysis of a CTA's start
// and end through the Observer calls it makes for the policy's observer
// anyway (one check of one field either way).
//
// The calls come in the engine's order of events, at the cycle of each:
//
//	HostCall    a host call (launch or copy) read in trace order
//	StreamHead  a host operation at the head of its stream
//	CTAStarted  a CTA starting (Observer; the CTA's spec is readable)
//	Decided     a policy's verdicts on a site's lanes (not for LaunchAll,
//	            whose verdicts are all runtime launches)
//	BlindCall   a device-runtime call decided before any device-launched
//	            CTA has finished (Stats.BlindSites)
//	CTAFinished a CTA ending (Observer)
//	KernelDone  a kernel or copy complete
//	StreamIdle  a host operation's stream left with nothing behind it
//	TaskRead    a narrow task read, under a task runtime (which makes
//	            none of the calls above)
//
// Every argument is only valid during the call; an Analysis keeps the
// *Kernel pointers as keys at most, never writing through them.
type Analysis interface {
	Observer
	// HostCall is host call k, read in trace order, which may issue no
	// earlier than earliest (its t after the host stages' launch base)
	// and holds its host thread cost cycles.
	HostCall(k *Kernel, earliest, cost int64)
	// StreamHead is host operation k at the head of its stream, behind
	// prev, just completed; prev is nil when the stream was idle.
	StreamHead(k, prev *Kernel)
	// StreamIdle is host operation k complete with nothing behind it in
	// its stream.
	StreamIdle(k *Kernel)
	// Decided is a policy's verdicts on one site's lanes.
	Decided(out []Verdict)
	// BlindCall is a blind site's device-runtime call for lanes lanes of
	// kernel k's CTA on SM sm, reaching the launch path at cycle arrive
	// at the earliest.
	BlindCall(sm int, k *Kernel, arrive, lanes int64)
	// KernelDone is kernel or copy k complete.
	KernelDone(k *Kernel)
	// TaskRead is a task of a narrow-task trace read in trace order
	// under a task runtime (Policy.Tasks): its launch's stream, its copies
	// each way, and its threadblocks as the driver built them (the first
	// carries the task's host cycles and copy waits).
	TaskRead(stream uint64, in, out TaskCopies, blocks []taskrun.Task)
}

// NoAnalysis does nothing at every event: an Analysis embeds it and
// overrides the calls it needs.
type NoAnalysis struct{}

func (NoAnalysis) CTAStarted(*CTAEvent)                                    {}
func (NoAnalysis) CTAFinished(*CTAEvent)                                   {}
func (NoAnalysis) HostCall(*Kernel, int64, int64)                          {}
func (NoAnalysis) StreamHead(*Kernel, *Kernel)                             {}
func (NoAnalysis) StreamIdle(*Kernel)                                      {}
func (NoAnalysis) Decided([]Verdict)                                       {}
func (NoAnalysis) BlindCall(int, *Kernel, int64, int64)                    {}
func (NoAnalysis) KernelDone(*Kernel)                                      {}
func (NoAnalysis) TaskRead(uint64, TaskCopies, TaskCopies, []taskrun.Task) {}

// analyses fans the events out to several analyses, in order.
type analyses []Analysis

// joinAnalyses is the one Analysis the engine calls for as: nil for
// none.
func joinAnalyses(as []Analysis) Analysis {
	switch len(as) {
	case 0:
		return nil
	case 1:
		return as[0]
	}
	return analyses(as)
}

func (as analyses) CTAStarted(ev *CTAEvent) {
	for _, a := range as {
		a.CTAStarted(ev)
	}
}

func (as analyses) CTAFinished(ev *CTAEvent) {
	for _, a := range as {
		a.CTAFinished(ev)
	}
}

func (as analyses) HostCall(k *Kernel, earliest, cost int64) {
	for _, a := range as {
		a.HostCall(k, earliest, cost)
	}
}

func (as analyses) StreamHead(k, prev *Kernel) {
	for _, a := range as {
		a.StreamHead(k, prev)
	}
}

func (as analyses) StreamIdle(k *Kernel) {
	for _, a := range as {
		a.StreamIdle(k)
	}
}

func (as analyses) Decided(out []Verdict) {
	for _, a := range as {
		a.Decided(out)
	}
}

func (as analyses) BlindCall(sm int, k *Kernel, arrive, lanes int64) {
	for _, a := range as {
		a.BlindCall(sm, k, arrive, lanes)
	}
}

func (as analyses) KernelDone(k *Kernel) {
	for _, a := range as {
		a.KernelDone(k)
	}
}

func (as analyses) TaskRead(stream uint64, in, out TaskCopies, blocks []taskrun.Task) {
	for _, a := range as {
		a.TaskRead(stream, in, out, blocks)
	}
}

// watching is the observer the engine tells of CTAs: the policy's, then
// the analyses. It is nil when both are.
// watchers are who watches the run: the policy's observer and the
// analyses, told of each CTA's start and end through one event the
// engine reuses, and the policy's observer of kernel arrivals.
type watchers struct {
	obs      Observer        // the policy's observer, then the analyses; nil for neither
	arrivals ArrivalObserver // the policy's observer, when it is one; else nil
	an       Analysis        // the analyses (Options.Analyses); nil for none
	ev       CTAEvent        // reused for every observer call
}

func newWatchers(pol Observer, an Analysis) watchers {
	w := watchers{obs: watching(pol, an), an: an}
	w.arrivals, _ = pol.(ArrivalObserver)
	return w
}

// event describes c at now for observers; the engine reuses one event,
// each of whose fields it writes: the event written whole from a literal
// cost SPAWN some 30 instructions a call (BFS scale 16), its fields 23.
func (w *watchers) event(c *ctaRun, now int64, io *hostIO) *CTAEvent {
	ev := &w.ev
	ev.Kernel, ev.CTA, ev.Group, ev.SM, ev.Cycle, ev.Start, ev.run, ev.io = c.k, c.idx, c.g != nil, c.sm.id, now, c.start, c, io
	return ev
}

// observing reports whether anyone watches CTAs: the engine asks before
// it calls ctaStarted or ctaFinished, a check inlined where a call to
// either would not be (most runs have no observer).
func (w *watchers) observing() bool { return w.obs != nil }

// ctaStarted tells the observers that c started at now.
func (w *watchers) ctaStarted(c *ctaRun, now int64, io *hostIO) {
	w.obs.CTAStarted(w.event(c, now, io))
}

// ctaFinished tells the observers that c ended at now.
func (w *watchers) ctaFinished(c *ctaRun, now int64, io *hostIO) {
	w.obs.CTAFinished(w.event(c, now, io))
}

// kernelDone tells the analyses that k completed.
func (w *watchers) kernelDone(k *Kernel) {
	if w.an != nil {
		w.an.KernelDone(k)
	}
}

// kernelArrived tells the policy's observer of arrivals that device
// kernel k reached the KMU at now.
func (w *watchers) kernelArrived(k *Kernel, now int64) {
	if w.arrivals != nil {
		w.arrivals.KernelArrived(k, now)
	}
}

func watching(pol Observer, an Analysis) Observer {
	switch {
	case an == nil:
		return pol
	case pol == nil:
		return an
	}
	return policyThenAnalysis{pol, an}
}

type policyThenAnalysis struct {
	pol Observer
	an  Analysis
}

func (o policyThenAnalysis) CTAStarted(ev *CTAEvent) {
	o.pol.CTAStarted(ev)
	o.an.CTAStarted(ev)
}

func (o policyThenAnalysis) CTAFinished(ev *CTAEvent) {
	o.pol.CTAFinished(ev)
	o.an.CTAFinished(ev)
}

// What an analysis reads of a kernel, a CTA and the GPU's room.

// Stream is the stream k runs on: a host operation's (the policy's own
// where it gives task groups streams of their own), a device kernel's
// private one.
func (k *Kernel) Stream() uint64 { return k.stream }

// Parent is the kernel whose CTA launched k and waits for it; nil for a
// host operation and for a kernel an aggregated group launched.
func (k *Kernel) Parent() *Kernel { return k.owner().k }

// CopyBytes is a host copy's bytes; ok is false for a kernel.
func (k *Kernel) CopyBytes() (bytes int64, ok bool) {
	if c := k.copyOp(); c != nil {
		return c.bytes, true
	}
	return 0, false
}

// Need is the room one CTA of a kernel holds on its SM: besides a CTA
// slot, its warps, registers and shared memory.
type Need struct {
	Warps, Regs int32
	Smem        int64
}

// Need is the room each of k's CTAs holds; zero before its body is read
// (every CTA event comes after).
func (k *Kernel) Need() Need {
	if k.decl == nil {
		return Need{}
	}
	n := k.decl.need
	return Need{Warps: n.warps, Regs: n.regs, Smem: n.smem}
}

func (n Need) need() need { return need{warps: n.Warps, regs: n.Regs, smem: n.Smem} }

// PerSM is how many CTAs needing n an empty SM of g holds at once (the
// engine's own fit, sm.fits).
func (n Need) PerSM(g *model.GPU) int64 {
	var s sm
	var r int64
	for s.fits(g, n.need()) {
		s.reserve(n.need())
		r++
	}
	return r
}

// Beside reports whether a CTA needing d fits on an SM of g holding r
// CTAs needing n.
func (n Need) Beside(g *model.GPU, r int64, d Need) bool {
	var s sm
	for ; r > 0; r-- {
		s.reserve(n.need())
	}
	return s.fits(g, d.need())
}

// CopyCycles is the least time a copy of bytes takes on a copy engine at
// io.pcie_gbps, rounded to a whole cycle as the engine ends it.
func CopyCycles(cfg model.Config, bytes int64) int64 {
	return roundCycle(float64(bytes) * CopyCyclesPerByte(cfg))
}

// CopyCyclesPerByte is a copy engine's cycles a byte at io.pcie_gbps.
func CopyCyclesPerByte(cfg model.Config) float64 {
	return pcieCyclesPerByte(cfg.GPU.ClockMHz, cfg.IO.PCIeGBps)
}

// Alone is the CTA's time alone: its longest warp's own cycles, sites
// not counted.
func (ev *CTAEvent) Alone() int64 { return ev.run.spec().alone() }

// WarpCycles is warp w's own cycles, sites not counted.
func (ev *CTAEvent) WarpCycles(w int) int64 { return warpCycles(ev.run.spec(), w) }

// Demand is the CTA's demand per cycle alone, as the trace records it:
// instructions issued and DRAM bytes (0 when it records none).
func (ev *CTAEvent) Demand() (issue, dram float64) {
	s := ev.run.spec()
	return float64(s.issue), float64(s.dram)
}

// RunAfterPrelude is, for a finished CTA of a host kernel under the host
// stages (io.model=stages), its time after the prelude's end less the
// time it stood stopped at pages then; 0 for any other CTA.
func (ev *CTAEvent) RunAfterPrelude() int64 {
	c, io := ev.run, ev.io
	if io == nil || c.k.order < 0 {
		return 0
	}
	return max(io.afterPrelude(c.start, ev.Cycle)-c.pausedAfter, 0)
}

// HasSites reports whether the CTA has launch sites.
func (ev *CTAEvent) HasSites() bool {
	x := ev.run.spec().x
	return x != nil && len(x.sites) > 0
}

// SiteLanes is one warp-level launch site of a CTA: where warp Warp
// reaches it, At cycles of its own time from its start, and the device
// kernels its launching lanes would launch.
type SiteLanes struct {
	Warp  int
	At    int64
	lanes []siteRec
}

// Len is the site's launching lanes.
func (s SiteLanes) Len() int { return len(s.lanes) }

// Child is lane i's child kernel.
func (s SiteLanes) Child(i int) *Kernel { return s.lanes[i].child }

// CreatesStream reports whether the site's warp creates a stream for a
// lane's child before its launches (cdp.stream_create).
func (s SiteLanes) CreatesStream() bool {
	for i := range s.lanes {
		if s.lanes[i].createsStream() {
			return true
		}
	}
	return false
}

// Sites yields the CTA's warp-level sites in the order its warps reach
// them: by warp, then by position.
func (ev *CTAEvent) Sites() iter.Seq[SiteLanes] {
	return func(yield func(SiteLanes) bool) {
		x := ev.run.spec().x
		if x == nil {
			return
		}
		x.sortSites()
		for first := 0; first < len(x.sites); {
			w := int(x.sites[first].warp)
			_, last := siteLanes(x.sites, first, w)
			if !yield(SiteLanes{Warp: w, At: x.sites[first].at, lanes: x.sites[first:last]}) {
				return
			}
			first = last
		}
	}
}
