package replay

import (
	"math"

	"github.com/gpureplay/gpureplay/tables"
)

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

// busySpan is the first and last cycle the GPU was busy. It starts empty
// (newBusySpan), first past last, so that cover is two comparisons with
// no test of whether it is the first.
type busySpan struct{ first, last int64 }

func newBusySpan() busySpan { return busySpan{first: math.MaxInt64, last: math.MinInt64} }

// cover widens the span to [start, end].
func (b *busySpan) cover(start, end int64) {
	b.first, b.last = min(b.first, start), max(b.last, end)
}

// cycles is the span's length, 0 when empty.
func (b *busySpan) cycles() int64 {
	if b.last < b.first {
		return 0
	}
	return b.last - b.first
}

// AvgKernelWaitCycles is the mean launch-to-start wait over kernels.
func (s *Stats) AvgKernelWaitCycles() float64 {
	if s.Kernels == 0 {
		return 0
	}
	return float64(s.WaitCycles) / float64(s.Kernels)
}

// recorder is the run's output: the rows it writes to the sink and the
// totals it keeps, which the summary row reports. A sink that keeps no
// rows (quiet) is given none: building a row costs a CTA's end a good part
// of its time.
type recorder struct {
	sink      tables.Sink
	refs      tables.RefSink      // the sink, taking kernel rows by reference (row)
	row       tables.Kernel       // a kernels row, reused
	fields    tables.CTAFieldSink // the sink, where it takes CTA rows as fields
	blocks    tables.CTABlockSink // and where it takes them a block at a time
	block     *tables.CTABlock    // the plain CTAs' rows not yet written, for blocks (plainRow)
	quiet     bool                // the sink keeps no rows (tables.Discards): none is built
	hooked    bool                // a CTA's end has a row to write, a watcher or mechanisms to tell (hookEnds)
	others    bool                // a CTA's end has a watcher or mechanisms to tell
	stats     Stats
	busy      busySpan // the copies' and narrow tasks' (the CTAs': ctaSpan)
	ctaSpan   busySpan
	parentIDs slab[uint64] // device kernel rows' parent ids
	byRef     bool         // the sink is a tables.RefSink: a row need not outlive the call (parentOf)
	// kernelsEnd is the last kernel's completion: the kernels stage's end.
	kernelsEnd int64
}

func newRecorder(sink tables.Sink) recorder {
	f, _ := sink.(tables.CTAFieldSink)
	r := recorder{sink: sink, fields: f, quiet: tables.Discards(sink), busy: newBusySpan(), ctaSpan: newBusySpan()}
	if !r.quiet {
		r.refs = tables.Refs(sink) // nil where no rows are kept: the site engine's test
		_, r.byRef = sink.(tables.RefSink)
	}
	if b, ok := sink.(tables.CTABlockSink); ok && !r.quiet {
		r.blocks, r.block = b, new(tables.CTABlock)
	}
	return r
}

// rows is the sink for components that write rows of their own, or nil
// when none is kept.
func (r *recorder) rows() tables.Sink {
	if r.quiet {
		return nil
	}
	return r.sink
}

// output is the sink, for the stages the host's I/O writes at the end.
func (r *recorder) output() tables.Sink { return r.sink }

// lastKernelEnd is the last kernel's completion.
func (r *recorder) lastKernelEnd() int64 { return r.kernelsEnd }

// ctas is the CTAs ended so far, for progress.
func (r *recorder) ctas() int64 { return r.stats.CTAs }

// keepsRows reports whether the sink keeps rows.
func (r *recorder) keepsRows() bool { return !r.quiet }

// hookEnds notes whether a watcher or mechanisms see CTAs' ends (the
// engine's start knows its mechanisms). ctaEnd asks endsHooked, one test
// where it asked for rows, a watcher and mechanisms in turn, and most
// runs have none (scripts/instructions.sh --quick: uniform 7 instructions
// a CTA fewer, synth 5, BFS 4).
func (r *recorder) hookEnds(others bool) { r.hooked, r.others = !r.quiet || others, others }

// othersHooked reports whether a CTA's end has a watcher or mechanisms to
// tell: a CTA whose end has only a row to write may take the plain paths
// (plainrows.go).
func (r *recorder) othersHooked() bool { return r.others }

// endsHooked reports whether a CTA's end has a row to write, a watcher or
// mechanisms to tell.
func (r *recorder) endsHooked() bool { return r.hooked }

