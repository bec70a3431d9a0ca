package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Validate rejects a configuration no GPU could have or no policy could run
// with, naming the first offending key. It checks each value on its own;
// whether a particular policy's structures fit the GPU (Pagoda's
// MasterKernel, say) is for that policy to check, since it concerns no other
// policy.
func (c Config) Validate() error {
	var v validator
	g := c.GPU
	if g.Name == "" {
		v.fail("gpu.name", "must not be empty")
	}
	v.atLeast("gpu.sms", int64(g.SMs), 1)
	v.atMost("gpu.sms", int64(g.SMs), MaxSMs)
	v.positive("gpu.clock_mhz", g.ClockMHz)
	v.atMostF("gpu.clock_mhz", g.ClockMHz, 1e6)
	v.atMostF("gpu.issue_width", g.IssueWidth, 1024)
	v.atMostF("gpu.dram_gbps", g.DRAMGBps, 1e7)
	v.atMost("gpu.max_ctas_per_sm", int64(g.MaxCTAsPerSM), 1<<12)
	v.atMost("gpu.max_kernels", int64(g.MaxKernels), 1<<16)
	v.atLeast("gpu.max_ctas_per_sm", int64(g.MaxCTAsPerSM), 1)
	v.atLeast("gpu.max_threads_per_sm", int64(g.MaxThreadsPerSM), WarpSize)
	v.multipleOf("gpu.max_threads_per_sm", int64(g.MaxThreadsPerSM), WarpSize)
	v.atLeast("gpu.regs_per_sm", int64(g.RegsPerSM), 1)
	v.atLeast("gpu.smem_per_sm", g.SmemPerSM, 0)
	v.atLeast("gpu.max_kernels", int64(g.MaxKernels), 1)
	v.positive("gpu.issue_width", g.IssueWidth)
	v.positive("gpu.dram_gbps", g.DRAMGBps)
	oneOfKey(&v, "model.contention", c.Model.Contention, On, Off)
	oneOfKey(&v, "gpu.concurrent_kernel_sm", g.ConcurrentKernelSM, On, Off)
	v.atLeast("model.tie_seed", c.Model.TieSeed, 0)

	for _, f := range []struct {
		key string
		n   int64
	}{
		{"gpu.cta_issue_interval", g.CTAIssueInterval},
		{"lat.host_issue", c.Lat.HostIssue},
		{"lat.host_sync", c.Lat.HostSync},
		{"io.copy_latency", c.IO.CopyLatency},
		{"lat.host_launch", c.Lat.HostLaunch},
		{"lat.kernel_dispatch", c.Lat.KernelDispatch},
		{"cdp.stream_create", c.CDP.StreamCreate},
		{"cdp.param_b", c.CDP.ParamB},
		{"cdp.param_a", c.CDP.ParamA},
		{"cdp.launch_b", c.CDP.LaunchB},
		{"cdp.launch_a", c.CDP.LaunchA},
		{"launch.threshold", c.Launch.Threshold},
		{"dtbl.agt_spill", c.DTBL.AGTSpill},
		{"pagoda.spawn_cycles", c.Pagoda.SpawnCycles},
		{"pagoda.sched_cycles", c.Pagoda.SchedCycles},
		{"gemtc.dequeue_cycles", c.GeMTC.DequeueCycles},
		{"crcs.profile_cycles", c.CRCS.ProfileCycles},
		{"crcs.l1_flush", c.CRCS.L1Flush},
		{"gemtc.result_cycles", c.GeMTC.ResultCycles},
		{"pagoda.smem_per_mtb", c.Pagoda.SmemPerMTB},
	} {
		v.atLeast(f.key, f.n, 0)
		v.atMost(f.key, f.n, MaxCost)
	}
	v.launchClock(c)
	v.atLeast("cdp.launch_servers", c.CDP.LaunchServers, 0)
	v.atMost("cdp.launch_servers", c.CDP.LaunchServers, MaxLaunchServers)
	v.atLeast("cdp.pending_limit", c.CDP.PendingLimit, 0)
	v.atMost("cdp.pending_limit", c.CDP.PendingLimit, MaxPendingLimit)
	v.spawnOverhead(c.Spawn)
	v.atLeast("spawn.window", c.Spawn.Window, 1)
	v.atLeast("spawn.max_queue", c.Spawn.MaxQueue, 1)
	v.atLeast("dtbl.agt_entries", c.DTBL.AGTEntries, 1)
	v.powerOfTwo("dtbl.agt_entries", c.DTBL.AGTEntries)
	v.positive("io.ssd_mbps", c.IO.SSDMBps)
	v.positive("io.pcie_gbps", c.IO.PCIeGBps)
	v.between("io.ssd_mbps", c.IO.SSDMBps, MinMBps, 1e9)
	v.between("io.pcie_gbps", c.IO.PCIeGBps, MinMBps/1000, 1e7)
	v.between("gpu.dram_gbps", g.DRAMGBps, MinMBps/1000, 1e7)
	v.atLeast("io.page_bytes", c.IO.PageBytes, 1)
	oneOfKey(&v, "io.model", c.IO.Model, IOStages, IONone)
	oneOfKey(&v, "io.memcpy", c.IO.Memcpy, MemcpyAsync, MemcpySync, MemcpyLegacy)
	v.oneOf("spawn.ncon", c.Spawn.NCon, "window", "busy")
	oneOfKey(&v, "dtbl.fallback", c.DTBL.Fallback, FallbackDispatch, FallbackInstant)
	oneOfKey(&v, "cdp.streams", c.CDP.Streams, StreamsTraced, StreamsChild, StreamsCTA, StreamsTail, StreamsFireAndForget)
	oneOfKey(&v, "dtbl.spill_loads", c.DTBL.SpillLoads, SpillLoadsCTA, SpillLoadsFirst)
	oneOfKey(&v, "dtbl.match", c.DTBL.Match, MatchShape, MatchFunction)
	oneOfKey(&v, "dtbl.launch_cost", c.DTBL.LaunchCost, LaunchCostFront, LaunchCostCDP)
	v.oneOf("spawn.no_twarp", c.Spawn.NoTWarp, "launch", "inline")
	v.oneOf("spawn.queue", c.Spawn.Queue, "arrival", "decision")
	oneOfKey(&v, "crcs.pages", c.CRCS.Pages, PagesRanges, PagesExact)
	oneOfKey(&v, "crcs.share", c.CRCS.Share, ShareReady, ShareAvailable)
	oneOfKey(&v, "crcs.gate", c.CRCS.Gate, GateAccess, GateStart)
	oneOfKey(&v, "crcs.irregular", c.CRCS.Irregular, IrregularReady, IrregularAll)
	v.atLeast("lat.host_threads", c.Lat.HostThreads, 1)
	v.atMost("lat.host_threads", c.Lat.HostThreads, MaxHostThreads)
	v.atLeast("gemtc.batch", c.GeMTC.Batch, 1)
	v.atLeast("gemtc.threads", c.GeMTC.Threads, 1)
	v.oneOf("gemtc.worker", c.GeMTC.Worker, "warp", "block")
	v.oneOf("pagoda.spawn", c.Pagoda.Spawn, "pipelined", "direct")
	if _, err := ParseSlowdowns(c.GeMTC.SmemSlowdown); err != nil {
		v.fail("gemtc.smem_slowdown", fmt.Sprintf("is %q: %v", c.GeMTC.SmemSlowdown, err))
	}
	v.atLeast("pagoda.mtbs_per_sm", c.Pagoda.MTBsPerSM, 1)
	v.atLeast("pagoda.table_rows", c.Pagoda.TableRows, 1)
	v.buddy("pagoda.smem_per_mtb", c.Pagoda.SmemPerMTB)
	v.atLeast("output.occupancy_window", c.Output.OccupancyWindow, 1)
	v.atMost("output.occupancy_window", c.Output.OccupancyWindow, MaxCost)
	v.atMost("spawn.window", c.Spawn.Window, MaxCost)
	v.atMost("gemtc.batch", c.GeMTC.Batch, 1<<30)
	c.checkRanges(&v)
	if c.Lat.StreamCountdown > 0 && c.Lat.StreamPasses <= 0 {
		v.fail("lat.stream_passes", fmt.Sprintf("is %d: a stream countdown (lat.stream_countdown=%d) needs passes to count it down", c.Lat.StreamPasses, c.Lat.StreamCountdown))
	}
	c.checkParams(&v)
	return v.err
}

