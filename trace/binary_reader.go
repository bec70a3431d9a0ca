package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Reader decodes a binary trace one record at a time. It holds O(1) state
// (a read-ahead buffer, the zstd window and three delta-coding ids), so a
// trace of any length streams through it.
//
// Every error Next returns, other than io.EOF at the clean end, is a *Error
// naming the record and its byte offset in the decompressed stream, and it is
// returned again by every later call.
type Reader struct {
	in       *inbuf
	src      *sourceReader
	delta    deltaState
	record   int64 // number of the record last returned or being read
	offset   int64 // its offset
	err      error
	ctas     []CTA             // the rest of the batch cta records are allocated from
	skip     uint64            // bit k set: records of Kind k are skipped (ReadOptions.Skip)
	names    map[string]string // kernel names seen, for reuse (see kernelName)
	lastName string            // the kernel name read last (see kernelName)
	nameKey  nameKey           // lastName's bytes as words, for kernelFast
	tail     kernelTail        // the fields after grid x kernelFast read last, for the next

	skipDevice bool   // pass over device launches (ReadOptions.SkipDeviceLaunches)
	scratch    Launch // a skipped or reused launch is decoded here
	scratchP   Parent
	scratchCTA CTA
	scratchK   Kernel
	reuse      bool                // ReadOptions.ReuseRecords
	warps      []int64             // warp_cycles are decoded here under ReadOptions.ReuseWarpCycles; nil otherwise
	fastWarps  [maxFastWarps]int64 // ctaFast's warp_cycles, before they are copied where warpBuf says
	warpsOK    bool                // the warp_cycles ctaFastInto read last keep longestIs with their record's cycles
	pause      func() bool         // see pauseWhen; nil: never
	slab       *slab               // see decodeInto; nil: none
}

// warpBuf is the slice to decode n warp_cycles into: room in the slab
// given to decodeInto, the reused one under ReadOptions.ReuseWarpCycles,
// else a fresh one.
func (r *Reader) warpBuf(n int) []int64 {
	if r.slab != nil {
		return r.slab.warpBuf(n)
	}
	if r.warps == nil {
		return make([]int64, 0, n)
	}
	if cap(r.warps) < n {
		r.warps = make([]int64, 0, n)
	}
	return r.warps[:0]
}

// decodeInto makes Next decode launch, cta and kernel records, their
// parents and warp_cycles into s (nil: as before): a Prefetcher gives it
// each batch's storage, which saves copying every record there.
func (r *Reader) decodeInto(s *slab) bool {
	r.slab = s
	return true
}

// ctaBatch is how many cta records the Reader allocates at once. They are
// most of a trace, and one allocation each would be a third of the decoding
// time; the cost is that a kept cta record keeps its batch (1.5 KiB) alive.
const ctaBatch = 32

// NewReader checks that r holds a binary trace this package can read (the
// zstd magic, then the trace magic and format version) and returns a Reader
// positioned at the first record.
func NewReader(r io.Reader) (*Reader, error) {
	var magic [len(zstdMagic)]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || string(magic[:]) != zstdMagic {
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, &Error{Offset: -1, Msg: "read error: " + err.Error()}
		}
		return nil, &Error{Offset: 0, Msg: "bad magic: not a zstd-compressed binary trace"}
	}
	src := &sourceReader{r: io.MultiReader(bytes.NewReader(magic[:]), r)}
	dec, err := zstd.NewReader(src,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxZstdWindow),
		zstd.WithDecoderLowmem(true),
	)
	if err != nil {
		return nil, &Error{Offset: 0, Msg: "zstd: " + err.Error()}
	}
	rd := &Reader{in: newInbuf(dec), src: src, delta: newDeltaState()}
	if err := rd.preamble(); err != nil {
		return nil, err
	}
	return rd, nil
}

// preamble reads the trace magic and format version.
func (r *Reader) preamble() error {
	magic, err := r.in.next(len(binaryMagic))
	if err != nil {
		if r.in.err == io.EOF {
			err = errRange("bad magic: zstd stream too short for a binary trace")
		}
		return r.fail(0, err)
	}
	if string(magic) != binaryMagic {
		return r.fail(0, errRange("bad magic: zstd stream starts with %q, not %q", magic, binaryMagic))
	}
	v, err := r.in.uvarint()
	if err != nil {
		return r.fail(0, err)
	}
	if v != Version {
		return r.fail(0, errRange("unknown format version %d (this reader knows version %d)", v, Version))
	}
	r.offset = r.in.offset()
	return nil
}

// Pos reports the 1-based number and the decompressed byte offset of the
// record Next last returned or failed on; before the first record it is 0 and
// the offset where the first record starts.
func (r *Reader) Pos() (record, offset int64) { return r.record, r.offset }

// Next returns the next record, a fresh value the caller may keep, or io.EOF
// after the last one.
func (r *Reader) Next() (Record, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		in := r.in
		offset := in.offset()
		var tag byte
		var err error
		if in.r < in.w {
			// inbuf.byte0 without its call, for every record but the
			// one a buffer ends at.
			tag, in.r = in.buf[in.r], in.r+1
		} else {
			tag, err = in.byte0()
		}
		if err == io.EOF {
			r.err = io.EOF
			return nil, io.EOF
		}
		r.record++
		r.offset = offset
		if err != nil {
			return nil, r.fail(0, err)
		}
		k, extended := splitTag(tag)
		if tag&^tagExtended >= tagLaunched || tag == tagLaunchAlike {
			// A form coded against the last launch (rebase):
			// the others decode as ever from there.
			if !r.delta.rebase(tag) {
				return nil, r.fail(k, errRange("launch record coded against the last device launch's parent, but no launch before it has one"))
			}
		}
		if r.skipped(k) {
			if err := r.skipBody(k, extended); err != nil {
				return nil, r.fail(k, err)
			}
			if r.paused() {
				return nil, errPaused
			}
			continue
		}
		if k == KindLaunch && r.skipDevice {
			l, err := r.hostLaunch()
			if err != nil {
				return nil, r.fail(k, err)
			}
			if l == nil {
				if r.paused() {
					return nil, errPaused
				}
				continue
			}
			return l, nil
		}
		var rec Record
		if k == KindCTA {
			// decode's case for most records, without its call.
			rec, err = r.cta(extended)
		} else if k != KindKernel && k != KindLaunch {
			rec, err = r.decode(k, extended)
		} else if k == KindKernel {
			// And for a launch-heavy trace's every child, a kernel
			// and its launch (BFS --quick: 7 instructions a CTA).
			// They come last: cmd/replay/default.pgo names call
			// sites by their line in the function, and the cases
			// above keep theirs.
			rec, err = r.kernel(extended)
		} else {
			rec, err = r.launch()
		}
		if err != nil {
			return nil, r.fail(k, err)
		}
		return rec, nil
	}
}

