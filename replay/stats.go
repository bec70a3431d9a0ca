package replay

import "github.com/gpureplay/gpureplay/tables"

// Stats are a replay's totals: what the summary table reports besides the
// run-level columns (gpu, params, speedup) the caller knows.
type Stats struct {
	MakespanCycles int64
	MakespanUS     float64
	Kernels        int64
	DeviceKernels  int64
	CTAs           int64
	LaunchSites    int64 // launching lanes (device launch records) reached
	Launched       int64
	Inlined        int64
	Coalesced      int64
	AvgOccupancy   float64
	WaitCycles     int64 // summed over kernels
	StallCycles    int64
	// BusyCycles is the GPU's busy span: from the first CTA or copy
	// starting to the last one ending.
	BusyCycles int64
	// Contention says the contention model was on. IssueUtilization and
	// DRAMUtilization are then its time-averaged use of the issue slots
	// and the DRAM bandwidth over the makespan.
	Contention       bool
	IssueUtilization float64
	DRAMUtilization  float64
	// PreludeCycles, KernelsCycles and PostludeCycles are the spans of
	// the prelude and postlude stages (zero without io.model) and of the
	// kernels stage, first launch to last kernel end: what the CRCS
	// paper's runtime breakdown (Figure 11, §5.3) divides by the makespan.
	PreludeCycles  int64
	KernelsCycles  int64
	PostludeCycles int64
	// PostludeAfterPreludeCycles is the postlude's work on pages that
	// came back from the GPU after the prelude's end (bounds.AfterPrelude).
	PostludeAfterPreludeCycles int64
	// PeakPending is the most device launches pending at once (made, not
	// yet begun to execute); LaunchOverflows counts the warps whose
	// launches went over cdp.pending_limit because nothing else could
	// make room (docs/model.md, "The device-runtime launch path").
	PeakPending     int64
	LaunchOverflows int64
	// BlindSites counts the launching lanes decided before any CTA of
	// device-launched work had finished: what a policy that learns from
	// finished child CTAs (SPAWN's t_cta, Algorithm 1 line 2) decides
	// with no measurement. Up to the first child CTA's end a SPAWN run is
	// its CDP run, so the count is the same under both.
	// (The floor their calls put under a run is bounds.BlindFloor's.)
	BlindSites int64
}

// Summary is the run's summary row on GPU gpu, with its speedup over a
// baseline makespan of base cycles (0 when the run took no time).
func (s *Stats) Summary(gpu string, base int64) tables.Summary {
	speedup := 0.0
	if s.MakespanCycles > 0 {
		speedup = float64(base) / float64(s.MakespanCycles)
	}
	row := tables.Summary{
		GPU: gpu, MakespanCycles: s.MakespanCycles, MakespanUS: s.MakespanUS,
		Speedup: speedup, Kernels: s.Kernels, DeviceKernels: s.DeviceKernels,
		CTAs: s.CTAs, LaunchSites: s.LaunchSites, Launched: s.Launched,
		Inlined: s.Inlined, Coalesced: s.Coalesced, AvgOccupancy: s.AvgOccupancy,
		AvgKernelWaitCycles: s.AvgKernelWaitCycles(), StallCycles: s.StallCycles,
		BusyCycles: s.BusyCycles,
	}
	if s.Contention {
		issue, dram := s.IssueUtilization, s.DRAMUtilization
		row.IssueUtilization, row.DRAMUtilization = &issue, &dram
	}
	return row
}

// busySpan is the first and last cycle the GPU was busy.
type busySpan struct {
	first, last int64
	used        bool
}

// cover widens the span to [start, end].
func (b *busySpan) cover(start, end int64) {
	if !b.used {
		b.first, b.used = start, true
	}
	b.first, b.last = min(b.first, start), max(b.last, end)
}

func (b *busySpan) cycles() int64 { return b.last - b.first }

// AvgKernelWaitCycles is the mean launch-to-start wait over kernels.
func (s *Stats) AvgKernelWaitCycles() float64 {
	if s.Kernels == 0 {
		return 0
	}
	return float64(s.WaitCycles) / float64(s.Kernels)
}

// emitKernel counts a completed kernel and writes its row (not for a
// sink that keeps no rows: the engine's totals come from its stats).
func (e *engine) emitKernel(k *Kernel) {
	wait := k.startCycle - k.launchCycle
	e.countKernel(wait)
	if e.quiet {
		return
	}
	row := tables.Kernel{
		KernelID:        k.id,
		Name:            k.decl.Name,
		Origin:          "host",
		Stream:          k.stream,
		CTAs:            int64(k.gridCTAs()),
		ThreadsPerCTA:   int64(k.decl.Threads()),
		LaunchCycle:     k.launchCycle,
		ReadyCycle:      k.readyCycle,
		StartCycle:      k.startCycle,
		EndCycle:        k.endCycle,
		WaitCycles:      wait,
		CoalescedGroups: k.coalescedGroups(),
	}
	if id, ok := k.ParentID(); ok {
		row.Origin = "device"
		row.ParentKernelID = e.parentIDs.of(id)
	}
	e.sink.Kernel(row)
}

// countKernel counts a completed kernel (or narrow task) that waited wait
// cycles from launch to start.
func (e *engine) countKernel(wait int64) {
	e.stats.Kernels++
	e.stats.WaitCycles += wait
}

// finish closes the stages and computes the run's totals: the host's
// stages, or the narrow-task driver's under a task policy.
func (e *engine) finish() *Stats {
	if e.tasks != nil {
		s := e.totals(e.tasks.finish())
		e.tasks.utilization(s)
		return s
	}
	end := e.io.finish(e.sink, e.firstLaunch, e.kernelsEnd, e.now)
	e.io.emitStages(e.sink)
	s := e.totals(end)
	s.PreludeCycles, s.KernelsCycles, s.PostludeCycles, s.PostludeAfterPreludeCycles = e.io.stageCycles()
	if e.sms.contention() != nil {
		s.Contention = true
		s.IssueUtilization, s.DRAMUtilization = e.sms.contention().utilization(end)
	}
	return s
}

// totals closes the occupancy accounts at the run's end and computes the
// totals every replay has.
func (e *engine) totals(end int64) *Stats {
	e.sms.close(end)
	s := e.stats
	s.BusyCycles = e.busy.cycles()
	s.MakespanCycles = end
	s.MakespanUS = float64(end) / e.cfg.GPU.ClockMHz
	if end > 0 {
		s.AvgOccupancy = e.sms.avgOccupancy(end)
	}
	return &s
}

func (k *Kernel) coalescedGroups() int64 {
	if k.pool == nil {
		return 0
	}
	return k.pool.coalesced
}
