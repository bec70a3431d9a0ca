package accelsim

import (
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// The trace does not say which GPU ran it, only each kernel's SASS binary
// version; the device's compute capability is at least the highest of them
// (SASS runs on its own and later minor versions). From it the header
// records the per-SM limits CUDA documents for that compute capability
// (the CUDA C++ Programming Guide's table of technical specifications), so
// --gpu=captured replays with them; the SM count is not knowable and is
// left to the preset.

// smLimits are one compute capability's per-SM limits.
type smLimits struct {
	ctas, threads, regs int
	smemKiB             int64
	grids               int // resident grids per device
}

var archLimits = map[int]smLimits{
	35: {16, 2048, 65536, 48, 32},
	37: {16, 2048, 131072, 112, 32},
	50: {32, 2048, 65536, 64, 32},
	52: {32, 2048, 65536, 96, 32},
	53: {32, 2048, 65536, 64, 16},
	60: {32, 2048, 65536, 64, 128},
	61: {32, 2048, 65536, 96, 32},
	62: {32, 2048, 65536, 64, 16},
	70: {32, 2048, 65536, 96, 128},
	72: {32, 2048, 65536, 96, 16},
	75: {16, 1024, 65536, 64, 128},
	80: {32, 2048, 65536, 164, 128},
	86: {16, 1536, 65536, 100, 128},
	87: {16, 1536, 65536, 164, 128},
	89: {24, 1536, 65536, 100, 128},
	90: {32, 2048, 65536, 228, 128},
}

// gpuName names the GPU by the highest binary version, e.g. "sm_61".
func gpuName(binaryVersion int) string {
	if binaryVersion <= 0 {
		return "unknown"
	}
	return "sm_" + strconv.Itoa(binaryVersion)
}

// gpuSpec is what is known of the GPU: the converter's clock, and the
// limits of the compute capability when it is in the table.
func gpuSpec(binaryVersion int, clockMHz float64) *trace.GPUSpec {
	s := &trace.GPUSpec{ClockMHz: clockMHz}
	if l, ok := archLimits[binaryVersion]; ok {
		s.MaxCTAsPerSM = l.ctas
		s.MaxThreadsPerSM = l.threads
		s.RegsPerSM = l.regs
		s.SmemPerSM = l.smemKiB << 10
		s.MaxKernels = l.grids
	}
	return s
}
