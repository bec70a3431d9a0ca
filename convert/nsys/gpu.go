package nsys

import (
	"database/sql"
	"strconv"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// gpuInfo is the TARGET_INFO_GPU row of a device; NULL where the row or
// the export lacks a value.
type gpuInfo struct {
	row                                  int64
	name                                 sql.NullString
	clockRate, smCount, maxWarps, warp   sql.NullInt64
	maxBlocks, maxShmem, maxRegs, cc, cm sql.NullInt64
}

// gpuInfoCols are the TARGET_INFO_GPU columns read, in gpuInfo's order.
var gpuInfoCols = []string{"name", "clockRate", "smCount", "maxWarpsPerSm", "threadsPerWarp",
	"maxBlocksPerSm", "maxShmemPerSm", "maxRegistersPerSm", "computeMajor", "computeMinor"}

// capturedGPU describes device dev from TARGET_INFO_GPU, or from the
// preset Options.GPU names where the report cannot.
func (r *report) capturedGPU(dev int64, o Options) (profile.GPU, error) {
	info, err := r.gpuInfo(dev)
	if err != nil {
		return profile.GPU{}, err
	}
	var why *Error
	switch {
	case !r.has(tabGPU):
		why = errorf(r.file, "", -1, "no table %s: the per-CTA estimate needs the device's SM count and limits (set the gpu option to a preset to assume one)", tabGPU)
	case info == nil:
		why = errorf(r.file, tabGPU, -1, "no row for device %d: the per-CTA estimate needs its SM count and limits (set the gpu option to a preset to assume one)", dev)
	default:
		spec, missing := info.spec()
		if spec != nil {
			name := info.name.String
			if name == "" {
				name = "CUDA device " + strconv.FormatInt(dev, 10)
			}
			var src string
			spec.ClockMHz, src = clock(o, info.clockRate, name)
			return profile.Captured(name, spec, src), nil
		}
		why = errorf(r.file, tabGPU, info.row, "device %d has no usable %s: the per-CTA estimate needs it (set the gpu option to a preset to assume one)", dev, missing)
	}
	if o.GPU == "" {
		return profile.GPU{}, why
	}
	return profile.FromPreset(o.GPU, o.ClockMHz)
}

// gpuInfo finds device dev's TARGET_INFO_GPU row: by cuDevice (the CUDA
// device id) where the export has it, else through
// TARGET_INFO_CUDA_DEVICE's cudaId → gpuId map, else by id. The first way
// that finds a row wins, and within a way the first row; nil when none
// does.
func (r *report) gpuInfo(dev int64) (*gpuInfo, error) {
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
	cols := append([]string{"cuDevice", "id"}, gpuInfoCols...)
	for _, match := range ways {
		var g *gpuInfo
		var conv error
		err := r.scan(tabGPU, "reading the device's row", cols, func(id int64, v []any) error {
			if g != nil || !match(v) {
				return nil
			}
			g = &gpuInfo{row: id, name: scanString(v[2])}
			for i, p := range []*sql.NullInt64{&g.clockRate, &g.smCount, &g.maxWarps, &g.warp,
				&g.maxBlocks, &g.maxShmem, &g.maxRegs, &g.cc, &g.cm} {
				if *p, conv = scanInt(v[3+i]); conv != nil {
					return nil
				}
			}
			return nil
		})
		if err == nil && conv != nil {
			err = &Error{File: r.file, Table: tabGPU, Row: -1, Msg: "reading the device's row", Err: conv}
		}
		if err != nil {
			return nil, err
		}
		if g != nil {
			return g, nil
		}
	}
	return nil, nil
}

// spec is the header's gpu_spec (without the clock) for g; missing names
// the first column the wave estimate needs that g lacks or has out of
// range. maxBlocksPerSm may be missing: the resident-block limit of the
// compute capability stands in, or with none the usual limit.
func (g *gpuInfo) spec() (s *trace.GPUSpec, missing string) {
	switch {
	case !inRange(g.smCount, 1, 1<<20):
		return nil, "smCount"
	case !inRange(g.maxWarps, 1, 1<<16):
		return nil, "maxWarpsPerSm"
	case !inRange(g.maxRegs, 1, 1<<31-1):
		return nil, "maxRegistersPerSm"
	case !inRange(g.maxShmem, 1, 1<<40):
		return nil, "maxShmemPerSm"
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
// the clock_mhz option, else clockRate, else the clock table, else
// DefaultClockMHz.
func clock(o Options, rate sql.NullInt64, name string) (mhz float64, src string) {
	mhz, unit, ok := clockRateMHz(rate.Int64)
	switch {
	case o.ClockMHz > 0:
		return o.ClockMHz, "option clock_mhz"
	case rate.Valid && ok:
		return mhz, tabGPU + ".clockRate (" + unit + ")"
	}
	mhz, key := profile.ClockFor(name)
	if key == "" {
		return mhz, "default (no usable clockRate; device not in the clock table)"
	}
	return mhz, "clock table (" + key + ")"
}
