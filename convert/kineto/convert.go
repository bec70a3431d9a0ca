package kineto

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/trace"
)

// Summary is what a conversion made and what it left out, for the
// command's report.
type Summary struct {
	GPU      string  // the captured device's name
	ClockMHz float64 // the clock times were converted at
	Clock    string  // where the clock came from
	Kernels  int     // kernel records written
	CTAs     int64   // cta records written
	Memcpys  int     // memcpy (and buffer) records written
	Syncs    int     // sync records written
	// Overlapping counts the kernels that started while a kernel of
	// another stream was running. They shared the GPU, which the per-CTA
	// estimate does not know, so their CTAs come out too short and a
	// replay need not reproduce the profile's timeline.
	Overlapping int
	// Uncalled counts the kernels and copies converted that the profile
	// shows no host call for: issued before the profile began (Kineto
	// drops the calls of its warm-up and keeps their GPU events) or with
	// their calls lost. Each is placed in program order by its stream and
	// its GPU start (see programOrder).
	Uncalled int
	// Unused counts the events that became no record, by category: the
	// event's cat ("cpu_op", "ac2g", "cuda_sync", "gpu_memset"), cat:name
	// for host calls no GPU event points at ("cuda_runtime:cudaEventRecord")
	// and for copies the trace format cannot express
	// ("gpu_memcpy:Memcpy DtoD (Device -> Device)"), "ph=M" and the like
	// for events without a category, and "kernel (other device)".
	Unused map[string]int
}

// String is the one-line report replay convert prints.
func (s Summary) String() string {
	syncs := ""
	if s.Syncs > 0 {
		syncs = fmt.Sprintf(", %d syncs", s.Syncs)
	}
	line := fmt.Sprintf("kineto: %d kernels, %d CTAs, %d memcpys%s on %s at %g MHz (%s)",
		s.Kernels, s.CTAs, s.Memcpys, syncs, s.GPU, s.ClockMHz, s.Clock)
	if s.Overlapping > 0 {
		line += fmt.Sprintf("; %d kernels overlapped another stream's (their CTA estimate assumes the whole GPU)", s.Overlapping)
	}
	if s.Uncalled > 0 {
		line += fmt.Sprintf("; %d kernels and copies had no host call (issued before the profile began, or the call was lost; placed by their streams)", s.Uncalled)
	}
	if u := profile.NotConverted(s.Unused); u != "" {
		line += "; " + u
	}
	return line
}

// Convert reads the Kineto trace at path (JSON, or gzip-compressed JSON
// whatever its name) and writes it to out as trace records.
// Errors in the input are *Error; errors from out come back as they are.
func Convert(path string, out trace.Sink, o Options) (Summary, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return Summary{}, &Error{File: path, Event: -1, Offset: -1, Msg: "opening the trace", Err: err}
	}
	defer f.Close()
	return Read(f, path, out, o)
}

// Read is Convert on a reader; name is used in errors and the header's
// meta. Gzip input is recognised by its magic number.
func Read(r io.Reader, name string, out trace.Sink, o Options) (Summary, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Summary{}, &Error{File: name, Event: -1, Offset: 0, Msg: "reading gzip", Err: err}
		}
		defer zr.Close()
		in = zr
	}
	p, err := readCapture(in, name)
	if err != nil {
		return Summary{}, err
	}
	pl, err := makePlan(name, p, o)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{GPU: pl.gpu.Name, ClockMHz: pl.gpu.Spec.ClockMHz, Clock: pl.gpu.Clock, Overlapping: pl.overlapping(), Uncalled: pl.uncalled, Unused: pl.unused}
	w := &writer{pl: pl, out: out, sum: &sum}
	return sum, w.write()
}

// readCapture streams the document and gathers its GPU ops, host calls
// and device properties.
func readCapture(in io.Reader, name string) (*capture, error) {
	p := newCapture()
	d := &decoder{file: name, dec: json.NewDecoder(in)}
	d.event = func(i int, ev *event) error {
		if err := p.add(i, d.dec.InputOffset(), ev); err != nil {
			err.File = name
			return err
		}
		return nil
	}
	d.props = func(dp *deviceProps) {
		if _, dup := p.props[dp.ID]; !dup {
			p.props[dp.ID] = dp
		}
	}
	if err := d.document(); err != nil {
		return nil, err
	}
	return p, nil
}
