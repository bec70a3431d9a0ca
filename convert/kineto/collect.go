package kineto

import (
	"encoding/json"
	"strings"
)

// launchArgs are the args of kernel, memcpy and runtime events that the
// importer reads. ROCm traces put grid, block and shared memory on the
// hipLaunchKernel runtime event, under either these names or the
// roctracer ones ("grid dim", "block dim", "shared size"), and a copy's
// size on its hipMemcpy* call ("size" from roctracer, "bytes" as a string
// from rocprofiler), not on the gpu_memcpy event; kind is the copy's
// direction, "HtoD"/"DtoH" on a ROCm gpu_memcpy event and hipMemcpyKind's
// number on its call.
type launchArgs struct {
	Device      ident `json:"device"`
	Stream      ident `json:"stream"`
	Correlation ident `json:"correlation"`
	Grid        dim3  `json:"grid"`
	GridDim     dim3  `json:"grid dim"`
	Block       dim3  `json:"block"`
	BlockDim    dim3  `json:"block dim"`
	Regs        ident `json:"registers per thread"`
	Smem        ident `json:"shared memory"`
	SharedSize  ident `json:"shared size"`
	Bytes       ident `json:"bytes"`
	Size        ident `json:"size"`
	Kind        ident `json:"kind"`
	// A cuda_sync event's: the stream a recorded event was on, the
	// correlation of its cudaEventRecord call, and the event's id (CUPTI's
	// event id; PyTorch 2.11 writes only this one, the other two −1).
	WaitStream ident `json:"wait_on_stream"`
	RecordCorr ident `json:"wait_on_cuda_event_record_corr_id"`
	EventID    ident `json:"wait_on_cuda_event_id"`
}

// gpuOp is a kernel or memcpy event of the GPU timeline.
type gpuOp struct {
	index  int // event index
	offset int64
	copy   bool // a gpu_memcpy, not a kernel
	name   string
	ts     int64 // ns
	dur    int64 // ns
	device ident
	stream ident
	corr   ident
	args   launchArgs
	call   *hostCall // the matching runtime/driver call, once matched
	order  orderKey  // its place in program order (programOrder)
	t      int64     // the record's t in cycles, once scheduled
}

// hostCall is a cuda_runtime or cuda_driver event: the host side of a
// launch or copy, found again by its correlation id.
type hostCall struct {
	key  string // cat:name, for the unused-event count
	name string
	tid  ident // the host thread
	ts   int64
	dur  int64 // ns; 0 where the event has none
	args launchArgs
	op   *gpuOp     // the (first) GPU op it issued, once matched
	sync *syncEvent // its cuda_sync event, once matched (syncs.go)
	used bool
	// concurrent: another host thread issued GPU work of the converted
	// device while this call ran (syncs.go, markConcurrent).
	concurrent bool
}

// capture is what a pass over traceEvents gathers: every GPU op (kernels
// and copies, in file order), the host calls by correlation id, the
// device properties, and the count of events that play no part.
type capture struct {
	ops   []*gpuOp
	calls map[ident]*hostCall
	syncs []*syncEvent // cuda_sync events, in file order
	// memsets are the start and end (ns) of each gpu_memset event, by
	// device: GPU activity the launch measurement must see
	// (measure.go), though no record is written for them.
	memsets map[ident][][2]int64
	props   map[ident]*deviceProps
	unused  map[string]int
}

func newCapture() *capture {
	return &capture{calls: map[ident]*hostCall{}, memsets: map[ident][][2]int64{}, props: map[ident]*deviceProps{}, unused: map[string]int{}}
}

// hostCats are the categories of host API events a GPU op's correlation
// id points at.
var hostCats = map[string]bool{"cuda_runtime": true, "cuda_driver": true, "hip_runtime": true}

// legacyCats maps the categories of PyTorch 1.8 and 1.9 (2021), before
// Kineto's lowercase ones (PyTorch 1.10), to these: the TensorBoard
// plugin's ResNet-50 samples (pytorch/kineto tb_plugin/samples) have
// "Kernel", "Memcpy", "Runtime", "Memset" and "Operator" events. Only
// the three the importer reads are renamed, so unmatched Runtime calls
// are counted as unused under cuda_runtime; the others keep the trace's
// own names.
var legacyCats = map[string]string{"Kernel": "kernel", "Memcpy": "gpu_memcpy", "Runtime": "cuda_runtime"}

