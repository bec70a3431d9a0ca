package results

import "github.com/apache/arrow-go/v18/arrow"

// The tables, in the order of docs/design.md §6. A table's index in tableNames is
// its position in Writer.tables.
const (
	summaryTable = iota
	kernelsTable
	ctasTable
	launchesTable
	occupancyTable
	pagesTable
	stagesTable
	numTables
)

var tableNames = [numTables]string{"summary", "kernels", "ctas", "launches", "occupancy", "pages", "stages"}

// Column types. Ids and counts are int64, not uint64: DuckDB and pandas
// handle unsigned 64-bit columns poorly (pandas turns them into float64 as
// soon as a null appears; several DuckDB functions reject UBIGINT). An id is
// stored as the int64 with the same bits, so ids of 2^63 and above read back
// negative; CAST(... AS UBIGINT) in DuckDB or .astype("uint64") in pandas
// recovers them.
var (
	i64 = arrow.PrimitiveTypes.Int64
	i32 = arrow.PrimitiveTypes.Int32
	f64 = arrow.PrimitiveTypes.Float64
	str = arrow.BinaryTypes.String
)

// col is a non-null column; nullable is a column that is null where the row
// field is a nil pointer.
func col(name string, t arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: t} }

func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// schemas holds each table's columns after the leading trace, policy and
// params.
var schemas = [numTables]*arrow.Schema{
	summaryTable: schema(
		col("gpu", str),
		col("makespan_cycles", i64), col("makespan_us", f64), col("speedup", f64),
		col("kernels", i64), col("device_kernels", i64), col("ctas", i64),
		col("launch_sites", i64), col("launched", i64), col("inlined", i64), col("coalesced", i64),
		col("avg_occupancy", f64), col("avg_kernel_wait_cycles", f64), col("stall_cycles", i64),
		col("busy_cycles", i64),
		nullable("issue_utilization", f64), nullable("dram_utilization", f64),
	),
	kernelsTable: schema(
		col("kernel_id", i64), col("name", str), col("origin", str),
		nullable("parent_kernel_id", i64), col("stream", i64),
		col("ctas", i64), col("threads_per_cta", i64),
		col("launch_cycle", i64), col("ready_cycle", i64), col("start_cycle", i64), col("end_cycle", i64),
		col("wait_cycles", i64), col("coalesced_groups", i64),
	),
	ctasTable: schema(
		col("kernel_id", i64), col("cta", i64), col("sm", i32),
		col("dispatch_cycle", i64), col("start_cycle", i64), col("end_cycle", i64),
		col("stall_cycles", i64), nullable("group_id", i64),
		nullable("slowdown", f64),
	),
	launchesTable: schema(
		col("site_id", i64), col("cycle", i64),
		col("parent_kernel_id", i64), col("parent_cta", i64), col("warp", i32), col("lane", i32),
		col("child_kernel_id", i64), col("workload", i64), col("decision", str),
		nullable("target_kernel_id", i64), nullable("est_child_cycles", f64), nullable("est_parent_cycles", f64),
		nullable("spawn_n", i64), nullable("spawn_ncon", f64), col("outcome", str),
	),
	occupancyTable: schema(
		col("cycle", i64), col("window_cycles", i64), col("sm", i32),
		col("active_warps", f64), col("active_ctas", f64),
	),
	pagesTable: schema(
		col("page", i64), col("buffer", i64), col("event", str),
		nullable("kernel_id", i64), col("cycle", i64),
	),
	stagesTable: schema(
		col("stage", str), col("start_cycle", i64), col("end_cycle", i64),
	),
}

// schema prefixes fields with the run columns every table starts with.
func schema(fields ...arrow.Field) *arrow.Schema {
	all := append([]arrow.Field{col("trace", str), col("policy", str), col("params", str)}, fields...)
	return arrow.NewSchema(all, nil)
}

// Tables returns the names of the output tables in docs/design.md §6 order. Each is
// written as NAME.FORMAT (kernels.parquet, ...).
func Tables() []string {
	return append([]string(nil), tableNames[:]...)
}

// Schema returns the Arrow schema of the named table, or nil if there is no
// such table. Writers of docs and readers that validate input use it; the
// schema is shared and must not be modified.
func Schema(table string) *arrow.Schema {
	for i, name := range tableNames {
		if name == table {
			return schemas[i]
		}
	}
	return nil
}
