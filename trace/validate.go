package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/gpureplay/gpureplay/internal/idtab"
)

// Validator is a Source that passes another Source's records through
// unchanged and stops with a *Error at the first record that breaks the
// schema's rules (docs/design.md §2): references to undeclared buffers or kernels,
// values out of range, records out of order.
//
// On top of docs/design.md's order it enforces the streaming rule that lets a replay
// keep only the work in flight: the records from one host launch up to the
// next host launch form that launch's *tree segment*, and every record of the
// launch tree (the cta, access and pages records of the host-launched kernel,
// the device launches from it and their records, recursively) must lie in
// it. When a segment ends, every kernel launched in it must have had a cta
// record for each of its CTAs. Declarations (buffer, kernel) and memcpy
// and sync records may come anywhere before they are used: copies and
// syncs are host operations, but only a host launch opens a segment.
//
// Its memory is proportional to the current launch tree plus a bit or so per
// declared kernel id and per buffer, never to the length of the trace.
// Host streams and recorded events are kept too, by id (an entry each,
// however many records name one): a capture numbers them by the handle the
// program created, and a program creates a handful of streams and events
// and reuses them, so these are bounded by the trace's distinct streams and
// events, not by its calls. Events are capped at MaxEvents, which no real
// program reaches, so that ids numbered per call cannot grow the map
// without bound.
type Validator struct {
	src   Source
	hosts *hostCheck // the host index check src was, now reading its src (see NewValidator)
	// runner is the Reader that decodes src's runs of cta records (CTAs,
	// PlainCTAs), else nil: asked once here, not at every run, where the
	// type assertion was a runtime call (about 25 instructions) for every
	// child kernel of a launch-heavy trace.
	runner *Reader
	record int64 // records read from src
	err    error // sticky

	header    bool
	pageBytes int64

	buffers  map[uint64]int64     // id → bytes
	declared idSet                // every kernel id declared so far
	pending  idtab.Pending[shape] // declared kernels not yet launched
	host     idSet                // host-launched kernel ids, for after
	streamT  map[uint64]int64     // host stream → its last launch's, copy's, record's, wait's or stream sync's t
	recorded map[uint64]struct{}  // events an event record has named
	tree     idtab.Table[*treeKernel]
	hostK    *treeKernel   // the tree's host-launched kernel
	orderK   *treeKernel   // hostK with ordered_trees (inOrder), else nil
	order    []*treeKernel // the tree's device kernels in launch order, from done on unchecked
	done     int           // order[:done] are checked and forgotten
	reuse    int           // order[reuse:done] are there for newTreeKernel to reuse; order[:reuse] it has
	indexed  int           // order[done:indexed] are in tree, with hostK (see treeGet)
	last     *treeKernel   // the tree kernel looked up last
	treeAt   int64         // record number of the tree's host launch

	// With ordered_trees (rule 4 of docs/trace-format.md): the host CTA
	// the host kernel's records have reached, and the host CTA whose tree
	// the device records are in.
	ordered bool
	hostCTA uint64
	rootCTA uint64

	at   atCheck // access and pages records' at against their CTA's cycles
	same uint64  // of ctaRun's last run, bit i set where record i repeats the one before it (ChildHead.Same)
	// created is the streams the current tree's CTAs have created
	// (createdStream): cleared with the tree, so bounded by its launches
	// into created streams.
	created map[createdKey]creation

	tape *shareReader // a Share's reader: the tape answers (err is errTape)
}

// createdKey names a stream a CTA created: the CTA (its kernel and index)
// and the stream's id within it.
type createdKey struct{ kernel, cta, stream uint64 }

// creation is the launch that created a stream: its kernel and the
// cycle into the CTA's run it was at.
type creation struct {
	kernel uint64
	at     int64
}

// createdStream checks device launch l into a created stream against the
// streams its CTA created before it: a stream is created once, by the
// launch with creates_stream, and used only after (docs/trace-format.md:
// "with creates_stream: true on the launch whose thread created it just
// before"). A stream used before its creation, never created, or created
// twice is a contradiction the replay would otherwise carry out without
// a word (issue 75).
func (v *Validator) createdStream(l *Launch) error {
	p := l.Parent
	key := createdKey{p.Kernel, p.CTA, l.Stream}
	c, ok := v.created[key]
	switch {
	case l.CreatesStream && ok:
		return fmt.Errorf("device launch of kernel %d creates stream %d of CTA %d of kernel %d, which the launch of kernel %d created already; a CTA creates a stream once", l.Kernel, l.Stream, p.CTA, p.Kernel, c.kernel)
	case l.CreatesStream:
		if v.created == nil {
			v.created = make(map[createdKey]creation)
		}
		v.created[key] = creation{l.Kernel, p.At}
	case !ok:
		return fmt.Errorf("device launch of kernel %d into created stream %d of CTA %d of kernel %d, which no launch before it created (creates_stream)", l.Kernel, l.Stream, p.CTA, p.Kernel)
	case p.At < c.at:
		return fmt.Errorf("device launch of kernel %d at %d into created stream %d of CTA %d of kernel %d, before the launch of kernel %d created it at %d", l.Kernel, p.At, l.Stream, p.CTA, p.Kernel, c.kernel, c.at)
	}
	return nil
}

// shape is what the validator keeps of a kernel declaration.
type shape struct {
	ctas  uint64
	warps int
}

// treeKernel is a kernel launched in the current launch tree.
type treeKernel struct {
	id uint64
	shape
	root uint64 // the host CTA whose tree it is in (device kernels)
	seen idSet  // CTAs with a cta record
}

