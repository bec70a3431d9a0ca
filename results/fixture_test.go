package results

import (
	"math"

	"github.com/gpureplay/gpureplay/tables"
)

func u64(v uint64) *uint64    { return &v }
func f64p(v float64) *float64 { return &v }
func i64p(v int64) *int64     { return &v }

// writeFixture writes rows of every table for two runs, with nil and set
// pointer fields, extreme ids and non-integral floats.
func writeFixture(w *Writer) {
	w.Begin(tables.Run{Trace: "bfs.trace.zst", Policy: "cdp"})
	w.Kernel(tables.Kernel{KernelID: 1, Name: "bfs_expand", Origin: "host", Stream: 0, CTAs: 2,
		ThreadsPerCTA: 256, LaunchCycle: 10, ReadyCycle: 20, StartCycle: 303, EndCycle: 900,
		WaitCycles: 283, CoalescedGroups: 0})
	w.Kernel(tables.Kernel{KernelID: math.MaxUint64, Name: "bfs_child, \"quoted\"", Origin: "device",
		ParentKernelID: u64(1), Stream: 7, CTAs: 1, ThreadsPerCTA: 32, LaunchCycle: 500,
		ReadyCycle: 510, StartCycle: 793, EndCycle: 850, WaitCycles: 283, CoalescedGroups: 3})
	w.CTA(tables.CTA{KernelID: 1, CTA: 0, SM: 0, DispatchCycle: 303, StartCycle: 303, EndCycle: 800})
	w.CTA(tables.CTA{KernelID: 1, CTA: 1, SM: 12, DispatchCycle: 304, StartCycle: 310, EndCycle: 900,
		StallCycles: 6, GroupID: u64(42), Slowdown: f64p(1.75)})
	w.Launch(tables.Launch{SiteID: 3, Cycle: 480, ParentKernelID: 1, ParentCTA: 1, Warp: 2, Lane: 31,
		ChildKernelID: math.MaxUint64, Workload: 17, Decision: "launch", Outcome: "launched"})
	w.Launch(tables.Launch{SiteID: 3, Cycle: 481, ParentKernelID: 1, ParentCTA: 1, Warp: 2, Lane: 30,
		ChildKernelID: 9, Workload: 2, Decision: "coalesce", TargetKernelID: u64(1),
		EstChildCycles: f64p(1234.5), EstParentCycles: f64p(0.1), SpawnN: i64p(-7), SpawnNCon: f64p(2.5),
		Outcome: "coalesced"})
	w.Occupancy(tables.Occupancy{Cycle: 0, WindowCycles: 1000, SM: 12, ActiveWarps: 15.75, ActiveCTAs: 1.5})
	w.Page(tables.Page{Page: 5, Buffer: 2, Event: "ready", Cycle: 100})
	w.Page(tables.Page{Page: 5, Buffer: 2, Event: "owner", KernelID: u64(1), Cycle: 303})
	w.Stage(tables.Stage{Stage: "prelude", StartCycle: 0, EndCycle: 100})
	w.Summary(tables.Summary{GPU: "k20c", MakespanCycles: 900, MakespanUS: 1.2747875354107647, Speedup: 1,
		Kernels: 2, DeviceKernels: 1, CTAs: 3, LaunchSites: 1, Launched: 1, Coalesced: 1,
		AvgOccupancy: 0.25, AvgKernelWaitCycles: 283, StallCycles: 6, BusyCycles: 800,
		IssueUtilization: f64p(0.5), DRAMUtilization: f64p(0.125)})

	w.Begin(tables.Run{Trace: "bfs.trace.zst", Policy: "dtbl", Params: "dtbl.agt_entries=512"})
	w.CTA(tables.CTA{KernelID: 1, CTA: 0, SM: -1, DispatchCycle: 1, StartCycle: 2, EndCycle: 3,
		StallCycles: math.MaxInt64, GroupID: u64(0)})
	w.Stage(tables.Stage{Stage: "kernels", StartCycle: 100, EndCycle: 700})
	w.Summary(tables.Summary{GPU: "k20c", MakespanCycles: 700,
		MakespanUS: 0.99150141643059486, Speedup: 1.2857142857142858, Kernels: 1, CTAs: 2,
		LaunchSites: 1, Coalesced: 1, AvgOccupancy: 0.5, StallCycles: 0})
}

// fixtureRows is what writeFixture must read back as, per table, in the
// column order of docs/design.md §6.
var fixtureRows = map[string][][]any{
	"summary": {
		{"bfs.trace.zst", "cdp", "", "k20c", int64(900), 1.2747875354107647, 1.0,
			int64(2), int64(1), int64(3), int64(1), int64(1), int64(0), int64(1), 0.25, 283.0, int64(6), int64(800), 0.5, 0.125},
		{"bfs.trace.zst", "dtbl", "dtbl.agt_entries=512", "k20c", int64(700), 0.99150141643059486, 1.2857142857142858,
			int64(1), int64(0), int64(2), int64(1), int64(0), int64(0), int64(1), 0.5, 0.0, int64(0), int64(0), nil, nil},
	},
	"kernels": {
		{"bfs.trace.zst", "cdp", "", int64(1), "bfs_expand", "host", nil, int64(0), int64(2), int64(256),
			int64(10), int64(20), int64(303), int64(900), int64(283), int64(0)},
		{"bfs.trace.zst", "cdp", "", int64(-1), "bfs_child, \"quoted\"", "device", int64(1), int64(7), int64(1), int64(32),
			int64(500), int64(510), int64(793), int64(850), int64(283), int64(3)},
	},
	"ctas": {
		{"bfs.trace.zst", "cdp", "", int64(1), int64(0), int32(0), int64(303), int64(303), int64(800), int64(0), nil, nil},
		{"bfs.trace.zst", "cdp", "", int64(1), int64(1), int32(12), int64(304), int64(310), int64(900), int64(6), int64(42), 1.75},
		{"bfs.trace.zst", "dtbl", "dtbl.agt_entries=512", int64(1), int64(0), int32(-1), int64(1), int64(2), int64(3), int64(math.MaxInt64), int64(0), nil},
	},
	"launches": {
		{"bfs.trace.zst", "cdp", "", int64(3), int64(480), int64(1), int64(1), int32(2), int32(31),
			int64(-1), int64(17), "launch", nil, nil, nil, nil, nil, "launched"},
		{"bfs.trace.zst", "cdp", "", int64(3), int64(481), int64(1), int64(1), int32(2), int32(30),
			int64(9), int64(2), "coalesce", int64(1), 1234.5, 0.1, int64(-7), 2.5, "coalesced"},
	},
	"occupancy": {
		{"bfs.trace.zst", "cdp", "", int64(0), int64(1000), int32(12), 15.75, 1.5},
	},
	"pages": {
		{"bfs.trace.zst", "cdp", "", int64(5), int64(2), "ready", nil, int64(100)},
		{"bfs.trace.zst", "cdp", "", int64(5), int64(2), "owner", int64(1), int64(303)},
	},
	"stages": {
		{"bfs.trace.zst", "cdp", "", "prelude", int64(0), int64(100)},
		{"bfs.trace.zst", "dtbl", "dtbl.agt_entries=512", "kernels", int64(100), int64(700)},
	},
}
