package replay

import (
	"math/bits"

	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/tables"
)

// smArray is the GPU's SMs: each SM's CTA slots and resources, the set of
// SMs with a free slot, the L1 flush when an SM turns to another kernel,
// the occupancy they integrate, and the contention model's jobs on them
// (shared.go). It is what placement sees (Dispatch asks it whether a CTA
// fits) and what a CTA's placement and end change (enter, leave). It
// never places a CTA, schedules one, or completes a kernel: the engine
// decides where a CTA goes and calls enter, and leave at a CTA's end, and
// hands the kernel an SM emptied of to the Kernel Distributor's running
// parts (kernelRuns.leftSM). Its one event is a contention wake-up.
type smArray struct {
	sms       []sm
	open      smSet // SMs with a free CTA slot (noteSlots)
	gpu       *model.GPU
	lim       smLimits // the GPU's limits of an SM, held (smLimits)
	exclusive bool     // CTAs of different kernels share no SM (ExclusiveSMs, gpu.concurrent_kernel_sm=off)
	// evenShare: gpu.concurrent_kernel_sm=off, GPGPU-Sim's mode, where
	// an SM holds at most ⌈CTAs/SMs⌉ of a small grid (fitsOpen); not a
	// policy's exclusive SMs on a GPU that shares them (PPCS, CRCS).
	evenShare bool
	full      roomless // SMs known to have no room for a need (RoundRobin.find)
	l1Flush   int64    // crcs.l1_flush under a policy with exclusive SMs, else 0 (costs.go)
	occ       occupancy
	share     *shareJobs // the contention model and its jobs; nil when off
	issue     ctaIssue   // the CTA issue rate: SMs held after taking a CTA (ctaissue.go)
	slots     bool       // CTAs' slots on their SMs are numbered (slotsNeeded); else each is 0
	rows      rowSlots   // the plain CTAs' rows, where the run keeps rows on its plain paths (plainrows.go); else nil
}

// newSMArray makes cfg's SMs, idle; shared adds the contention model (wake-ups in q).
func newSMArray(cfg *model.Config, exclusive, shared, slots bool, l1Flush int64, sink tables.Sink, q *eventq.Queue) smArray {
	a := smArray{
		sms:       make([]sm, cfg.GPU.SMs),
		open:      newSMSet(cfg.GPU.SMs),
		gpu:       &cfg.GPU,
		lim:       limitsOf(&cfg.GPU),
		exclusive: exclusive,
		evenShare: cfg.GPU.ExclusiveSMs(),
		l1Flush:   l1Flush,
		occ:       newOccupancy(*cfg, sink),
		issue:     newCTAIssue(cfg.GPU.CTAIssueInterval),
		slots:     slots,
	}
	if shared {
		a.share = newShareJobs(&cfg.GPU, q)
	}
	for i := range a.sms {
		a.sms[i].id = i
		a.noteSlots(&a.sms[i])
	}
	return a
}

// contention is the contention model and its jobs, nil when it is off.
func (a *smArray) contention() *shareJobs { return a.share }

// count is the number of SMs.
func (a *smArray) count() int { return len(a.sms) }

// fits reports whether a CTA of k fits on SM i under all four limits
// (and, with exclusive SMs, whether i is idle or k's, and with a CTA issue
// rate, whether i is not held).
func (a *smArray) fits(k *Kernel, i int) bool {
	if s := &a.sms[i]; s.held || s.ctas >= a.lim.ctas {
		return false
	}
	// The rest is what an SM of the open set (free slot, not held) is asked.
	return a.fitsOpen(k, i)
}

// exclusiveSMs reports whether CTAs of different kernels may not share an
// SM.
func (a *smArray) exclusiveSMs() bool { return a.exclusive }

// idle reports whether SM i has no resident CTA.
func (a *smArray) idle(i int) bool { return a.sms[i].idle() }