// NewValidator returns a Validator reading from src. Where src has a
// Pos() (record, offset int64) method, and a Line() int64 method, as
// Reader and JSONLReader do, errors carry the position it reports.
//
// A host index check (HostIndex.Check) as src is taken apart: the
// Validator reads the check's source and has the check pass each record
// itself, one call through the Source interface less for every record of
// the replay's body read; records, errors and their positions are the same.
func NewValidator(src Source) *Validator {
	v := &Validator{
		src:      src,
		at:       newAtCheck(),
		buffers:  make(map[uint64]int64),
		streamT:  make(map[uint64]int64),
		recorded: make(map[uint64]struct{}),
	}
	if c, ok := src.(*hostCheck); ok {
		v.src, v.hosts = c.src, c
	}
	// An opened binary file is read through its Reader: the calls the
	// profile devirtualizes name *Reader, where *binaryFile's went
	// through its wrapper (BFS --quick, 5 instructions a CTA).
	if b, ok := v.src.(*binaryFile); ok {
		v.src = b.Reader
	}
	if rr, ok := v.src.(ctaRunner); ok {
		v.runner = rr.runReader()
	}
	return v
}

// Next returns src's next record once it has checked it, or io.EOF after the
// last record of a valid trace. Errors from src are returned as they are.
func (v *Validator) Next() (Record, error) {
	if v.err != nil {
		return v.tapeNext()
	}
	rec, err := v.src.Next()
	if err == nil {
		v.record++
	}
	if v.hosts != nil && err != nil { // a host operation's check is check's
		err = v.hosts.check(rec, err, v.record)
	}
	switch {
	case err == io.EOF:
		if err := v.finish(); err != nil {
			v.err = &Error{Offset: -1, Msg: "at end of trace: " + err.Error()}
			return nil, v.err
		}
		v.err = io.EOF
		return nil, io.EOF
	case err != nil:
		v.err = err
		return nil, err
	}
	if err := v.check(rec); err != nil {
		v.err = v.checkFailed(rec, err)
		return nil, v.err
	}
	return rec, nil
}

// decodeInto passes a Prefetcher's storage on to src (see slab): the
// Validator keeps no record past the next.
func (v *Validator) decodeInto(s *slab) bool { return decodeInto(v.src, s) }

// errorAt places err at the record just read, using src's idea of where that
// is when it has one.
func (v *Validator) errorAt(k Kind, err error) *Error {
	e := &Error{Record: v.record, Offset: -1, Kind: k, Msg: err.Error()}
	if p, ok := v.src.(interface{ Pos() (int64, int64) }); ok {
		e.Record, e.Offset = p.Pos()
	}
	if l, ok := v.src.(interface{ Line() int64 }); ok {
		e.Line = l.Line()
	}
	return e
}

// finish checks what can only be checked at the end of the trace.
func (v *Validator) finish() error {
	if !v.header {
		return errors.New("no header record")
	}
	return v.endTree()
}

func (v *Validator) check(rec Record) error {
	if !v.header {
		if h, ok := rec.(*Header); ok && h != nil {
			return v.checkHeader(h)
		}
		return v.notHeader(rec)
	}
	// One type switch for every record after the header, where a test
	// for a header came first.
	switch r := rec.(type) {
	case *Header:
		if r != nil {
			return v.checkHeader(r)
		}
	case *Buffer:
		if r != nil {
			return v.checkBuffer(r)
		}
	case *Memcpy:
		if r != nil && v.hosts == nil {
			return v.checkMemcpy(r)
		}
	case *Kernel:
		if r != nil {
			return v.checkKernel(r)
		}
	case *Launch:
		if r != nil && (r.Parent != nil || v.hosts == nil) {
			return v.checkLaunch(r)
		}
	case *CTA:
		if r != nil {
			return v.checkCTA(r)
		}
	case *Access:
		if r != nil {
			return v.checkAccess(r)
		}
	case *Pages:
		if r != nil {
			return v.checkPages(r)
		}
	case *Sync:
		if r != nil && v.hosts == nil {
			return v.checkSync(r)
		}
	}
	return v.checkHostOp(rec)
}

// checkHostOp is check for what its switch leaves: a host operation read
// under a host index check, and a nil or unknown record. The host index
// check is asked here, only of host operations, where Next asked whether
// each record was one (BFS --quick: 12 instructions a CTA).
func (v *Validator) checkHostOp(rec Record) error {
	if err := v.hostOp(rec); err != nil {
		return err
	}
	switch r := rec.(type) {
	case *Memcpy:
		if r != nil {
			return v.checkMemcpy(r)
		}
	case *Launch:
		if r != nil {
			return v.checkLaunch(r)
		}
	case *Sync:
		if r != nil {
			return v.checkSync(r)
		}
	}
	return errors.New("nil or unknown record type")
}

// notHeader is check's error for a first record that is not the header,
// once a host operation has passed the host index check.
func (v *Validator) notHeader(rec Record) error {
	if err := v.hostOp(rec); err != nil {
		return err
	}
	return fmt.Errorf("the first record must be the header, not a %s record", kindOf(rec))
}

// hostOp checks rec, the record-th read, against the host index, where
// there is one and rec is a host operation: the check's error is a
// hostOpError, for Next to return as it is.
func (v *Validator) hostOp(rec Record) error {
	if v.hosts == nil || !isHostOp(rec) {
		return nil
	}
	if err := v.hosts.check(rec, nil, v.record); err != nil {
		return hostOpError{err}
	}
	return nil
}

// hostOpError is the host index check's error, which the check has placed
// at its record already: Next returns it unchanged (checkFailed).
type hostOpError struct{ err error }

func (e hostOpError) Error() string { return e.err.Error() }

// checkFailed is what Next returns for check's error err about rec.
func (v *Validator) checkFailed(rec Record, err error) error {
	if h, ok := err.(hostOpError); ok {
		return h.err
	}
	return v.errorAt(kindOf(rec), err)
}

