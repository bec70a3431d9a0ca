package nsys

import (
	"database/sql"
	"errors"
	"strconv"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// captured is the GPU the converted device is, as the trace header
// records it: its name, its limits and clock (gpu_spec), the occupancy
// model the wave estimate uses, and where the clock came from.
type captured struct {
	device   int64
	name     string
	spec     *trace.GPUSpec
	gpu      model.GPU
	clockSrc string
}

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
func (r *report) capturedGPU(dev int64, o Options) (*captured, error) {
	info, err := r.gpuInfo(dev)
	if err != nil {
		return nil, err
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
			c := &captured{device: dev, name: info.name.String, spec: spec}
			if c.name == "" {
				c.name = "CUDA device " + strconv.FormatInt(dev, 10)
			}
			c.setClock(o, info.clockRate)
			c.gpu = occupancy(spec)
			return c, nil
		}
		why = errorf(r.file, tabGPU, info.row, "device %d has no usable %s: the per-CTA estimate needs it (set the gpu option to a preset to assume one)", dev, missing)
	}
	if o.GPU == "" {
		return nil, why
	}
	return presetGPU(dev, o)
}

// gpuInfo finds device dev's TARGET_INFO_GPU row: by cuDevice (the CUDA
// device id) where the export has it, else through
// TARGET_INFO_CUDA_DEVICE's cudaId → gpuId map, else by id. The first way
// that finds a row wins; nil when none does.
func (r *report) gpuInfo(dev int64) (*gpuInfo, error) {
	if !r.has(tabGPU) {
		return nil, nil
	}
	var ways []string
	if r.hasCol(tabGPU, "cuDevice") {
		ways = append(ways, `g.cuDevice = ?`)
	}
	if r.hasCol(tabGPU, "id") && r.hasCol(tabCUDADev, "gpuId") && r.hasCol(tabCUDADev, "cudaId") {
		ways = append(ways, `g.id = (SELECT gpuId FROM `+tabCUDADev+` WHERE cudaId = ? ORDER BY rowid LIMIT 1)`)
	}
	if r.hasCol(tabGPU, "id") {
		ways = append(ways, `g.id = ?`)
	}
	sel := `SELECT g.rowid`
	for _, c := range gpuInfoCols {
		sel += ", " + r.colOrNull(tabGPU, "g", c)
	}
	for _, where := range ways {
		var g gpuInfo
		err := r.db.QueryRow(sel+` FROM `+tabGPU+` g WHERE `+where+` ORDER BY g.rowid LIMIT 1`, dev).Scan(
			&g.row, &g.name, &g.clockRate, &g.smCount, &g.maxWarps, &g.warp,
			&g.maxBlocks, &g.maxShmem, &g.maxRegs, &g.cc, &g.cm)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, &Error{File: r.file, Table: tabGPU, Row: -1, Msg: "reading the device's row", Err: err}
		}
		return &g, nil
	}
	return nil, nil
}

// colOrNull is alias.col when table has col, else NULL.
func (r *report) colOrNull(table, alias, col string) string {
	if r.hasCol(table, col) {
		return alias + "." + col
	}
	return "NULL"
}

// spec is the header's gpu_spec (without the clock) for g; missing names
// the first column the wave estimate needs that g lacks or has out of
// range. maxBlocksPerSm may be missing: the compute capability's
// resident-block limit stands in.
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
	ctas := int64(defaultMaxCTAsPerSM)
	if inRange(g.maxBlocks, 1, 1<<16) {
		ctas = g.maxBlocks.Int64
	} else if n, ok := maxCTAsPerSM[g.cc.Int64*10+g.cm.Int64]; ok && g.cc.Valid && g.cm.Valid {
		ctas = int64(n)
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

// maxCTAsPerSM is the CUDA programming guide's "maximum number of resident
// blocks per SM" by compute capability (major*10+minor), for exports
// without maxBlocksPerSm.
var maxCTAsPerSM = map[int64]int{
	30: 16, 32: 16, 35: 16, 37: 16, 50: 32, 52: 32, 53: 32, 60: 32,
	61: 32, 62: 32, 70: 32, 72: 32, 75: 16, 80: 32, 86: 16, 87: 16,
	89: 24, 90: 32, 100: 32,
}

// defaultMaxCTAsPerSM is assumed for a compute capability the table does
// not list (the limit of most architectures since Maxwell).
const defaultMaxCTAsPerSM = 32

// setClock fills in the clock: the clock_mhz option, else clockRate, else
// the clock table, else DefaultClockMHz.
func (c *captured) setClock(o Options, rate sql.NullInt64) {
	mhz, unit, ok := clockRateMHz(rate.Int64)
	key := ""
	switch {
	case o.ClockMHz > 0:
		mhz, c.clockSrc = o.ClockMHz, "option clock_mhz"
	case rate.Valid && ok:
		c.clockSrc = tabGPU + ".clockRate (" + unit + ")"
	default:
		mhz, key = clockFor(c.name)
		c.clockSrc = "clock table (" + key + ")"
		if key == "" {
			c.clockSrc = "default (no usable clockRate; device not in the clock table)"
		}
	}
	c.spec.ClockMHz = mhz
}

// presetGPU stands Options.GPU's preset in for a device the report does
// not describe.
func presetGPU(dev int64, o Options) (*captured, error) {
	cfg, err := model.Preset(o.GPU)
	if err != nil {
		return nil, err
	}
	g := cfg.GPU
	c := &captured{device: dev, name: g.Name, clockSrc: "preset " + o.GPU}
	if o.ClockMHz > 0 {
		g.ClockMHz, c.clockSrc = o.ClockMHz, "option clock_mhz"
	}
	c.spec = &trace.GPUSpec{
		SMs: g.SMs, ClockMHz: g.ClockMHz, MaxCTAsPerSM: g.MaxCTAsPerSM, MaxThreadsPerSM: g.MaxThreadsPerSM,
		RegsPerSM: g.RegsPerSM, SmemPerSM: g.SmemPerSM, MaxKernels: g.MaxKernels,
	}
	c.gpu = g
	return c, nil
}

// occupancy is the occupancy model of a spec, for the wave estimate.
func occupancy(s *trace.GPUSpec) model.GPU {
	return model.GPU{
		SMs:             s.SMs,
		ClockMHz:        s.ClockMHz,
		MaxCTAsPerSM:    s.MaxCTAsPerSM,
		MaxThreadsPerSM: s.MaxThreadsPerSM,
		RegsPerSM:       s.RegsPerSM,
		SmemPerSM:       s.SmemPerSM,
	}
}
