package nsys

import (
	"fmt"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// Summary is what a conversion made and what it left out, for the
// command's report.
type Summary struct {
	GPU      string  // the captured device's name
	Device   int64   // its CUDA device id
	ClockMHz float64 // the clock times were converted at
	Clock    string  // where the clock came from
	Kernels  int     // kernel records written
	CTAs     int64   // cta records written
	Memcpys  int     // memcpy (and buffer) records written
	Syncs    int     // sync records written
	// Unused counts the rows of the tables the importer reads that became
	// no record, by category: "kernel (other device)", "memcpy:<copy
	// kind>" for copies the trace format cannot express
	// ("memcpy:Device-to-Device"), "memset", "synchronization:<sync
	// type>", "cuda_event (other device)", "runtime:<function>" for API
	// calls no GPU activity points at ("runtime:cudaMalloc"), and the
	// like. Tables the importer does not read (NVTX, OS runtime, ...) are
	// not counted.
	Unused map[string]int
}

// String is the one-line report replay convert prints.
func (s Summary) String() string {
	line := fmt.Sprintf("nsys: %d kernels, %d CTAs, %d memcpys, %d syncs on %s (device %d) at %g MHz (%s)",
		s.Kernels, s.CTAs, s.Memcpys, s.Syncs, s.GPU, s.Device, s.ClockMHz, s.Clock)
	if u := profile.NotConverted(s.Unused); u != "" {
		line += "; " + u
	}
	return line
}

// Convert reads the Nsight Systems SQLite export at path (nsys export
// --type sqlite) read-only and writes one device's kernels and copies to
// out as trace records, in host launch order. Errors in the report are
// *Error; errors from out come back as they are.
func Convert(path string, out trace.Sink, o Options) (Summary, error) {
	r, err := openReport(path)
	if err != nil {
		return Summary{}, err
	}
	defer r.close()
	if err := r.check(); err != nil {
		return Summary{}, err
	}
	dev, err := r.pickDevice(o)
	if err != nil {
		return Summary{}, err
	}
	gpu, err := r.capturedGPU(dev, o)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{GPU: gpu.Name, Device: dev, ClockMHz: gpu.Spec.ClockMHz, Clock: gpu.Clock, Unused: map[string]int{}}
	c := &converter{r: r, out: out, o: o, dev: dev, gpu: gpu, sum: &sum, streams: newStreamIDs(), events: newStreamIDs(),
		used: map[uint64]bool{}, recorded: map[uint64]bool{}}
	if c.eventOf, err = r.eventIDs(dev); err != nil {
		return sum, err
	}
	if c.pageable, err = r.pageableKind(); err != nil {
		return sum, err
	}
	if err := c.convert(); err != nil {
		return sum, err
	}
	r.sorted, r.launchT = nil, nil // the walk's; countUnused reads the tables afresh
	return sum, r.countUnused(dev, sum.Unused)
}
