package results

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/gpureplay/gpureplay/tables"
)

func u64(v uint64) *uint64    { return &v }
func f64p(v float64) *float64 { return &v }
func i64p(v int64) *int64     { return &v }

// fixture is rows of every table for two runs, with nil and set pointer
// fields, extreme ids and non-integral floats.
var fixture = []struct {
	run  tables.Run
	rows []any
}{
	{tables.Run{Trace: "bfs.trace.zst", Policy: "cdp"}, []any{
		tables.Kernel{KernelID: 1, Name: "bfs_expand", Origin: "host", Stream: 0, CTAs: 2,
			ThreadsPerCTA: 256, LaunchCycle: 10, ReadyCycle: 20, StartCycle: 303, EndCycle: 900,
			WaitCycles: 283, CoalescedGroups: 0},
		tables.Kernel{KernelID: math.MaxUint64, Name: "bfs_child, \"quoted\"", Origin: "device",
			ParentKernelID: u64(1), Stream: 7, CTAs: 1, ThreadsPerCTA: 32, LaunchCycle: 500,
			ReadyCycle: 510, StartCycle: 793, EndCycle: 850, WaitCycles: 283, CoalescedGroups: 3},
		tables.CTA{KernelID: 1, CTA: 0, SM: 0, DispatchCycle: 303, StartCycle: 303, EndCycle: 800},
		tables.CTA{KernelID: 1, CTA: 1, SM: 12, DispatchCycle: 304, StartCycle: 310, EndCycle: 900,
			StallCycles: 6, GroupID: u64(42), Slowdown: f64p(1.75)},
		tables.Launch{SiteID: 3, Cycle: 480, ParentKernelID: 1, ParentCTA: 1, Warp: 2, Lane: 31,
			ChildKernelID: math.MaxUint64, Workload: 17, Decision: "launch", Outcome: "launched"},
		tables.Launch{SiteID: 3, Cycle: 481, ParentKernelID: 1, ParentCTA: 1, Warp: 2, Lane: 30,
			ChildKernelID: 9, Workload: 2, Decision: "coalesce", TargetKernelID: u64(1),
			EstChildCycles: f64p(1234.5), EstParentCycles: f64p(0.1), SpawnN: i64p(-7), SpawnNCon: f64p(2.5),
			Outcome: "coalesced"},
		tables.Occupancy{Cycle: 0, WindowCycles: 1000, SM: 12, ActiveWarps: 15.75, ActiveCTAs: 1.5},
		tables.Page{Page: 5, Buffer: 2, Event: "ready", Cycle: 100},
		tables.Page{Page: 5, Buffer: 2, Event: "owner", KernelID: u64(1), Cycle: 303},
		tables.Stage{Stage: "prelude", StartCycle: 0, EndCycle: 100},
		tables.Sync{Seq: 3, Call: "stream", Thread: 0, Stream: i64p(7), CallCycle: 120,
			ReturnCycle: 930, CapturedReturn: 700, LastKernel: u64(math.MaxUint64)},
		tables.Sync{Seq: 4, Call: "device", Thread: 2, CallCycle: 940, ReturnCycle: 940,
			CapturedReturn: 0},
		tables.Summary{GPU: "k20c", MakespanCycles: 900, MakespanUS: 1.2747875354107647, Speedup: 1,
			Kernels: 2, DeviceKernels: 1, CTAs: 3, LaunchSites: 1, Launched: 1, Coalesced: 1,
			AvgOccupancy: 0.25, AvgKernelWaitCycles: 283, StallCycles: 6, BusyCycles: 800,
			IssueUtilization: f64p(0.5), DRAMUtilization: f64p(0.125)},
	}},
	{tables.Run{Trace: "bfs.trace.zst", Policy: "dtbl", Params: "dtbl.agt_entries=512"}, []any{
		tables.CTA{KernelID: 1, CTA: 0, SM: -1, DispatchCycle: 1, StartCycle: 2, EndCycle: 3,
			StallCycles: math.MaxInt64, GroupID: u64(0)},
		tables.Stage{Stage: "kernels", StartCycle: 100, EndCycle: 700},
		tables.Sync{Seq: 1, Call: "event", Thread: -1, Stream: i64p(0), Event: i64p(math.MinInt64),
			CallCycle: 5, ReturnCycle: 705, CapturedReturn: math.MaxInt64, LastKernel: u64(1)},
		tables.Summary{GPU: "k20c", MakespanCycles: 700,
			MakespanUS: 0.99150141643059486, Speedup: 1.2857142857142858, Kernels: 1, CTAs: 2,
			LaunchSites: 1, Coalesced: 1, AvgOccupancy: 0.5, StallCycles: 0},
	}},
}

