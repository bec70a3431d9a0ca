package accelsim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Options are the assumptions a conversion makes where the trace is silent:
// the traces record which instructions ran and what they touched, not how
// long anything took, so a CTA's cycles come from a first-order cost model:
//
//	warp cycles = instructions × CPI
//	            + Σ global and local memory instructions
//	                (GlobalLatency + (sectors − 1) × SectorCycles) ÷ MemParallelism
//	            + shared and constant memory instructions × SharedLatency ÷ MemParallelism
//	CTA cycles  = ⌈max(slowest warp, CTA's warp instructions ÷ IssueWidth)⌉
//
// with CTA barriers (BAR.SYNC: __syncthreads) holding the warps: the k-th
// barrier releases when the (k-1)-th did plus the longer of the slowest
// warp's time between the two and the instructions all warps issued
// between them ÷ IssueWidth; each warp then goes on from the release
// (ctaWork.slowest). Without barriers this is the formula above;
// where sectors is the number of distinct 32-byte sectors the instruction's
// active lanes touch (1 for a coalesced access, up to 32 for a scattered
// one). The defaults are order-of-magnitude figures for the Pascal to
// Ampere GPUs the tracer runs on; the model ranks CTAs and kernels by work,
// it does not predict a GPU's cycle counts.
//
// Start from DefaultOptions and change fields, or call Set with the keys
// listed on it.
type Options struct {
	// CPI is the cycles one warp instruction occupies its warp (a
	// dependent-issue latency). Key "cpi", default 4.
	CPI float64
	// IssueWidth is the warp instructions an SM issues per cycle (its warp
	// schedulers), which bounds a CTA with many warps. Key "issue_width",
	// default 4.
	IssueWidth float64
	// GlobalLatency is the cycles a global or local memory instruction
	// waits for its first sector. Key "global_latency", default 400.
	GlobalLatency float64
	// SectorCycles is the cycles each further 32-byte sector of an
	// uncoalesced instruction adds. Key "sector_cycles", default 2.
	SectorCycles float64
	// SharedLatency is the cycles a shared (or constant) memory
	// instruction waits. Key "shared_latency", default 30.
	SharedLatency float64
	// MemParallelism is how many memory instructions of a warp overlap
	// (independent loads in flight). Key "mem_parallelism", default 4.
	MemParallelism float64
	// ClockMHz is the clock the cycles are counted in (the header's
	// clock_mhz, and the captured GPU's clock for --gpu=captured). Key
	// "clock_mhz", default 1400, a typical boost clock of those GPUs.
	ClockMHz float64
	// PageBytes is the page size of pages records and of the grouping of
	// uncopied accesses into buffers; a power of two. Key "page_bytes",
	// default 4096, the page CRCS counts references at.
	PageBytes int64
	// HostGap is the host-gap assumption: the trace has no host timestamps,
	// so the n-th host operation (memcpy or launch, counting from 0, in
	// kernelslist order) is given t = n × HostGap cycles. The default 0
	// says the host issues everything as fast as it can and leaves the
	// host's own costs (lat.host_issue) to the replay. Key "host_gap".
	HostGap int64
	// Progress, when not nil, is called after each thread block and at the
	// start of each kernel file, so a command can show how far a long
	// conversion has got. It must be quick.
	Progress func(Progress)
}

// Progress says how far a conversion has got.
type Progress struct {
	Pass    int    // 1 (checking, gathering the footprint) or 2 (writing)
	Kernel  int    // 1-based index of the kernel file being read
	Kernels int    // kernel files in the kernelslist
	File    string // the kernel file being read
	Bytes   int64  // trace text read so far in this pass, all files
	CTAs    int64  // thread blocks read so far in this pass, all files
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		CPI:            4,
		IssueWidth:     4,
		GlobalLatency:  400,
		SectorCycles:   2,
		SharedLatency:  30,
		MemParallelism: 4,
		ClockMHz:       1400,
		PageBytes:      4096,
	}
}

// option is one settable key of Options.
type option struct {
	key string
	f64 func(*Options) *float64
	i64 func(*Options) *int64
}

