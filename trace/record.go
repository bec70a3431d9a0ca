// Package trace holds the gpureplay trace schema and its two encodings: the
// compact binary stream (*.trace.zst) that tools exchange, and the JSONL form
// that people read and tests are written in. Both encodings carry exactly the
// same records, so a trace converts losslessly either way.
//
// A trace is read as a stream: Reader.Next returns one record at a time and
// keeps only the little state the encoding needs, so a trace of any length
// can be replayed in memory proportional to the work in flight.
package trace

import "fmt"

// Version is the trace format version this package writes and reads. A
// header naming another version is rejected, so an old binary never guesses
// at a newer layout.
const Version = 1

// DefaultPageBytes is the page size a header without page_bytes implies
// (the page size CRCS reference-counts at).
const DefaultPageBytes = 4096

// Kind tells records apart without a type switch, and is also the record tag
// in the binary encoding, so its values must never be renumbered.
type Kind uint8

// The record kinds, in the order docs/design.md §2 lists them.
const (
	KindHeader Kind = iota + 1
	KindBuffer
	KindMemcpy
	KindKernel
	KindLaunch
	KindCTA
	KindAccess
	KindPages
	KindSync
)

var kindNames = [...]string{
	KindHeader: "header",
	KindBuffer: "buffer",
	KindMemcpy: "memcpy",
	KindKernel: "kernel",
	KindLaunch: "launch",
	KindCTA:    "cta",
	KindAccess: "access",
	KindPages:  "pages",
	KindSync:   "sync",
}

// String returns the record type name used in JSONL and in error messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// KindOf maps a JSONL "type" value back to its Kind; ok is false for a name
// the schema does not have.
func KindOf(name string) (k Kind, ok bool) {
	for i, n := range kindNames {
		if n == name && n != "" {
			return Kind(i), true
		}
	}
	return 0, false
}

// Record is any one trace record. The concrete types are the pointer types
// below; callers switch on Kind or on the type.
type Record interface {
	Kind() Kind
}

