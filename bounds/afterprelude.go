package bounds

import "github.com/gpureplay/gpureplay/replay"

// What a run does after the prelude ends (io.model=stages): the work no
// overlap can hide behind the prelude. In the as-soon-as-possible
// schedule (CRCS with a slot for every CTA, no contention, no costs) every
// CTA gets as far as its pages allow as early as they allow, so what is
// left after the prelude there is left after it in any schedule; with the
// GPU's throughput that bounds every scheduler (cmd/experiment, CRCS).

// AfterPrelude is a run's work after its prelude ended: an Analysis
// (CTAFinished) whose totals Result completes from the run's Stats.
type AfterPrelude struct {
	replay.NoAnalysis
	work AfterPreludeWork
}

// AfterPreludeWork is the work AfterPrelude counts.
type AfterPreludeWork struct {
	// CTACycles is host kernels' CTA time after the prelude's end, less
	// the time they stood stopped at pages: under no contention, the
	// cycles of their own runs left to do. WarpCycles, RegCycles and
	// SmemCycles weigh each CTA's time by what it holds of an SM's warps,
	// registers and shared memory, which an SM has only so much of.
	CTACycles                         int64
	WarpCycles, RegCycles, SmemCycles float64
	// Insts and DRAMBytes are that time's demand (each CTA's demand per
	// cycle alone times its cycles after the prelude).
	Insts, DRAMBytes float64
	// PostludeCycles is the postlude's work on pages that came back from
	// the GPU after the prelude's end.
	PostludeCycles int64
}

// CTAFinished adds a finished host CTA's time after the prelude.
func (a *AfterPrelude) CTAFinished(ev *replay.CTAEvent) {
	run := ev.RunAfterPrelude()
	if run <= 0 {
		return
	}
	w := &a.work
	w.CTACycles += run
	n := ev.Kernel.Need()
	w.WarpCycles += float64(n.Warps) * float64(run)
	w.RegCycles += float64(n.Regs) * float64(run)
	w.SmemCycles += float64(n.Smem) * float64(run)
	issue, dram := ev.Demand()
	w.Insts += issue * float64(run)
	w.DRAMBytes += dram * float64(run)
}

// Result is the work after the prelude of the run st totals.
func (a *AfterPrelude) Result(st *replay.Stats) AfterPreludeWork {
	w := a.work
	w.PostludeCycles = st.PostludeAfterPreludeCycles
	return w
}