func (v *Validator) checkHeader(h *Header) error {
	switch {
	case v.header:
		return errors.New("second header; the header comes exactly once, first")
	case h.Version != Version:
		return fmt.Errorf("unknown trace version %d (this reader knows version %d)", h.Version, Version)
	case !(h.ClockMHz >= MinClockMHz && h.ClockMHz <= MaxClockMHz):
		return fmt.Errorf("clock_mhz %v must be between %g and %g", h.ClockMHz, float64(MinClockMHz), float64(MaxClockMHz))
	case h.PageBytes < 0 || h.PageBytes&(h.PageBytes-1) != 0:
		return fmt.Errorf("page_bytes %d must be a power of two (or 0 for %d)", h.PageBytes, DefaultPageBytes)
	}
	if s := h.GPUSpec; s != nil {
		if !(s.ClockMHz >= 0) || math.IsInf(s.ClockMHz, 0) {
			return fmt.Errorf("gpu_spec.clock_mhz %v must be a non-negative number", s.ClockMHz)
		}
		for _, f := range []struct {
			name string
			v    int64
		}{
			{"sms", int64(s.SMs)}, {"max_ctas_per_sm", int64(s.MaxCTAsPerSM)},
			{"max_threads_per_sm", int64(s.MaxThreadsPerSM)}, {"regs_per_sm", int64(s.RegsPerSM)},
			{"smem_per_sm", s.SmemPerSM}, {"max_kernels", int64(s.MaxKernels)},
		} {
			if f.v < 0 {
				return fmt.Errorf("gpu_spec.%s %d is negative", f.name, f.v)
			}
		}
	}
	v.header = true
	v.ordered = h.OrderedTrees
	v.pageBytes = h.PageBytes
	if v.pageBytes == 0 {
		v.pageBytes = DefaultPageBytes
	}
	return nil
}

func (v *Validator) checkBuffer(b *Buffer) error {
	if _, dup := v.buffers[b.ID]; dup {
		return fmt.Errorf("buffer %d declared twice", b.ID)
	}
	if b.Bytes <= 0 || b.Bytes > MaxBytes {
		return fmt.Errorf("buffer %d has %d bytes; want 1 to %d (2^46)", b.ID, b.Bytes, int64(MaxBytes))
	}
	switch b.Role {
	case RoleInput, RoleOutput, RoleInOut, RoleTemp:
	default:
		return fmt.Errorf("buffer %d has role %q; want input, output, inout or temp", b.ID, b.Role)
	}
	v.buffers[b.ID] = b.Bytes
	return nil
}

func (v *Validator) checkMemcpy(m *Memcpy) error {
	if m.Dir != DirH2D && m.Dir != DirD2H {
		return fmt.Errorf("memcpy dir %q; want h2d or d2h", m.Dir)
	}
	size, err := v.buffer("memcpy", m.Buffer)
	if err != nil {
		return err
	}
	if m.Bytes < 0 || m.Bytes > size {
		return fmt.Errorf("memcpy of %d bytes, outside 0..%d, the size of buffer %d", m.Bytes, size, m.Buffer)
	}
	if m.T < 0 || m.T > MaxCycles {
		return fmt.Errorf("memcpy at t %d; want 0 to %d (2^40) cycles", m.T, int64(MaxCycles))
	}
	if err := retError("memcpy", m.T, m.Ret); err != nil {
		return err
	}
	return v.inStreamOrder("memcpy", m.Stream, m.T)
}

// MaxEvents bounds the distinct events a trace records (see Validator).
const MaxEvents = 1 << 20

// checkSync checks a sync record: a host operation like a host launch or
// a copy, which may come anywhere after the header (it opens no launch
// tree), whose stream and event are those a call of its op names.
func (v *Validator) checkSync(s *Sync) error {
	what := syncWhat(s)
	switch s.Op {
	case SyncDevice:
		if s.Stream != 0 || s.Event != 0 {
			return fmt.Errorf("device sync names stream %d and event %d; a device sync waits for every stream and names neither (both 0)", s.Stream, s.Event)
		}
	case SyncStream:
		if s.Event != 0 {
			return fmt.Errorf("stream sync of stream %d names event %d; a stream sync names none (0)", s.Stream, s.Event)
		}
	case SyncEvent:
		if s.Stream != 0 {
			return fmt.Errorf("%s names stream %d; an event sync names none (0): it waits for the stream its event was recorded on", what, s.Stream)
		}
	case EventRecord, StreamWait:
	default:
		return fmt.Errorf("sync op %d; want device, stream, event, record or wait", uint8(s.Op))
	}
	if s.T < 0 || s.T > MaxCycles {
		return fmt.Errorf("%s at t %d; want 0 to %d (2^40) cycles", what, s.T, int64(MaxCycles))
	}
	if !s.Op.Blocks() && s.Ret != 0 {
		return fmt.Errorf("%s at t %d returns at %d; an event record or stream wait does not block the host, want ret 0", what, s.T, s.Ret)
	}
	if err := retError(what, s.T, s.Ret); err != nil {
		return err
	}
	switch s.Op {
	case SyncStream:
		if _, ok := v.streamT[s.Stream]; !ok {
			return fmt.Errorf("%s at t %d: a sync on a stream that does not exist (no host launch, memcpy, event record or stream wait came on it before)", what, s.T)
		}
	case SyncEvent, StreamWait:
		if _, ok := v.recorded[s.Event]; !ok {
			return fmt.Errorf("%s at t %d: a wait on an event never recorded (no event record of it came before)", what, s.T)
		}
	case EventRecord:
		if _, ok := v.recorded[s.Event]; !ok {
			if len(v.recorded) >= MaxEvents {
				return fmt.Errorf("%s: the trace records more than %d (2^20) distinct events; number events by the program's handles, which it reuses", what, MaxEvents)
			}
			v.recorded[s.Event] = struct{}{}
		}
	}
	if s.Op == SyncStream || s.Op == EventRecord || s.Op == StreamWait {
		return v.inStreamOrder(what, s.Stream, s.T)
	}
	return nil
}

// syncWhat names sync record s in messages.
func syncWhat(s *Sync) string {
	switch s.Op {
	case SyncDevice:
		return "device sync"
	case SyncStream:
		return fmt.Sprintf("stream sync of stream %d", s.Stream)
	case SyncEvent:
		return fmt.Sprintf("event sync of event %d", s.Event)
	case EventRecord:
		return fmt.Sprintf("event record of event %d", s.Event)
	case StreamWait:
		return fmt.Sprintf("stream wait for event %d", s.Event)
	}
	return "sync"
}