// add files one event; bad is called for an event the importer needs but
// cannot read.
func (p *capture) add(i int, off int64, ev *event) *Error {
	if c, ok := legacyCats[ev.Cat]; ok {
		ev.Cat = c
	}
	switch {
	case ev.Ph == "X" && (ev.Cat == "kernel" || ev.Cat == "gpu_memcpy"):
		return p.addOp(i, off, ev)
	case ev.Ph == "X" && ev.Cat == "cuda_sync":
		return p.addSync(i, off, ev)
	case ev.Ph == "X" && ev.Cat == "gpu_memset":
		p.unused[ev.Cat]++
		var a launchArgs
		if ev.Ts.set && ev.Dur.set && ev.Dur.ns >= 0 && unmarshalArgs(ev.Args, &a) == nil {
			dev := a.Device
			if dev == "" {
				dev = ev.Pid
			}
			p.memsets[dev] = append(p.memsets[dev], [2]int64{ev.Ts.ns, ev.Ts.ns + ev.Dur.ns})
		}
	case ev.Ph == "X" && hostCats[ev.Cat]:
		var a launchArgs
		if err := unmarshalArgs(ev.Args, &a); err != nil || a.Correlation == "" {
			p.unused[ev.Cat+":"+ev.Name]++
			return nil
		}
		if _, dup := p.calls[a.Correlation]; dup {
			p.unused[ev.Cat+":"+ev.Name]++
			return nil
		}
		p.calls[a.Correlation] = &hostCall{key: ev.Cat + ":" + ev.Name, name: ev.Name, tid: ev.Tid, ts: ev.Ts.ns, dur: max(ev.Dur.ns, 0), args: a}
	default:
		p.unused[category(ev)]++
	}
	return nil
}

// addOp files a kernel or memcpy event.
func (p *capture) addOp(i int, off int64, ev *event) *Error {
	op := &gpuOp{index: i, offset: off, copy: ev.Cat == "gpu_memcpy", name: ev.Name, ts: ev.Ts.ns, dur: ev.Dur.ns}
	if err := unmarshalArgs(ev.Args, &op.args); err != nil {
		return &Error{Event: i, Offset: off, Msg: ev.Cat + " " + quote(ev.Name) + ": bad args", Err: err}
	}
	switch {
	case !ev.Ts.set || !ev.Dur.set:
		return &Error{Event: i, Offset: off, Msg: ev.Cat + " " + quote(ev.Name) + " has no ts or no dur"}
	case ev.Dur.ns < 0:
		return &Error{Event: i, Offset: off, Msg: ev.Cat + " " + quote(ev.Name) + " has a negative dur"}
	}
	op.device, op.stream, op.corr = op.args.Device, op.args.Stream, op.args.Correlation
	if op.device == "" {
		op.device = ev.Pid
	}
	if op.stream == "" {
		op.stream = ev.Tid
	}
	p.ops = append(p.ops, op)
	return nil
}

// unmarshalArgs decodes an event's args; absent args decode as empty.
func unmarshalArgs(raw json.RawMessage, a *launchArgs) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, a)
}

// category names an event for the unused count: its cat, or its phase
// for events without one (metadata "M", flow "s"/"f", instant "i").
func category(ev *event) string {
	if ev.Cat != "" {
		return ev.Cat
	}
	return "ph=" + ev.Ph
}

// unusedCalls adds the host calls no GPU op claimed to the unused count.
func (p *capture) unusedCalls() {
	for _, c := range p.calls {
		if !c.used {
			p.unused[c.key]++
		}
	}
}

// unusedSyncEvents adds the cuda_sync events no converted sync uses to
// the unused count, as "cuda_sync".
func (p *capture) unusedSyncEvents() {
	for _, s := range p.syncs {
		if !s.used {
			p.unused["cuda_sync"]++
		}
	}
}

// quote shortens and quotes a kernel name for a message: C++ template
// names run to hundreds of characters.
func quote(name string) string {
	if len(name) > 80 {
		name = name[:77] + "..."
	}
	return `"` + strings.ToValidUTF8(name, "?") + `"`
}
