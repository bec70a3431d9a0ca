// Package model is the GPU hardware model a replay runs on: the presets of
// the papers' simulated GPUs, every tunable latency and size, and the
// occupancy arithmetic that decides how many CTAs fit on an SM.
package model

// GPU is the hardware the engine dispatches onto. Every limit here bounds how
// many CTAs an SM holds at once or how many kernels run concurrently.
type GPU struct {
	Name            string  `json:"name"`
	SMs             int     `json:"sms"`
	ClockMHz        float64 `json:"clock_mhz"`
	MaxCTAsPerSM    int     `json:"max_ctas_per_sm"`
	MaxThreadsPerSM int     `json:"max_threads_per_sm"`
	RegsPerSM       int     `json:"regs_per_sm"`
	SmemPerSM       int64   `json:"smem_per_sm"`
	MaxKernels      int     `json:"max_kernels"`
	// IssueWidth is how many warp instructions an SM issues per cycle: the
	// ceiling the contention model shares among the SM's resident warps.
	IssueWidth float64 `json:"issue_width"`
	// DRAMGBps is the GPU's DRAM bandwidth in decimal GB/s, shared by
	// every SM.
	DRAMGBps float64 `json:"dram_gbps"`
	// ConcurrentKernelSM is "on" when CTAs of different kernels
	// may share an SM, as on every NVIDIA GPU since Kepler and in the
	// DTBL authors' GPGPU-Sim; "off" when an SM runs one kernel's CTAs at
	// a time, taking another kernel's only once it has drained: GPGPU-Sim's
	// -gpgpu_concurrent_kernel_sm 0, the default of its tested configs
	// (and of v3.2.2 as released), which the GPGPU-Sim importer records.
	ConcurrentKernelSM Switch `json:"concurrent_kernel_sm"`
	// CTAIssueInterval is the fewest cycles between two CTAs issued to
	// one SM: an SM that takes a CTA at cycle t takes its next at t+n at
	// the earliest, so a kernel's CTAs spread over the SMs that free up
	// in the next few cycles rather than filling the first. GPGPU-Sim
	// issues at most one CTA to a cluster a core cycle
	// (simt_core_cluster::issue_block2core), which the GPGPU-Sim importer
	// records. 0, every preset's value: any number of CTAs a cycle (no
	// datasheet states the rate of NVIDIA's CTA scheduler).
	CTAIssueInterval int64 `json:"cta_issue_interval"`
}

// ExclusiveSMs reports whether an SM runs one kernel's CTAs at a time.
func (g GPU) ExclusiveSMs() bool { return g.ConcurrentKernelSM == "off" }

// DRAMBytesPerCycle is the DRAM bandwidth in bytes per replay cycle.
func (g GPU) DRAMBytesPerCycle() float64 { return g.DRAMGBps * 1000 / g.ClockMHz }

// WarpSize is the SIMT width every preset shares.
const WarpSize = 32

// MaxWarpsPerSM is the resident-warp capacity occupancy is measured against.
func (g GPU) MaxWarpsPerSM() int { return g.MaxThreadsPerSM / WarpSize }

// Latencies are the fixed costs of moving a kernel from the host (or a
// device thread) to the SMs, in replay-GPU cycles, and the host threads
// that pay the host's share of them.
type Latencies struct {
	HostIssue      int64 `json:"host_issue"`
	HostLaunch     int64 `json:"host_launch"`
	KernelDispatch int64 `json:"kernel_dispatch"`
	// HostThreads is how many host threads make API calls at once. A
	// task-parallel host program (Pagoda Fig. 1a spawns from OpenMP
	// tasks) pays lat.host_issue per call on each thread, not on one.
	HostThreads int64 `json:"host_threads"`
	// HostSync is a blocking call's own cost on its host thread once
	// what it waits for has completed (a device, stream or event sync; a
	// copy that blocks): the call returns HostSync after the wait ends.
	// 0 in every preset: GPGPU-Sim's host costs no cycles, and an
	// importer that measures a capture's own (nsys, kineto) sets it in
	// the trace's meta for --gpu=captured.
	HostSync int64 `json:"host_sync"`
	// StreamCountdown and StreamPasses are GPGPU-Sim's stream manager
	// (docs/model.md, "The simulator's stream manager"), 0 (off) in every
	// preset: a device kernel at its stream's head waits there until it
	// has been served StreamCountdown+1 times, one waiting head served a
	// pass, round-robin, StreamPasses passes every 1000 cycles, before it
	// takes lat.kernel_dispatch in the Kernel Distributor; with the GPU
	// idle the passes take no time. The GPGPU-Sim importer records both.
	StreamCountdown int64 `json:"stream_countdown"`
	StreamPasses    int64 `json:"stream_passes"`
}