// fail turns err into the Reader's sticky *Error for the current record,
// saying in words what went wrong with the stream.
func (r *Reader) fail(k Kind, err error) error {
	var rangeErr *rangeError
	var msg string
	switch {
	case r.src.err != nil:
		msg = "read error: " + r.src.err.Error()
	case err == io.ErrUnexpectedEOF && r.in.err == io.EOF:
		msg = "truncated stream: it ends inside a record"
	case err == io.ErrUnexpectedEOF:
		msg = "truncated stream: the zstd stream ends early"
	case errors.Is(err, zstd.ErrCRCMismatch):
		msg = "corrupt stream: zstd checksum mismatch"
	case errors.Is(err, zstd.ErrDecoderSizeExceeded), errors.Is(err, zstd.ErrWindowSizeExceeded):
		msg = fmt.Sprintf("zstd window is larger than the %d MiB this reader allows", maxZstdWindow>>20)
	case errors.As(err, &rangeErr):
		msg = rangeErr.msg
	case err == errVarint:
		msg = "corrupt record: " + err.Error()
	default:
		msg = "corrupt stream: " + err.Error()
	}
	if k != 0 && k.String() == "unknown" {
		k = 0
	}
	rec := r.record
	if rec == 0 && (strings.HasPrefix(msg, "truncated") || strings.HasPrefix(msg, "corrupt")) {
		// The zstd block holding the first record is damaged: record 1
		// could not be read. (A small trace is a single block.)
		rec = 1
	}
	r.err = &Error{Record: rec, Offset: r.offset, Kind: k, Msg: msg}
	return r.err
}

// sourceReader remembers the compressed source's own read error, so the
// Reader can tell an I/O failure from corrupt data.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// decode reads the body of a record of kind k, the extended body (see
// splitTag) if extended is set.
func (r *Reader) decode(k Kind, extended bool) (Record, error) {
	switch k {
	case KindHeader:
		return r.header()
	case KindBuffer:
		return r.buffer()
	case KindMemcpy:
		return r.memcpy(extended)
	case KindKernel:
		return r.kernel(extended)
	case KindLaunch:
		return r.launch()
	case KindCTA:
		return r.cta(extended)
	case KindAccess:
		return r.access(extended)
	case KindPages:
		return r.pages(extended)
	case KindSync:
		return r.sync()
	}
	return nil, errRange("unknown record tag %d", k)
}

func (r *Reader) header() (Record, error) {
	d := fieldReader{in: r.in}
	h := &Header{
		Version:   d.int(),
		ClockMHz:  d.f64(),
		PageBytes: d.varint(),
		Source:    d.str(),
		GPU:       d.str(),
	}
	flags := d.byte()
	if flags&^(headerGPUSpec|headerOrderedTrees) != 0 {
		d.fail(errRange("header flags byte %#x has unknown bits", flags))
	}
	h.OrderedTrees = flags&headerOrderedTrees != 0
	if flags&headerGPUSpec != 0 {
		h.GPUSpec = &GPUSpec{
			SMs:             d.int(),
			ClockMHz:        d.f64(),
			MaxCTAsPerSM:    d.int(),
			MaxThreadsPerSM: d.int(),
			RegsPerSM:       d.int(),
			SmemPerSM:       d.varint(),
			MaxKernels:      d.int(),
		}
	}
	h.Meta = d.meta()
	return h, d.err
}

func (r *Reader) buffer() (Record, error) {
	d := fieldReader{in: r.in}
	b := &Buffer{
		ID:    d.uvarint(),
		Name:  d.str(),
		Base:  d.uvarint(),
		Bytes: d.varint(),
		Role:  Role(d.enum(roleNames)),
	}
	return b, d.err
}

// memcpy decodes a memcpy record's body; call says it is a memcpyx body
// (the tagMemcpyCall form) ending in the call's flags and ret.
func (r *Reader) memcpy(call bool) (Record, error) {
	d := fieldReader{in: r.in}
	m := &Memcpy{
		Dir:    d.enum(dirNames),
		Buffer: d.uvarint(),
		Bytes:  d.varint(),
		Stream: d.uvarint(),
		T:      d.varint(),
	}
	if call {
		flags, ret := d.uvarint(), d.uvarint()
		switch {
		case d.err != nil:
		case flags&^memcpyFlagsMask != 0:
			d.fail(errRange("memcpy flags %#x have unknown bits", flags))
		case flags == 0 && ret == 0:
			// The writer uses the tag only for a copy with one of
			// them: two encodings of one record would break binary
			// -> JSONL -> binary.
			d.fail(errRange("memcpy record under tag %#x without blocking, pageable or ret", tagMemcpyCall))
		}
		m.Blocking = flags&memcpyBlocking != 0
		m.Pageable = flags&memcpyPageable != 0
		m.Ret = retOf(m.T, ret)
	}
	return m, d.err
}