// options lists the keys Set accepts, in the order String prints them.
var options = []option{
	{key: "cpi", f64: func(o *Options) *float64 { return &o.CPI }},
	{key: "issue_width", f64: func(o *Options) *float64 { return &o.IssueWidth }},
	{key: "global_latency", f64: func(o *Options) *float64 { return &o.GlobalLatency }},
	{key: "sector_cycles", f64: func(o *Options) *float64 { return &o.SectorCycles }},
	{key: "shared_latency", f64: func(o *Options) *float64 { return &o.SharedLatency }},
	{key: "mem_parallelism", f64: func(o *Options) *float64 { return &o.MemParallelism }},
	{key: "clock_mhz", f64: func(o *Options) *float64 { return &o.ClockMHz }},
	{key: "page_bytes", i64: func(o *Options) *int64 { return &o.PageBytes }},
	{key: "host_gap", i64: func(o *Options) *int64 { return &o.HostGap }},
}

// Set sets the option named key (cpi, issue_width, global_latency,
// sector_cycles, shared_latency, mem_parallelism, clock_mhz, page_bytes,
// host_gap) from its text form, so a command line can expose every option
// as key=value. An unknown key or a value out of range is an error that
// says what is allowed.
func (o *Options) Set(key, value string) error {
	for _, op := range options {
		if op.key != key {
			continue
		}
		try := *o
		if op.f64 != nil {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("accelsim option %s=%q: not a number", key, value)
			}
			*op.f64(&try) = v
		} else {
			v, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return fmt.Errorf("accelsim option %s=%q: not an integer", key, value)
			}
			*op.i64(&try) = v
		}
		if err := try.check(); err != nil {
			return err
		}
		*o = try
		return nil
	}
	keys := make([]string, len(options))
	for i, op := range options {
		keys[i] = op.key
	}
	sort.Strings(keys)
	return fmt.Errorf("unknown accelsim option %q; valid: %s", key, strings.Join(keys, ", "))
}

// String gives the options as space-separated key=value pairs; the
// converter records it in the trace header's meta so a trace says how its
// cycles were made.
func (o Options) String() string {
	parts := make([]string, len(options))
	for i, op := range options {
		if op.f64 != nil {
			parts[i] = op.key + "=" + strconv.FormatFloat(*op.f64(&o), 'g', -1, 64)
		} else {
			parts[i] = op.key + "=" + strconv.FormatInt(*op.i64(&o), 10)
		}
	}
	return strings.Join(parts, " ")
}

// check reports the first option out of range.
func (o *Options) check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(o.CPI) || o.CPI < 0:
		return fmt.Errorf("accelsim option cpi=%v: want a number ≥ 0", o.CPI)
	case !finite(o.IssueWidth) || o.IssueWidth <= 0:
		return fmt.Errorf("accelsim option issue_width=%v: want a number > 0", o.IssueWidth)
	case !finite(o.GlobalLatency) || o.GlobalLatency < 0:
		return fmt.Errorf("accelsim option global_latency=%v: want a number ≥ 0", o.GlobalLatency)
	case !finite(o.SectorCycles) || o.SectorCycles < 0:
		return fmt.Errorf("accelsim option sector_cycles=%v: want a number ≥ 0", o.SectorCycles)
	case !finite(o.SharedLatency) || o.SharedLatency < 0:
		return fmt.Errorf("accelsim option shared_latency=%v: want a number ≥ 0", o.SharedLatency)
	case !finite(o.MemParallelism) || o.MemParallelism <= 0:
		return fmt.Errorf("accelsim option mem_parallelism=%v: want a number > 0", o.MemParallelism)
	case !finite(o.ClockMHz) || o.ClockMHz <= 0:
		return fmt.Errorf("accelsim option clock_mhz=%v: want a number > 0", o.ClockMHz)
	case o.PageBytes < 64 || o.PageBytes > 1<<30 || o.PageBytes&(o.PageBytes-1) != 0:
		return fmt.Errorf("accelsim option page_bytes=%d: want a power of two from 64 to 2^30", o.PageBytes)
	case o.HostGap < 0:
		return fmt.Errorf("accelsim option host_gap=%d: want an integer ≥ 0", o.HostGap)
	}
	return nil
}