// CDP is the CUDA device-runtime API cost model of DTBL Table 3: each call
// costs b + a·x cycles for x launching lanes of a warp.
type CDP struct {
	// StreamCreate is cudaStreamCreateWithFlags, once per launching warp
	// (DTBL Table 3: 7165). SPAWN Table II's launch latency, Ax + b with
	// A = 1721 = param_a + launch_a and b = 20210 = param_b + launch_b,
	// has no stream term, so k20c-spawn sets 0.
	StreamCreate int64 `json:"stream_create"`
	ParamB       int64 `json:"param_b"`
	ParamA       int64 `json:"param_a"`
	LaunchB      int64 `json:"launch_b"`
	LaunchA      int64 `json:"launch_a"`
	// ClockMHz is the clock whose cycles stream_create, param_* and
	// launch_* count: 706, the K20c's, where DTBL §5.1 measured them
	// ("by performing the measurement on the K20c GPU with the clock()
	// function"). The engine converts them to gpu.clock_mhz (Config.
	// LaunchCosts), as the replay converts the trace's cycles, so a
	// launch costs the same time against the same work on every preset.
	// 0: they are cycles of gpu.clock_mhz, unconverted (SPAWN's simulator
	// runs Table 3's cycle counts at its 1400 MHz; the behaviour before).
	ClockMHz float64 `json:"clock_mhz"`
	// LaunchServers is how many cudaLaunchDevice calls each SM's path to
	// the KMU serves at once; a call's service time is its per-thread
	// part, launch_a·x, and calls beyond the servers wait their turn
	// (SPAWN §II-C: a burst of calls "cannot be serviced
	// simultaneously"). 0: unlimited, every call served at once.
	LaunchServers int64 `json:"launch_servers"`
	// PendingLimit is how many device launches may be pending at once
	// (CUDA's cudaLimitDevRuntimePendingLaunchCount): launched and not yet
	// begun to execute. A warp whose launches would exceed it waits until
	// enough pending launches have begun. 0: unlimited.
	PendingLimit int64 `json:"pending_limit"`
	// Streams is which streams device launches go into: "traced", as
	// the trace says (trace.DeviceStream; a trace that does not say gives
	// each child a stream of its own); "child", one created stream per
	// child (SPAWN Figure 8's "unique SWQ id"); "cta", the launching
	// CTA's default stream, so a CTA's children run one after another
	// (SPAWN §II-B, "If the application does not specify c_stream");
	// "tail" and "fire_and_forget", CUDA 12's named streams. The what-if
	// of docs/model.md, "Device streams".
	Streams DeviceStreams `json:"streams"`
}

// Launch holds the launch-vs-inline knob of the threshold policy.
type Launch struct {
	Threshold int64 `json:"threshold"`
}

// Spawn holds SPAWN's controller parameters (SPAWN Table II).
type Spawn struct {
	Window int64 `json:"window"`
	// OverheadA and OverheadB give the controller's t_overhead =
	// overhead_a·x_w + overhead_b. -1 (both, the presets' value) derives
	// it from the engine's own charge, Config.SpawnOverhead: what x_w
	// launching lanes cost through cdp.* with the launch server idle, so
	// the estimate and the charge are one number (SPAWN Table II's
	// 20210 + 1721·x on k20c-spawn). Values ≥ 0 set it apart from the
	// charge (1721 and 20210 restore the old fixed Table II estimate).
	OverheadA int64 `json:"overhead_a"`
	OverheadB int64 `json:"overhead_b"`
	MaxQueue  int64 `json:"max_queue"`
	// NCon chooses what n_con, Algorithm 1's average number of concurrent
	// child CTAs, averages over: "window" (docs/design.md §4: every cycle of the
	// window, idle ones included; 0 for an idle window) or "busy" (only
	// the cycles in which a child CTA runs, an idle window keeping the
	// last value as t_warp does — what the GPU sustains while children
	// run, rather than how many were asked for). The paper says "average"
	// and no more; docs/experiments.md measures both.
	NCon string `json:"ncon"`
	// NoTWarp is what a site decides while t_cta is known but t_warp is
	// not yet (no window with a finished child warp has closed):
	// "launch" (Algorithm 1's initialization, lines 2–3, extended to the
	// other metric Equation 2 needs: with a metric still at its initial 0
	// the controller launches) or "inline" (Algorithm 1 read literally:
	// t_parent = workload·0 = 0 < t_child, the behaviour before).
	NoTWarp string `json:"no_twarp"`
	// Queue is when a launched child's CTAs join n, the child CTAs in the
	// Child CTA Queuing System: "arrival" (§IV-A: "CCQS tracks the child
	// kernel CTAs only *after* they are pushed into GMU", the launch
	// overhead being "the time to push child CTAs from SPAWN controller
	// to CCQS": from the child's arrival at the KMU) or "decision"
	// (Algorithm 1 line 8, n ← n + x as the controller decides, the
	// behaviour before).
	Queue string `json:"queue"`
}

