package trace

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// writerChunk is how much encoded data the Writer gathers before handing it
// to zstd; zstd's own block size decides the output, so this only trades
// memory for fewer calls.
const writerChunk = 64 << 10

// Writer encodes records into the binary trace format. Its output depends
// only on the records written, never on timing or on how writes are split,
// so the same records always give byte-identical files.
//
// A Writer keeps O(1) state besides its buffers and the host index it
// appends at Close (see hostindex.go), which is bounded by maxHostIndex;
// Close must be called to finish the zstd stream and write the index.
type Writer struct {
	out    io.Writer
	enc    *zstd.Encoder
	index  hostIndexWriter
	buf    []byte // encoded records not yet handed to enc
	delta  deltaState
	short  shortState // what tells where a record takes a short form
	record int64      // records written
	offset int64      // decompressed bytes before buf
	err    error      // sticky: the first failure, returned from then on
	closed bool
}

// NewWriter returns a Writer that writes a binary trace to w. Close flushes
// and ends the zstd stream but leaves w open.
//
// It compresses at zstd's best level, whose longer matches make fewer
// sequences for every reader to decode: a trace is written once and
// replayed many times. BFS scale 20 (scripts/instructions.sh bfs) 1,645
// to 1,632 instructions a CTA, --quick 2,190 to 2,169 (0.71 MB to 0.66
// MB); synth and uniform within 2 a CTA. Writing costs more: synth's 5M
// CTAs 1.0 s to 2.6 s, 30 MB to 85 MB resident.
//
// Its literals are stored as they are, not Huffman coded: a reader
// copies them, with no table to build and no decoding, for a few bytes
// more. BFS scale 20 1,629 to 1,625 a CTA, --quick 2,159 to 2,146, for
// 0.66 MB to 0.69 MB; synth and uniform as they were (their literals
// were stored so already, or nearly: synth's file is as large).
func NewWriter(w io.Writer) *Writer {
	enc, err := zstd.NewWriter(w,
		zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithNoEntropyCompression(true),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(writerWindow),
		zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true),
	)
	buf := make([]byte, 0, writerChunk+1024)
	buf = append(buf, binaryMagic...)
	buf = binary.AppendUvarint(buf, Version)
	return &Writer{out: w, enc: enc, index: newHostIndexWriter(), buf: buf, delta: newDeltaState(), err: err}
}

// Write encodes one record. A record the format cannot carry (a nil or
// foreign Record, a string that is too long or not UTF-8, a list over the
// format's limits) is refused with a *Error and nothing is written; an I/O
// error from the underlying writer is returned as is and ends the Writer.
func (w *Writer) Write(rec Record) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("trace: Write after Close")
	}
	start := len(w.buf)
	saved, savedShort := w.delta, w.short
	e := encoder{buf: w.buf, delta: &w.delta, short: &w.short}
	e.record(rec)
	if e.err != nil {
		w.buf = w.buf[:start]
		w.delta, w.short = saved, savedShort
		return &Error{Record: w.record + 1, Offset: w.offset + int64(start), Kind: kindOf(rec), Msg: e.err.Error()}
	}
	w.buf = e.buf
	w.record++
	w.index.add(rec)
	if len(w.buf) >= writerChunk {
		return w.flush()
	}
	return nil
}

// Close writes what is buffered, ends the zstd stream and appends the host
// index after it. It does not close the underlying writer. Closing twice
// is harmless.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.enc.Close(); err != nil {
		w.err = err
		return err
	}
	if f := w.index.frame(w.offset); f != nil {
		_, w.err = w.out.Write(f)
	}
	return w.err
}