// kernel counts a completed kernel and writes its row (not for a sink
// that keeps no rows: the engine's totals come from its stats).
func (r *recorder) kernel(k *Kernel, now int64) {
	r.kernelsEnd = now
	wait := k.startCycle - k.launchCycle
	r.countKernel(wait)
	if r.quiet {
		return
	}
	// The row stored field by field, in place: a literal was built on the
	// stack and copied into the sink's call.
	row := &r.row
	row.KernelID = k.id
	row.Name = k.decl.Name
	row.Stream = k.stream
	row.CTAs = int64(k.gridCTAs())
	row.ThreadsPerCTA = int64(k.decl.Threads())
	row.LaunchCycle = k.launchCycle
	row.ReadyCycle = k.readyCycle
	row.StartCycle = k.startCycle
	row.EndCycle = k.endCycle
	row.WaitCycles = wait
	row.CoalescedGroups = k.coalescedGroups()
	row.Origin = "host"
	row.ParentKernelID = nil
	if id, ok := k.ParentID(); ok {
		row.Origin, row.ParentKernelID = "device", r.parentOf(k, id)
	}
	r.refs.KernelRow(row)
}

// countKernel counts a completed kernel (or narrow task) that waited wait
// cycles from launch to start.
func (r *recorder) countKernel(wait int64) {
	r.stats.Kernels++
	r.stats.WaitCycles += wait
}

// cta counts a narrow task's threadblock that ran from start to end after
// stall cycles held.
func (r *recorder) cta(start, end, stall int64) {
	r.countCTA(stall)
	r.busy.cover(start, end)
}

// ctaEnded counts a CTA that ended at now after stall cycles held. The
// CTAs' busy span is kept apart (ctaSpan): they end in time order, so its
// end is the last one's, a store, and its start is the first one's, which
// started widens it to once a kernel. Widening the span at every CTA's
// end, a min and a max, cost 9 instructions a CTA more on synth, 6 on
// BFS, 10 on uniform (scripts/instructions.sh --quick; BFS full size 8).
// It counts as countCTA does, in line: the call left a NOP a CTA.
func (r *recorder) ctaEnded(now, stall int64) {
	r.stats.CTAs++
	r.stats.StallCycles += stall
	r.ctaSpan.last = now
}

// started widens the CTAs' busy span to a kernel's first CTA's start at
// now.
func (r *recorder) started(now int64) { r.ctaSpan.first = min(r.ctaSpan.first, now) }

// countCTA counts a CTA or threadblock held stall cycles before its start.
func (r *recorder) countCTA(stall int64) {
	r.stats.CTAs++
	r.stats.StallCycles += stall
}

// busyFor widens the GPU's busy span to [start, end] (a copy's).
func (r *recorder) busyFor(start, end int64) { r.busy.cover(start, end) }

// hostSync writes a blocking call's row, where the sink keeps them.
func (r *recorder) hostSync(row tables.Sync) {
	if s, ok := r.sink.(tables.SyncSink); ok && !r.quiet {
		s.Sync(row)
	}
}

// ctaRow writes a finished CTA's row (its slowdown from sms). The row,
// nine fields passed by value to an interface, and its slowdown from a
// slab cost a CTA's end a good part of its time, so ctaEnd skips it for a
// sink that keeps no rows. A sink that takes the row as its fields
// (tables.CTAFieldSink) is given them, in registers but for the last,
// and the slowdown as a value, with no slab (scripts/instructions.sh
// --quick synth-parquet 1,899 instructions a CTA to 1,838, synth-csv
// 2,629 to 2,571).
func (r *recorder) ctaRow(c *ctaRun, end int64, sms *smArray) {
	r.flushCTAs() // the plain CTAs' rows before it
	if f := r.fields; f != nil {
		var group *uint64
		if c.g != nil {
			group = &c.g.id
		}
		v, ok := slowdownOf(c, end)
		f.CTAFields(c.k.id, c.idx, int32(c.sm.id), c.dispatch, c.start, end, c.stall, group, v, ok)
		return
	}
	row := tables.CTA{
		KernelID:      c.k.id,
		CTA:           c.idx,
		SM:            int32(c.sm.id),
		DispatchCycle: c.dispatch,
		StartCycle:    c.start,
		EndCycle:      end,
		StallCycles:   c.stall,
		Slowdown:      sms.slowdown(c, end),
		Name:          c.k.decl.Name,
	}
	if c.g != nil {
		row.GroupID = &c.g.id
	}
	r.sink.CTA(row)
}