// DTBL holds the Aggregated Group Table parameters (DTBL §4).
type DTBL struct {
	AGTEntries int64 `json:"agt_entries"`
	AGTSpill   int64 `json:"agt_spill"`
	// Fallback is how an aggregated group's launch command is handled:
	// "dispatch" (DTBL §4.2: the SMX scheduler matches the group against
	// the Kernel Distributor when the command arrives, after its parameter
	// buffer, and with no eligible kernel "the aggregated group is launched
	// as a new device kernel", through the KMU and lat.kernel_dispatch) or
	// "instant" (matched at the site; with no eligible kernel the group
	// takes a Kernel Distributor entry at the site's cycle, the behaviour
	// before).
	Fallback Fallback `json:"fallback"`
	// SpillLoads is when a spilled group's metadata is loaded from global
	// memory, each load costing agt_spill: "cta" (DTBL §4.3: "If a free
	// entry is found, there will be zero cost for the SMX scheduler to load
	// the aggregated group information when it is scheduled. Otherwise the
	// SMX scheduler will have to load the information from the global
	// memory"; the scheduler keeps nothing of a spilled group on chip, so
	// every CTA it distributes from the group waits for the load) or
	// "first" (the group's first CTA only, the behaviour before).
	SpillLoads SpillLoads `json:"spill_loads"`
	// Match is what an eligible kernel shares with a group besides its
	// function (entry PC): "shape", its block shape too (DTBL §4.2: "an
	// eligible kernel ... with the same entry PC and the same thread
	// block configuration" reads the TB configuration as the block's
	// dimensions), or "function", the function alone, as the DTBL
	// authors' simulator matches (stream_manager::find_grid,
	// src/stream_manager.cc:521-534 of howardwangph/gpgpu-sim-dcc:
	// entry == kernel->entry() && !kernel->is_finished()).
	Match Match `json:"match"`
	// LaunchCost is what the launching warp stalls for at a site of
	// aggregated groups (and of DTBL's hardware launches): "front", the
	// slower of the parameter buffers and the Kernel Distributor search
	// (DTBL §4.3), groups joining their kernel then; or "cdp", the device
	// runtime's two calls as a CDP launch pays them, cdp.param_b +
	// cdp.param_a·x + cdp.launch_b + cdp.launch_a·x, groups joining when
	// the second returns, as the DTBL authors' simulator charges every
	// device launch (src/gpgpu-sim/shader.cc:1090-1096, with or without
	// -agg_blocks_support).
	LaunchCost LaunchCost `json:"launch_cost"`
}

// IO is the host storage and PCIe model of the CRCS paper (§3, §5.1).
type IO struct {
	// Model is "stages" (the host reads inputs from storage, copies them
	// over PCIe, and writes outputs back: the CRCS paper's host model) or
	// "none" (kernels only, as the DTBL and SPAWN papers measure).
	Model     IOModel `json:"model"`
	SSDMBps   float64 `json:"ssd_mbps"`
	PCIeGBps  float64 `json:"pcie_gbps"`
	PageBytes int64   `json:"page_bytes"`
	// CopyLatency is an explicit copy's fixed cost on its copy engine
	// (cycles), charged before its bytes cross at PCIeGBps: what a copy
	// of a few bytes takes on a real GPU (about 1 µs). 0 in every
	// preset; an importer that measures a capture's copies (nsys) sets
	// it in the trace's meta for --gpu=captured. The host stages' page
	// copies (io.model=stages) do not pay it.
	CopyLatency int64 `json:"copy_latency"`
	// Memcpy is how a trace's `memcpy` records are called: "async"
	// (cudaMemcpyAsync: the call costs its host thread lat.host_issue),
	// "sync" (cudaMemcpy: the thread also waits for the copy to cross
	// PCIe, its own bytes at io.pcie_gbps) or "legacy" (sync, and on
	// CUDA's legacy default stream: the copy waits for every operation
	// issued before it and holds back every one issued after it).
	Memcpy Memcpy `json:"memcpy"`
}

