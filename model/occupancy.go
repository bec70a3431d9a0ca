package model

// Limit names the SM resource that bounds how many CTAs of a kernel can be
// resident at once — what a user tuning a kernel's shape wants to know.
type Limit uint8

// The four per-SM limits of docs/design.md §3, in the order ties are reported: when
// two resources allow the same number of CTAs the earlier one is named.
const (
	LimitCTAs    Limit = iota // gpu.max_ctas_per_sm
	LimitThreads              // gpu.max_threads_per_sm, in whole warps
	LimitRegs                 // gpu.regs_per_sm
	LimitSmem                 // gpu.smem_per_sm
)

var limitNames = [...]string{
	LimitCTAs:    "ctas",
	LimitThreads: "threads",
	LimitRegs:    "regs",
	LimitSmem:    "smem",
}

// String returns the short name used in messages and tables.
func (l Limit) String() string {
	if int(l) < len(limitNames) {
		return limitNames[l]
	}
	return "unknown"
}

// CTAsPerSM is how many CTAs of the given shape one empty SM holds, and
// which limit binds. Threads are rounded up to whole warps, and a CTA holds
// regsPerThread registers for every thread of every warp, warp padding
// included (regsPerThread × warps × 32); register allocation granularity is
// not modelled, which the papers' simulators (GPGPU-Sim) do likewise.
//
// n is 0 when not even one CTA fits, and limit then names the resource it
// exceeds; the caller reports that kernel as unrunnable. A CTA with no
// threads, or negative registers or shared memory, is malformed and also
// gets 0 (limit threads, regs or smem). The arithmetic cannot overflow for
// any input.
func (g GPU) CTAsPerSM(threadsPerCTA, regsPerThread int, smemPerCTA int64) (n int, limit Limit) {
	switch {
	case threadsPerCTA <= 0 || threadsPerCTA > g.MaxThreadsPerSM:
		return 0, LimitThreads
	case regsPerThread < 0 || regsPerThread > g.RegsPerSM/WarpSize:
		return 0, LimitRegs
	case smemPerCTA < 0 || smemPerCTA > g.SmemPerSM:
		return 0, LimitSmem
	case g.MaxCTAsPerSM < 1:
		return 0, LimitCTAs
	}
	warps := warpsFor(threadsPerCTA)
	n, limit = g.MaxCTAsPerSM, LimitCTAs
	if m := g.MaxWarpsPerSM() / warps; m < n {
		n, limit = m, LimitThreads
	}
	if regsPerThread > 0 {
		// RegsPerSM / (regsPerThread·32·warps) in two steps, so the
		// product is never formed: floor(floor(a/b)/c) = floor(a/(b·c)).
		// regsPerThread·32 ≤ RegsPerSM was checked above.
		if m := g.RegsPerSM / (regsPerThread * WarpSize) / warps; m < n {
			n, limit = m, LimitRegs
		}
	}
	if smemPerCTA > 0 {
		if m := g.SmemPerSM / smemPerCTA; m < int64(n) {
			n, limit = int(m), LimitSmem
		}
	}
	return n, limit
}

// warpsFor rounds a positive thread count up to whole warps.
func warpsFor(threads int) int { return (threads-1)/WarpSize + 1 }

// Resources is an amount of the four SM resources CTAs occupy. The engine
// keeps one per SM for what is free, computes one per kernel for what each
// of its CTAs needs, and moves amounts between them by value — no
// allocation, so it is cheap enough for the dispatch loop.
type Resources struct {
	CTAs  int   // CTA slots
	Warps int   // resident warps (threads rounded up to warps)
	Regs  int   // registers
	Smem  int64 // shared memory bytes
}

// Capacity is what an empty SM offers.
func (g GPU) Capacity() Resources {
	return Resources{
		CTAs:  g.MaxCTAsPerSM,
		Warps: g.MaxWarpsPerSM(),
		Regs:  g.RegsPerSM,
		Smem:  g.SmemPerSM,
	}
}

// Need is what one CTA of the given shape occupies while resident, counted
// as CTAsPerSM counts it. It is exact for any CTA with CTAsPerSM ≥ 1, which
// the engine checks once per kernel before dispatching any of its CTAs.
func (g GPU) Need(threadsPerCTA, regsPerThread int, smemPerCTA int64) Resources {
	warps := warpsFor(threadsPerCTA)
	return Resources{
		CTAs:  1,
		Warps: warps,
		Regs:  regsPerThread * warps * WarpSize,
		Smem:  smemPerCTA,
	}
}

// Fits reports whether r can be taken from free.
func (r Resources) Fits(free Resources) bool {
	return r.CTAs <= free.CTAs && r.Warps <= free.Warps && r.Regs <= free.Regs && r.Smem <= free.Smem
}

// Sub returns r less o: an SM's free resources after a CTA needing o starts.
func (r Resources) Sub(o Resources) Resources {
	return Resources{r.CTAs - o.CTAs, r.Warps - o.Warps, r.Regs - o.Regs, r.Smem - o.Smem}
}

// Add returns r plus o: an SM's free resources after a CTA holding o ends.
func (r Resources) Add(o Resources) Resources {
	return Resources{r.CTAs + o.CTAs, r.Warps + o.Warps, r.Regs + o.Regs, r.Smem + o.Smem}
}
