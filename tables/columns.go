package tables

// A Type is a column's type, the same in every file format. Ids and
// counts are Int64, not unsigned: DuckDB and pandas handle unsigned 64-bit
// columns poorly (pandas turns them into float64 as soon as a null
// appears; several DuckDB functions reject UBIGINT). A uint64 id is
// stored as the int64 with the same bits, so ids of 2^63 and above read
// back negative; CAST(... AS UBIGINT) in DuckDB or .astype("uint64") in
// pandas recovers them.
type Type uint8

const (
	Int64   Type = iota + 1 // from an int64 or uint64 field
	Int32                   // from an int32 field
	Float64                 // from a float64 field
	String                  // from a string field
)

func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Int32:
		return "int32"
	case Float64:
		return "float64"
	case String:
		return "string"
	}
	return "invalid"
}

// A Column is one column of a table as its files hold it.
type Column struct {
	Name string
	Type Type
	// Nullable columns are null where the row's field, a pointer, is
	// nil.
	Nullable bool
	// Field is the name of the row's field the column reads, or of a
	// method of the row's type that takes nothing and returns the
	// column's value (a column derived from others: syncs.wait_cycles);
	// a nullable column reads a field.
	Field string
	// Doc is the column's meaning in a line; docs/tables.md says more.
	Doc string
}

// A Table is one output table: its name (the file's, without the
// extension) and the columns after the run columns every table starts
// with, read from fields of its row type.
type Table struct {
	Name    string
	Row     any // the row type's zero value: Summary{}, Kernel{}, ...
	Columns []Column
}

func col(name string, t Type, field, doc string) Column {
	return Column{Name: name, Type: t, Field: field, Doc: doc}
}

func nullable(name string, t Type, field, doc string) Column {
	return Column{Name: name, Type: t, Nullable: true, Field: field, Doc: doc}
}

// runColumns are the columns every table starts with, read from the Run
// its rows belong to.
var runColumns = []Column{
	col("trace", String, "Trace", "the trace's file name without .trace.zst or .jsonl"),
	col("policy", String, "Policy", "the policy replayed"),
	col("params", String, "Params", "the swept key=value,... combination; empty without --sweep"),
}

