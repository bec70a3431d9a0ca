package results

import (
	"reflect"
	"strings"
	"testing"
)

// The column lists of docs/design.md §6, spelled out independently of schema.go,
// with one deliberate change (docs/tables.md): params, docs/design.md's summary
// column, is a run column of every table, so a sweep's combinations stay
// apart in the kernels, ctas and launches tables too; and the contention
// model's columns (summary issue_utilization and dram_utilization, ctas
// slowdown) come after docs/design.md's.
var designColumns = map[string]string{
	"summary": "trace policy params gpu makespan_cycles makespan_us speedup kernels device_kernels ctas " +
		"launch_sites launched inlined coalesced avg_occupancy avg_kernel_wait_cycles stall_cycles busy_cycles " +
		"issue_utilization dram_utilization",
	"kernels": "trace policy params kernel_id name origin parent_kernel_id stream ctas threads_per_cta " +
		"launch_cycle ready_cycle start_cycle end_cycle wait_cycles coalesced_groups",
	"ctas": "trace policy params kernel_id cta sm dispatch_cycle start_cycle end_cycle stall_cycles group_id slowdown",
	"launches": "trace policy params site_id cycle parent_kernel_id parent_cta warp lane child_kernel_id " +
		"workload decision target_kernel_id est_child_cycles est_parent_cycles spawn_n spawn_ncon outcome",
	"occupancy": "trace policy params cycle window_cycles sm active_warps active_ctas",
	"pages":     "trace policy params page buffer event kernel_id cycle",
	"stages":    "trace policy params stage start_cycle end_cycle",
}

// Nullable columns are exactly those of pointer fields in rows.go.
var nullableColumns = map[string]bool{
	"kernels.parent_kernel_id": true, "ctas.group_id": true, "launches.target_kernel_id": true,
	"launches.est_child_cycles": true, "launches.est_parent_cycles": true, "pages.kernel_id": true,
	"summary.issue_utilization": true, "launches.spawn_n": true, "launches.spawn_ncon": true, "summary.dram_utilization": true, "ctas.slowdown": true,
}

func TestSchemas(t *testing.T) {
	want := []string{"summary", "kernels", "ctas", "launches", "occupancy", "pages", "stages"}
	if got := Tables(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tables() = %v, want %v", got, want)
	}
	Tables()[0] = "changed"
	if Tables()[0] != "summary" {
		t.Error("Tables() shares its slice with the caller")
	}
	for _, table := range want {
		s := Schema(table)
		if s == nil {
			t.Fatalf("Schema(%q) = nil", table)
		}
		if got := strings.Join(columnNames(s), " "); got != designColumns[table] {
			t.Errorf("%s columns\n got %s\nwant %s", table, got, designColumns[table])
		}
		for _, f := range s.Fields() {
			if f.Nullable != nullableColumns[table+"."+f.Name] {
				t.Errorf("%s.%s nullable = %v", table, f.Name, f.Nullable)
			}
		}
	}
	if Schema("nope") != nil {
		t.Error(`Schema("nope") != nil`)
	}
}