// PagodaMinBlock is the smallest block Pagoda's shared-memory buddy
// allocator hands out (Pagoda §5.1).
const PagodaMinBlock = 512

// validator keeps the first failure so Validate reads as a list of rules.
type validator struct{ err error }

func (v *validator) fail(key, msg string) {
	if v.err == nil {
		v.err = fmt.Errorf("%s %s", key, msg)
	}
}

// oneOf checks a string key against the values it may take.
func (v *validator) oneOf(key, s string, choices ...string) {
	if slices.Contains(choices, s) {
		return
	}
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	v.fail(key, fmt.Sprintf("is %q; want %s", s, want))
}

func (v *validator) atLeast(key string, n, min int64) {
	if n < min {
		v.fail(key, fmt.Sprintf("is %d; must be at least %d", n, min))
	}
}

func (v *validator) atMost(key string, n, most int64) {
	if n > most {
		v.fail(key, fmt.Sprintf("is %d; must be at most %d", n, most))
	}
}

// MaxSMs bounds gpu.sms (the replay keeps state per SM) and MaxCost every
// latency and cost in cycles (2^40, 18 minutes at 1 GHz), so the engine's
// sums of them stay far inside int64.
const (
	MaxSMs  = 1 << 16
	MaxCost = 1 << 40
)

