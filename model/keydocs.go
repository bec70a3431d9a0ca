package model

import "strings"

// KeyDoc says what a key of Config means, for `replay params`: its unit,
// the values Validate accepts, and one line of meaning. config.go's
// comments say why a key exists and where it comes from; this says what
// a user setting it needs, in the table TestKeyDocs keeps complete.
type KeyDoc struct {
	Unit  string // "cycles", "MHz", "" for a choice or a name
	Range string // what Validate accepts: for a numeric key, from its range (ranges.go), never written here
	Doc   string // one line
}

var keyDocs = map[string]KeyDoc{
	"cdp.clock_mhz":            {"MHz", "", "the clock whose cycles cdp.stream_create, param_* and launch_* count (DTBL measured them on the K20c at 706); 0: cycles of gpu.clock_mhz"},
	"cdp.launch_a":             {"cycles of cdp.clock_mhz per lane", "", "cudaLaunchDevice's cost per launching lane of a warp (DTBL Table 3's A)"},
	"cdp.launch_b":             {"cycles of cdp.clock_mhz", "", "cudaLaunchDevice's per-warp initialisation (DTBL Table 3's b)"},
	"cdp.launch_servers":       {"calls per SM", "", "cudaLaunchDevice calls an SM's path to the KMU serves at once; 0: unlimited"},
	"cdp.param_a":              {"cycles of cdp.clock_mhz per lane", "", "cudaGetParameterBuffer's cost per launching lane"},
	"cdp.param_b":              {"cycles of cdp.clock_mhz", "", "cudaGetParameterBuffer's per-warp cost"},
	"cdp.pending_limit":        {"launches", "", "device launches pending at once (cudaLimitDevRuntimePendingLaunchCount); a warp past it waits; 0: unlimited"},
	"cdp.streams":              {"", "traced, child, cta, tail or fire_and_forget", "the stream device launches go into: as the trace says, one created per child, the CTA's default stream, or CUDA 12's tail-launch or fire-and-forget stream (docs/model.md, \"Device streams\")"},
	"cdp.stream_create":        {"cycles of cdp.clock_mhz", "", "cudaStreamCreateWithFlags, once for a launching warp that creates its child's stream"},
	"crcs.gate":                {"", "access or start", "when a CTA's pages are checked: as it first touches each (access) or all before it starts"},
	"crcs.irregular":           {"", "ready or all", "whether an irregular kernel runs during the prelude gated per page (ready) or waits for every input page (all)"},
	"crcs.l1_flush":            {"cycles", "", "an SM's L1 invalidation when it turns to another kernel's CTAs"},
	"crcs.pages":               {"", "ranges or exact", "where page references come from: the trace's ranges, or exact page lists"},
	"crcs.profile_cycles":      {"cycles", "", "one pre-profiler CTA's SetRange call for one array, which the kernel's CTAs wait for"},
	"crcs.share":               {"", "ready or available", "which pages PPCS's page share counts: every page on the GPU (ready) or only those available"},
	"dtbl.agt_entries":         {"entries", "", "the Aggregated Group Table's on-chip entries"},
	"dtbl.agt_spill":           {"cycles", "", "loading a spilled group's metadata from global memory"},
	"dtbl.fallback":            {"", "dispatch or instant", "when a group is matched to a running kernel: when its command arrives (dispatch) or at the site (instant)"},
	"dtbl.spill_loads":         {"", "cta or first", "whether every CTA of a spilled group waits for its metadata load, or the first only"},
	"dtbl.match":               {"", "shape or function", "what an eligible kernel shares with a group: function and block shape (shape) or function alone (function, the DTBL authors' simulator)"},
	"dtbl.launch_cost":         {"", "front or cdp", "what a DTBL launch stalls its warp for: parameter buffers or KDE search (front) or both device-runtime calls as CDP (cdp, the DTBL authors' simulator)"},
	"gemtc.batch":              {"tasks", "", "tasks the host pushes before it polls for their results"},
	"gemtc.dequeue_cycles":     {"cycles", "", "one worker's hold on the task queue's lock"},
	"gemtc.result_cycles":      {"cycles", "", "one worker's hold on the result queue's lock"},
	"gemtc.smem_slowdown":      {"factor", `"name:factor" pairs joined by "/", or none`, "how much longer a task using shared memory runs under GeMTC, per kernel name"},
	"gemtc.threads":            {"threads", "", "threads of one SuperKernel block"},
	"gemtc.worker":             {"", "warp or block", "what takes tasks: each warp of a SuperKernel block, or the whole block"},
	"gpu.clock_mhz":            {"MHz", "", "the replay GPU's clock: a trace's cycles are converted to it"},
	"gpu.concurrent_kernel_sm": {"", "on or off", "whether CTAs of different kernels may share an SM"},
	"gpu.cta_issue_interval":   {"cycles", "", "the fewest cycles between two CTAs issued to one SM; 0: any number a cycle"},
	"gpu.dram_gbps":            {"GB/s (decimal)", "", "DRAM bandwidth shared by every SM (the contention model)"},
	"gpu.issue_width":          {"warp instructions per cycle", "", "what an SM issues per cycle, shared among its resident warps (the contention model)"},
	"gpu.max_ctas_per_sm":      {"CTAs", "", "CTAs resident on an SM at once"},
	"gpu.max_kernels":          {"kernels", "", "kernels running at once (the Kernel Distributor's entries; HyperQ's streams)"},
	"gpu.max_threads_per_sm":   {"threads", "", "threads resident on an SM at once; occupancy is measured against it"},
	"gpu.name":                 {"", "not empty", "the preset's name, as the summary's gpu column writes it"},
	"gpu.regs_per_sm":          {"registers", "", "an SM's register file"},
	"gpu.smem_per_sm":          {"bytes", "", "an SM's shared memory"},
	"gpu.sms":                  {"SMs", "", "streaming multiprocessors"},
	"io.memcpy":                {"", "async, sync or legacy", "how a trace's memcpy records are called: cudaMemcpyAsync, cudaMemcpy, or cudaMemcpy on the legacy default stream"},
	"io.model":                 {"", "stages or none", "whether the host reads inputs from storage and copies them over PCIe (stages) or only kernels run (none)"},
	"io.page_bytes":            {"bytes", "", "the page CRCS counts references in"},
	"io.copy_latency":          {"cycles", "", "an explicit copy's fixed cost on its copy engine, before its bytes"},
	"io.pcie_gbps":             {"GB/s (decimal)", "", "PCIe bandwidth of host-device copies"},
	"io.ssd_mbps":              {"MB/s (decimal)", "", "storage bandwidth of the host's reads and writes"},
	"lat.host_issue":           {"cycles", "", "one host API call (a launch, a copy) on its host thread"},
	"lat.host_sync":            {"cycles", "", "a blocking call's own cost on its host thread after its wait (a sync, a copy that blocks)"},
	"lat.host_launch":          {"cycles", "", "a host launch's trip from the call to the GPU's Kernel Management Unit"},
	"lat.host_threads":         {"threads", "", "host threads making API calls at once"},
	"lat.kernel_dispatch":      {"cycles", "", "a kernel's move from the KMU to the Kernel Distributor before its first CTA"},
	"lat.stream_countdown":     {"services", "", "GPGPU-Sim's stream manager: the services a device kernel at its stream's head waits for before its dispatch; 0: off (a real GPU)"},
	"lat.stream_passes":        {"passes per 1000 cycles", "", "GPGPU-Sim's stream manager: how often it serves one waiting stream head, round-robin"},
	"launch.threshold":         {"threads of work", "", "the threshold policy launches a site whose workload exceeds it, else inlines it"},
	"model.contention":         {"", "on or off", "whether co-resident warps share issue width and DRAM bandwidth"},
	"model.tie_seed":           {"", "", "the order of one cycle's events: 0 as scheduled, else shuffled by this seed"},
	"output.occupancy_window":  {"cycles", "", "the width of one occupancy-table row"},
	"pagoda.mtbs_per_sm":       {"blocks", "", "MasterKernel thread blocks per SM"},
	"pagoda.sched_cycles":      {"cycles", "", "a scheduler warp's placing of one task"},
	"pagoda.smem_per_mtb":      {"bytes", "", "shared memory of one MasterKernel block, split by the buddy allocator"},
	"pagoda.spawn":             {"", "pipelined or direct", "how spawned tasks reach the TaskTable: pipelined behind the MasterKernel's launch, or each at its spawn"},
	"pagoda.spawn_cycles":      {"cycles", "", "the host's taskSpawn call for one task"},
	"pagoda.table_rows":        {"rows", "", "TaskTable rows per MasterKernel block"},
	"spawn.max_queue":          {"CTAs", "", "the child CTAs SPAWN's queuing system tracks"},
	"spawn.ncon":               {"", "window or busy", "what n_con, the concurrent child CTAs, averages over: every cycle of the window, or those a child ran in"},
	"spawn.no_twarp":           {"", "launch or inline", "what a site decides before any child warp has finished"},
	"spawn.overhead_a":         {"cycles per lane", "", "the controller's launch overhead per lane; -1 (both): the engine's own launch charge"},
	"spawn.overhead_b":         {"cycles", "", "the controller's fixed launch overhead; -1 (both): the engine's own launch charge"},
	"spawn.queue":              {"", "arrival or decision", "when a launched child's CTAs join n: at the KMU (arrival) or at the decision"},
	"spawn.window":             {"cycles", "", "the window SPAWN measures t_cta, t_warp and n_con over"},
}