// retError is what is wrong with a call's ret, captured at t, or nil: a
// call returns no earlier than it was made (ret 0 says it returned at t).
func retError(what string, t, ret int64) error {
	if ret != 0 && (ret < t || ret > MaxCycles) {
		return fmt.Errorf("%s at t %d returns at %d; want ret 0 (returned at t) or from t to %d (2^40) cycles", what, t, ret, int64(MaxCycles))
	}
	return nil
}

// MaxStream is the largest host stream id: the tables hold stream ids as
// int64, and the replay numbers the private streams it gives device
// kernels above every trace stream.
const MaxStream = 1<<63 - 1

// inStreamOrder checks that a host operation's stream id is in range and
// its t is not before the last one on its stream: a stream's calls are in
// program order.
func (v *Validator) inStreamOrder(what string, stream uint64, t int64) error {
	if stream > MaxStream {
		return fmt.Errorf("%s on stream %d; want a stream id from 0 to 2^63-1", what, stream)
	}
	if last, ok := v.streamT[stream]; ok && t < last {
		return fmt.Errorf("%s at t %d on stream %d, before the stream's previous call at t %d; a stream's calls are in program order", what, t, stream, last)
	}
	v.streamT[stream] = t
	return nil
}

// buffer returns the size of a declared buffer.
func (v *Validator) buffer(what string, id uint64) (int64, error) {
	size, ok := v.buffers[id]
	if !ok {
		return 0, fmt.Errorf("%s of undeclared buffer %d", what, id)
	}
	return size, nil
}

// Bounds on a trace's times and sizes, so that every sum the replay makes
// fits in int64 after rescaling to the replay clock (at most MaxClockRatio
// times longer): 2^40 cycles is 18 minutes at 1 GHz for one launch time or
// one CTA, 2^46 bytes 64 TiB for one buffer.
const (
	MaxCycles   = 1 << 40
	MaxBytes    = 1 << 46
	MinClockMHz = 1e-3
	MaxClockMHz = 1e6
)

// MaxKernelCTAs bounds a kernel's grid: each CTA needs a cta record, and
// 2^32 of them is far beyond any capture (and beyond a replay's memory).
const MaxKernelCTAs = 1 << 32

func (v *Validator) checkKernel(k *Kernel) error {
	if v.declared.has(k.ID) {
		return fmt.Errorf("kernel %d declared twice", k.ID)
	}
	if !kernelOK(k) {
		return kernelError(k)
	}
	v.declared.add(k.ID)
	v.pending.Set(k.ID, shapeOf(k))
	return nil
}

// kernelOK reports whether declaration k by itself keeps to the rules:
// one condition, where Child asked kernelError, which made the errors
// in its frame (BFS --quick, with ownStreamOK: 13 instructions a CTA);
// kernelError says what is wrong.
func kernelOK(k *Kernel) bool {
	g, b := &k.Grid, &k.Block
	hi, n := bits.Mul64(uint64(g[0])*uint64(g[1]), uint64(g[2]))
	return k.Name != "" && min(g[0], g[1], g[2], b[0], b[1], b[2]) > 0 && max(b[0], b[1], b[2]) <= 1024 && k.Threads() <= 1024 &&
		hi == 0 && n <= MaxKernelCTAs && uint(k.Regs) <= 255 && k.Smem >= 0
}

// kernelError is what is wrong with declaration k, which does not keep
// to the rules by itself (kernelOK).
func kernelError(k *Kernel) error {
	if k.Name == "" {
		return fmt.Errorf("kernel %d has no name", k.ID)
	}
	if g, b := &k.Grid, &k.Block; min(g[0], g[1], g[2], b[0], b[1], b[2]) == 0 || max(b[0], b[1], b[2]) > 1024 {
		return dimensionError(k)
	}
	if t := k.Threads(); t > 1024 {
		return fmt.Errorf("kernel %d has %d threads per CTA; at most 1024", k.ID, t)
	}
	if hi, n := bits.Mul64(uint64(k.Grid[0])*uint64(k.Grid[1]), uint64(k.Grid[2])); hi != 0 || n > MaxKernelCTAs {
		return fmt.Errorf("kernel %d grid %v has more than 2^32 CTAs, more than a replay handles (one cta record each)", k.ID, k.Grid)
	}
	if k.Regs < 0 || k.Regs > 255 {
		return fmt.Errorf("kernel %d uses %d registers per thread; want 0..255", k.ID, k.Regs)
	}
	if k.Smem < 0 {
		return fmt.Errorf("kernel %d uses %d bytes of shared memory", k.ID, k.Smem)
	}
	return nil
}

// shapeOf is what the validator keeps of declaration k.
func shapeOf(k *Kernel) shape {
	return shape{ctas: k.CTAs(), warps: (k.Threads() + 31) / 32}
}

// dimensionError is kernelError's error for k, which has a dimension of
// 0 or a block dimension above 1024 (kernelOK tests all six in one
// condition).
func dimensionError(k *Kernel) error {
	// By index, not ranging over "xyz": that decodes the string's runes.
	for i := range k.Grid {
		if k.Grid[i] == 0 || k.Block[i] == 0 {
			return fmt.Errorf("kernel %d has grid %v and block %v; every dimension must be at least 1", k.ID, k.Grid, k.Block)
		}
		if k.Block[i] > 1024 {
			return fmt.Errorf("kernel %d block.%c is %d; a CTA has at most 1024 threads", k.ID, "xyz"[i], k.Block[i])
		}
	}
	return nil
}