func (v *validator) atMostF(key string, f, most float64) {
	if f > most {
		v.fail(key, fmt.Sprintf("is %g; must be at most %g", f, most))
	}
}

// MaxHostThreads bounds lat.host_threads: the replay keeps a clock per
// host thread, and no host program runs more threads than this.
const MaxHostThreads = 4096

// MaxLaunchServers bounds cdp.launch_servers: the replay keeps each
// server's next free cycle per SM (at most 32 MiB with gpu.sms at its own
// bound), and an SM serving 64 calls at once is already unlimited for
// any warp count an SM holds.
const MaxLaunchServers = 64

// MaxPendingLimit bounds cdp.pending_limit, far above any count a device
// runtime's launch pool could be given.
const MaxPendingLimit = 1 << 30

// MinMBps is the slowest bandwidth a rate key may give, in decimal MB/s
// (io.ssd_mbps; the GB/s keys take a thousandth of it): 1 kB/s. A
// bandwidth near zero makes a byte cost more cycles than an int64 holds.
const MinMBps = 1e-3

// between checks a float key against its allowed range, naming both ends.
func (v *validator) between(key string, f, lo, hi float64) {
	if f < lo || f > hi {
		v.fail(key, fmt.Sprintf("is %g; must be between %g and %g", f, lo, hi))
	}
}

func (v *validator) positive(key string, f float64) {
	if !(f > 0) || math.IsInf(f, 0) {
		v.fail(key, fmt.Sprintf("is %g; must be a positive finite number", f))
	}
}

func (v *validator) multipleOf(key string, n, m int64) {
	if n%m != 0 {
		v.fail(key, fmt.Sprintf("is %d; must be a multiple of %d", n, m))
	}
}

func (v *validator) powerOfTwo(key string, n int64) {
	if n > 0 && n&(n-1) != 0 {
		v.fail(key, fmt.Sprintf("is %d; must be a power of two", n))
	}
}

// buddy accepts the sizes a buddy allocator of PagodaMinBlock-byte leaves
// can manage: zero (no shared memory for tasks) or a power-of-two number of
// minimum blocks.
func (v *validator) buddy(key string, n int64) {
	if n > 0 && (n%PagodaMinBlock != 0 || (n/PagodaMinBlock)&(n/PagodaMinBlock-1) != 0) {
		v.fail(key, fmt.Sprintf("is %d; must be 0 or %d bytes times a power of two", n, PagodaMinBlock))
	}
}

// spawnOverhead checks spawn.overhead_a and _b: both -1 (t_overhead is the
// engine's charge) or both costs in [0, MaxCost].
func (v *validator) spawnOverhead(s Spawn) {
	a, b := s.OverheadA, s.OverheadB
	switch {
	case a == -1 && b != -1:
		v.fail("spawn.overhead_b", fmt.Sprintf("is %d with spawn.overhead_a -1; both must be -1 (the engine's charge) or neither", b))
		return
	case a != -1 && b == -1:
		v.fail("spawn.overhead_a", fmt.Sprintf("is %d with spawn.overhead_b -1; both must be -1 (the engine's charge) or neither", a))
		return
	}
	if a == -1 {
		return
	}
	for _, f := range []struct {
		key string
		n   int64
	}{{"spawn.overhead_a", a}, {"spawn.overhead_b", b}} {
		v.atLeast(f.key, f.n, 0)
		v.atMost(f.key, f.n, MaxCost)
	}
}

// launchClock checks cdp.clock_mhz: 0 (no conversion) or a clock in
// [1, 1e6] MHz, at which every converted device-runtime cost stays within
// MaxCost.
func (v *validator) launchClock(c Config) {
	f := c.CDP.ClockMHz
	if f == 0 {
		return
	}
	if !(f >= 1 && f <= 1e6) {
		v.fail("cdp.clock_mhz", fmt.Sprintf("is %g; must be 0 (gpu.clock_mhz) or between 1 and 1e6", f))
		return
	}
	d := c.LaunchCosts()
	for _, n := range []int64{d.StreamCreate, d.ParamB, d.ParamA, d.LaunchB, d.LaunchA} {
		if n > MaxCost {
			v.fail("cdp.clock_mhz", fmt.Sprintf("is %g: at gpu.clock_mhz %g a cost of %d cycles exceeds %d", f, c.GPU.ClockMHz, n, int64(MaxCost)))
			return
		}
	}
}