// anyOpen reports whether some SM has a free CTA slot and is not held by
// the CTA issue rate: with none, no kernel's CTA fits anywhere.
func (a *smArray) anyOpen() bool { return a.open.n > 0 }

// nextOpen is the least SM at or after i with a free CTA slot, not held,
// and in mask (roomless.grown's form), or -1.
func (a *smArray) nextOpen(i int, mask uint64) int { return a.open.next(i, mask) }

// enter reserves room for a CTA of k on SM s at now: it returns the CTA's
// slot on the SM (hardware thread ids; 0 unless slotsNeeded) and the
// earliest cycle it may start at (later while the SM's L1 flushes).
func (a *smArray) enter(k *Kernel, s *sm, now int64) (slot int, startAt int64) {
	// s is the placer's SM (find's, or Place's): no index to check and scale.
	a.occ.change(s, now, 1, int(k.decl.need.warps))
	if s.ctas == 0 {
		s.kernel = k
		k.sms++
		a.flushL1(s, k, now)
	}
	s.reserve(k.decl.need)
	if a.issue.limits() {
		s.held = true
		a.issue.hold(s.id, now)
	}
	if s.ctas == a.lim.ctas || s.held { // noteSlots for an open SM: see smSet.drop
		a.open.drop(s.id)
	}
	return a.takeSlot(s), max(s.flushUntil, now)
}

// plain reports whether placing a CTA is no more than reserving its room:
// no occupancy rows to integrate, no CTA issue rate, no L1 flush, no
// numbered slots (Dispatch.plain).
func (a *smArray) plain() bool {
	return !a.occ.integrates() && a.plainButRows()
}

// plainButRows reports whether placing a CTA is no more than reserving
// its room and integrating its SM's occupancy for rows.
func (a *smArray) plainButRows() bool {
	return a.plainButSlots() && !a.slots
}

// plainButSlots reports whether placing a CTA is no more than reserving
// its room, integrating its SM's occupancy for rows and taking a slot,
// numbered or not: no CTA issue rate, no L1 flush (Dispatch.groups).
func (a *smArray) plainButSlots() bool {
	return !a.issue.limits() && a.l1Flush == 0
}

// plainRows reports whether a run that keeps rows, and is plain but for
// them, may keep them on its plain paths (plainrows.go): the contention
// model runs (a plain end without it is an event, evCTAEnd, whose wave
// ctaEnded takes) and an SM holds at most 64 CTAs (its slots' bits).
func (a *smArray) plainRows() bool {
	return a.occ.integrates() && a.plainButRows() && a.share != nil && a.gpu.MaxCTAsPerSM <= 64
}

// enterPlain is enter where the SMs are plain: the CTA takes slot 0 and
// may start at once. What enter does besides is, on such SMs, nothing:
// occupancy's change returns at once without rows, flushL1 only notes the
// kernel, no SM is held.
func (a *smArray) enterPlain(k *Kernel, s *sm) {
	if s.ctas == 0 {
		s.kernel, s.last = k, k
		k.sms++
	}
	s.reserve(k.decl.need)
	if s.ctas == a.lim.ctas {
		a.open.drop(s.id)
	}
}

// releaseIssued ends the CTA issue rate's holds due by now: those SMs
// may take a CTA again.
func (a *smArray) releaseIssued(now int64) {
	for i := a.issue.due(now); i >= 0; i = a.issue.due(now) {
		s := &a.sms[i]
		s.held = false
		a.noteSlots(s)
		a.full.grew(i) // open again: its room was not searched
	}
}

// issueWake is the cycle the earliest hold of the CTA issue rate ends,
// when nothing has asked to wake then yet (ok): the engine's next chance
// to place CTAs that the holds keep waiting.
func (a *smArray) issueWake() (at int64, ok bool) { return a.issue.wakeAt() }