// sync decodes a sync record's body.
func (r *Reader) sync() (Record, error) {
	d := fieldReader{in: r.in}
	op := d.uvarint()
	s := &Sync{Stream: d.uvarint(), Event: d.uvarint(), T: d.varint()}
	s.Ret = retOf(s.T, d.uvarint())
	if d.err == nil && (op == 0 || op >= uint64(numSyncOps)) {
		d.fail(errRange("sync op %d is not one this reader knows (1 to %d)", op, numSyncOps-1))
	}
	s.Op = SyncOp(op)
	return s, d.err
}

func (r *Reader) kernel(alike bool) (Record, error) {
	var k *Kernel
	switch {
	case r.slab != nil:
		k = r.slab.kernel()
	case r.reuse:
		k = &r.scratchK
	default:
		k = new(Kernel)
	}
	return k, r.kernelInto(k, alike)
}

// kernelInto decodes a kernel record's body, a kernelalike one if alike,
// into k.
func (r *Reader) kernelInto(k *Kernel, alike bool) error {
	if alike {
		return r.kernelAlike(k)
	}
	if ok, _ := r.kernelFast(k); ok {
		return nil
	}
	d := fieldReader{in: r.in}
	*k = Kernel{ID: d.uvarint()}
	k.Name = r.kernelName(&d)
	for i := range k.Grid {
		k.Grid[i] = d.uint32("grid")
	}
	for i := range k.Block {
		k.Block[i] = d.uint32("block")
	}
	k.Regs = d.int()
	k.Smem = d.varint()
	r.tail.setFields(k) // with no bytes: the next is alike this one (kernelFast) only read in full
	return d.err
}

// kernelAlike decodes a kernelalike body into k: the kernel record read
// before it (r.tail, r.lastName) but for its id and grid x.
func (r *Reader) kernelAlike(k *Kernel) error {
	if ok, _ := r.declFast(k, true); ok {
		return nil
	}
	d := fieldReader{in: r.in}
	delta := d.varint()
	gx := d.uint32("grid")
	t := &r.tail
	if d.err == nil && !t.have {
		d.fail(errRange("kernel record declared alike the one before it, but none is before it"))
	}
	if d.err != nil {
		return d.err
	}
	*k = Kernel{ID: t.id + 1 + uint64(delta), Name: r.lastName, Grid: [3]uint32{gx, t.gy, t.gz}, Block: t.block, Regs: t.regs, Smem: t.smem}
	t.id = k.ID
	return nil
}

// declFast reads a child's declaration, a kernel record (kernelFast) or
// a kernelalike one, for Child: alike reports that it is declared as the
// kernel record before it, which kept the rules (one read past under
// ReadOptions.Skip was not checked: Child then checks this one whole). A
// kernelalike body it decodes here, straight from the buffer where its
// two fields take at most three bytes each (a child's nearly always),
// and reports whether it did; it consumes nothing where not. Read in a
// function of its own (kernelAlikeFast), a call more a child, BFS scale
// 20 (scripts/instructions.sh bfs): 1,782 → 1,779 instructions a CTA,
// --quick 2,365 → 2,357.
func (r *Reader) declFast(k *Kernel, tagAlike bool) (ok, alike bool) {
	if !tagAlike {
		return r.kernelFast(k)
	}
	t := &r.tail
	p := r.in.buf[r.in.r:r.in.w]
	if !t.have || len(p) < 6 {
		return false, false
	}
	delta, i := short3(p, 0)
	if i == 0 {
		return false, false
	}
	gx, n := short3(p, i)
	if n == 0 {
		return false, false
	}
	id := t.id + 1 + uint64(zigzag(delta))
	k.ID, k.Grid[0], k.Grid[1], k.Grid[2], k.Block = id, uint32(gx), t.gy, t.gz, t.block
	storeName(&k.Name, r.lastName)
	k.Regs, k.Smem = t.regs, t.smem
	t.id = id
	r.in.r += i + n
	return true, !t.unchecked
}

// kernelFields is the most varints a kernel record holds: its id, its
// name's length, grid, block, regs and smem.
const kernelFields = 10