// Header is the first record of every trace. It fixes the time base (trace
// cycles are in clock_mhz) and, for imported traces, what is known of the GPU
// the program was captured on so `--gpu=captured` can replay on it.
type Header struct {
	Version   int               `json:"version"`
	ClockMHz  float64           `json:"clock_mhz"`
	PageBytes int64             `json:"page_bytes,omitempty"`
	Source    string            `json:"source,omitempty"`
	GPU       string            `json:"gpu,omitempty"`
	GPUSpec   *GPUSpec          `json:"gpu_spec,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	// OrderedTrees declares that each launch tree is written host CTA by
	// host CTA (docs/trace-format.md, "Order", rule 4), which lets a replay
	// read a host CTA's subtree only when that CTA is placed. The validator
	// holds a trace that declares it to the rule.
	OrderedTrees bool `json:"ordered_trees,omitempty"`
}

// GPUSpec is what an importer knows of the captured GPU; zero fields are
// unknown.
type GPUSpec struct {
	SMs             int     `json:"sms,omitempty"`
	ClockMHz        float64 `json:"clock_mhz,omitempty"`
	MaxCTAsPerSM    int     `json:"max_ctas_per_sm,omitempty"`
	MaxThreadsPerSM int     `json:"max_threads_per_sm,omitempty"`
	RegsPerSM       int     `json:"regs_per_sm,omitempty"`
	SmemPerSM       int64   `json:"smem_per_sm,omitempty"`
	MaxKernels      int     `json:"max_kernels,omitempty"`
}

// Role says which host stages touch a buffer: input/inout are filled by the
// host before use, output/inout are read back afterwards.
type Role string

// The buffer roles of docs/design.md §2.
const (
	RoleInput  Role = "input"
	RoleOutput Role = "output"
	RoleInOut  Role = "inout"
	RoleTemp   Role = "temp"
)

// Buffer is one device allocation, the unit the host I/O model moves.
type Buffer struct {
	ID    uint64 `json:"id"`
	Name  string `json:"name,omitempty"`
	Base  uint64 `json:"base"`
	Bytes int64  `json:"bytes"`
	Role  Role   `json:"role"`
}

// Direction of an explicit host copy.
const (
	DirH2D = "h2d"
	DirD2H = "d2h"
)

// Memcpy is an explicit host copy, in program order.
//
// Blocking and Pageable say which call it was and what host memory it
// used, and so whether the host waits for it (CUDA Runtime API, "API
// synchronization behavior"; Blocks). Ret is when the call returned in
// the capture, which the host's later calls are measured from (0: at T).
// All three absent is a cudaMemcpyAsync from pinned memory, what every
// trace written before the fields existed means.
type Memcpy struct {
	Dir      string `json:"dir"`
	Buffer   uint64 `json:"buffer"`
	Bytes    int64  `json:"bytes"`
	Stream   uint64 `json:"stream"`
	T        int64  `json:"t"`
	Blocking bool   `json:"blocking,omitempty"` // cudaMemcpy, not cudaMemcpyAsync
	Pageable bool   `json:"pageable,omitempty"` // the host side is pageable memory
	Ret      int64  `json:"ret,omitempty"`
}

// Blocks reports whether the calling host thread waits for the copy to
// complete. The CUDA Runtime API ("API synchronization behavior"): a
// synchronous cudaMemcpy from device to host "returns only once the copy
// has completed", and from pinned host memory "is synchronous with
// respect to the host"; an asynchronous one to pageable host memory
// "will return only once the copy has completed", and from it "a stream
// sync is performed before the copy is initiated" and it returns once
// the buffer is staged, which the copy's own transfer stands for. Only an
// asynchronous copy of pinned memory returns at once.
func (m *Memcpy) Blocks() bool { return m.Blocking || m.Pageable }

// Returned is when the call returned in the capture: Ret, or T where Ret
// is absent or earlier.
func (m *Memcpy) Returned() int64 { return max(m.T, m.Ret) }

// Kernel declares a grid's shape. Resource use per CTA (threads, registers,
// shared memory) decides how many of its CTAs fit on an SM.
type Kernel struct {
	ID    uint64    `json:"id"`
	Name  string    `json:"name"`
	Grid  [3]uint32 `json:"grid"`
	Block [3]uint32 `json:"block"`
	Regs  int       `json:"regs"`
	Smem  int64     `json:"smem"`
}

// CTAs is the number of thread blocks in the grid.
func (k *Kernel) CTAs() uint64 {
	return uint64(k.Grid[0]) * uint64(k.Grid[1]) * uint64(k.Grid[2])
}

// Threads is the number of threads per CTA.
func (k *Kernel) Threads() int {
	return int(k.Block[0]) * int(k.Block[1]) * int(k.Block[2])
}

// Launch says who started a kernel and when. A host launch has Parent nil and
// uses T and Stream; a device launch (a launch site) has Parent set and uses
// Workload and InlineCycles, which let a policy inline the child instead.
type Launch struct {
	Kernel       uint64   `json:"kernel"`
	T            int64    `json:"t"`
	Stream       uint64   `json:"stream"`
	Parent       *Parent  `json:"parent,omitempty"`
	Workload     int64    `json:"workload"`
	InlineCycles int64    `json:"inline_cycles"`
	After        []uint64 `json:"after,omitempty"`
	// DeviceStream is the stream a device launch goes into; Stream is
	// then the id of a created stream (unique within the launching CTA),
	// and CreatesStream says the launching thread created that stream
	// just before this launch. Zero (OwnStream) is what every trace
	// written before the field existed means: a stream of the child's own.
	DeviceStream  DeviceStream `json:"stream_kind,omitempty"`
	CreatesStream bool         `json:"creates_stream,omitempty"`
}

// DeviceStream says which stream a device launch goes into (CUDA
// Programming Guide, "Streams" under dynamic parallelism; SPAWN §II-B:
// "If the application does not specify c_stream, each parent CTA assigns
// the same SWQ ID to all its child kernels").
type DeviceStream uint8

const (
	// OwnStream: a stream of the child's own, created by its launching
	// warp (the meaning of a trace that does not say).
	OwnStream DeviceStream = iota
	// CTAStream: the launching CTA's default (NULL) stream, shared by
	// every launch of the CTA that names no stream: they run in order.
	CTAStream
	// CreatedStream: a stream the CTA created (cudaStreamCreateWithFlags),
	// Launch.Stream its id within the CTA: its launches run in order.
	CreatedStream
	// TailStream: cudaStreamTailLaunch (CUDA 12): the child starts when
	// the launching grid and its other work have completed, in order
	// among the grid's tail launches.
	TailStream
	// FireAndForgetStream: cudaStreamFireAndForget (CUDA 12): the child
	// starts at once, ordered with nothing.
	FireAndForgetStream
	numDeviceStreams
)

var deviceStreamNames = [numDeviceStreams]string{"own", "cta", "created", "tail", "fire_and_forget"}

// String is the name JSONL uses ("own", "cta", "created", "tail",
// "fire_and_forget").
func (s DeviceStream) String() string {
	if s < numDeviceStreams {
		return deviceStreamNames[s]
	}
	return fmt.Sprintf("DeviceStream(%d)", uint8(s))
}

// ParseDeviceStream is the DeviceStream named s.
func ParseDeviceStream(s string) (DeviceStream, error) {
	for i, n := range deviceStreamNames {
		if n == s {
			return DeviceStream(i), nil
		}
	}
	return 0, fmt.Errorf("unknown stream_kind %q (want own, cta, created, tail or fire_and_forget)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s DeviceStream) MarshalText() ([]byte, error) {
	if s >= numDeviceStreams {
		return nil, fmt.Errorf("unknown device stream %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *DeviceStream) UnmarshalText(b []byte) error {
	v, err := ParseDeviceStream(string(b))
	*s = v
	return err
}

// Host reports whether the host (not a device thread) launched the kernel.
func (l *Launch) Host() bool { return l.Parent == nil }

// Parent locates a device launch site: lane Lane of warp Warp of CTA CTA of
// kernel Kernel reaches the launch At cycles into the warp's own execution.
type Parent struct {
	Kernel uint64 `json:"kernel"`
	CTA    uint64 `json:"cta"`
	Warp   int    `json:"warp"`
	Lane   int    `json:"lane"`
	At     int64  `json:"at"`
}

// CTA is one thread block's execution cost, excluding launch-site work.
//
// Insts and DRAMBytes are its demand on shared hardware, for the
// contention model: the warp instructions it issues in all and the bytes
// it moves between the SMs and DRAM, over its Cycles alone on an idle GPU.
// Zero (absent) means no demand recorded: the CTA neither slows nor is
// slowed by the CTAs beside it, as every CTA was before the fields existed.
type CTA struct {
	Kernel     uint64  `json:"kernel"`
	CTA        uint64  `json:"cta"`
	Cycles     int64   `json:"cycles"`
	WarpCycles []int64 `json:"warp_cycles,omitempty"`
	Insts      uint64  `json:"insts,omitempty"`
	DRAMBytes  uint64  `json:"dram_bytes,omitempty"`
}

// HasDemand reports whether the CTA records any demand on shared hardware.
func (c *CTA) HasDemand() bool { return c.Insts != 0 || c.DRAMBytes != 0 }

// Access modes.
const (
	ModeRead      = "r"
	ModeWrite     = "w"
	ModeReadWrite = "rw"
)

// Access is a conservative byte range [Lo, Hi] of a buffer that a CTA may
// touch: what the CRCS profiler computes from a kernel's index arithmetic.
// At is where in the CTA's run it first touches the range: cycles into
// its own run (of its cycles, alone on the GPU), 0 at its start.
type Access struct {
	Kernel uint64 `json:"kernel"`
	CTA    uint64 `json:"cta"`
	Buffer uint64 `json:"buffer"`
	Lo     uint64 `json:"lo"`
	Hi     uint64 `json:"hi"`
	Mode   string `json:"mode"`
	At     int64  `json:"at,omitempty"`
}

// Pages lists the exact pages a CTA read and wrote: what a full trace
// shows. At is where in the CTA's run it first touches them, as Access's;
// a CTA whose pages it touches at several points has one record per point.
type Pages struct {
	Kernel uint64   `json:"kernel"`
	CTA    uint64   `json:"cta"`
	Buffer uint64   `json:"buffer"`
	R      []uint64 `json:"r,omitempty"`
	W      []uint64 `json:"w,omitempty"`
	At     int64    `json:"at,omitempty"`
}

// SyncOp is what a sync record's host call does.
type SyncOp uint8

// The synchronisation calls a trace carries: three that block the host
// until GPU work completes, and the two that order streams by events.
const (
	// SyncDevice: cudaDeviceSynchronize (a context sync): the host waits
	// for every operation issued before it, on every stream.
	SyncDevice SyncOp = iota + 1
	// SyncStream: cudaStreamSynchronize(Stream): the host waits for the
	// operations issued before it on Stream.
	SyncStream
	// SyncEvent: cudaEventSynchronize(Event): the host waits for what
	// Event's stream held when the event was last recorded.
	SyncEvent
	// EventRecord: cudaEventRecord(Event, Stream): the event completes
	// once the operations issued before it on Stream have.
	EventRecord
	// StreamWait: cudaStreamWaitEvent(Stream, Event): Stream's next
	// operation waits for Event's last record to complete; the host
	// does not wait.
	StreamWait
	numSyncOps
)

var syncOpNames = [numSyncOps]string{"", "device", "stream", "event", "record", "wait"}

// String is the name JSONL uses.
func (o SyncOp) String() string {
	if o > 0 && o < numSyncOps {
		return syncOpNames[o]
	}
	return fmt.Sprintf("SyncOp(%d)", uint8(o))
}

// ParseSyncOp is the SyncOp named s.
func ParseSyncOp(s string) (SyncOp, error) {
	for i, n := range syncOpNames {
		if i > 0 && n == s {
			return SyncOp(i), nil
		}
	}
	return 0, fmt.Errorf("unknown sync op %q (want device, stream, event, record or wait)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (o SyncOp) MarshalText() ([]byte, error) {
	if o == 0 || o >= numSyncOps {
		return nil, fmt.Errorf("unknown sync op %d", uint8(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *SyncOp) UnmarshalText(b []byte) error {
	v, err := ParseSyncOp(string(b))
	*o = v
	return err
}

// Blocks reports whether the host waits at the call: device, stream and
// event syncs do; an event record or a stream wait does not.
func (o SyncOp) Blocks() bool { return o == SyncDevice || o == SyncStream || o == SyncEvent }

// Sync is a host call that synchronises: the host waiting for the GPU
// (Op device, stream or event) or an event recorded into a stream or
// waited for by one. It is a host operation, in program order with the
// launches and copies, issued at T. Stream is the stream of a stream
// sync, a record or a wait; Event the event of an event sync, a record
// or a wait. Ret is when a blocking call returned in the capture (0: at
// T): the host's later calls are measured from it, so they move when the
// replay's GPU releases the call earlier or later.
type Sync struct {
	Op     SyncOp `json:"op"`
	Stream uint64 `json:"stream,omitempty"`
	Event  uint64 `json:"event,omitempty"`
	T      int64  `json:"t"`
	Ret    int64  `json:"ret,omitempty"`
}

// Returned is when the call returned in the capture: Ret, or T where Ret
// is absent or earlier.
func (s *Sync) Returned() int64 { return max(s.T, s.Ret) }

// Kind methods make every record type a Record.
func (*Header) Kind() Kind { return KindHeader }
func (*Buffer) Kind() Kind { return KindBuffer }
func (*Memcpy) Kind() Kind { return KindMemcpy }
func (*Kernel) Kind() Kind { return KindKernel }
func (*Launch) Kind() Kind { return KindLaunch }
func (*CTA) Kind() Kind    { return KindCTA }
func (*Access) Kind() Kind { return KindAccess }
func (*Pages) Kind() Kind  { return KindPages }
func (*Sync) Kind() Kind   { return KindSync }

// Source is anything that yields records in trace order: the binary and
// JSONL readers, a validating wrapper, or a slice in a test. Next returns
// io.EOF after the last record.
type Source interface {
	Next() (Record, error)
}

// Sink is anything that accepts records in trace order: the binary and JSONL
// writers, or a slice in a test.
type Sink interface {
	Write(Record) error
}