func (v *Validator) checkLaunch(l *Launch) error {
	sh, ok := v.pending.Get(l.Kernel)
	switch {
	case ok:
	case v.declared.has(l.Kernel):
		return fmt.Errorf("kernel %d launched twice", l.Kernel)
	default:
		return fmt.Errorf("launch of undeclared kernel %d", l.Kernel)
	}
	for _, id := range l.After {
		if !v.host.has(id) {
			return fmt.Errorf("launch of kernel %d is after kernel %d, which is not a host-launched kernel launched before it", l.Kernel, id)
		}
	}
	if err := launchError(l); err != nil {
		return err
	}
	if l.Host() {
		if l.T < 0 || l.T > MaxCycles {
			return fmt.Errorf("host launch of kernel %d at t %d; want 0 to %d (2^40) cycles", l.Kernel, l.T, int64(MaxCycles))
		}
		if err := v.inStreamOrder(fmt.Sprintf("host launch of kernel %d", l.Kernel), l.Stream, l.T); err != nil {
			return err
		}
		if err := v.endTree(); err != nil {
			return fmt.Errorf("%v, but this host launch starts the next launch tree", err)
		}
		v.treeAt = v.record
		v.host.add(l.Kernel)
		v.pending.Delete(l.Kernel)
		v.hostK = &treeKernel{id: l.Kernel, shape: sh}
		if v.ordered {
			v.orderK = v.hostK
		}
		v.tree.Set(l.Kernel, v.hostK)
		return nil
	}
	root, err := v.checkParent(l.Kernel, l.Parent)
	if err != nil {
		return err
	}
	if l.DeviceStream == CreatedStream {
		if err := v.createdStream(l); err != nil {
			return err
		}
	}
	v.pending.Delete(l.Kernel)
	v.last = v.addDevice(l.Kernel, sh, root)
	return nil
}

// launchError is what is wrong with launch l's workload, inline_cycles
// and stream kind, or nil.
func launchError(l *Launch) error {
	if l.Workload < 0 || l.InlineCycles < 0 || l.InlineCycles > MaxCycles {
		return fmt.Errorf("launch of kernel %d has workload %d and inline_cycles %d; neither may be negative, nor inline_cycles above 2^40", l.Kernel, l.Workload, l.InlineCycles)
	}
	return checkDeviceStream(l)
}

// addDevice adds device kernel id, of shape sh, launched in host CTA
// root's tree, to the tree, and returns it: a device kernel's cta records
// follow its launch, and the caller makes it the one the first finds
// (last), not in the table (inTree). k, new or forgotten
// (newTreeKernel), has its seen set cleared in place (idSet.clear), where
// assigning k a whole treeKernel wrote all of its 18 words each device
// launch (BFS --quick: 7 instructions a CTA). Small enough to inline
// (setting last here took it past the budget), where its call each
// device launch cost BFS --quick 5 instructions a CTA.
func (v *Validator) addDevice(id uint64, sh shape, root uint64) *treeKernel {
	k := v.newTreeKernel()
	k.id, k.shape, k.root = id, sh, root
	k.seen.clear()
	v.order = append(v.order, k)
	return k
}

// checkDeviceStream checks a launch's stream kind: a host launch has
// none, a created stream an id (stream, up to 2^63-1 as a host stream's),
// the CTA's default, tail and fire-and-forget streams none, and only a
// launch into a created stream creates it. A launch into its own stream
// that creates none, nearly every one, keeps to all of that: small enough
// to inline, its test saves a launch-heavy trace a call a launch
// (checkStreamKind takes the others).
func checkDeviceStream(l *Launch) error {
	if l.DeviceStream == OwnStream && !l.CreatesStream && l.Stream == 0 {
		return nil
	}
	return checkStreamKind(l)
}

// checkStreamKind is checkDeviceStream for a launch into another stream
// than its own, or one that creates a stream.
func checkStreamKind(l *Launch) error {
	switch {
	case l.DeviceStream >= numDeviceStreams:
		return fmt.Errorf("launch of kernel %d has stream kind %d; want 0 to %d", l.Kernel, uint8(l.DeviceStream), numDeviceStreams-1)
	case l.Host() && (l.DeviceStream != OwnStream || l.CreatesStream):
		return fmt.Errorf("host launch of kernel %d has stream_kind %q or creates_stream: those are a device launch's", l.Kernel, l.DeviceStream)
	case l.Host():
		return nil
	case l.CreatesStream && l.DeviceStream != CreatedStream:
		return fmt.Errorf("device launch of kernel %d creates a stream but launches into stream_kind %q; creates_stream goes with \"created\"", l.Kernel, l.DeviceStream)
	case l.DeviceStream == CreatedStream && l.Stream > math.MaxInt64:
		return fmt.Errorf("device launch of kernel %d into created stream %d; want 0 to 2^63-1", l.Kernel, l.Stream)
	case l.DeviceStream != CreatedStream && l.Stream != 0:
		return fmt.Errorf("device launch of kernel %d names stream %d with stream_kind %q; only a created stream has an id", l.Kernel, l.Stream, l.DeviceStream)
	}
	return nil
}

// checkParent checks a device launch's parent and returns the host CTA
// whose tree the child joins.
func (v *Validator) checkParent(child uint64, p *Parent) (uint64, error) {
	root, err := v.parentRoot(child, p)
	if err != nil {
		return 0, err
	}
	if v.ordered {
		if root != v.rootCTA {
			if err := v.enterRoot(child, root); err != nil {
				return 0, err
			}
		}
		if !v.hostK.seen.has(root) {
			return 0, fmt.Errorf("launch of kernel %d in the tree of CTA %d of host kernel %d before that CTA's cta record; with ordered_trees a host CTA's record comes before its tree", child, root, v.hostK.id)
		}
	}
	return root, nil
}

// parentRoot checks that a device launch's parent p is a CTA, warp,
// lane and time of a kernel of the tree, and returns the host CTA whose
// tree the child joins, all but what ordered_trees adds (checkParent).
func (v *Validator) parentRoot(child uint64, p *Parent) (uint64, error) {
	// Most launches come from the host kernel: found with no call.
	k := v.hostK
	if k == nil || k.id != p.Kernel {
		var err error
		if k, err = v.inTree("device launch", p.Kernel); err != nil {
			return 0, err
		}
	}
	if !k.hasParent(p) {
		return 0, k.parentError(child, p)
	}
	if k == v.hostK {
		return p.CTA, nil
	}
	return k.root, nil
}

