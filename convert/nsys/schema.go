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
	tabCUDAGPU = "TARGET_INFO_CUDA_GPU" // the devices' limits in some older exports
	tabMeta    = "META_DATA_EXPORT"
	tabMetaOld = "EXPORT_META_DATA" // its name up to Nsight Systems 2023.2
	tabMemKind = "ENUM_CUDA_MEM_KIND"
)

// known are the tables whose columns readSchema records (lower case).
var known = map[string]bool{
	"cupti_activity_kind_kernel": true, "cupti_activity_kind_runtime": true,
	"stringids": true, "cupti_activity_kind_memcpy": true,
	"cupti_activity_kind_memset": true, "cupti_activity_kind_synchronization": true,
	"cupti_activity_kind_cuda_event": true, "target_info_gpu": true,
	"target_info_cuda_device": true, "meta_data_export": true,
	"export_meta_data": true, "target_info_cuda_gpu": true,
	"enum_cuda_mem_kind": true,
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

// hasPid reports whether table's rows can be paired with their API calls
// by process as well as correlation id: table has globalPid (a
// serialized id whose bits above the low 24 name the process) and the
// runtime table globalTid. Correlation ids are per process, so a report
// of several processes needs both; without them the correlation id
// alone decides.
func (r *report) hasPid(table string) bool {
	return r.hasCol(table, "globalPid") && r.hasCol(tabRuntime, "globalTid")
}