func (w *Writer) flush() error {
	if _, err := w.enc.Write(w.buf); err != nil {
		w.err = err
		return err
	}
	w.offset += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// kindOf is rec's kind, or 0 for a nil record.
func kindOf(rec Record) Kind {
	if rec == nil {
		return 0
	}
	return rec.Kind()
}

// encoder appends one record's encoding to buf. The first problem is kept in
// err and makes later appends no-ops, so the per-kind code reads straight.
type encoder struct {
	buf   []byte
	delta *deltaState
	short *shortState
	err   error
}

func (e *encoder) record(rec Record) {
	switch r := rec.(type) {
	case *Header:
		if r != nil {
			e.header(r)
			return
		}
	case *Buffer:
		if r != nil {
			e.tag(KindBuffer)
			e.uvarint(r.ID)
			e.str(r.Name)
			e.uvarint(r.Base)
			e.varint(r.Bytes)
			e.enum(string(r.Role), roleNames)
			return
		}
	case *Memcpy:
		if r != nil {
			// A copy without blocking, pageable or ret keeps
			// KindMemcpy's tag and body, byte for byte what it
			// was before they existed; one with them has
			// tagMemcpyCall, and them after the body. (As many
			// lines as before: default.pgo names lines.)
			e.memcpy(r)
			return
		}
	case *Kernel:
		if r != nil {
			e.kernel(r)
			return
		}
	case *Launch:
		if r != nil {
			e.launch(r)
			return
		}
	case *CTA:
		if r != nil {
			// A device kernel's first record after its launch is
			// coded against the launch: ctalaunched.
			tag := extendedTag(KindCTA, r.HasDemand())
			if e.short.fromDevice && r.Kernel == e.delta.launched && r.Kernel != e.delta.kernel {
				tag |= tagLaunched
				e.delta.rebase(tag)
			}
			e.buf = append(e.buf, tag)
			e.ref(r.Kernel, r.CTA, true)
			e.varint(r.Cycles)
			e.int64s(r.WarpCycles, r.Cycles)
			if r.HasDemand() {
				e.uvarint(r.Insts)
				e.uvarint(r.DRAMBytes)
			}
			return
		}
	case *Access:
		if r != nil {
			e.buf = append(e.buf, extendedTag(KindAccess, r.At != 0))
			e.ref(r.Kernel, r.CTA, false)
			e.uvarint(r.Buffer)
			e.uvarint(r.Lo)
			e.uvarint(r.Hi - r.Lo)
			e.enum(r.Mode, modeNames)
			e.at(r.At)
			return
		}
	case *Pages:
		if r != nil {
			e.buf = append(e.buf, extendedTag(KindPages, r.At != 0))
			e.ref(r.Kernel, r.CTA, false)
			e.uvarint(r.Buffer)
			e.uint64s(r.R)
			e.uint64s(r.W)
			e.at(r.At)
			return
		}
	case *Sync:
		if r != nil {
			if r.Op == 0 || r.Op >= numSyncOps {
				e.fail(errRange("sync op %d is not one the format knows (1 to %d)", r.Op, numSyncOps-1))
				return
			}
			e.tag(KindSync)
			e.uvarint(uint64(r.Op))
			e.uvarint(r.Stream)
			e.uvarint(r.Event)
			e.varint(r.T)
			e.uvarint(retCode(r.T, r.Ret))
			return
		}
	}
	e.err = errors.New("cannot encode a nil or unknown record type")
}

func (e *encoder) header(h *Header) {
	e.tag(KindHeader)
	e.varint(int64(h.Version))
	e.f64(h.ClockMHz)
	e.varint(h.PageBytes)
	e.str(h.Source)
	e.str(h.GPU)
	var flags byte
	if h.GPUSpec != nil {
		flags |= headerGPUSpec
	}
	if h.OrderedTrees {
		flags |= headerOrderedTrees
	}
	e.buf = append(e.buf, flags)
	if s := h.GPUSpec; s != nil {
		e.varint(int64(s.SMs))
		e.f64(s.ClockMHz)
		e.varint(int64(s.MaxCTAsPerSM))
		e.varint(int64(s.MaxThreadsPerSM))
		e.varint(int64(s.RegsPerSM))
		e.varint(s.SmemPerSM)
		e.varint(int64(s.MaxKernels))
	}
	if len(h.Meta) > maxMetaLen {
		e.fail(errRange("meta has %d entries, more than the format's %d", len(h.Meta), maxMetaLen))
		return
	}
	e.uvarint(uint64(len(h.Meta)))
	for _, k := range sortedKeys(h.Meta) {
		e.str(k)
		e.str(h.Meta[k])
	}
}

// kernel encodes k: a kernelalike body under tagKernelAlike where k is
// declared as the kernel record before it, whose kernel a device launch
// followed (shortState.alike), else a kernel body.
func (e *encoder) kernel(k *Kernel) {
	alike, prev := e.short.alike(k), e.short.decl.ID
	e.short.wrote(k)
	if alike {
		e.buf = append(e.buf, tagKernelAlike)
		e.varint(int64(k.ID - (prev + 1)))
		e.uvarint(uint64(k.Grid[0]))
		return
	}
	e.tag(KindKernel)
	e.uvarint(k.ID)
	e.str(k.Name)
	for _, v := range k.Grid {
		e.uvarint(uint64(v))
	}
	for _, v := range k.Block {
		e.uvarint(uint64(v))
	}
	e.varint(int64(k.Regs))
	e.varint(k.Smem)
}

func (e *encoder) launch(l *Launch) {
	var flags uint64
	set := func(bit uint64, present bool) {
		if present {
			flags |= bit
		}
	}
	set(launchHasParent, l.Parent != nil)
	set(launchHasT, l.T != 0)
	set(launchHasStream, l.Stream != 0)
	set(launchHasWorkload, l.Workload != 0)
	set(launchHasInline, l.InlineCycles != 0)
	set(launchHasAfter, len(l.After) > 0)
	set(launchHasDevStream, l.DeviceStream != OwnStream || l.CreatesStream)

	// A device launch whose parent is the last device launch's (its
	// kernel and CTA) is coded against it: launchalike.
	tag, p := byte(KindLaunch), l.Parent
	if p != nil && e.delta.parent && p.Kernel == e.delta.pk && p.CTA == e.delta.pc {
		tag = tagLaunchAlike
		e.delta.rebase(tag)
	}
	e.short.launched(l)
	e.buf = append(e.buf, tag)
	e.uvarint(flags)
	e.varint(int64(l.Kernel - (e.delta.launched + 1)))
	e.delta.launched = l.Kernel
	if flags&launchHasT != 0 {
		e.varint(l.T)
	}
	if flags&launchHasStream != 0 {
		e.uvarint(l.Stream)
	}
	if p != nil {
		e.ref(p.Kernel, p.CTA, false)
		e.delta.parented()
		e.varint(int64(p.Warp))
		e.varint(int64(p.Lane))
		e.varint(p.At)
	}
	if flags&launchHasWorkload != 0 {
		e.varint(l.Workload)
	}
	if flags&launchHasInline != 0 {
		e.varint(l.InlineCycles)
	}
	if flags&launchHasAfter != 0 {
		e.uint64s(l.After)
	}
	if flags&launchHasDevStream != 0 {
		e.uvarint(devStreamField(l))
	}
}

// memcpy encodes m: a memcpy body, or a memcpyx one under tagMemcpyCall.
func (e *encoder) memcpy(m *Memcpy) {
	call := m.Blocking || m.Pageable || m.Ret != 0
	e.buf = append(e.buf, extendedTag(KindMemcpy, call))
	e.enum(m.Dir, dirNames)
	e.uvarint(m.Buffer)
	e.varint(m.Bytes)
	e.uvarint(m.Stream)
	e.varint(m.T)
	if call {
		e.uvarint(memcpyFlags(m))
		e.uvarint(retCode(m.T, m.Ret))
	}
}

// memcpyFlags packs a memcpy's blocking and pageable.
func memcpyFlags(m *Memcpy) uint64 {
	var v uint64
	if m.Blocking {
		v |= memcpyBlocking
	}
	if m.Pageable {
		v |= memcpyPageable
	}
	return v
}

// devStreamField packs a launch's stream kind and creates_stream.
func devStreamField(l *Launch) uint64 {
	v := uint64(l.DeviceStream) << 1
	if l.CreatesStream {
		v |= 1
	}
	return v
}

func (e *encoder) tag(k Kind) { e.buf = append(e.buf, byte(k)) }

// at ends an accessat or pagesat body; a record at 0 has the old body,
// which ends before it.
func (e *encoder) at(at int64) {
	if at != 0 {
		e.varint(at)
	}
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *encoder) varint(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) f64(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

func (e *encoder) str(s string) {
	switch {
	case len(s) > maxStringLen:
		e.fail(errRange("string of %d bytes is longer than the format's %d", len(s), maxStringLen))
	case !utf8.ValidString(s):
		e.fail(errRange("string %q is not valid UTF-8", s))
	default:
		e.uvarint(uint64(len(s)))
		e.buf = append(e.buf, s...)
	}
}

func (e *encoder) enum(s string, names []string) {
	for i, n := range names {
		if s == n {
			e.uvarint(uint64(i + 1))
			return
		}
	}
	e.uvarint(0)
	e.str(s)
}

// ref codes a (kernel, CTA) pair against the previous one; next is true for
// cta records.
func (e *encoder) ref(kernel, cta uint64, next bool) {
	d := e.delta
	e.varint(int64(kernel - d.kernel))
	e.varint(int64(cta - d.expectedCTA(kernel, next)))
	d.kernel, d.cta = kernel, cta
}

func (e *encoder) uint64s(xs []uint64) {
	if !e.listLen(len(xs)) {
		return
	}
	var prev uint64
	for _, x := range xs {
		e.varint(int64(x - prev))
		prev = x
	}
}

func (e *encoder) int64s(xs []int64, prev int64) {
	if !e.listLen(len(xs)) {
		return
	}
	for _, x := range xs {
		e.varint(x - prev)
		prev = x
	}
}

func (e *encoder) listLen(n int) bool {
	if n > maxListLen {
		e.fail(errRange("list of %d entries is longer than the format's %d", n, maxListLen))
		return false
	}
	e.uvarint(uint64(n))
	return true
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// sortedKeys returns m's keys in ascending order, the order every encoding
// writes maps in so output is deterministic.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