// CRCS selects where page references come from, and which pages PPCS's
// page shares count.
type CRCS struct {
	Pages PageRefs `json:"pages"` // "ranges" or "exact"
	// Share is "available" (§4.4's wording: prelude pages once
	// transferred, GPU-made pages once their producer has released them)
	// or "ready" (every page on the GPU, those of temp and output buffers
	// from the start).
	Share PageShare `json:"share"`
	// Gate is "access" (a CTA is checked at each page as it first touches
	// it, in the order the trace's positions give, and stalls mid-run at a
	// page that is not ready or not its kernel's: §4.1, "The instruction
	// can be issued only if all accessed pages are owned by the kernel;
	// otherwise, the warp stalls") or "start" (every page it references is
	// checked before it starts; what traces without positions always get).
	Gate PageGate `json:"gate"`
	// Irregular is "ready" (the oldest unfinished irregular kernel runs
	// during the prelude, each page it touches gated on its ready bit:
	// §4.1) or "all" (it waits for every input page).
	Irregular Irregular `json:"irregular"`
	// ProfileCycles is one pre-profiler CTA's SetRange call for one array
	// (§4.2.2), which the kernel's CTAs wait for; L1Flush is an SM's L1
	// invalidation when it turns to another kernel's CTAs (§4.3).
	ProfileCycles int64 `json:"profile_cycles"`
	L1Flush       int64 `json:"l1_flush"`
}

// GeMTC holds the SuperKernel parameters (GeMTC's source, skrieder/gemtc;
// Pagoda §6.2).
type GeMTC struct {
	// Batch is the tasks the host pushes before it polls for all their
	// results and pushes the next batch.
	Batch int64 `json:"batch"`
	// Threads is the threads of one SuperKernel threadblock.
	Threads int64 `json:"threads"`
	// Worker is "warp" (every warp of a SuperKernel block takes tasks on
	// its own, as GeMTC's SuperKernel.cu does) or "block" (the whole
	// block is one worker).
	Worker string `json:"worker"`
	// DequeueCycles is how long one worker's take holds the lock of
	// GeMTC's task queue; the lock serialises the takes.
	DequeueCycles int64 `json:"dequeue_cycles"`
	// ResultCycles is how long one worker's result holds the lock of
	// GeMTC's result queue; the lock serialises the results.
	ResultCycles int64 `json:"result_cycles"`
	// SmemSlowdown is how much longer a task that uses shared memory runs
	// under GeMTC, which has none, per kernel name: "name:factor" pairs
	// joined by "/", or "none".
	SmemSlowdown string `json:"smem_slowdown"`
}

// Pagoda holds the MasterKernel parameters (Pagoda §4–5).
type Pagoda struct {
	MTBsPerSM   int64 `json:"mtbs_per_sm"`
	TableRows   int64 `json:"table_rows"`
	SpawnCycles int64 `json:"spawn_cycles"`
	SchedCycles int64 `json:"sched_cycles"`
	SmemPerMTB  int64 `json:"smem_per_mtb"`
	// Spawn is "pipelined" (§4.1–4.2.2: the MasterKernel is launched
	// first, a task is schedulable once the next spawn's entry has
	// arrived, the last one is flushed by a status copy-back and a copy,
	// and the run ends at the host's waitAll copy-back) or "direct" (the
	// reading before: the MasterKernel resident from cycle 0, each entry
	// schedulable at its own spawn, nothing after the last task).
	Spawn string `json:"spawn"`
}

// Model switches parts of the timing model on and off.
type Model struct {
	// Contention is "on" (co-resident warps share an SM's issue width and
	// the GPU's DRAM bandwidth: CTAs with recorded demand slow each other)
	// or "off" (every CTA runs its trace cycles whatever runs beside it,
	// as before the model existed).
	Contention Switch `json:"contention"`
	// TieSeed, when not 0, fires the engine's events of one cycle in an
	// order the seed fixes instead of the order they were scheduled in
	// (the host's calls keep theirs): replays under a few seeds measure
	// how much a result owes to the order of simultaneous events, which
	// the model leaves unordered. 0 is the scheduling order.
	TieSeed int64 `json:"tie_seed"`
}

