package nsys

import (
	"database/sql"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// gpuInfo is the row of a device in table (TARGET_INFO_GPU or
// TARGET_INFO_CUDA_GPU), whose names for gpuInfoCols are cols; NULL where
// the row or the export lacks a value.
type gpuInfo struct {
	table                                string
	cols                                 []string
	row                                  int64
	name                                 sql.NullString
	clockRate, smCount, maxWarps, warp   sql.NullInt64
	maxBlocks, maxShmem, maxRegs, cc, cm sql.NullInt64
}

// gpuInfoCols are the TARGET_INFO_GPU columns read, in gpuInfo's order.
var gpuInfoCols = []string{"name", "clockRate", "smCount", "maxWarpsPerSm", "threadsPerWarp",
	"maxBlocksPerSm", "maxShmemPerSm", "maxRegistersPerSm", "computeMajor", "computeMinor"}

// cudaGPUCols are TARGET_INFO_CUDA_GPU's names for gpuInfoCols. Exports
// of Nsight Systems before 2022 (they have no export metadata table)
// describe the devices there, by CUDA device id (deviceId), and keep only
// names and bus locations in TARGET_INFO_GPU.
var cudaGPUCols = []string{"name", "coreClockRate", "numMultiprocessors", "maxWarpsPerMultiprocessor",
	"numThreadsPerWarp", "maxBlocksPerMultiprocessor", "maxSharedMemoryPerMultiprocessor",
	"maxRegistersPerMultiprocessor", "computeCapabilityMajor", "computeCapabilityMinor"}

// col is g's table's name for the gpuInfoCols column name.
func (g *gpuInfo) col(name string) string { return g.cols[slices.Index(gpuInfoCols, name)] }

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
		why = errorf(r.file, tabGPU, -1, "no row for device %d%s: the per-CTA estimate needs its SM count and limits (%s)", dev, r.alsoSearched(), profile.PresetHint())
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

// alsoSearched completes the "no row" error where TARGET_INFO_CUDA_GPU
// was searched too.
func (r *report) alsoSearched() string {
	if r.has(tabCUDAGPU) {
		return " (nor in " + tabCUDAGPU + ")"
	}
	return ""
}

// gpuInfo finds device dev's row in TARGET_INFO_GPU, else in
// TARGET_INFO_CUDA_GPU by deviceId; nil when neither has one.
func (r *report) gpuInfo(dev int64) (*gpuInfo, error) {
	g, err := r.targetGPU(dev)
	if g != nil || err != nil || !r.hasCol(tabCUDAGPU, "deviceId") {
		return g, err
	}
	return r.gpuRow(tabCUDAGPU, cudaGPUCols, []string{"deviceId"}, func(v []any) bool { return equal(v[0], dev) })
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
		g, err := r.gpuRow(tabGPU, gpuInfoCols, []string{"cuDevice", "id"}, match)
		if g != nil || err != nil {
			return g, err
		}
	}
	return nil, nil
}

// gpuRow reads the first row of table that match accepts: match sees the
// row's keys columns, then cols (table's names for gpuInfoCols).
func (r *report) gpuRow(table string, cols, keys []string, match func(v []any) bool) (*gpuInfo, error) {
	var g *gpuInfo
	var conv error
	n := len(keys)
	err := r.scan(table, "reading the device's row", append(slices.Clone(keys), cols...), func(id int64, v []any) error {
		if g != nil || !match(v) {
			return nil
		}
		g = &gpuInfo{table: table, cols: cols, row: id, name: scanString(v[n])}
		for i, p := range []*sql.NullInt64{&g.clockRate, &g.smCount, &g.maxWarps, &g.warp,
			&g.maxBlocks, &g.maxShmem, &g.maxRegs, &g.cc, &g.cm} {
			if *p, conv = scanInt(v[n+1+i]); conv != nil {
				return nil
			}
		}
		return nil
	})
	if err == nil && conv != nil {
		err = &Error{File: r.file, Table: table, Row: -1, Msg: "reading the device's row", Err: conv}
	}
	if err != nil {
		return nil, err
	}
	return g, nil
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
