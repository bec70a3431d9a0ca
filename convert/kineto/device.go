package kineto

import (
	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// deviceProps is one entry of deviceProperties: what CUDA (or HIP) said
// about a GPU. Kineto records no clock and no CTA-slot limit.
type deviceProps struct {
	ID                          ident  `json:"id"`
	Name                        string `json:"name"`
	ComputeMajor                int    `json:"computeMajor"`
	ComputeMinor                int    `json:"computeMinor"`
	NumSMs                      int    `json:"numSms"`
	MaxThreadsPerMultiprocessor int    `json:"maxThreadsPerMultiprocessor"`
	RegsPerMultiprocessor       int    `json:"regsPerMultiprocessor"`
	SharedMemPerMultiprocessor  int64  `json:"sharedMemPerMultiprocessor"`
	MaxBlocksPerMultiProcessor  int    `json:"maxBlocksPerMultiProcessor"`
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
	case p.RegsPerMultiprocessor <= 0:
		return nil, "regsPerMultiprocessor"
	case p.SharedMemPerMultiprocessor <= 0:
		return nil, "sharedMemPerMultiprocessor"
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
		RegsPerSM:       p.RegsPerMultiprocessor,
		SmemPerSM:       p.SharedMemPerMultiprocessor,
	}, ""
}