// writeFixture writes the fixture's rows.
func writeFixture(w *Writer) {
	for _, f := range fixture {
		w.Begin(f.run)
		for _, r := range f.rows {
			switch r := r.(type) {
			case tables.Summary:
				w.Summary(r)
			case tables.Kernel:
				w.Kernel(r)
			case tables.CTA:
				w.CTA(r)
			case tables.Launch:
				w.Launch(r)
			case tables.Occupancy:
				w.Occupancy(r)
			case tables.Page:
				w.Page(r)
			case tables.Stage:
				w.Stage(r)
			case tables.Sync:
				w.Sync(r)
			default:
				panic(fmt.Sprintf("fixture row of type %T", r))
			}
		}
	}
}

// fixtureRows is what writeFixture must read back as, per table: each
// row's declared columns (rowValues).
var fixtureRows = func() map[string][][]any {
	rows := map[string][][]any{}
	for _, f := range fixture {
		for _, r := range f.rows {
			name, vals := rowValues(f.run, r)
			rows[name] = append(rows[name], vals)
		}
	}
	return rows
}()

// rowValues is the table a row belongs to and the values its columns
// must read back as, taken from its fields by reflection as package
// tables declares them: a check of the generated builders
// (columns_gen.go) by another way of reading the same declaration. A nil
// pointer is a null, a uint64 id the int64 of the same bits.
func rowValues(run tables.Run, row any) (string, []any) {
	for _, t := range tables.All() {
		if reflect.TypeOf(t.Row) != reflect.TypeOf(row) {
			continue
		}
		vals := fieldValues(reflect.ValueOf(run), tables.RunColumns())
		return t.Name, append(vals, fieldValues(reflect.ValueOf(row), t.Columns)...)
	}
	panic(fmt.Sprintf("no table of rows of type %T", row))
}

func fieldValues(row reflect.Value, cols []tables.Column) []any {
	var vals []any
	for _, c := range cols {
		v := row.FieldByName(c.Field)
		if !v.IsValid() { // a derived column
			v = row.MethodByName(c.Field).Call(nil)[0]
		}
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				vals = append(vals, nil)
				continue
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Uint64:
			vals = append(vals, int64(v.Uint()))
		default:
			vals = append(vals, v.Interface())
		}
	}
	return vals
}

// TestFixtureRows spells out a few of fixtureRows' values, those that
// rowValues could get wrong the way the generated builders might: ids of
// 2^63 and above, nulls, the run columns. Columns are named, so a new
// column moves none of them.
func TestFixtureRows(t *testing.T) {
	for _, c := range []struct {
		table, col string
		row        int
		want       any
	}{
		{"kernels", "kernel_id", 1, int64(-1)}, // math.MaxUint64
		{"kernels", "parent_kernel_id", 0, nil},
		{"launches", "child_kernel_id", 0, int64(-1)}, // math.MaxUint64
		{"ctas", "group_id", 1, int64(42)},
		{"summary", "params", 1, "dtbl.agt_entries=512"},
		{"summary", "issue_utilization", 1, nil},
		{"occupancy", "sm", 0, int32(12)},
		{"syncs", "last_kernel_id", 0, int64(-1)}, // math.MaxUint64
		{"syncs", "stream", 1, nil},
		{"syncs", "wait_cycles", 0, int64(810)},
		{"syncs", "event", 2, int64(math.MinInt64)},
	} {
		col := Schema(c.table).FieldIndices(c.col)
		if len(col) != 1 {
			t.Fatalf("%s has no column %s", c.table, c.col)
		}
		if got := fixtureRows[c.table][c.row][col[0]]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s row %d %s = %#v, want %#v", c.table, c.row, c.col, got, c.want)
		}
	}
}