// DocOf returns what the key means; a declared parameter (Param) has its
// Doc and no unit or range.
//
// A numeric key's range is its entry in ranges, the one Validate holds it
// to (checkRanges), with the rule Validate adds where it has one; a
// parameter's is its Choices. Written out beside them, the printed ranges
// had drifted from the checked ones (issue 75: gpu.issue_width "above 0"
// where 1/32 is the least, gemtc.threads "at least 1" where 1024 is the
// most; klap.granularity none).
func DocOf(key string) (KeyDoc, bool) {
	if d, ok := keyDocs[key]; ok {
		if r, ok := ranges[key]; ok {
			d.Range = formatBound(r.lo) + " to " + formatBound(r.hi)
			if rule := rangeRules[key]; rule != "" {
				d.Range += ", " + rule
			}
		}
		return d, true
	}
	if p := findParam(key); p != nil {
		return KeyDoc{Doc: p.Doc, Range: choiceList(p.Choices)}, true
	}
	return KeyDoc{}, false
}

// rangeRules are the rules Validate holds a numeric key to besides its
// range.
var rangeRules = map[string]string{
	"gpu.max_threads_per_sm": "a multiple of 32",
	"dtbl.agt_entries":       "a power of two",
	"pagoda.smem_per_mtb":    "0 or 512 times a power of two",
	"cdp.clock_mhz":          "0 (gpu.clock_mhz) or at least 1",
	"spawn.overhead_a":       "-1 (the engine's charge) or at least 0, with spawn.overhead_b",
	"spawn.overhead_b":       "-1 (the engine's charge) or at least 0, with spawn.overhead_a",
}

// choiceList is "a, b or c"; "" for none.
func choiceList(choices []string) string {
	switch len(choices) {
	case 0:
		return ""
	case 1:
		return choices[0]
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