// enterRoot moves the device records on to host CTA root's tree, another
// than the one they are in, with the launch of kernel child. Under
// ordered_trees it may not lie behind the tree they are in; the device
// kernels of the trees left behind must be complete, and are forgotten.
// Most launches stay in the tree: checkParent calls it only for one that
// does not (BFS --quick: 10 instructions a CTA).
func (v *Validator) enterRoot(child, root uint64) error {
	if root < v.rootCTA {
		return fmt.Errorf("launch of kernel %d belongs to the tree of host CTA %d, after records of host CTA %d's tree; with ordered_trees the trees of a host kernel's CTAs come in CTA order", child, root, v.rootCTA)
	}
	v.rootCTA = root
	for v.done < len(v.order) && v.order[v.done].root < root {
		k := v.order[v.done]
		if err := k.complete(); err != nil {
			return fmt.Errorf("%v when launch of kernel %d moved on to the tree of host CTA %d (ordered_trees)", err, child, root)
		}
		if v.done < v.indexed {
			v.tree.Delete(k.id)
		}
		if v.last == k {
			v.last = nil
		}
		v.done++ // k is there for newTreeKernel now
	}
	v.indexed = max(v.indexed, v.done)
	if v.reuse > 1024 && v.reuse > len(v.order)/2 {
		v.dropReused(len(v.order))
	}
	return nil
}

// dropReused drops from order the kernels newTreeKernel has reused
// (order[:reuse], each also further on, or no longer needed), and those
// from end on, moving the rest down to its start.
func (v *Validator) dropReused(end int) {
	n := copy(v.order, v.order[v.reuse:end])
	clear(v.order[n:])
	v.order, v.indexed, v.done, v.reuse = v.order[:n], min(v.indexed-v.reuse, n), min(v.done-v.reuse, n), 0
}

// inOrder checks, under ordered_trees, that a cta, access or pages record
// of CTA cta of kernel k comes where rule 4 puts it. Device kernels of
// trees moved past are no longer in the tree: only the host kernel's
// records are held here. Small enough to inline (orderError says what
// is wrong): every record of a CTA asks it, and a call on the way, even
// one not taken, has the compiler keep a run's values on the stack.
func (v *Validator) inOrder(kind Kind, k *treeKernel, cta uint64) error {
	if k != v.orderK {
		return nil
	}
	if cta < v.hostCTA {
		return v.orderError(kind, cta)
	}
	v.hostCTA = cta
	return nil
}

func (v *Validator) orderError(kind Kind, cta uint64) error {
	return fmt.Errorf("%s record for CTA %d of host kernel %d after a record of its CTA %d; with ordered_trees a host kernel's records come in CTA order", kind, cta, v.hostK.id, v.hostCTA)
}

// hasParent reports whether p is a CTA, warp, lane and time of k: one
// condition, small enough to inline in checkParent (where a check that
// also made the error was not: BFS --quick, 8 instructions a CTA);
// parentError says what is wrong.
func (k *treeKernel) hasParent(p *Parent) bool {
	return p.CTA < k.ctas && uint(p.Warp) < uint(k.warps) && uint(p.Lane) < 32 && uint64(p.At) <= MaxCycles
}

func (k *treeKernel) parentError(child uint64, p *Parent) error {
	switch {
	case p.CTA >= k.ctas:
		return fmt.Errorf("launch of kernel %d from CTA %d of kernel %d, which has %d CTAs", child, p.CTA, k.id, k.ctas)
	case p.Warp < 0 || p.Warp >= k.warps:
		return fmt.Errorf("launch of kernel %d from warp %d; kernel %d has %d warps per CTA", child, p.Warp, k.id, k.warps)
	case p.Lane < 0 || p.Lane >= 32:
		return fmt.Errorf("launch of kernel %d from lane %d; want 0..31", child, p.Lane)
	case p.At < 0 || p.At > MaxCycles:
		return fmt.Errorf("launch of kernel %d at %d cycles into its parent warp; times are non-negative", child, p.At)
	}
	return nil
}

func (v *Validator) checkCTA(c *CTA) error {
	// Most come after a record of their kernel, or its launch (which
	// leaves it the one looked up last): found with no call.
	k := v.last
	if k == nil || k.id != c.Kernel {
		var err error
		if k, err = v.inTree("cta", c.Kernel); err != nil {
			return err
		}
	}
	return v.checkCTAOf(k, c)
}

// checkCTAOf is checkCTA for a cta record of k, a kernel of the tree.
func (v *Validator) checkCTAOf(k *treeKernel, c *CTA) error {
	if err := k.checkIndex("cta", c.CTA); err != nil {
		return err
	}
	if err := v.inOrder(KindCTA, k, c.CTA); err != nil {
		return err
	}
	if c.Cycles < 0 || c.Cycles > MaxCycles {
		return fmt.Errorf("CTA %d of kernel %d takes %d cycles; want 0 to %d (2^40)", c.CTA, c.Kernel, c.Cycles, int64(MaxCycles))
	}
	if c.WarpCycles != nil && !warpCyclesOK(k, c) {
		// Its tests inline here, with no call; warpCyclesError says
		// what is wrong.
		return warpCyclesError(k, c)
	}
	if c.HasDemand() && !withinDemand(c.Cycles, c.Insts, c.DRAMBytes, k.warps) {
		return demandError(c, k.warps)
	}
	if !k.seen.add(c.CTA) {
		return fmt.Errorf("second cta record for CTA %d of kernel %d", c.CTA, c.Kernel)
	}
	if v.at.latest != 0 {
		return v.at.ctaRecordAfter(c)
	}
	v.at.ctaRecord(c)
	return nil
}