// leave frees a CTA's room (need n, slot on SM s, placed at since) at
// now, and reports whether the SM is left empty: then vacate it.
func (a *smArray) leave(s *sm, n need, slot int, since, now int64) (empty bool) {
	// s is the CTA's (ctaRun.sm): no index to check and scale.
	a.occ.end(s, int(n.warps), since, now)
	s.release(n)
	a.open.put(s.id, !s.held) // noteSlots, whose test of the free slots a CTA leaving passes
	if a.slots {
		s.freeSlot(slot) // tested here, not in a function: see ctaRun.dropSpec
	}
	a.full.grew(s.id)
	return s.ctas == 0
}

// leaveSlot is leave for a plain group CTA's end (groupplain.go) at now,
// whose warp-cycles were counted by parts (placedAt, endedAt): its SM's
// occupancy integrated for rows, where they are kept, before its room is
// released, as leave does; no SM is held (no CTA issue rate) in the runs
// that place them.
func (a *smArray) leaveSlot(s *sm, n need, slot int, now int64) (empty bool) {
	a.occ.change(s, now, -1, -int(n.warps))
	s.release(n)
	a.open.add(s.id)
	if a.slots {
		s.freeSlot(slot)
	}
	a.full.grew(s.id)
	return s.ctas == 0
}

// ran counts the warp-cycles of a CTA needing n that runs cycles, as
// it is placed: a plain end's (plainend.go), on plain SMs.
func (a *smArray) ran(n need, cycles int64) { a.occ.ran(n.warps, cycles) }

// placedAt and endedAt count the warp-cycles of a CTA needing n, placed
// at now and ended at now, by parts (occupancy.move's): a plain end's
// under the contention model, whose length is known only at its end.
func (a *smArray) placedAt(n need, now int64) { a.occ.ran(-n.warps, now) }
func (a *smArray) endedAt(n need, now int64)  { a.occ.ran(n.warps, now) }

// leavePlain is leave for a plain end (plainend.go) on plain SMs, its
// room on s released: its warp-cycles were counted as it was placed,
// slots are not numbered, and no SM is held (no CTA issue rate), so s
// is open, and was before where it was not full (reopen). Inlined.
func (a *smArray) leavePlain(s *sm, i int) (empty bool) {
	a.open.reopen(i, s.ctas == a.lim.ctas-1) // i: s's index, given (jobEnded's ref; ctaEnded's s.id, loaded before the release's stores), where s.id, loaded past them, was loaded twice (--quick bfs, own functions, 1,971.0 -> 1,968.5 a CTA)
	a.full.grew(i)
	return s.ctas == 0
}

// noteSlots records in a.open whether SM s has a free CTA slot and is not
// held, after its resident CTAs or its hold changed.
func (a *smArray) noteSlots(s *sm) {
	a.open.put(s.id, s.ctas < a.lim.ctas && !s.held)
}

// resident changes SM i's resident CTAs and warps by ctas and warps at
// now, occupancy accounted first: a narrow-task runtime's threadblocks,
// which the runtime places itself (taskrun). False for an SM the GPU
// lacks.
func (a *smArray) resident(i int, now int64, ctas, warps int) bool {
	if i < 0 || i >= len(a.sms) {
		return false
	}
	s := &a.sms[i]
	a.full.grew(i)
	a.occ.move(s, ctas, warps, now)
	s.ctas += ctas
	s.warps += warps
	return true
}

// close accounts every SM's occupancy up to the run's end.
func (a *smArray) close(end int64) { a.occ.close(a.sms, end) }

// avgOccupancy is the run's resident warps over the SMs' capacity, time
// averaged up to end.
func (a *smArray) avgOccupancy(end int64) float64 {
	return a.occ.average(len(a.sms)*a.gpu.MaxWarpsPerSM(), end)
}

// need is what one CTA of a kernel occupies on an SM. The validated trace
// bounds a CTA to 1024 threads of at most 255 registers (32 warps, 2^18
// registers), so 32 bits hold both.
type need struct {
	warps int32
	regs  int32
	smem  int64
}

// lower is, for each resource, the lesser of n's and o's.
func (n need) lower(o need) need {
	return need{warps: min(n.warps, o.warps), regs: min(n.regs, o.regs), smem: min(n.smem, o.smem)}
}