// kernelFast decodes a kernel record straight from the buffer, for speed:
// a launch-heavy trace declares a kernel for every launch, under one name
// (BFS scale 20: 165,464 of them). Its grid, block, regs and smem are read
// one after another, each of up to three bytes with no call (short3),
// which also keeps them in range: a loop over them into an array, then
// from it into the record, cost BFS (--quick) 14 instructions a CTA
// more. It gives up, consuming nothing, unless the buffer surely holds the
// whole record, its name is the one read last (kernelName) and those
// fields take at most three bytes each; kernel then takes the general
// path, which reads the record or says what is wrong with it. alike
// reports that the record is declared as the kernel record read before
// it (its name, grid y and z, block, regs and smem are that one's): the
// tail it matched is the last record's, which every other way of reading
// one sets or clears. A record alike with the window's room after it
// (fastRoom: every child's but near the buffer's end) is read first in
// that window, with no bounds checks and no slice of the buffer made
// again at each field (BFS --quick: 2,804 to 2,790 instructions a CTA).
func (r *Reader) kernelFast(k *Kernel) (ok, alike bool) {
	name := r.lastName
	p := r.in.buf[r.in.r:r.in.w]
	if key := &r.nameKey; len(p) >= fastRoom && key.n > 0 && r.tail.bytes != 0 {
		// A record alike (nearly every child's) read in the fixed
		// window (fastRoom) at offsets masked within its first half,
		// with no bounds check: its id, its name's two words, grid x
		// and the tail's word.
		const h = fastRoom/2 - 1
		q := (*[fastRoom]byte)(p)
		id, i := short3At(q, 0)
		j := (i + key.n) & h
		w0, w1 := binary.LittleEndian.Uint64(q[i&h:]), binary.LittleEndian.Uint64(q[(i+8)&h:])
		gx, n0 := short3At(q, j)
		if i > 0 && n0 > 0 && w0&key.masks[0] == key.words[0] && w1&key.masks[1] == key.words[1] && binary.LittleEndian.Uint64(q[(j+n0)&h:])&(1<<(8*kernelTailLen)-1) == r.tail.bytes {
			t := &r.tail
			k.ID, k.Grid[0], k.Grid[1], k.Grid[2], k.Block = id, uint32(gx), t.gy, t.gz, t.block
			storeName(&k.Name, name)
			k.Regs, k.Smem, t.id = t.regs, t.smem, id
			r.in.r += j + n0 + kernelTailLen
			return true, true
		}
	}
	if name == "" || len(p) < len(name)+kernelFields*binary.MaxVarintLen64 {
		return false, false
	}
	// Its id with no call up to three bytes (uvarint3 was one: BFS
	// --quick, 9 instructions a CTA), then its name (nameKey).
	id, i := short3(p, 0)
	if i == 0 {
		if id, i = uvarint3(p); i <= 0 {
			return false, false
		}
	}
	j, ok := r.nameKey.match(p[i:])
	if r.nameKey.n == 0 {
		j, ok = matchName(p[i:], name)
	}
	if !ok {
		return false, false
	}
	i += j
	// Past a field of more than three bytes (n 0), the rest read on
	// from it, within the room checked above, and are thrown away.
	// Each group goes into k as it is read, which keeps fewer values
	// live (the general path, should the record take it, writes all of
	// k again).
	gx, n0 := short3(p, i)
	if t := &r.tail; n0 > 0 && t.matches(p[i+n0:]) {
		k.ID, k.Grid[0], k.Grid[1], k.Grid[2], k.Block = id, uint32(gx), t.gy, t.gz, t.block // no grid array built on the stack: BFS --quick 7 a CTA
		storeName(&k.Name, name)
		k.Regs, k.Smem, t.id = t.regs, t.smem, id
		r.in.r += i + n0 + kernelTailLen
		return true, true
	}
	gy, n1 := short3(p, i+n0)
	gz, n2 := short3(p, i+n0+n1)
	i += n0 + n1 + n2
	short := min(n0, n1, n2) == 0
	k.Grid = [3]uint32{uint32(gx), uint32(gy), uint32(gz)}
	bx, n3 := short3(p, i)
	by, n4 := short3(p, i+n3)
	bz, n5 := short3(p, i+n3+n4)
	i += n3 + n4 + n5
	short = short || min(n3, n4, n5) == 0
	k.Block = [3]uint32{uint32(bx), uint32(by), uint32(bz)}
	regs, n6 := short3(p, i)
	smem, n7 := short3(p, i+n6)
	if short || min(n6, n7) == 0 {
		return false, false
	}
	// Field by field: a Kernel assigned whole is a typed copy, with a
	// bulk write barrier while the GC marks (see storeChanged).
	k.ID = id
	storeName(&k.Name, name)
	k.Regs, k.Smem = int(zigzag(regs)), zigzag(smem)
	if n1+n2+n3+n4+n5+n6+n7 == kernelTailLen {
		r.tail.set(p[i-n1-n2-n3-n4-n5:], k)
	} else {
		r.tail.setFields(k)
	}
	r.in.r += i + n6 + n7
	return true, false
}

// kernelTail is the fields after grid x of the kernel record read last
// (grid y and z, block, regs and smem), with its id: a kernelalike body
// is declared as that record (Reader.kernelAlike). Where kernelFast read
// the record in full and each of those fields took a byte (kernelTailLen
// bytes), bytes holds them: the next record's may be the same, and then
// its fields are, read in one load. A launch-heavy trace declares its
// children alike but for their grid x (BFS: every child's tail is the one
// before's), and reading them field by field cost BFS (--quick) 23
// instructions a CTA more.
type kernelTail struct {
	bytes  uint64 // the tail's bytes, little-endian; 0: none (no tail is all zeros: grid y is at least 1 where it counts)
	gy, gz uint32
	block  [3]uint32
	regs   int
	smem   int64
	warps  int    // a CTA's warps, of block: for the Validator's shape of a kernel alike (Child)
	id     uint64 // the record's id
	have   bool   // a kernel record was read: the fields are its
	// unchecked: the record was passed over (ReadOptions.Skip), so no
	// Validator saw it keep the rules (Validator.Child's alikeOK).
	unchecked bool
}

// kernelTailLen is the bytes of a kernel tail: seven fields of a byte.
const kernelTailLen = 7

// matches reports whether p, which holds 8 bytes, starts with t's bytes.
func (t *kernelTail) matches(p []byte) bool {
	return binary.LittleEndian.Uint64(p)&(1<<(8*kernelTailLen)-1) == t.bytes && t.bytes != 0
}

// set makes p's first kernelTailLen bytes, the tail of kernel record k
// read in full, t.
func (t *kernelTail) set(p []byte, k *Kernel) {
	t.setFields(k)
	t.bytes = binary.LittleEndian.Uint64(p) & (1<<(8*kernelTailLen) - 1)
}

// setFields makes kernel record k, read in full, the one read last, with
// no bytes to match.
func (t *kernelTail) setFields(k *Kernel) {
	*t = kernelTail{gy: k.Grid[1], gz: k.Grid[2], block: k.Block, regs: k.Regs, smem: k.Smem, warps: shapeOf(k).warps, id: k.ID, have: true}
}

// nameKey is a kernel name as kernelFast finds it in a record, its
// length's varint then its bytes, held in two words: kernelFast tells
// that a record's name is the one read last in a few instructions, where
// reading the length and comparing the strings took two calls
// (uvarint3, runtime.memequal): BFS (--quick) 17 instructions a CTA
// more. A name of more than 15 bytes has no key (n 0).
type nameKey struct {
	words, masks [2]uint64
	n            int // the bytes of the length and the name
}

func newNameKey(name string) nameKey {
	var k nameKey
	if len(name) >= len(k.words)*8 {
		return k
	}
	var b [16]byte
	b[0] = byte(len(name))
	copy(b[1:], name)
	k.n = 1 + len(name)
	for w := range k.words {
		n := min(max(k.n-8*w, 0), 8)
		k.words[w] = binary.LittleEndian.Uint64(b[8*w:])
		k.masks[w] = 1<<(8*n) - 1 // all ones for 8 bytes: 1<<64 is 0
	}
	return k
}

