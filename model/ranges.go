package model

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"
)

// keyRange is the values a numeric key may take, from what the key
// means, with the reason in a few words: the bounds `replay --set` and
// GPU files are held to and model's doc lists (TestRangesDocumented keeps
// the two in step). A key of a kind the table lacks is a mistake caught
// by TestEveryNumericKeyHasARange.
type keyRange struct {
	lo, hi float64
	why    string
}

// Bounds that several ranges share: MaxCost for every cost and latency in
// cycles (so the engine's sums stay inside int64), maxThreads for the
// hardware threads of one SM (4096 CTAs of 1024 threads, CUDA's largest
// block), maxRegs for its registers (255 a thread, the most ptxas gives).
const (
	maxThreads = 1 << 12 * 1024
	maxRegs    = 255 * maxThreads
)

// ranges holds the range of every numeric key of Config.
var ranges = map[string]keyRange{
	"gpu.sms":                 {1, MaxSMs, "SMs; the replay keeps state per SM"},
	"gpu.clock_mhz":           {1, 1e6, "MHz; no GPU clocks below 1 MHz or above 1 THz (1e-308 made makespan_us +Inf)"},
	"gpu.issue_width":         {1.0 / 32, 1024, "warp instructions an SM issues a cycle; below one every 32 cycles no GPU"},
	"gpu.dram_gbps":           {MinMBps / 1000, 1e7, "GB/s; 1 kB/s at least, so a byte's cycles fit int64"},
	"gpu.max_ctas_per_sm":     {1, 1 << 12, "resident CTAs an SM holds"},
	"gpu.max_threads_per_sm":  {WarpSize, maxThreads, "a multiple of 32, at most 4096 CTAs of 1024 threads"},
	"gpu.regs_per_sm":         {1, maxRegs, "at most 255 registers for each thread an SM can hold"},
	"gpu.smem_per_sm":         {0, MaxCost, "bytes; far above any SM, so sums over CTAs fit int64"},
	"gpu.cta_issue_interval":  {0, MaxCost, "cycles; a cost like any other"},
	"gpu.max_kernels":         {1, 1 << 16, "kernels resident at once (Kernel Distributor entries)"},
	"lat.host_issue":          {0, MaxCost, "cycles"},
	"lat.host_sync":           {0, MaxCost, "cycles"},
	"lat.host_launch":         {0, MaxCost, "cycles"},
	"lat.kernel_dispatch":     {0, MaxCost, "cycles"},
	"lat.host_threads":        {1, MaxHostThreads, "host threads; a clock is kept per thread"},
	"lat.stream_countdown":    {0, MaxCost, "services; 0 turns the stream manager off"},
	"lat.stream_passes":       {0, 1 << 20, "passes per 1000 cycles; 0 only with the countdown off"},
	"cdp.stream_create":       {0, MaxCost, "cycles"},
	"cdp.param_b":             {0, MaxCost, "cycles"},
	"cdp.param_a":             {0, MaxCost, "cycles a lane"},
	"cdp.launch_b":            {0, MaxCost, "cycles"},
	"cdp.launch_a":            {0, MaxCost, "cycles a lane"},
	"cdp.clock_mhz":           {0, 1e6, "MHz, 0 for gpu.clock_mhz, else at least 1"},
	"cdp.launch_servers":      {0, MaxLaunchServers, "calls an SM serves at once, 0 unlimited"},
	"cdp.pending_limit":       {0, MaxPendingLimit, "launches pending at once, 0 unlimited"},
	"launch.threshold":        {0, MaxCost, "a child's threads"},
	"spawn.window":            {1, MaxCost, "cycles"},
	"spawn.overhead_a":        {-1, MaxCost, "cycles a lane, -1 for the engine's charge"},
	"spawn.overhead_b":        {-1, MaxCost, "cycles, -1 for the engine's charge"},
	"spawn.max_queue":         {1, MaxCost, "CTAs the CCQS holds; a bound, nothing is allocated"},
	"dtbl.agt_entries":        {1, 1 << 62, "a power of two; the table holds only the entries an SM's hardware threads can index"},
	"dtbl.agt_spill":          {0, MaxCost, "cycles"},
	"io.ssd_mbps":             {MinMBps, 1e9, "MB/s; 1 kB/s at least"},
	"io.copy_latency":         {0, MaxCost, "cycles"},
	"io.pcie_gbps":            {MinMBps / 1000, 1e7, "GB/s; 1 kB/s at least"},
	"io.page_bytes":           {1, 1 << 30, "bytes; no MMU maps a page over 1 GiB"},
	"crcs.profile_cycles":     {0, MaxCost, "cycles"},
	"crcs.l1_flush":           {0, MaxCost, "cycles"},
	"gemtc.batch":             {1, 1 << 30, "tasks a batch"},
	"gemtc.threads":           {1, 1024, "threads of one SuperKernel block, a CUDA block"},
	"gemtc.dequeue_cycles":    {0, MaxCost, "cycles"},
	"gemtc.result_cycles":     {0, MaxCost, "cycles"},
	"pagoda.mtbs_per_sm":      {1, 1 << 12, "MasterKernel blocks an SM holds, CTAs"},
	"pagoda.table_rows":       {1, 1 << 24, "task table rows a column; more change nothing a trace shows"},
	"pagoda.spawn_cycles":     {0, MaxCost, "cycles"},
	"pagoda.sched_cycles":     {0, MaxCost, "cycles"},
	"pagoda.smem_per_mtb":     {0, MaxCost, "bytes, 0 or 512 times a power of two"},
	"model.tie_seed":          {0, math.MaxInt64, "any seed"},
	"output.occupancy_window": {1, MaxCost, "cycles a row"},
}

// Range returns the documented range of a numeric key, as text ("1 to
// 65536: SMs; ..."); ok is false for a key that is not numeric.
func Range(key string) (text string, ok bool) {
	r, ok := ranges[key]
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s to %s: %s", formatBound(r.lo), formatBound(r.hi), r.why), true
}

// formatBound writes a bound as the doc does: a power of two as 2^n.
func formatBound(f float64) string {
	if f >= 1<<20 && f == math.Trunc(f) && f <= 1<<62 {
		if n := int64(f); n&(n-1) == 0 {
			return fmt.Sprintf("2^%d", 63-bits.LeadingZeros64(uint64(n)))
		}
	}
	if f == math.MaxInt64 {
		return "2^63-1"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// checkRanges holds every numeric key to its range. It runs after
// Validate's own rules, whose messages say more where they apply.
func (c Config) checkRanges(v *validator) {
	cv := reflect.ValueOf(c)
	for i := range keyTable {
		k := &keyTable[i]
		r, ok := ranges[k.name]
		if !ok {
			continue
		}
		f := k.value(cv)
		switch k.kind {
		case reflect.Float64:
			if x := f.Float(); !(x >= r.lo && x <= r.hi) {
				v.fail(k.name, fmt.Sprintf("is %g; must be between %s and %s (%s)", x, formatBound(r.lo), formatBound(r.hi), r.why))
			}
		case reflect.Int, reflect.Int64:
			if x := f.Int(); float64(x) < r.lo || float64(x) > r.hi {
				v.fail(k.name, fmt.Sprintf("is %d; must be between %s and %s (%s)", x, formatBound(r.lo), formatBound(r.hi), r.why))
			}
		}
	}
}
