package kineto

import (
	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// deviceProps is one entry of deviceProperties: what CUDA (or HIP) said
// about a GPU. Kineto records no clock and no CTA-slot limit.
//
// Kineto writes the entry from cudaDeviceProp or hipDeviceProp_t
// (libkineto/src/DeviceProperties.cpp): the keys both share, then
// regsPerMultiprocessor and sharedMemPerMultiprocessor on CUDA but only
// maxSharedMemoryPerMultiProcessor on ROCm, which has regsPerBlock for
// the register file. PyTorch 1.9 wrote "computeProperties" with
// cudaDeviceProp's own names for three of them: major, minor and
// multiProcessorCount (the other keys match, as encoding/json matches
// keys without regard to case).
type deviceProps struct {
	ID                               ident  `json:"id"`
	Name                             string `json:"name"`
	ComputeMajor                     int    `json:"computeMajor"`
	ComputeMinor                     int    `json:"computeMinor"`
	NumSMs                           int    `json:"numSms"`
	MaxThreadsPerMultiprocessor      int    `json:"maxThreadsPerMultiprocessor"`
	RegsPerMultiprocessor            int    `json:"regsPerMultiprocessor"`
	RegsPerBlock                     int    `json:"regsPerBlock"`
	SharedMemPerMultiprocessor       int64  `json:"sharedMemPerMultiprocessor"`
	MaxSharedMemoryPerMultiProcessor int64  `json:"maxSharedMemoryPerMultiProcessor"`
	MaxBlocksPerMultiProcessor       int    `json:"maxBlocksPerMultiProcessor"`
	Major                            int    `json:"major"`
	Minor                            int    `json:"minor"`
	MultiProcessorCount              int    `json:"multiProcessorCount"`
}

// legacy fills the fields PyTorch 1.9's computeProperties names
// otherwise, each where the entry lacks it.
func (p *deviceProps) legacy() {
	if p.NumSMs == 0 {
		p.NumSMs = p.MultiProcessorCount
	}
	if p.ComputeMajor == 0 && p.ComputeMinor == 0 {
		p.ComputeMajor, p.ComputeMinor = p.Major, p.Minor
	}
}

// regsPerSM is the register file of one SM (CU): regsPerMultiprocessor,
// else regsPerBlock. HIP fills regsPerBlock with the registers available
// per CU (hipGetDeviceProperties in ROCm's clr: regsPerBlock =
// availableRegistersPerCU_), so on ROCm it is the per-CU figure the
// occupancy limit needs; on CUDA regsPerBlock ≤ regsPerMultiprocessor,
// which is always present there.
func (p *deviceProps) regsPerSM() int {
	if p.RegsPerMultiprocessor > 0 {
		return p.RegsPerMultiprocessor
	}
	return p.RegsPerBlock
}

// smemPerSM is the shared memory (LDS) of one SM (CU):
// sharedMemPerMultiprocessor, else ROCm's maxSharedMemoryPerMultiProcessor.
func (p *deviceProps) smemPerSM() int64 {
	if p.SharedMemPerMultiprocessor > 0 {
		return p.SharedMemPerMultiprocessor
	}
	return p.MaxSharedMemoryPerMultiProcessor
}

// spec is the header's gpu_spec for p at clockMHz; missing names the first
// limit deviceProperties lacks, which the wave estimate needs. Without
// maxBlocksPerMultiProcessor the compute capability's resident-block
// limit stands in.
func (p *deviceProps) spec(clockMHz float64) (s *trace.GPUSpec, missing string) {
	switch {
	case p.NumSMs <= 0:
		return nil, "numSms"
	case p.MaxThreadsPerMultiprocessor <= 0:
		return nil, "maxThreadsPerMultiprocessor"
	case p.regsPerSM() <= 0:
		return nil, "regsPerMultiprocessor (nor regsPerBlock)"
	case p.smemPerSM() <= 0:
		return nil, "sharedMemPerMultiprocessor (nor maxSharedMemoryPerMultiProcessor)"
	}
	ctas := p.MaxBlocksPerMultiProcessor
	if ctas <= 0 {
		ctas = profile.MaxCTAsPerSM(p.ComputeMajor, p.ComputeMinor)
	}
	return &trace.GPUSpec{
		SMs:             p.NumSMs,
		ClockMHz:        clockMHz,
		MaxCTAsPerSM:    ctas,
		MaxThreadsPerSM: p.MaxThreadsPerMultiprocessor,
		RegsPerSM:       p.regsPerSM(),
		SmemPerSM:       p.smemPerSM(),
	}, ""
}