// plainRow writes the row of a plain CTA of k (plainrows.go) that ended
// at end on SM sm, as its fields (rowsAsFields): ctaRow's, for a CTA
// that waited for nothing (its dispatch its start, no stall) and belongs
// to no group.
//
// A sink that takes rows a block at a time (tables.CTABlockSink) is given
// them so: the row is a few stores into the block, which goes to the sink
// when full (flushCTAs), where a call of CTAFields passed eleven
// arguments through the interface and the sink checked its room for each
// row. The block is indexed by a uint8 (tables.CTABlockRows is 256), with
// no bounds checks.
func (r *recorder) plainRow(k *Kernel, p *plainRow, sm int32, end int64) {
	if b := r.block; b != nil {
		i := uint8(b.N)
		b.KernelID[i], b.CTA[i], b.SM[i], b.Start[i], b.End[i] = k.id, p.idx, sm, p.start, end
		b.Slowdown[i], b.HasSlowdown[i] = p.slowdown(end)
		if b.N++; b.N == tables.CTABlockRows {
			r.flushCTAs()
		}
		return
	}
	v, ok := p.slowdown(end)
	r.fields.CTAFields(k.id, p.idx, sm, p.start, p.start, end, 0, nil, v, ok)
}

// groupRow writes the row of a plain group CTA (groupplain.go), CTA idx
// of group g coalesced into k, placed on SM sm at dispatch, started at
// start, ended at end, alone its time alone: ctaRow's, as fields (the
// run keeps such CTAs' rows only where its sink takes them so).
func (r *recorder) groupRow(k *Kernel, g *group, idx uint64, sm int32, dispatch, start, end, alone int64) {
	r.flushCTAs() // the plain CTAs' rows before it
	// Its slowdown as a plain CTA's row has it (plainRow.slowdown): its
	// run from its start over its time alone, 1 where it has none (a CTA
	// of no cycles).
	v, ok := (&plainRow{idx: idx, start: start, alone: alone}).slowdown(end)
	r.fields.CTAFields(k.id, idx, sm, dispatch, start, end, start-dispatch, &g.id, v, ok)
}

// flushCTAs writes the plain CTAs' rows held in the block, before any
// other CTA's row and at the replay's end (tables.CTABlockSink).
func (r *recorder) flushCTAs() {
	if b := r.block; b != nil && b.N > 0 {
		r.blocks.CTAs(b)
		b.N = 0
	}
}

// rowsAsFields reports whether the sink keeps rows and takes CTA rows as
// their fields (tables.CTAFieldSink: results' writers), as the plain
// paths write them (plainRow).
func (r *recorder) rowsAsFields() bool { return !r.quiet && r.fields != nil }

// totals is the run's counts at its end, with the busy span's cycles:
// every CTA started has ended by then, as ctaSpan's start assumes.
func (r *recorder) totals() Stats {
	s := r.stats
	busy := r.busy
	busy.cover(r.ctaSpan.first, r.ctaSpan.last) // none where ctaSpan is empty
	s.BusyCycles = busy.cycles()
	return s
}

// finish closes the stages and computes the run's totals: the host's
// stages, or the narrow-task driver's under a task policy.
func (e *engine) finish() *Stats {
	if e.tasks != nil {
		s := e.totals(e.tasks.finish())
		e.tasks.utilization(s)
		return s
	}
	sink := e.out.output()
	end := e.io.finish(sink, e.host.firstLaunch(), e.out.lastKernelEnd(), e.clock.now())
	e.io.emitStages(sink)
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
	s := e.out.totals()
	e.dev.count(&s)
	e.sites.count(&s)
	e.groups.count(&s)
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

// parentOf is what device kernel k's row points at for its parent's id,
// id: k's own for a sink that takes the row by reference (tables.RefSink
// reads it during the call alone), else a value of its own, as the row
// may outlive the call (slab): BFS scale 20's 165K device kernels each
// took a value from the slab (scripts/instructions.sh bfs-parquet: +758
// → +753 a CTA without).
func (r *recorder) parentOf(k *Kernel, id uint64) *uint64 {
	if r.byRef {
		return &k.parentID
	}
	return r.parentIDs.of(id)
}