// within reports whether n is no more than o of every resource: where a
// CTA needing n fits on no SM, one needing o fits on none either.
func (n need) within(o need) bool {
	return n.warps <= o.warps && n.regs <= o.regs && n.smem <= o.smem
}

// sm is one streaming multiprocessor's free resources plus its occupancy
// accounting. Resources are reserved when a CTA is placed and released when
// it ends.
type sm struct {
	id     int
	kernel *Kernel // the kernel of the resident CTAs (the first placed), nil when idle
	ctas   int     // resident CTAs
	warps  int     // resident warps
	regs   int
	smem   int64
	slots  uint64 // CTA slots in use (bit i: slot i)
	occ    occAccum

	// Under CRCS (costs.go): the kernel whose CTAs it ran last, and until
	// when its L1 is being flushed for another kernel's.
	last       *Kernel
	flushUntil int64

	// held: it took a CTA less than gpu.cta_issue_interval ago (ctaissue.go).
	held bool
}

// takeSlot claims the lowest free CTA slot. Beyond 64 resident CTAs slots
// are numbered by count, which only blurs the hardware thread ids DTBL
// hashes.
func (s *sm) takeSlot() int {
	if s.slots == ^uint64(0) {
		return 64 + s.ctas
	}
	i := bits.TrailingZeros64(^s.slots)
	s.slots |= 1 << i
	return i
}

func (s *sm) freeSlot(i int) {
	if i < 64 {
		s.slots &^= 1 << (uint(i) & 63) // the mask, a no-op, spares a shift's test of 64
	}
}

// fits reports whether one more CTA with n fits under all four SM limits:
// a free CTA slot, and room (roomIn). Placement's search, whose SMs all
// have a free slot, asks fitsOpen instead, room alone: fits is asked by
// the analyses and where a kernel is prepared.
func (s *sm) fits(g *model.GPU, n need) bool {
	l := limitsOf(g)
	return s.ctas < l.ctas && s.roomIn(&l, n)
}

func (s *sm) reserve(n need) {
	s.ctas++
	s.warps += int(n.warps)
	s.regs += int(n.regs)
	s.smem += n.smem
}

func (s *sm) release(n need) {
	s.ctas--
	s.warps -= int(n.warps)
	s.regs -= int(n.regs)
	s.smem -= n.smem
}

// idle reports whether no CTA is resident: PPCS-style schedulers only use
// completely idle SMs.
func (s *sm) idle() bool { return s.ctas == 0 }

// fitsOpen is fits for an SM of the open set (nextOpen), which has a free
// slot and is not held: RoundRobin's search asks it of each SM it tries.
//
// Under exclusive SMs an SM runs one kernel's CTAs at a time, and in
// GPGPU-Sim's mode of them (gpu.concurrent_kernel_sm=off,
// -gpgpu_concurrent_kernel_sm 0: evenShare) holds at most ⌈CTAs/SMs⌉ of
// a kernel whose grid would not fill every SM: "gpu_max_cta_per_shader
// is limited by number of CTAs if not enough to keep all cores busy"
// (shader_core_config::max_cta,
// src/gpgpu-sim/shader.cc:3552-3557 at 667834cf), which an SM's
// can_issue_1block asks in that mode ("return (get_n_active_cta() <
// m_config->max_cta(kernel));"). So a child of 3 CTAs on a GPU of 15
// SMs runs one CTA an SM, waiting for SMs that drain, where the SM that
// drained first would otherwise take all three. s.ctas ≥ ⌈T/N⌉ is
// s.ctas·N ≥ T for whole numbers.
func (a *smArray) fitsOpen(k *Kernel, i int) bool {
	s := &a.sms[i]
	if a.exclusive && (s.kernel != nil && s.kernel != k || a.evenShare && uint64(s.ctas)*uint64(len(a.sms)) >= k.total) {
		return false
	}
	return s.roomIn(&a.lim, k.decl.need)
}