// warpCyclesOK reports whether the warp_cycles of c, a cta record of k
// that has them, keep the rules: one a warp, each within 0..2^40, the
// longest its cycles. It inlines in checkCTAOf, which every CTA of BFS's
// passes through, each with warp_cycles: as a call that also made the
// error it cost them 23 instructions a CTA more (scripts/instructions.sh
// --quick bfs). Inlined, its tests cost uniform 13 when its records came
// through checkCTAOf; most now take another way (plain records: they
// have none, and PlainCTAs checks them).
func warpCyclesOK(k *treeKernel, c *CTA) bool {
	// With cycles checked (checkCTAOf), one test of them all (longestIs),
	// with no branch a warp and no call to format in this frame (BFS
	// --quick: 5 instructions a CTA fewer); warpCyclesError says what is
	// wrong.
	var longest uint64
	for _, cy := range c.WarpCycles {
		longest = max(longest, uint64(cy))
	}
	return len(c.WarpCycles) == k.warps && longestIs(longest, c.Cycles)
}

// longestIs reports whether warp_cycles whose longest taken as unsigned
// is longest keep the rules with cycles, a CTA's within 0..2^40: none is
// negative (as unsigned, a negative one is past 2^63) and the longest is
// cycles. One maximum a warp tests both, where a maximum and an OR of
// the signs took another instruction and another register a warp.
func longestIs(longest uint64, cycles int64) bool { return longest == uint64(cycles) }

// warpCyclesError is the error for c, whose warp_cycles break the rules
// (warpCyclesOK): they are not one a warp of k, or have one out of
// range, or a longest that is not its cycles: made only for a record
// that breaks them.
func warpCyclesError(k *treeKernel, c *CTA) error {
	if len(c.WarpCycles) != k.warps {
		return fmt.Errorf("CTA %d of kernel %d has %d warp_cycles; the kernel has %d warps per CTA", c.CTA, c.Kernel, len(c.WarpCycles), k.warps)
	}
	var longest int64
	for w, cy := range c.WarpCycles {
		if cy < 0 || cy > MaxCycles {
			return fmt.Errorf("warp %d of CTA %d of kernel %d takes %d cycles; want 0 to %d (2^40)", w, c.CTA, c.Kernel, cy, int64(MaxCycles))
		}
		longest = max(longest, cy)
	}
	return fmt.Errorf("CTA %d of kernel %d takes %d cycles but its longest warp %d; with warp_cycles, cycles is the longest warp's time", c.CTA, c.Kernel, c.Cycles, longest)
}

// Physical bounds on a CTA's demand over its time alone: no warp issues
// more than two instructions a cycle (Kepler's and Maxwell's dual issue),
// nor moves more than a 32-byte sector per lane a cycle. They keep the
// contention model's rates finite and catch fields given per thread or in
// the wrong unit.
const (
	maxInstsPerWarpCycle = 2
	maxBytesPerWarpCycle = 32 * 32
)

// withinDemand reports whether a CTA of cycles, insts and bytes, of a
// kernel of warps warps a CTA, keeps to those bounds. checkCTAOf has
// checked its cycles first: with warp_cycles, Cycles is the longest
// warp's, so Cycles is its time alone either way. Small enough to inline
// in checkCTAOf, which asks it for every cta record with demand (plainShape.run
// and keeps ask demandBelow); demandError says which is broken.
//
// Below 2^53 insts and bytes are compared as integers: their float64s are
// exact, and so is the span (cycles at most 2^40, warps at most 32, both
// checked first) times the bounds, powers of two; the answer is the
// float comparison's, without converting the unsigned fields (--quick:
// BFS 4 instructions a CTA, uniform 2; TestWithinDemandIsFloat).
func withinDemand(cycles int64, insts, bytes uint64, warps int) bool {
	if insts|bytes < 1<<53 {
		return demandBelow(cycles, insts, bytes, warps)
	}
	// From 2^53 on, as the floats they are compared as below it too.
	span := float64(cycles) * float64(warps)
	return float64(insts) <= maxInstsPerWarpCycle*span && float64(bytes) <= maxBytesPerWarpCycle*span
}

// demandError is the error for c, whose demand breaks a bound.
func demandError(c *CTA, warps int) error {
	alone := c.Cycles
	span := float64(alone) * float64(warps)
	if float64(c.Insts) > maxInstsPerWarpCycle*span {
		return fmt.Errorf("CTA %d of kernel %d issues %d warp instructions in %d cycles: more than its %d warps can (%d a cycle each)", c.CTA, c.Kernel, c.Insts, alone, warps, maxInstsPerWarpCycle)
	}
	return fmt.Errorf("CTA %d of kernel %d moves %d DRAM bytes in %d cycles: more than its %d warps can (%d bytes a cycle each)", c.CTA, c.Kernel, c.DRAMBytes, alone, warps, maxBytesPerWarpCycle)
}

func (v *Validator) checkAccess(a *Access) error {
	k, err := v.inTree("access", a.Kernel)
	if err != nil {
		return err
	}
	if err := k.checkIndex("access", a.CTA); err != nil {
		return err
	}
	if err := v.inOrder(KindAccess, k, a.CTA); err != nil {
		return err
	}
	size, err := v.buffer("access", a.Buffer)
	if err != nil {
		return err
	}
	if a.Lo > a.Hi || a.Hi >= uint64(size) {
		return fmt.Errorf("access to bytes %d..%d of buffer %d, which has %d bytes", a.Lo, a.Hi, a.Buffer, size)
	}
	switch a.Mode {
	case ModeRead, ModeWrite, ModeReadWrite:
	default:
		return fmt.Errorf("access mode %q; want r, w or rw", a.Mode)
	}
	return v.at.touch(KindAccess, a.Buffer, a.Kernel, a.CTA, a.At)
}

