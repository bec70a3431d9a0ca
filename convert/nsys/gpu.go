package nsys

import (
	"database/sql"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// gpuInfo is the row of a device in table (TARGET_INFO_GPU or
// TARGET_INFO_CUDA_GPU); NULL where the row or the export lacks a value.
type gpuInfo struct {
	table                                string
	row                                  int64
	keys                                 []any // the row's key columns (gpuRows)
	name                                 sql.NullString
	clockRate, smCount, maxWarps, warp   sql.NullInt64
	maxBlocks, maxShmem, maxRegs, cc, cm sql.NullInt64
}

// gpuInfoCols are the TARGET_INFO_GPU columns read, in gpuInfo's order.
var gpuInfoCols = []string{"name", "clockRate", "smCount", "maxWarpsPerSm", "threadsPerWarp",
	"maxBlocksPerSm", "maxShmemPerSm", "maxRegistersPerSm", "computeMajor", "computeMinor"}

// cudaGPUCols are TARGET_INFO_CUDA_GPU's names for gpuInfoCols. Some
// older exports (they have no export metadata table) describe the
// devices there, by CUDA device id (deviceId), and keep only names and
// bus locations in TARGET_INFO_GPU.
var cudaGPUCols = []string{"name", "coreClockRate", "numMultiprocessors", "maxWarpsPerMultiprocessor",
	"numThreadsPerWarp", "maxBlocksPerMultiprocessor", "maxSharedMemoryPerMultiprocessor",
	"maxRegistersPerMultiprocessor", "computeCapabilityMajor", "computeCapabilityMinor"}

// colsOf is table's names for gpuInfoCols.
func colsOf(table string) []string {
	if table == tabCUDAGPU {
		return cudaGPUCols
	}
	return gpuInfoCols
}

// col is g's table's name for the gpuInfoCols column name.
func (g *gpuInfo) col(name string) string { return colsOf(g.table)[slices.Index(gpuInfoCols, name)] }

// capturedGPU describes device dev from TARGET_INFO_GPU (or
// TARGET_INFO_CUDA_GPU), or from the preset Options.GPU names where the
// report cannot.
func (r *report) capturedGPU(dev int64, o Options) (profile.GPU, error) {
	info, err := r.gpuInfo(dev)
	if err != nil {
		return profile.GPU{}, err
	}
	var why *Error
	switch {
	case !r.has(tabGPU) && !r.has(tabCUDAGPU):
		why = errorf(r.file, "", -1, "no table %s or %s: the per-CTA estimate needs the device's SM count and limits (%s)", tabGPU, tabCUDAGPU, profile.PresetHint())
	case info == nil:
		why = errorf(r.file, "", -1, "no row for device %d in %s: the per-CTA estimate needs its SM count and limits (%s)", dev, r.searched(), profile.PresetHint())
	default:
		spec, missing := info.spec()
		if spec != nil {
			name := info.name.String
			if name == "" {
				name = "CUDA device " + strconv.FormatInt(dev, 10)
			}
			var src string
			spec.ClockMHz, src = clock(o, info.clockRate, info.table+"."+info.col("clockRate"), name)
			return profile.Captured(name, spec, src), nil
		}
		why = errorf(r.file, info.table, info.row, "device %d has no usable %s: the per-CTA estimate needs it (%s)", dev, missing, profile.PresetHint())
	}
	if o.GPU == "" {
		return profile.GPU{}, why
	}
	return profile.FromPreset(o.GPU, o.ClockMHz)
}

// searched names, for the "no row" error, the device tables the export
// has and whether TARGET_INFO_CUDA_GPU could be searched.
func (r *report) searched() string {
	var in []string
	if r.has(tabGPU) {
		in = append(in, tabGPU)
	}
	switch {
	case r.hasCol(tabCUDAGPU, "deviceId"):
		in = append(in, tabCUDAGPU)
	case r.has(tabCUDAGPU) && len(in) == 0:
		return tabCUDAGPU + ", which has no column deviceId"
	case r.has(tabCUDAGPU):
		return in[0] + " (" + tabCUDAGPU + " has no column deviceId)"
	}
	return strings.Join(in, " or ")
}

// gpuInfo finds device dev's row in TARGET_INFO_GPU, else in
// TARGET_INFO_CUDA_GPU by deviceId; nil when neither has one. A
// TARGET_INFO_GPU row without the limits the estimate needs (older
// exports keep names and bus locations there) gives way to a
// TARGET_INFO_CUDA_GPU row that has them.
func (r *report) gpuInfo(dev int64) (*gpuInfo, error) {
	g, err := r.targetGPU(dev)
	if err != nil || !r.hasCol(tabCUDAGPU, "deviceId") || g != nil && usable(g) {
		return g, err
	}
	c, err := r.cudaGPU(dev)
	if err != nil || c == nil || g != nil && !usable(c) {
		return g, err
	}
	return c, nil
}

// usable reports whether g has every limit the estimate needs.
func usable(g *gpuInfo) bool {
	s, _ := g.spec()
	return s != nil
}

// cudaGPU finds device dev's TARGET_INFO_CUDA_GPU row. The table has a
// row per process and device, and with CUDA_VISIBLE_DEVICES set per
// process (one GPU per MPI rank) every process's device 0 may be another
// GPU: where several rows name dev and the table has a pid, the row of
// the process that ran dev's first kernel is taken, else the first.
func (r *report) cudaGPU(dev int64) (*gpuInfo, error) {
	keys := []string{"deviceId", "pid"}
	if !r.hasCol(tabCUDAGPU, "pid") {
		keys = keys[:1]
	}
	rows, err := r.gpuRows(tabCUDAGPU, keys, func(v []any) bool { return equal(v[0], dev) })
	if err != nil || len(rows) < 2 || len(keys) < 2 {
		return first(rows), err
	}
	pid, err := r.kernelPid(dev)
	if err != nil {
		return nil, err
	}
	for _, g := range rows {
		if equal(g.keys[1], pid) {
			return g, nil
		}
	}
	return rows[0], nil
}

// kernelPid is the process (its OS pid) of device dev's first kernel
// row, or nil when the kernel table has none or no globalPid.
func (r *report) kernelPid(dev int64) (any, error) {
	if !r.hasCol(tabKernel, "globalPid") {
		return nil, nil
	}
	var pid any
	err := r.scan(tabKernel, "reading the kernels' processes", []string{"deviceId", "globalPid"}, func(_ int64, v []any) error {
		if pid == nil && equal(v[0], dev) {
			if p, ok := perProcess(v[1]).(int64); ok {
				pid = p & (1<<24 - 1)
			}
		}
		return nil
	})
	return pid, err
}

func first(rows []*gpuInfo) *gpuInfo {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// targetGPU finds device dev's TARGET_INFO_GPU row: by cuDevice (the CUDA
// device id) where the export has it, else through
// TARGET_INFO_CUDA_DEVICE's cudaId → gpuId map, else by id. The first way
// that finds a row wins; nil when none does.
func (r *report) targetGPU(dev int64) (*gpuInfo, error) {
	if !r.has(tabGPU) {
		return nil, nil
	}
	var ways []func(v []any) bool // v: the row's cuDevice, id, then gpuInfoCols
	if r.hasCol(tabGPU, "cuDevice") {
		ways = append(ways, func(v []any) bool { return equal(v[0], dev) })
	}
	if r.hasCol(tabGPU, "id") && r.hasCol(tabCUDADev, "gpuId") && r.hasCol(tabCUDADev, "cudaId") {
		var gpuID any
		found := false
		err := r.scan(tabCUDADev, "reading the device map", []string{"cudaId", "gpuId"}, func(_ int64, v []any) error {
			if !found && equal(v[0], dev) {
				gpuID, found = copyValue(v[1]), true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		ways = append(ways, func(v []any) bool { return equal(v[1], gpuID) })
	}
	if r.hasCol(tabGPU, "id") {
		ways = append(ways, func(v []any) bool { return equal(v[1], dev) })
	}
	for _, match := range ways {
		rows, err := r.gpuRows(tabGPU, []string{"cuDevice", "id"}, match)
		if len(rows) > 0 || err != nil {
			return first(rows), err
		}
	}
	return nil, nil
}

// gpuRows reads the rows of table that match accepts: match sees the
// row's keys columns, then table's names for gpuInfoCols (colsOf). A value
// that is not an integer counts as NULL, so that spec names the column
// and row where the estimate needs it, and the clock falls back where it
// is the clock rate.
func (r *report) gpuRows(table string, keys []string, match func(v []any) bool) ([]*gpuInfo, error) {
	var rows []*gpuInfo
	n := len(keys)
	err := r.scan(table, "reading the device's row", append(slices.Clone(keys), colsOf(table)...), func(id int64, v []any) error {
		if !match(v) {
			return nil
		}
		g := &gpuInfo{table: table, row: id, keys: make([]any, n), name: scanString(v[n])}
		for i := range n {
			g.keys[i] = copyValue(v[i])
		}
		for i, p := range []*sql.NullInt64{&g.clockRate, &g.smCount, &g.maxWarps, &g.warp,
			&g.maxBlocks, &g.maxShmem, &g.maxRegs, &g.cc, &g.cm} {
			*p, _ = scanInt(v[n+1+i])
		}
		rows = append(rows, g)
		return nil
	})
	return rows, err
}

// spec is the header's gpu_spec (without the clock) for g; missing names
// the first column the wave estimate needs that g lacks or has out of
// range. maxBlocksPerSm may be missing: the resident-block limit of the
// compute capability stands in, or with none the usual limit.
func (g *gpuInfo) spec() (s *trace.GPUSpec, missing string) {
	switch {
	case !inRange(g.smCount, 1, 1<<20):
		return nil, g.col("smCount")
	case !inRange(g.maxWarps, 1, 1<<16):
		return nil, g.col("maxWarpsPerSm")
	case !inRange(g.maxRegs, 1, 1<<31-1):
		return nil, g.col("maxRegistersPerSm")
	case !inRange(g.maxShmem, 1, 1<<40):
		return nil, g.col("maxShmemPerSm")
	}
	warp := int64(model.WarpSize)
	if inRange(g.warp, 1, 1024) {
		warp = g.warp.Int64
	}
	ctas := int64(profile.DefaultMaxCTAsPerSM)
	switch {
	case inRange(g.maxBlocks, 1, 1<<16):
		ctas = g.maxBlocks.Int64
	case inRange(g.cc, 0, 99) && inRange(g.cm, 0, 99):
		ctas = int64(profile.MaxCTAsPerSM(int(g.cc.Int64), int(g.cm.Int64)))
	}
	return &trace.GPUSpec{
		SMs:             int(g.smCount.Int64),
		MaxCTAsPerSM:    int(ctas),
		MaxThreadsPerSM: int(g.maxWarps.Int64 * warp),
		RegsPerSM:       int(g.maxRegs.Int64),
		SmemPerSM:       g.maxShmem.Int64,
	}, ""
}

// inRange reports whether v is set and within lo..hi.
func inRange(v sql.NullInt64, lo, hi int64) bool {
	return v.Valid && v.Int64 >= lo && v.Int64 <= hi
}

// clock is the clock of the device named name and where it came from:
// the clock_mhz option, else its clock rate (the column rateCol), else
// the clock table, else DefaultClockMHz.
func clock(o Options, rate sql.NullInt64, rateCol, name string) (mhz float64, src string) {
	mhz, unit, ok := clockRateMHz(rate.Int64)
	switch {
	case o.ClockMHz > 0:
		return o.ClockMHz, "option clock_mhz"
	case rate.Valid && ok:
		return mhz, rateCol + " (" + unit + ")"
	}
	mhz, key := profile.ClockFor(name)
	if key == "" {
		return mhz, "default (no usable clockRate; device not in the clock table)"
	}
	return mhz, "clock table (" + key + ")"
}
