package profile

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/trace"
)

// a100 is the occupancy model of an A100: 108 SMs of 32 CTAs, 2048
// threads, 64 Ki registers and 164 KiB shared memory.
var a100 = model.GPU{SMs: 108, ClockMHz: 1410, MaxCTAsPerSM: 32, MaxThreadsPerSM: 2048, RegsPerSM: 65536, SmemPerSM: 167936}

func TestCTACycles(t *testing.T) {
	kernel := func(ctas uint32, threads uint32, regs int, smem int64) *trace.Kernel {
		return &trace.Kernel{ID: 1, Name: "k", Grid: [3]uint32{ctas, 1, 1}, Block: [3]uint32{threads, 1, 1}, Regs: regs, Smem: smem}
	}
	for _, tc := range []struct {
		name string
		k    *trace.Kernel
		dur  int64
		want int64
	}{
		{"one wave", kernel(216, 256, 32, 4096), 42300, 42300},      // 8 per SM by threads: 864 slots
		{"two waves", kernel(2000, 128, 16, 0), 28200, 14100},       // 16 per SM by threads: 1728 slots
		{"rounds to nearest", kernel(3457, 1024, 0, 0), 100, 6},     // 2 per SM: 216 slots, 17 waves; 100/17 = 5.9
		{"by shared memory", kernel(109, 32, 0, 100000), 1000, 500}, // 1 per SM: two waves
		{"negative duration", kernel(1, 32, 0, 0), -5, 0},
		{"huge duration", kernel(1, 32, 0, 0), 1<<63 - 1, 1 << 62},
	} {
		got, err := CTACycles(a100, tc.k, tc.dur)
		if err != nil || got != tc.want {
			t.Errorf("%s: CTACycles = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	if _, err := CTACycles(a100, kernel(1, 32, 0, 200000), 1); err == nil || err.Error() != "does not fit on an SM of the captured GPU (smem limit)" {
		t.Errorf("a CTA larger than an SM: err = %v", err)
	}
	if _, err := CTACycles(model.GPU{}, kernel(1, 32, 0, 0), 1); err == nil || !strings.Contains(err.Error(), "0 SMs") {
		t.Errorf("a GPU without SMs: err = %v", err)
	}
}

// sink is a trace.Sink that keeps its records and fails after limit.
type sink struct {
	recs  []trace.Record
	limit int
}

var errFull = errors.New("full")

func (s *sink) Write(r trace.Record) error {
	if len(s.recs) == s.limit {
		return errFull
	}
	s.recs = append(s.recs, r)
	return nil
}

func TestWriteKernel(t *testing.T) {
	k := &trace.Kernel{ID: 7, Name: "k", Grid: [3]uint32{2, 3, 1}, Block: [3]uint32{32, 1, 1}}
	l := &trace.Launch{Kernel: 7, T: 99, Stream: 3}
	s := &sink{limit: 100}
	n, err := WriteKernel(s, k, l, 1234)
	if err != nil || n != 6 || len(s.recs) != 8 || s.recs[0] != k || s.recs[1] != l {
		t.Fatalf("WriteKernel = %d, %v; records %v", n, err, s.recs)
	}
	for i, r := range s.recs[2:] {
		if c := r.(*trace.CTA); c.Kernel != 7 || c.CTA != uint64(i) || c.Cycles != 1234 {
			t.Errorf("cta record %d = %+v", i, c)
		}
	}
	for limit := range 5 {
		if _, err := WriteKernel(&sink{limit: limit}, k, l, 1); err != errFull {
			t.Errorf("sink failing after %d records: err = %v", limit, err)
		}
	}
}

// TestWriteKernelChunks writes a grid past two chunks of cta records
// (ctaChunk) to a sink that keeps them: each record stays its own, with
// its CTA, after the chunk it came from is used up.
func TestWriteKernelChunks(t *testing.T) {
	k := &trace.Kernel{ID: 3, Name: "k", Grid: [3]uint32{2*ctaChunk + 5, 1, 1}, Block: [3]uint32{32, 1, 1}}
	s := &sink{limit: 1 << 20}
	n, err := WriteKernel(s, k, &trace.Launch{Kernel: 3}, 77)
	if err != nil || n != 2*ctaChunk+5 || len(s.recs) != int(n)+2 {
		t.Fatalf("WriteKernel = %d, %v; %d records", n, err, len(s.recs))
	}
	seen := map[*trace.CTA]bool{}
	for i, r := range s.recs[2:] {
		c := r.(*trace.CTA)
		if c.Kernel != 3 || c.CTA != uint64(i) || c.Cycles != 77 || seen[c] {
			t.Fatalf("cta record %d = %+v (seen before: %v)", i, c, seen[c])
		}
		seen[c] = true
	}
}