func (v *Validator) checkPages(p *Pages) error {
	k, err := v.inTree("pages", p.Kernel)
	if err != nil {
		return err
	}
	if err := k.checkIndex("pages", p.CTA); err != nil {
		return err
	}
	if err := v.inOrder(KindPages, k, p.CTA); err != nil {
		return err
	}
	size, err := v.buffer("pages", p.Buffer)
	if err != nil {
		return err
	}
	n := uint64((size-1)/v.pageBytes + 1)
	for _, list := range [][]uint64{p.R, p.W} {
		for _, page := range list {
			if page >= n {
				return fmt.Errorf("page %d of buffer %d, which has %d pages of %d bytes", page, p.Buffer, n, v.pageBytes)
			}
		}
	}
	return v.at.touch(KindPages, p.Buffer, p.Kernel, p.CTA, p.At)
}

// inTree returns the kernel a record of the given kind refers to, which must
// belong to the current launch tree. The kernel looked up last and the
// host kernel (in the tree while there is one) need no table: a kernel's
// cta records come one after another, and a device launch's parent is
// most often the host kernel, between the records of its children.
func (v *Validator) inTree(what string, id uint64) (*treeKernel, error) {
	if v.last != nil && v.last.id == id {
		return v.last, nil
	}
	if v.hostK != nil && v.hostK.id == id {
		return v.hostK, nil
	}
	if k := v.treeGet(id); k != nil {
		v.last = k
		return k, nil
	}
	if _, ok := v.pending.Get(id); ok {
		return nil, fmt.Errorf("%s for kernel %d before the kernel's launch", what, id)
	}
	if v.declared.has(id) {
		if v.ordered {
			return nil, fmt.Errorf("%s for kernel %d appears after the host launch of record %d, but kernel %d belongs to an earlier launch tree or, with ordered_trees, to the tree of a host CTA this tree has moved past; a launch tree's records must come before the next host launch, and a host CTA's tree before the next one's", what, id, v.treeAt, id)
		}
		return nil, fmt.Errorf("%s for kernel %d appears after the host launch of record %d, but kernel %d belongs to an earlier launch tree; a launch tree's records must come before the next host launch", what, id, v.treeAt, id)
	}
	return nil, fmt.Errorf("%s for undeclared kernel %d", what, id)
}

// treeGet is the kernel of the tree with id id, or nil. A device kernel
// joins the table only when a lookup first misses there, with the others
// launched since: a launch-heavy trace's records find their kernel
// without it (inTree: the one looked up last, which a launch leaves its
// child, or the host kernel), and putting each in and taking it out cost
// BFS (--quick) 17 instructions a CTA.
func (v *Validator) treeGet(id uint64) *treeKernel {
	if k, _ := v.tree.Get(id); k != nil || v.indexed == len(v.order) {
		return k
	}
	for _, k := range v.order[v.indexed:] {
		v.tree.Set(k.id, k)
	}
	v.indexed = len(v.order)
	k, _ := v.tree.Get(id)
	return k
}

// checkIndex checks that k has a CTA cta (inline; its message apart).
func (k *treeKernel) checkIndex(what string, cta uint64) error {
	if cta < k.ctas {
		return nil
	}
	return k.indexError(what, cta)
}

func (k *treeKernel) indexError(what string, cta uint64) error {
	return fmt.Errorf("%s for CTA %d of kernel %d, which has %d CTAs", what, cta, k.id, k.ctas)
}

// maxFreeKernels bounds the checked device kernels the validator keeps
// for reuse past the end of a tree: a tree's children are checked and
// forgotten in the order they were launched, so a few hundred cover the
// kernels in flight of any one host CTA's tree.
const maxFreeKernels = 1024

// newTreeKernel returns a forgotten device kernel to reuse, or a new one:
// a launch-heavy trace declares a kernel per launch (BFS scale 20: 165K),
// each checked and forgotten a host CTA later. The forgotten ones wait
// where they were in order, before done, in the order they were
// launched: where they were cleared from order and kept in a list of
// their own, each cost BFS --quick 10 instructions a CTA more.
func (v *Validator) newTreeKernel() *treeKernel {
	if v.reuse < v.done {
		k := v.order[v.reuse]
		v.reuse++
		return k
	}
	return new(treeKernel)
}

// complete checks that every CTA of k has had its cta record. Small
// enough to inline (incomplete says what is missing): enterRoot asks it
// of every device kernel.
func (k *treeKernel) complete() error {
	if k.seen.len() != k.ctas {
		return k.incomplete()
	}
	return nil
}

func (k *treeKernel) incomplete() error {
	got := k.seen.len()
	return fmt.Errorf("kernel %d has cta records for %d of its %d CTAs (%d missing)", k.id, got, k.ctas, k.ctas-got)
}

// endTree checks that the current launch tree is complete and forgets it.
func (v *Validator) endTree() error {
	if v.hostK != nil {
		if err := v.hostK.complete(); err != nil {
			return err
		}
	}
	for _, k := range v.order[v.done:] {
		if err := k.complete(); err != nil {
			return err
		}
	}
	v.tree.Clear()
	if len(v.created) > 0 {
		clear(v.created)
	}
	v.done = len(v.order) // all of them there for newTreeKernel, up to maxFreeKernels
	v.dropReused(min(len(v.order), v.reuse+maxFreeKernels))
	v.indexed = v.done
	v.hostK, v.orderK, v.last = nil, nil, nil
	v.hostCTA, v.rootCTA = 0, 0
	return nil
}

// demandBelow is withinDemand for insts and bytes below 2^53, compared as
// integers. plainShape.run and keeps, whose numbers take at most three bytes,
// ask it directly, with no test of their size (uniform --quick: 10
// instructions a CTA fewer).
func demandBelow(cycles int64, insts, bytes uint64, warps int) bool {
	span := uint64(cycles) * uint64(warps)
	return insts <= maxInstsPerWarpCycle*span && bytes <= maxBytesPerWarpCycle*span
}

// hostParent reports whether a device launch's parent p is a CTA, warp,
// lane and time of the host kernel, for which parentRoot returns p.CTA:
// small enough to inline in Child, where parentRoot's call each device
// launch cost BFS --quick 7 instructions a CTA.
func (v *Validator) hostParent(p *Parent) bool {
	k := v.hostK
	return k != nil && k.id == p.Kernel && k.hasParent(p)
}
