package nsys

// The tables the importer reads. Nsight Systems creates tables lazily, so
// a report has only those of the activities it captured; the schema also
// grows between versions (greenContextId, say), so columns are always
// selected by name.
const (
	tabKernel  = "CUPTI_ACTIVITY_KIND_KERNEL"
	tabRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME"
	tabStrings = "StringIds"
	tabMemcpy  = "CUPTI_ACTIVITY_KIND_MEMCPY"
	tabMemset  = "CUPTI_ACTIVITY_KIND_MEMSET"
	tabSync    = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
	tabEvent   = "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
	tabGPU     = "TARGET_INFO_GPU"
	tabCUDADev = "TARGET_INFO_CUDA_DEVICE"
	tabMeta    = "META_DATA_EXPORT"
)

// known are the tables whose columns readSchema records (lower case).
var known = map[string]bool{
	"cupti_activity_kind_kernel": true, "cupti_activity_kind_runtime": true,
	"stringids": true, "cupti_activity_kind_memcpy": true,
	"cupti_activity_kind_memset": true, "cupti_activity_kind_synchronization": true,
	"cupti_activity_kind_cuda_event": true, "target_info_gpu": true,
	"target_info_cuda_device": true, "meta_data_export": true,
}

// whyNeeded completes the "no table" error of a required table.
var whyNeeded = map[string]string{
	tabKernel:  ": the report has no CUDA kernels (capture with nsys profile --trace=cuda)",
	tabRuntime: ": the report has no CUDA API calls, which give each kernel its launch time (capture with --trace=cuda)",
	tabStrings: ": the export has no string table for kernel and function names",
}

// Columns each table must have when it is present. Kernel names need one
// of demangledName and shortName besides these.
var (
	kernelCols  = []string{"start", "end", "deviceId", "streamId", "correlationId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory"}
	runtimeCols = []string{"start", "correlationId", "nameId"}
	stringCols  = []string{"id", "value"}
	memcpyCols  = []string{"start", "deviceId", "streamId", "correlationId", "bytes", "copyKind"}
	memsetCols  = []string{"deviceId"}
	syncCols    = []string{"start", "deviceId", "streamId", "correlationId", "syncType", "eventId"}
	eventCols   = []string{"deviceId", "streamId", "correlationId", "eventId"}
)

// check verifies the tables and columns the conversion needs.
func (r *report) check() error {
	for _, t := range []struct {
		table    string
		cols     []string
		optional bool
	}{
		{tabKernel, kernelCols, false},
		{tabRuntime, runtimeCols, false},
		{tabStrings, stringCols, false},
		{tabMemcpy, memcpyCols, true},
		{tabMemset, memsetCols, true},
		{tabSync, syncCols, true},
		{tabEvent, eventCols, true},
	} {
		if t.optional && !r.has(t.table) {
			continue
		}
		if err := r.need(t.table, t.cols...); err != nil {
			return err
		}
	}
	if !r.hasCol(tabKernel, "demangledName") && !r.hasCol(tabKernel, "shortName") {
		return errorf(r.file, tabKernel, -1, "no column demangledName or shortName: kernels would have no names")
	}
	return nil
}

// pidOf is the SQL for the process of alias's rows (table has globalPid,
// a serialized id whose bits above the low 24 name the process), or NULL
// when the process cannot be matched against the runtime table's
// globalTid (either column missing). Correlation ids are per process, so
// a report of several processes needs both to pair a GPU activity with
// its API call.
func (r *report) pidOf(table, alias string) string {
	if r.hasCol(table, "globalPid") && r.hasCol(tabRuntime, "globalTid") {
		return alias + ".globalPid / 16777216"
	}
	return "NULL"
}

// launchCTE is a WITH clause defining "launch": one row per CUDA API call
// (corr, pid, t) that shares a correlation id with a row of table, for
// pairing with table's rows. A call can appear twice under one
// correlation id (cudaLaunchKernel_v7000 and cudaLaunchKernel); the
// call's time is the earliest start, when the host began issuing.
func (r *report) launchCTE(table string) string {
	pid := "NULL"
	if r.pidOf(table, "x") != "NULL" {
		pid = "globalTid / 16777216"
	}
	return `WITH launch AS (SELECT correlationId AS corr, ` + pid + ` AS pid, MIN(start) AS t
	FROM ` + tabRuntime + ` WHERE correlationId IN (SELECT correlationId FROM ` + table + `)
	GROUP BY corr, pid) `
}

// launchJoin is the join of alias's rows (of table) to their API call.
func (r *report) launchJoin(table, alias string) string {
	return ` LEFT JOIN launch l ON l.corr = ` + alias + `.correlationId AND l.pid IS ` + r.pidOf(table, alias) + ` `
}