// match reports whether p, which holds 16 bytes, starts with the name of
// key k (n not 0) and its length before it, and the bytes they take.
func (k *nameKey) match(p []byte) (int, bool) {
	return k.n, binary.LittleEndian.Uint64(p)&k.masks[0] == k.words[0] && binary.LittleEndian.Uint64(p[8:])&k.masks[1] == k.words[1]
}

// matchName is nameKey.match for a name of more than 15 bytes, which has
// no key: p holds its length's varint and its bytes.
func matchName(p []byte, name string) (int, bool) {
	n, j := uvarint3(p)
	if j <= 0 || n != uint64(len(name)) || string(p[j:j+len(name)]) != name {
		return 0, false
	}
	return j + len(name), true
}

func (r *Reader) launch() (Record, error) {
	if r.slab != nil || r.reuse {
		l, p := &r.scratch, &r.scratchP
		if r.slab != nil {
			l, p = r.slab.launch()
		}
		if err := r.launchInto(l, p); err != nil {
			return nil, err
		}
		return l, nil
	}
	// One allocation for a device launch and its parent: most launch
	// records of a DP trace are device launches.
	lp := new(struct {
		l Launch
		p Parent
	})
	if err := r.launchInto(&lp.l, &lp.p); err != nil {
		return nil, err
	}
	return &lp.l, nil
}

// launchInto decodes a launch record into l, using p for its parent when
// it has one.
func (r *Reader) launchInto(l *Launch, p *Parent) error {
	if r.launchFast(l, p) {
		return nil
	}
	d := fieldReader{in: r.in}
	flags := d.uvarint()
	if flags&^launchFlagsMask != 0 {
		d.fail(errRange("launch flags %#x has unknown bits", flags))
	}
	*l = Launch{Kernel: r.delta.launched + 1 + uint64(d.varint())}
	if flags&launchHasT != 0 {
		l.T = d.varint()
	}
	if flags&launchHasStream != 0 {
		l.Stream = d.uvarint()
	}
	if flags&launchHasParent != 0 {
		*p = Parent{}
		p.Kernel, p.CTA = d.ref(&r.delta, false)
		r.delta.parented()
		p.Warp, p.Lane, p.At = d.int(), d.int(), d.varint()
		l.Parent = p
	}
	if flags&launchHasWorkload != 0 {
		l.Workload = d.varint()
	}
	if flags&launchHasInline != 0 {
		l.InlineCycles = d.varint()
	}
	if flags&launchHasAfter != 0 {
		l.After = d.uint64s()
	}
	l.DeviceStream, l.CreatesStream = OwnStream, false
	if flags&launchHasDevStream != 0 {
		setDevStream(l, d.uvarint())
	}
	if d.err == nil {
		r.delta.launched = l.Kernel
	}
	return d.err
}

// launchFields is the most varints a launch record without an after
// list holds: its flags, kernel, t and stream, its parent's kernel, CTA,
// warp, lane and at, its workload, inline_cycles and device stream.
const launchFields = 12

// setDevStream unpacks a launch's stream kind and creates_stream; a kind
// this reader does not know stays as it is, for the validator to name.
func setDevStream(l *Launch, v uint64) {
	l.DeviceStream, l.CreatesStream = DeviceStream(min(v>>1, 255)), v&1 != 0
}

// launchFast decodes a launch record straight from the buffer, for speed:
// a launch-heavy trace has one for every kernel (BFS scale 20: 165,464,
// nearly all device launches of nine fields), and the general path took a
// call or two for each field. It reads the fields one after another into
// their places, each of up to three bytes with no call (short3At), from
// a fixed window (fastRoom) at offsets masked to it, with no bounds check
// a byte (BFS, with nextCTA's and a child's first records sliced at a constant
// length: scripts/instructions.sh bfs, 2,711 to 2,704 a CTA): a first
// pass into an array, then a second from it into the record, cost BFS
// (scripts/instructions.sh --quick) 33 instructions a CTA more. It gives
// up, consuming nothing, unless the buffer surely holds the whole record,
// its flags are known (in their one byte) and it has no after list, and
// its fields take at most three bytes each, but for a host launch's t
// (longField), which nearly always takes more; launchInto then takes the
// general path, which reads the record or says what is wrong with it.
func (r *Reader) launchFast(l *Launch, p *Parent) bool {
	b := r.in.buf[r.in.r:r.in.w]
	const flagsFast = launchFlagsMask &^ launchHasAfter
	if len(b) < fastRoom || b[0]&^flagsFast != 0 {
		return false
	}
	flags, q := b[0], (*[fastRoom]byte)(b)
	u, n := short3At(q, 1)
	if n == 0 {
		return false
	}
	i := 1 + n
	// Field by field (a Launch assigned whole is a typed copy, with a
	// bulk write barrier while the GC marks: see storeChanged), each
	// as it is read, which keeps fewer values live; the general path,
	// should the record take it, writes all of l again.
	l.Kernel, l.T, l.Stream, l.Workload, l.InlineCycles = r.delta.launched+1+uint64(zigzag(u)), 0, 0, 0, 0
	if flags&launchHasT != 0 {
		if u, n = short3At(q, i); n == 0 {
			if u, n = longField(b, i); n == 0 {
				return false
			}
		}
		i += n
		l.T = zigzag(u)
	}
	if flags&launchHasStream != 0 {
		if l.Stream, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
	}
	var parent *Parent
	if flags&launchHasParent != 0 {
		// The parent's five fields, read as kernelFast reads a
		// kernel's: past one of more than three bytes the rest read
		// on, within the room checked above, and are thrown away. The
		// delta state is updated below, for a record read whole. Read
		// here, not in a function of their own, and
		// stored field by field, not as a Parent built on the stack:
		// BFS --quick 10 instructions a CTA fewer.
		// The first four of a byte each (a child's nearly always:
		// BFS's parent is coded against the launch before's) are read
		// in one load (i is at most 17 here, within the mask): BFS
		// scale 20 1,779 → 1,769 instructions a CTA.
		var dk, dc, warp, lane, at int64
		if w := binary.LittleEndian.Uint32(q[i&(fastRoom/2-1):]); w&0x80808080 == 0 {
			dk, dc, warp, lane = zigzag4(w)
			if u, n = short3At(q, i+4); n == 0 {
				return false
			}
			i, at = i+4+n, zigzag(u)
		} else {
			u0, n0 := short3At(q, i)
			u1, n1 := short3At(q, i+n0)
			u2, n2 := short3At(q, i+n0+n1)
			u3, n3 := short3At(q, i+n0+n1+n2)
			u4, n4 := short3At(q, i+n0+n1+n2+n3)
			if min(n0, n1, n2, n3, n4) == 0 {
				return false
			}
			i += n0 + n1 + n2 + n3 + n4
			dk, dc, warp, lane, at = zigzag(u0), zigzag(u1), zigzag(u2), zigzag(u3), zigzag(u4)
		}
		// Below 2^21, warp and lane fit in an int.
		kernel := r.delta.kernel + uint64(dk)
		p.Kernel, p.CTA = kernel, r.delta.expectedCTA(kernel, false)+uint64(dc)
		p.Warp, p.Lane, p.At = int(warp), int(lane), at
		parent = p
	}
	if flags&launchHasWorkload != 0 {
		if u, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
		l.Workload = zigzag(u)
	}
	if flags&launchHasInline != 0 {
		if u, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
		l.InlineCycles = zigzag(u)
	}
	l.DeviceStream, l.CreatesStream = OwnStream, false
	if flags&launchHasDevStream != 0 {
		if u, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
		setDevStream(l, u)
	}
	storeChanged(&l.Parent, parent)
	if l.After != nil {
		l.After = nil
	}
	if parent != nil {
		r.delta.kernel, r.delta.cta = p.Kernel, p.CTA
		r.delta.parented()
	}
	r.delta.launched = l.Kernel
	r.in.r += i
	return true
}

