package replay

import "github.com/gpureplay/gpureplay/results"

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

// emitKernel writes a completed kernel's row.
func (e *engine) emitKernel(k *Kernel) {
	e.stats.Kernels++
	wait := k.startCycle - k.launchCycle
	e.stats.WaitCycles += wait
	row := results.Kernel{
		KernelID:        k.id,
		Name:            k.decl.Name,
		Origin:          "host",
		Stream:          k.stream,
		CTAs:            int64(k.total),
		ThreadsPerCTA:   int64(k.decl.Threads()),
		LaunchCycle:     k.launchCycle,
		ReadyCycle:      k.readyCycle,
		StartCycle:      k.startCycle,
		EndCycle:        k.endCycle,
		WaitCycles:      wait,
		CoalescedGroups: k.coalescedGroups(),
	}
	if k.parent != nil {
		row.Origin = "device"
		id := k.parent.id
		row.ParentKernelID = &id
	}
	e.sink.Kernel(row)
}

// finish closes the occupancy accounts and computes the run's totals.
func (e *engine) finish() *Stats {
	end := e.io.finish(e.sink, e.firstLaunch, e.kernelsEnd, e.now)
	e.io.emitStages(e.sink)
	e.occ.close(e.sms, end)
	s := e.stats
	s.BusyCycles = e.busy.cycles()
	s.MakespanCycles = end
	s.MakespanUS = float64(end) / e.cfg.GPU.ClockMHz
	if end > 0 {
		capacity := float64(len(e.sms)*e.cfg.GPU.MaxWarpsPerSM()) * float64(end)
		s.AvgOccupancy = e.occ.warpCycles / capacity
	}
	return &s
}

func (k *Kernel) coalescedGroups() int64 {
	if k.pool == nil {
		return 0
	}
	return k.pool.coalesced
}