// Output holds knobs of the result tables that are not hardware.
type Output struct {
	// OccupancyWindow is the width in cycles of one occupancy-table row.
	OccupancyWindow int64 `json:"occupancy_window"`
}

// Config is everything a replay depends on besides the trace and the policy.
// Each field is reachable as a dotted key (gpu.sms, cdp.param_b, ...) so a
// user can override or sweep it from the command line.
type Config struct {
	GPU    GPU       `json:"gpu"`
	Lat    Latencies `json:"lat"`
	CDP    CDP       `json:"cdp"`
	Launch Launch    `json:"launch"`
	Spawn  Spawn     `json:"spawn"`
	DTBL   DTBL      `json:"dtbl"`
	IO     IO        `json:"io"`
	CRCS   CRCS      `json:"crcs"`
	GeMTC  GeMTC     `json:"gemtc"`
	Pagoda Pagoda    `json:"pagoda"`
	Model  Model     `json:"model"`
	Output Output    `json:"output"`

	// params are the declared parameters (Param) set away from their
	// defaults (params.go).
	params string
}

// APICost is what a warp stalls for when x of its lanes launch child kernels
// through the CUDA device runtime (DTBL Table 3): cudaGetParameterBuffer
// (param_b + param_a·x) plus cudaLaunchDevice (launch_b + launch_a·x), plus
// one stream creation for the warp where create is set (a launching lane
// creates its child's stream first: docs/model.md, "Device streams"). No
// launching lane, no cost.
func (c CDP) APICost(x int64, create bool) int64 {
	return c.ParamCost(x) + c.LaunchCost(x, create)
}

// LaunchCosts is cdp.* with its costs converted from cdp.clock_mhz to the
// replay GPU's clock (each rounded half away from zero, as the presets'
// time-defined costs are): the device-runtime costs the engine charges.
// With cdp.clock_mhz 0 they are returned as they are.
func (c Config) LaunchCosts() CDP {
	d := c.CDP
	from, to := d.ClockMHz, c.GPU.ClockMHz
	if from == 0 || from == to {
		return d
	}
	for _, f := range []*int64{&d.StreamCreate, &d.ParamB, &d.ParamA, &d.LaunchB, &d.LaunchA} {
		*f = rescale(*f, from, to)
	}
	return d
}

// SpawnOverhead is SPAWN's t_overhead for a site of xw lanes, the warp
// creating a stream first where create is set: the configured
// spawn.overhead_a·xw + spawn.overhead_b, or, when those are -1, the
// engine's charge for xw launching lanes on an idle launch path.
func (c Config) SpawnOverhead(xw int64, create bool) int64 {
	if c.Spawn.OverheadA < 0 {
		return c.LaunchCosts().APICost(xw, create)
	}
	return c.Spawn.OverheadA*xw + c.Spawn.OverheadB
}

// ParamCost is cudaGetParameterBuffer for x lanes: the part of a launch
// that DTBL's aggregated groups still pay (DTBL §4.3).
func (c CDP) ParamCost(x int64) int64 {
	if x <= 0 {
		return 0
	}
	return c.ParamB + c.ParamA*x
}

// LaunchCost is cudaLaunchDevice for x lanes, with the warp's one stream
// creation where create is set: what a device-kernel launch adds to the
// parameter buffer. It is LaunchLatency, paid by every warp in parallel,
// plus LaunchService, the part a launch server serves one call at a time.
func (c CDP) LaunchCost(x int64, create bool) int64 {
	if x <= 0 {
		return 0
	}
	return c.LaunchLatency(create) + c.LaunchService(x)
}

// LaunchLatency is the part of a launch every warp pays on its own, however
// many warps launch at once: cudaLaunchDevice's per-warp initialisation b
// (DTBL §5.1: "b is the initialization latency for each warp"), after the
// stream creation where create is set. A warp that creates no stream (its
// children go into its CTA's default stream, or one created before) pays
// LaunchB alone.
func (c CDP) LaunchLatency(create bool) int64 {
	if create {
		return c.StreamCreate + c.LaunchB
	}
	return c.LaunchB
}

// LaunchService is the part of a warp's cudaLaunchDevice call for x lanes
// that the SM's launch path serves one call at a time: A per calling
// thread (DTBL §5.1: "A is the latency for each API called by one thread in
// the warp"), the part that makes "the total kernel launching time
// scale with the number of child kernels" (DTBL §2.4).
func (c CDP) LaunchService(x int64) int64 {
	if x <= 0 {
		return 0
	}
	return c.LaunchA * x
}