// longField is the varint at b[i:], of more than three bytes, and the
// bytes it takes, for a fast path's field that short3 leaves: 0 bytes
// where it is longer than 64 bits. The fast path has checked that b holds
// binary.MaxVarintLen64 bytes from i.
func longField(b []byte, i int) (uint64, int) {
	v, n := binary.Uvarint(b[i : i+binary.MaxVarintLen64])
	return v, max(n, 0)
}

// cta decodes a cta record's body; demand says it is a ctad body (the
// tagCTADemand form) with insts and dram_bytes after the warp cycles.
func (r *Reader) cta(demand bool) (Record, error) {
	var c *CTA
	switch {
	case r.slab != nil:
		c = r.slab.cta()
	case r.reuse:
		c = &r.scratchCTA
	default:
		if len(r.ctas) == 0 {
			r.ctas = make([]CTA, ctaBatch)
		}
		c = &r.ctas[0]
		r.ctas = r.ctas[1:]
	}
	if r.ctaFast(c, demand) {
		return c, nil
	}
	d := fieldReader{in: r.in}
	c.Kernel, c.CTA = d.ref(&r.delta, true)
	c.Cycles = d.varint()
	c.WarpCycles = d.int64s(c.Cycles, r.warpBuf)
	c.Insts, c.DRAMBytes = 0, 0
	if demand {
		c.Insts = d.uvarint()
		c.DRAMBytes = d.uvarint()
	}
	return c, d.err
}

// maxFastWarps is the most warp_cycles a cta record read or skipped
// straight from the buffer may have (a warp's worth); longer lists take the
// general path. Their count is then one byte (ctaFast reads it so): the
// constant below does not compile past 127.
const maxFastWarps = 32

const _ uint8 = 0x7f - maxFastWarps

// ctaHead opens a cta record straight from the buffer for ctaFast and
// skipCTAFast: the buffer and the record's kernel and CTA deltas, and the
// bytes they took. It gives up (ok false) unless the buffer surely holds a
// whole record of at most maxFastWarps warp_cycles, and the deltas take
// at most three bytes each.
func (r *Reader) ctaHead() (p []byte, dk, dc int64, n int, ok bool) {
	p = r.in.buf[r.in.r:r.in.w]
	if len(p) < ctaRoom {
		return nil, 0, 0, 0, false
	}
	if h := binary.LittleEndian.Uint16(p); h&0x8080 == 0 {
		// Both a byte, as nearly always (a kernel's CTAs come in a
		// run, in order): read together.
		return p, zigzag(uint64(h & 0x7f)), zigzag(uint64(h >> 8)), 2, true
	}
	k, n1 := short3(p, 0)
	if n1 == 0 {
		return nil, 0, 0, 0, false
	}
	c, n2 := short3(p, n1)
	if n2 == 0 {
		return nil, 0, 0, 0, false
	}
	return p, zigzag(k), zigzag(c), n1 + n2, true
}

// ctaFast decodes a cta record straight from the buffer, for speed: it is
// most of a trace. It gives up, consuming nothing, unless the buffer surely
// holds the whole record, the record has at most a warp's worth of
// warp_cycles and none of its numbers takes more than three bytes (a
// CTA's cycles below 2^20, its insts and DRAM bytes below 2^21, as
// nearly all are); cta then takes the general path. demand is cta's.
func (r *Reader) ctaFast(c *CTA, demand bool) bool {
	if p, dk, dc, i, ok := r.ctaHead(); !ok || !r.ctaFastInto(c, demand, r.fastInto(), p, dk, dc, i) {
		return false
	}
	if len(c.WarpCycles) > 0 && &c.WarpCycles[0] == &r.fastWarps[0] {
		c.WarpCycles = append(r.warpBuf(len(c.WarpCycles)), c.WarpCycles...)
	}
	return true
}

