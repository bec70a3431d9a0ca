package model

// KeyDoc says what a key of Config means, for `replay params`: its unit,
// the values Validate accepts, and one line of meaning. config.go's
// comments say why a key exists and where it comes from; this says what
// a user setting it needs, in the table TestKeyDocs keeps complete.
type KeyDoc struct {
	Unit  string // "cycles", "MHz", "" for a choice or a name
	Range string // what Validate accepts
	Doc   string // one line
}

// costRange is what Validate accepts for a cost in cycles (MaxCost).
const costRange = "0 to 2^40"

var keyDocs = map[string]KeyDoc{
	"cdp.clock_mhz":            {"MHz", "0, or 1 to 10^6", "the clock whose cycles cdp.stream_create, param_* and launch_* count (DTBL measured them on the K20c at 706); 0: cycles of gpu.clock_mhz"},
	"cdp.launch_a":             {"cycles of cdp.clock_mhz per lane", costRange, "cudaLaunchDevice's cost per launching lane of a warp (DTBL Table 3's A)"},
	"cdp.launch_b":             {"cycles of cdp.clock_mhz", costRange, "cudaLaunchDevice's per-warp initialisation (DTBL Table 3's b)"},
	"cdp.launch_servers":       {"calls per SM", "0 to 64", "cudaLaunchDevice calls an SM's path to the KMU serves at once; 0: unlimited"},
	"cdp.param_a":              {"cycles of cdp.clock_mhz per lane", costRange, "cudaGetParameterBuffer's cost per launching lane"},
	"cdp.param_b":              {"cycles of cdp.clock_mhz", costRange, "cudaGetParameterBuffer's per-warp cost"},
	"cdp.pending_limit":        {"launches", "0 to 2^30", "device launches pending at once (cudaLimitDevRuntimePendingLaunchCount); a warp past it waits; 0: unlimited"},
	"cdp.streams":              {"", "traced, child, cta, tail or fire_and_forget", "the stream device launches go into: as the trace says, one created per child, the CTA's default stream, or CUDA 12's tail-launch or fire-and-forget stream (docs/model.md, \"Device streams\")"},
	"cdp.stream_create":        {"cycles of cdp.clock_mhz", costRange, "cudaStreamCreateWithFlags, once for a launching warp that creates its child's stream"},
	"crcs.gate":                {"", "access or start", "when a CTA's pages are checked: as it first touches each (access) or all before it starts"},
	"crcs.irregular":           {"", "ready or all", "whether an irregular kernel runs during the prelude gated per page (ready) or waits for every input page (all)"},
	"crcs.l1_flush":            {"cycles", costRange, "an SM's L1 invalidation when it turns to another kernel's CTAs"},
	"crcs.pages":               {"", "ranges or exact", "where page references come from: the trace's ranges, or exact page lists"},
	"crcs.profile_cycles":      {"cycles", costRange, "one pre-profiler CTA's SetRange call for one array, which the kernel's CTAs wait for"},
	"crcs.share":               {"", "ready or available", "which pages PPCS's page share counts: every page on the GPU (ready) or only those available"},
	"dtbl.agt_entries":         {"entries", "a power of two, at least 1", "the Aggregated Group Table's on-chip entries"},
	"dtbl.agt_spill":           {"cycles", costRange, "loading a spilled group's metadata from global memory"},
	"dtbl.fallback":            {"", "dispatch or instant", "when a group is matched to a running kernel: when its command arrives (dispatch) or at the site (instant)"},
	"dtbl.spill_loads":         {"", "cta or first", "whether every CTA of a spilled group waits for its metadata load, or the first only"},
	"gemtc.batch":              {"tasks", "1 to 2^30", "tasks the host pushes before it polls for their results"},
	"gemtc.dequeue_cycles":     {"cycles", costRange, "one worker's hold on the task queue's lock"},
	"gemtc.result_cycles":      {"cycles", costRange, "one worker's hold on the result queue's lock"},
	"gemtc.smem_slowdown":      {"factor", `"name:factor" pairs joined by "/", or none`, "how much longer a task using shared memory runs under GeMTC, per kernel name"},
	"gemtc.threads":            {"threads", "at least 1", "threads of one SuperKernel block"},
	"gemtc.worker":             {"", "warp or block", "what takes tasks: each warp of a SuperKernel block, or the whole block"},
	"gpu.clock_mhz":            {"MHz", "above 0, at most 10^6", "the replay GPU's clock: a trace's cycles are converted to it"},
	"gpu.concurrent_kernel_sm": {"", "on or off", "whether CTAs of different kernels may share an SM"},
	"gpu.cta_issue_interval":   {"cycles", costRange, "the fewest cycles between two CTAs issued to one SM; 0: any number a cycle"},
	"gpu.dram_gbps":            {"GB/s (decimal)", "10^-6 to 10^7", "DRAM bandwidth shared by every SM (the contention model)"},
	"gpu.issue_width":          {"warp instructions per cycle", "above 0, at most 1024", "what an SM issues per cycle, shared among its resident warps (the contention model)"},
	"gpu.max_ctas_per_sm":      {"CTAs", "1 to 4096", "CTAs resident on an SM at once"},
	"gpu.max_kernels":          {"kernels", "1 to 65536", "kernels running at once (the Kernel Distributor's entries; HyperQ's streams)"},
	"gpu.max_threads_per_sm":   {"threads", "a multiple of 32, at least 32", "threads resident on an SM at once; occupancy is measured against it"},
	"gpu.name":                 {"", "not empty", "the preset's name, as the summary's gpu column writes it"},
	"gpu.regs_per_sm":          {"registers", "at least 1", "an SM's register file"},
	"gpu.smem_per_sm":          {"bytes", "at least 0", "an SM's shared memory"},
	"gpu.sms":                  {"SMs", "1 to 65536", "streaming multiprocessors"},
	"io.memcpy":                {"", "async, sync or legacy", "how a trace's memcpy records are called: cudaMemcpyAsync, cudaMemcpy, or cudaMemcpy on the legacy default stream"},
	"io.model":                 {"", "stages or none", "whether the host reads inputs from storage and copies them over PCIe (stages) or only kernels run (none)"},
	"io.page_bytes":            {"bytes", "at least 1", "the page CRCS counts references in"},
	"io.copy_latency":          {"cycles", costRange, "an explicit copy's fixed cost on its copy engine, before its bytes"},
	"io.pcie_gbps":             {"GB/s (decimal)", "10^-6 to 10^7", "PCIe bandwidth of host-device copies"},
	"io.ssd_mbps":              {"MB/s (decimal)", "10^-3 to 10^9", "storage bandwidth of the host's reads and writes"},
	"lat.host_issue":           {"cycles", costRange, "one host API call (a launch, a copy) on its host thread"},
	"lat.host_sync":            {"cycles", costRange, "a blocking call's own cost on its host thread after its wait (a sync, a copy that blocks)"},
	"lat.host_launch":          {"cycles", costRange, "a host launch's trip from the call to the GPU's Kernel Management Unit"},
	"lat.host_threads":         {"threads", "1 to 4096", "host threads making API calls at once"},
	"lat.kernel_dispatch":      {"cycles", costRange, "a kernel's move from the KMU to the Kernel Distributor before its first CTA"},
	"lat.stream_countdown":     {"services", costRange, "GPGPU-Sim's stream manager: the services a device kernel at its stream's head waits for before its dispatch; 0: off (a real GPU)"},
	"lat.stream_passes":        {"passes per 1000 cycles", "0 to 2^20", "GPGPU-Sim's stream manager: how often it serves one waiting stream head, round-robin"},
	"launch.threshold":         {"threads of work", costRange, "the threshold policy launches a site whose workload exceeds it, else inlines it"},
	"model.contention":         {"", "on or off", "whether co-resident warps share issue width and DRAM bandwidth"},
	"model.tie_seed":           {"", "at least 0", "the order of one cycle's events: 0 as scheduled, else shuffled by this seed"},
	"output.occupancy_window":  {"cycles", "1 to 2^40", "the width of one occupancy-table row"},
	"pagoda.mtbs_per_sm":       {"blocks", "at least 1", "MasterKernel thread blocks per SM"},
	"pagoda.sched_cycles":      {"cycles", costRange, "a scheduler warp's placing of one task"},
	"pagoda.smem_per_mtb":      {"bytes", "a buddy size: 512 times a power of two, or 0", "shared memory of one MasterKernel block, split by the buddy allocator"},
	"pagoda.spawn":             {"", "pipelined or direct", "how spawned tasks reach the TaskTable: pipelined behind the MasterKernel's launch, or each at its spawn"},
	"pagoda.spawn_cycles":      {"cycles", costRange, "the host's taskSpawn call for one task"},
	"pagoda.table_rows":        {"rows", "at least 1", "TaskTable rows per MasterKernel block"},
	"spawn.max_queue":          {"CTAs", "at least 1", "the child CTAs SPAWN's queuing system tracks"},
	"spawn.ncon":               {"", "window or busy", "what n_con, the concurrent child CTAs, averages over: every cycle of the window, or those a child ran in"},
	"spawn.no_twarp":           {"", "launch or inline", "what a site decides before any child warp has finished"},
	"spawn.overhead_a":         {"cycles per lane", "-1, or 0 to 2^40", "the controller's launch overhead per lane; -1 (both): the engine's own launch charge"},
	"spawn.overhead_b":         {"cycles", "-1, or 0 to 2^40", "the controller's fixed launch overhead; -1 (both): the engine's own launch charge"},
	"spawn.queue":              {"", "arrival or decision", "when a launched child's CTAs join n: at the KMU (arrival) or at the decision"},
	"spawn.window":             {"cycles", "1 to 2^40", "the window SPAWN measures t_cta, t_warp and n_con over"},
}

// DocOf returns what the key means; a declared parameter (Param) has its
// Doc and no unit or range.
func DocOf(key string) (KeyDoc, bool) {
	if d, ok := keyDocs[key]; ok {
		return d, true
	}
	if p := findParam(key); p != nil {
		return KeyDoc{Doc: p.Doc}, true
	}
	return KeyDoc{}, false
}