// slotsNeeded reports whether a run whose site decider is d needs its
// CTAs' slots on their SMs: only an aggregated group's hardware thread id
// reads one (ctaRun.hwThread, for DTBL's AGT), and LaunchAll, the
// default, makes no group. Numbering them for every run cost 6
// instructions a CTA more on uniform and synth, 8 on BFS
// (scripts/instructions.sh --quick).
func slotsNeeded(d SiteDecider) bool {
	_, all := d.(LaunchAll)
	return d != nil && !all
}

// takeSlot is s.takeSlot where slots are numbered, else 0.
func (a *smArray) takeSlot(s *sm) int {
	if !a.slots {
		return 0
	}
	return s.takeSlot()
}

// roundOpen is the first SM with a free CTA slot, not held, in the round
// of the SMs from i, or -1 (smSet.round).
func (a *smArray) roundOpen(i int) int { return a.open.round(i) }

// releaseLimited is releaseIssued where the CTA issue rate limits, and
// reports whether it does: only then has settle holds to release and a
// wake-up to ask for.
func (a *smArray) releaseLimited(now int64) (limited bool) {
	if !a.issue.limits() {
		return false
	}
	a.releaseIssued(now)
	return true
}

// vacate is SM s left empty by a CTA (leave): it returns the kernel the
// SM held, which no longer counts it. Apart from leave, which returned
// that kernel or nil: its caller tested what leave had just tested, a
// nil stored and tested every CTA (scripts/instructions.sh --quick:
// synth, BFS and uniform 5 instructions a CTA fewer).
func (a *smArray) vacate(s *sm) *Kernel {
	k := s.kernel
	k.sms--
	s.kernel = nil
	return k
}

// mayFit is the SMs (nextOpen's mask) that may have room for a CTA
// needing n (roomless).
func (a *smArray) mayFit(n *need) uint64 { return a.full.mask(n) }

// failed records that no SM with a free slot had room for a CTA needing
// n. Under exclusive SMs, where whether a CTA fits an SM depends on its
// kernel too, it records nothing.
func (a *smArray) failed(n need) {
	if !a.exclusive {
		a.full.failed(n)
	}
}

// at is SM i, for placement (enter): RoundRobin.find hands on the SM it
// tried, where place looked it up again by index, a bounds check and a
// multiply a CTA.
func (a *smArray) at(i int) *sm { return &a.sms[i] }

// atCapacity reports whether s holds the most CTAs an SM may
// (gpu.max_ctas_per_sm): swapPlain's test that no other SM is tried.
func (a *smArray) atCapacity(s *sm) bool { return s.ctas == a.lim.ctas }

// maxCTAs is the most CTAs an SM may hold (gpu.max_ctas_per_sm).
func (a *smArray) maxCTAs() int { return a.lim.ctas }

// grew marks SM i as having gained room for RoundRobin's search, as
// leavePlain does when a CTA leaves it.
func (a *smArray) grew(i int) { a.full.grew(i) }

// smLimits is the GPU's limits of an SM (model.GPU's), held in smArray:
// the tests of a CTA's placement and end, and fitsOpen's of each SM
// RoundRobin's search tries, load no gpu, and warps, the threads' limit
// in warps (validated a multiple of WarpSize), takes no multiplication.
type smLimits struct {
	ctas, warps, regs int
	smem              int64
}

// limitsOf is g's limits of an SM.
func limitsOf(g *model.GPU) smLimits {
	return smLimits{ctas: g.MaxCTAsPerSM, warps: g.MaxWarpsPerSM(), regs: g.RegsPerSM, smem: g.SmemPerSM}
}

// roomIn reports whether one more CTA with n fits under l, an SM's
// limits of threads, registers and shared memory.
func (s *sm) roomIn(l *smLimits, n need) bool {
	return s.warps+int(n.warps) <= l.warps && s.regs+int(n.regs) <= l.regs && s.smem+n.smem <= l.smem
}