// fastInto is where ctaFast decodes warp_cycles: straight into the slice
// reused under ReadOptions.ReuseWarpCycles, where they need no copy (the
// first cta record of each of BFS's child kernels: --quick, 16
// instructions a CTA), else into fastWarps, to be copied where warpBuf
// says once the record is read whole.
func (r *Reader) fastInto() []int64 {
	if r.slab == nil && cap(r.warps) >= maxFastWarps {
		return r.warps[:maxFastWarps]
	}
	return r.fastWarps[:]
}

// ctaFastInto is ctaFast past the record's head (ctaHead's p, dk, dc, i),
// the warp_cycles decoded into into (room for maxFastWarps). It makes no
// call: a call, even on a path not taken, has the compiler keep values
// live across it in memory, a load and a store each (uniform: 40 a CTA).
// It sets warpsOK as it decodes warp_cycles, for fieldsKeep (a second loop
// there: BFS --quick 8 instructions a CTA more).
func (r *Reader) ctaFastInto(c *CTA, demand bool, into []int64, p []byte, dk, dc int64, i int) bool {
	q := (*[fastRoom]byte)(p)
	u, n := short3At(q, i)
	// A count of warp_cycles up to maxFastWarps is one byte; one of more
	// bytes is past it (the first byte alone is), for the general path.
	if n == 0 || q[(i+n)&(fastRoom-1)] > maxFastWarps {
		return false
	}
	cycles, warps := zigzag(u), int(q[(i+n)&(fastRoom-1)])
	i, c.Cycles = i+n+1, cycles // stored first, so not live across the warps' loop, which then keeps its values in registers
	var wc []int64
	if warps > 0 {
		wc = into[:warps:warps]
		prev, longest := cycles, uint64(0)
		// A warp's delta nearly always takes one byte: read here, with
		// short3At only past it (BFS --quick: 3,689 to 3,671 a CTA); two
		// such (BFS's children's) with no loop: bfs 1,738 -> 1,727 a CTA.
		// The second may take two bytes (a child's [cycles, 20] does
		// where cycles pass 84): scripts/instructions.sh --quick bfs
		// 2,190 -> 2,177 a CTA, bfs 1,645 -> 1,643.
		if d0, d1, d2 := uint64(q[i&(fastRoom-1)]), uint64(q[(i+1)&(fastRoom-1)]), q[(i+2)&(fastRoom-1)]; warps == 2 && d0 < 0x80 && (d1 < 0x80 || d2 < 0x80) {
			w, n1 := (*[2]int64)(wc), 1
			if w[0] = prev + zigzag7(d0); d1 >= 0x80 {
				d1, n1 = d1&0x7f|uint64(d2)<<7, 2
			}
			w[1] = w[0] + zigzag(d1)
			i, longest = i+1+n1, max(uint64(w[0]), uint64(w[1]))
		} else {
			for w := range wc {
				d := uint64(q[i&(fastRoom-1)])
				if d >= 0x80 {
					var n int
					if d, n = short3At(q, i); n == 0 {
						return false
					}
					i += n - 1
				}
				i++
				prev += zigzag(d)
				wc[w], longest = prev, max(longest, uint64(prev))
			}
		}
		r.warpsOK = longestIs(longest, c.Cycles)
	}
	var insts, bytes uint64
	if demand {
		if insts, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
		if bytes, n = short3At(q, i); n == 0 {
			return false
		}
		i += n
	}
	kernel := r.delta.kernel + uint64(dk)
	cta := r.delta.expectedCTA(kernel, true) + uint64(dc)
	c.Kernel, c.CTA = kernel, cta
	c.WarpCycles = wc
	c.Insts, c.DRAMBytes = insts, bytes
	r.delta.kernel, r.delta.cta = kernel, cta
	r.in.r += i
	return true
}

// access decodes an access record's body; at says it is an accessat body
// (the tagAccessAt form) ending in at.
func (r *Reader) access(at bool) (Record, error) {
	d := fieldReader{in: r.in}
	a := new(Access)
	a.Kernel, a.CTA = d.ref(&r.delta, false)
	a.Buffer = d.uvarint()
	a.Lo = d.uvarint()
	a.Hi = a.Lo + d.uvarint()
	a.Mode = d.enum(modeNames)
	a.At = d.at(at)
	return a, d.err
}

// pages decodes a pages record's body; at says it is a pagesat body (the
// tagPagesAt form) ending in at.
func (r *Reader) pages(at bool) (Record, error) {
	d := fieldReader{in: r.in}
	p := new(Pages)
	p.Kernel, p.CTA = d.ref(&r.delta, false)
	p.Buffer = d.uvarint()
	p.R = d.uint64s()
	p.W = d.uint64s()
	p.At = d.at(at)
	return p, d.err
}

// fieldReader reads one record's fields, keeping the first error and
// returning zero values after it, so decoders read as a list of fields.
type fieldReader struct {
	in  *inbuf
	err error
}

func (d *fieldReader) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *fieldReader) byte() byte {
	if d.err != nil {
		return 0
	}
	c, err := d.in.byte1()
	d.fail(err)
	return c
}

// uvarint reads a field. A field the buffer holds whole, as nearly every
// one is, takes no further call: this is the innermost step of every
// record but cta records (ctaFast). Most fields are a byte, tested first,
// without uvarint3's call.
func (d *fieldReader) uvarint() uint64 {
	if b := d.in; d.err == nil && b.r < b.w {
		c := b.buf[b.r]
		if c < 0x80 {
			b.r++
			return uint64(c)
		}
		if b.r+1 < b.w && b.buf[b.r+1] < 0x80 {
			// Two bytes (a launch's at, a kernel's id), also
			// without a call.
			v := uint64(c&0x7f) | uint64(b.buf[b.r+1])<<7
			b.r += 2
			return v
		}
		if v, n := uvarint3(b.buf[b.r:b.w]); n > 0 {
			b.r += n
			return v
		}
	}
	return d.uvarintLong()
}

