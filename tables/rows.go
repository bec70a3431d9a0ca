package tables

// Run identifies the replay a row belongs to. Every table starts with these
// three columns so results of many runs concatenate into one frame, and a
// sweep's combinations stay apart in every table, not only in the summary.
type Run struct {
	Trace  string
	Policy string
	// Params is the swept key=value combination (--sweep), empty
	// otherwise.
	Params string
}

// Summary is one row per replay.
type Summary struct {
	GPU                 string
	MakespanCycles      int64
	MakespanUS          float64
	Speedup             float64
	Kernels             int64
	DeviceKernels       int64
	CTAs                int64
	LaunchSites         int64
	Launched            int64
	Inlined             int64
	Coalesced           int64
	AvgOccupancy        float64
	AvgKernelWaitCycles float64
	StallCycles         int64
	// BusyCycles is the span from the first CTA or copy starting to the
	// last one ending: what a profiler's timeline shows as the GPU's busy
	// span, without the host's lead-in or tail.
	BusyCycles int64
	// IssueUtilization and DRAMUtilization are the time-averaged fractions
	// of the GPU's issue slots and DRAM bandwidth that work with recorded
	// demand used (the contention model); nil when the model is off.
	IssueUtilization *float64
	DRAMUtilization  *float64
}

// Kernel is one row per kernel (or task).
type Kernel struct {
	KernelID        uint64
	Name            string
	Origin          string // "host" or "device"
	ParentKernelID  *uint64
	Stream          uint64
	CTAs            int64
	ThreadsPerCTA   int64
	LaunchCycle     int64
	ReadyCycle      int64
	StartCycle      int64
	EndCycle        int64
	WaitCycles      int64
	CoalescedGroups int64
}

// CTA is one row per CTA that ran.
type CTA struct {
	KernelID      uint64
	CTA           uint64
	SM            int32
	DispatchCycle int64
	StartCycle    int64
	EndCycle      int64
	StallCycles   int64
	GroupID       *uint64 // aggregated group, nil for a native CTA
	// Slowdown is the CTA's run time (start to end) over what it would
	// have taken alone on an idle GPU; nil when the contention model did
	// not apply (it is off, or the CTA recorded no demand).
	Slowdown *float64
	// Name is the name of the kernel the CTA ran in, for readers of the
	// rows that draw a CTA before its kernel's row arrives (the
	// timeline); the cta table does not write it, as its kernel_id joins
	// the kernels table.
	Name string
}

// Launch is one row per launching lane at a launch site.
type Launch struct {
	SiteID         uint64
	Cycle          int64
	ParentKernelID uint64
	ParentCTA      uint64
	Warp           int32
	Lane           int32
	ChildKernelID  uint64
	Workload       int64
	// Decision is the policy's verdict at the site: "launch", "inline"
	// or "coalesce".
	Decision string
	// TargetKernelID is the kernel the lane's group joined, when its
	// Outcome is "coalesced"; nil otherwise.
	TargetKernelID  *uint64
	EstChildCycles  *float64
	EstParentCycles *float64
	// SpawnN and SpawnNCon are SPAWN's n (child CTAs in its queuing
	// system) and n_con (their average concurrency) at the decision; nil
	// for other policies.
	SpawnN    *int64
	SpawnNCon *float64
	// Outcome is what the lane did, counted as the summary counts it:
	// "launched", "inlined" or "coalesced". It differs from Decision
	// where DTBL matches a group when its command arrives
	// (dtbl.fallback=dispatch): a site's "launch" may have coalesced
	// then, and a "coalesce" launched.
	Outcome string
}

// Occupancy is one row per SM per time window.
type Occupancy struct {
	Cycle        int64
	WindowCycles int64
	SM           int32
	ActiveWarps  float64
	ActiveCTAs   float64
}

// Page is one page event of the CRCS host model.
type Page struct {
	Page     uint64
	Buffer   uint64
	Event    string // "ready", "owner" or "d2h"
	KernelID *uint64
	Cycle    int64
}

// Stage is one host stage.
type Stage struct {
	Stage      string // "prelude", "h2d", "kernels", "d2h", "postlude"
	StartCycle int64
	EndCycle   int64
}

// Sync is one blocking host call: a device, stream or event sync, or a
// copy that blocks its thread (trace.Memcpy.Blocks).
type Sync struct {
	Seq    int64  // the call's place among the host's calls, from 1
	Call   string // "device", "stream", "event" or "memcpy"
	Thread int32  // the host thread it held
	Stream *int64 // a stream sync's or a copy's stream, an event sync's record's; nil for a device sync
	Event  *int64 // an event sync's event
	// CallCycle is when the thread reached the call, ReturnCycle when
	// it returned (the wait's end plus lat.host_sync), CapturedReturn
	// when it returned in the capture (rescaled, after the launch base):
	// the host's later calls on the thread move by ReturnCycle −
	// CapturedReturn.
	CallCycle      int64
	ReturnCycle    int64
	CapturedReturn int64
	// LastKernel is the host kernel whose completion ended the wait; nil
	// where the wait ended at the call or with a copy.
	LastKernel *uint64
}

// SyncSink is a Sink that also takes the syncs table's rows. The engine
// writes them to a Sink that implements it and skips them otherwise.
type SyncSink interface {
	Sink
	Sync(Sync)
}