// all is every table in docs/design.md §6 order, its columns in file
// order.
var all = []Table{
	{Name: "summary", Row: Summary{}, Columns: []Column{
		col("gpu", String, "GPU", "the preset (or GPU file) name"),
		col("makespan_cycles", Int64, "MakespanCycles", "when the last kernel completed"),
		col("makespan_us", Float64, "MakespanUS", "the makespan in microseconds"),
		col("speedup", Float64, "Speedup", "makespan of the run's first policy / this makespan"),
		col("kernels", Int64, "Kernels", "kernels that ran"),
		col("device_kernels", Int64, "DeviceKernels", "kernels launched from the device"),
		col("ctas", Int64, "CTAs", "CTAs that ran"),
		col("launch_sites", Int64, "LaunchSites", "launching lanes reached"),
		col("launched", Int64, "Launched", "lanes whose child was launched"),
		col("inlined", Int64, "Inlined", "lanes whose child was inlined"),
		col("coalesced", Int64, "Coalesced", "lanes whose child was coalesced"),
		col("avg_occupancy", Float64, "AvgOccupancy", "resident warps / capacity, time-averaged"),
		col("avg_kernel_wait_cycles", Float64, "AvgKernelWaitCycles", "mean of kernels.wait_cycles"),
		col("stall_cycles", Int64, "StallCycles", "the sum of ctas.stall_cycles"),
		col("busy_cycles", Int64, "BusyCycles", "first CTA or copy start to last CTA or copy end"),
		nullable("issue_utilization", Float64, "IssueUtilization", "share of the issue slots used; null when model.contention=off"),
		nullable("dram_utilization", Float64, "DRAMUtilization", "share of the DRAM bandwidth used; null when model.contention=off"),
	}},
	{Name: "kernels", Row: Kernel{}, Columns: []Column{
		col("kernel_id", Int64, "KernelID", "the kernel"),
		col("name", String, "Name", "the kernel's name"),
		col("origin", String, "Origin", "host or device"),
		nullable("parent_kernel_id", Int64, "ParentKernelID", "the launching kernel; null for a host kernel"),
		col("stream", Int64, "Stream", "a host kernel's trace stream, or a device kernel's private stream"),
		col("ctas", Int64, "CTAs", "CTAs in the grid"),
		col("threads_per_cta", Int64, "ThreadsPerCTA", "threads in each CTA"),
		col("launch_cycle", Int64, "LaunchCycle", "host issue, or the launch site's cycle"),
		col("ready_cycle", Int64, "ReadyCycle", "entered the Kernel Distributor"),
		col("start_cycle", Int64, "StartCycle", "first CTA started"),
		col("end_cycle", Int64, "EndCycle", "completed, children included"),
		col("wait_cycles", Int64, "WaitCycles", "start - launch"),
		col("coalesced_groups", Int64, "CoalescedGroups", "DTBL groups coalesced into the kernel"),
	}},
	{Name: "ctas", Row: CTA{}, Columns: []Column{
		col("kernel_id", Int64, "KernelID", "the CTA's kernel"),
		col("cta", Int64, "CTA", "the CTA's index in its grid"),
		col("sm", Int32, "SM", "the SM it ran on"),
		col("dispatch_cycle", Int64, "DispatchCycle", "placed on the SM"),
		col("start_cycle", Int64, "StartCycle", "began executing"),
		col("end_cycle", Int64, "EndCycle", "finished"),
		col("stall_cycles", Int64, "StallCycles", "cycles a policy held it while it held its SM"),
		nullable("group_id", Int64, "GroupID", "aggregated group; null for a native CTA"),
		nullable("slowdown", Float64, "Slowdown", "run time / time alone on an idle GPU; null without the contention model"),
	}},
	{Name: "launches", Row: Launch{}, Columns: []Column{
		col("site_id", Int64, "SiteID", "one warp-level launch site"),
		col("cycle", Int64, "Cycle", "when the warp reached the site"),
		col("parent_kernel_id", Int64, "ParentKernelID", "the launching CTA's kernel"),
		col("parent_cta", Int64, "ParentCTA", "the launching CTA"),
		col("warp", Int32, "Warp", "the launching warp"),
		col("lane", Int32, "Lane", "the launching lane"),
		col("child_kernel_id", Int64, "ChildKernelID", "the kernel the trace launches there"),
		col("workload", Int64, "Workload", "the lane's recorded workload"),
		col("decision", String, "Decision", "the policy's verdict: launch, inline or coalesce"),
		nullable("target_kernel_id", Int64, "TargetKernelID", "the kernel the lane's group joined, or the aggregated kernel its child runs in"),
		nullable("est_child_cycles", Float64, "EstChildCycles", "a controller's estimate of the child's cycles"),
		nullable("est_parent_cycles", Float64, "EstParentCycles", "a controller's estimate of the parent's cycles"),
		nullable("spawn_n", Int64, "SpawnN", "SPAWN's n: the child CTAs in its queuing system"),
		nullable("spawn_ncon", Float64, "SpawnNCon", "SPAWN's n_con: their average concurrency"),
		col("outcome", String, "Outcome", "what the lane did: launched, inlined, coalesced or aggregated"),
	}},
	{Name: "occupancy", Row: Occupancy{}, Columns: []Column{
		col("cycle", Int64, "Cycle", "the window's start"),
		col("window_cycles", Int64, "WindowCycles", "the width of the window, or of the run of unchanged windows"),
		col("sm", Int32, "SM", "the SM"),
		col("active_warps", Float64, "ActiveWarps", "resident warps, time-averaged"),
		col("active_ctas", Float64, "ActiveCTAs", "resident CTAs, time-averaged"),
	}},
	{Name: "pages", Row: Page{}, Columns: []Column{
		col("page", Int64, "Page", "the page's number within its buffer"),
		col("buffer", Int64, "Buffer", "the buffer"),
		col("event", String, "Event", "ready, owner or d2h"),
		nullable("kernel_id", Int64, "KernelID", "the page's owner, or the kernel that released it"),
		col("cycle", Int64, "Cycle", "when the event happened"),
	}},
	{Name: "stages", Row: Stage{}, Columns: []Column{
		col("stage", String, "Stage", "prelude, h2d, kernels, d2h or postlude"),
		col("start_cycle", Int64, "StartCycle", "the stage's start"),
		col("end_cycle", Int64, "EndCycle", "the stage's end"),
	}},
	{Name: "syncs", Row: Sync{}, Columns: []Column{
		col("seq", Int64, "Seq", "the call's place among the host's calls, from 1"),
		col("call", String, "Call", "device, stream, event or memcpy"),
		col("thread", Int32, "Thread", "the host thread the call held"),
		nullable("stream", Int64, "Stream", "the stream waited for (a copy's own); null for a device sync"),
		nullable("event", Int64, "Event", "an event sync's event; null otherwise"),
		col("call_cycle", Int64, "CallCycle", "the thread reached the call"),
		col("return_cycle", Int64, "ReturnCycle", "the call returned: the wait's end plus lat.host_sync"),
		col("captured_return_cycle", Int64, "CapturedReturn", "the call returned in the capture, on the replay's clock"),
		nullable("last_kernel_id", Int64, "LastKernel", "the host kernel whose end released the wait; null if none did"),
		col("wait_cycles", Int64, "WaitCycles", "return_cycle - call_cycle"),
	}},
}

// All returns every table in docs/design.md §6 order. The tables and
// their column lists are shared and must not be modified.
func All() []Table { return all }

// RunColumns returns the columns every table starts with, read from the
// Run its rows belong to (trace, policy, params). The list is shared and
// must not be modified.
func RunColumns() []Column { return runColumns }
