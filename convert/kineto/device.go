package kineto

import (
	"github.com/gpureplay/gpureplay/model"
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

// maxCTAsPerSM is the CUDA programming guide's "maximum number of resident
// blocks per SM" by compute capability (major*10+minor), for the
// deviceProperties that do not carry maxBlocksPerMultiProcessor.
var maxCTAsPerSM = map[int]int{
	30: 16, 32: 16, 35: 16, 37: 16, 50: 32, 52: 32, 53: 32, 60: 32,
	61: 32, 62: 32, 70: 32, 72: 32, 75: 16, 80: 32, 86: 16, 87: 16,
	89: 24, 90: 32, 100: 32,
}

// defaultMaxCTAsPerSM is assumed for a compute capability the table does
// not list (the limit of most architectures since Maxwell).
const defaultMaxCTAsPerSM = 32

// spec is the header's gpu_spec for p at clockMHz; missing names the first
// limit deviceProperties lacks, which the wave estimate needs.
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
		ctas = maxCTAsPerSM[p.ComputeMajor*10+p.ComputeMinor]
	}
	if ctas <= 0 {
		ctas = defaultMaxCTAsPerSM
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

// gpu is the occupancy model of a spec, for the wave estimate.
func gpu(s *trace.GPUSpec) model.GPU {
	return model.GPU{
		SMs:             s.SMs,
		ClockMHz:        s.ClockMHz,
		MaxCTAsPerSM:    s.MaxCTAsPerSM,
		MaxThreadsPerSM: s.MaxThreadsPerSM,
		RegsPerSM:       s.RegsPerSM,
		SmemPerSM:       s.SmemPerSM,
	}
}