// uvarintLong is uvarint's every other case: a varint the buffer holds
// only part of, one longer than 64 bits, or a field after a failed one.
func (d *fieldReader) uvarintLong() uint64 {
	if d.err != nil {
		return 0
	}
	v, err := d.in.uvarint()
	d.fail(err)
	return v
}

func (d *fieldReader) varint() int64 { return zigzag(d.uvarint()) }

// at reads the at that ends an extended access or pages body. The writer
// uses the extended tag only for an at that is not 0, so reading 0 there
// would mean two encodings of one record: it is refused, which keeps binary
// -> JSONL -> binary byte-identical.
func (d *fieldReader) at(present bool) int64 {
	if !present {
		return 0
	}
	v := d.varint()
	if v == 0 && d.err == nil {
		d.fail(errRange("at is 0 in a record whose tag says it is not"))
	}
	return v
}

func (d *fieldReader) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail(errRange("value %d does not fit in an int", v))
		return 0
	}
	return int(v)
}

func (d *fieldReader) uint32(field string) uint32 {
	v := d.uvarint()
	if v > math.MaxUint32 {
		d.fail(errRange("%s dimension %d does not fit in 32 bits", field, v))
		return 0
	}
	return uint32(v)
}

func (d *fieldReader) f64() float64 {
	if d.err != nil {
		return 0
	}
	p, err := d.in.next(8)
	if err != nil {
		d.fail(err)
		return 0
	}
	return math.Float64frombits(uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56)
}

func (d *fieldReader) str() string {
	if d.err != nil {
		return ""
	}
	s, err := d.in.str()
	d.fail(err)
	return s
}

func (d *fieldReader) enum(names []string) string {
	i := d.uvarint()
	switch {
	case d.err != nil:
		return ""
	case i == 0:
		return d.str()
	case i <= uint64(len(names)):
		return names[i-1]
	}
	d.fail(errRange("enum value %d is out of range (1..%d)", i, len(names)))
	return ""
}

// ref reads a delta-coded (kernel, CTA) pair; see deltaState.
func (d *fieldReader) ref(s *deltaState, next bool) (kernel, cta uint64) {
	kernel = s.kernel + uint64(d.varint())
	cta = s.expectedCTA(kernel, next) + uint64(d.varint())
	if d.err == nil {
		s.kernel, s.cta = kernel, cta
	}
	return kernel, cta
}

// listLen reads a list length and the capacity to start the list with: no
// more than a small first chunk, so a corrupt length is never allocated
// before the data to fill it has arrived.
func (d *fieldReader) listLen() (n, capacity int) {
	v := d.uvarint()
	if v > maxListLen {
		d.fail(errRange("list length %d exceeds the format's limit of %d", v, maxListLen))
		return 0, 0
	}
	return int(v), min(int(v), 1024)
}

func (d *fieldReader) uint64s() []uint64 {
	n, c := d.listLen()
	if n == 0 || d.err != nil {
		return nil
	}
	xs := make([]uint64, 0, c)
	var prev uint64
	for i := 0; i < n && d.err == nil; i++ {
		prev += uint64(d.varint())
		xs = append(xs, prev)
	}
	return xs
}

// int64s reads a delta-coded list into a slice from buf, asked for the
// list's starting capacity.
func (d *fieldReader) int64s(prev int64, buf func(capacity int) []int64) []int64 {
	n, c := d.listLen()
	if n == 0 || d.err != nil {
		return nil
	}
	xs := buf(c)
	for i := 0; i < n && d.err == nil; i++ {
		prev += d.varint()
		xs = append(xs, prev)
	}
	return xs
}

func (d *fieldReader) meta() map[string]string {
	v := d.uvarint()
	if v > maxMetaLen {
		d.fail(errRange("meta has %d entries, more than the format's limit of %d", v, maxMetaLen))
	}
	if v == 0 || d.err != nil {
		return nil
	}
	m := make(map[string]string, min(v, 64))
	prev := ""
	for i := uint64(0); i < v && d.err == nil; i++ {
		k := d.str()
		if i > 0 && k <= prev {
			d.fail(errRange("meta keys are not in ascending order (%q after %q)", k, prev))
		}
		m[k] = d.str()
		prev = k
	}
	return m
}

// ctaRoom is the bytes the buffer must hold from a cta record's first
// after its tag for ctaHead to open it: surely the whole record, of at
// most maxFastWarps warp_cycles.
const ctaRoom = (6 + maxFastWarps) * binary.MaxVarintLen64

// fastRoom is the window ctaFastInto and short3At read a record in: its
// head (a tag and two deltas of at most three bytes each), its cycles,
// count, maxFastWarps warp_cycles, insts and dram_bytes of at most three
// bytes each take at most 113 bytes, rounded up to a power of two, so
// that an index masked by fastRoom-1 needs no bounds check; the buffer
// holds it wherever it holds ctaRoom. Read from the slice, with a bounds
// check at each byte, BFS's child CTAs took more: scripts/instructions.sh
// --quick bfs, 3,722 to 3,707 and 3,710 a CTA.
const fastRoom = 128

const _ uint = ctaRoom - fastRoom - 1 // ctaHead's and nextCTA's room holds the window

const _ uint = fastRoom - launchFields*binary.MaxVarintLen64 // the window holds a launch record launchFast reads

// zigzag4 is the values of the four one-byte zigzag varints of w, its
// bytes from the low one, where none has its continuation bit: each
// byte's value, an int8 (-64 to 63), made in the four at once (a byte's
// half, its bits flipped where its low bit is set), then sign-extended,
// where a zigzag each took five instructions and its byte's extraction
// two or three more (launchFast, a device launch's parent's kernel and
// CTA deltas, warp and lane).
func zigzag4(w uint32) (a, b, c, d int64) {
	z := w>>1&0x7f7f7f7f ^ w&0x01010101*0xff
	return int64(int8(z)), int64(int8(z >> 8)), int64(int8(z >> 16)), int64(int8(z >> 24))
}
