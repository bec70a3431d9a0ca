package trace

// The binary trace format (*.trace.zst).
//
// The file is one zstd stream (frame checksums on), optionally followed by
// the host index: a zstd skippable frame, which every zstd decoder passes
// over, holding a copy of the host launch, memcpy and sync records, found from
// the file's end and checksummed. A Writer writes it where host
// operations are sparse in the stream and it stays under a cap (layout,
// cap and rule in hostindex.go). Decompressed, the file is
//
//	stream  = "GPUTRACE" uvarint(version) record*
//	record  = tag body          tag is one byte, the record's Kind
//
// and the bodies are, field by field in the order of record.go:
//
//	header  = varint(version) f64(clock_mhz) varint(page_bytes) str(source)
//	          str(gpu) byte(flags) [spec] meta
//	spec    = varint(sms) f64(clock_mhz) varint(max_ctas_per_sm)
//	          varint(max_threads_per_sm) varint(regs_per_sm)
//	          varint(smem_per_sm) varint(max_kernels)
//	meta    = uvarint(n) (str(key) str(value))*n        keys ascending
//	buffer  = uvarint(id) str(name) uvarint(base) varint(bytes) enum(role)
//	memcpy  = enum(dir) uvarint(buffer) varint(bytes) uvarint(stream) varint(t)
//	memcpyx = memcpy uvarint(blocking | pageable<<1) ret(ret)
//	                                      under tagMemcpyCall
//	kernel  = uvarint(id) str(name) uvarint(grid)×3 uvarint(block)×3
//	          varint(regs) varint(smem)
//	kernelalike = varint(id - (previous kernel's id + 1)) uvarint(grid_x)
//	                                      under tagKernelAlike
//	launchalike = launch                  under tagLaunchAlike, rebased
//	ctalaunched = cta, or ctad under tagCTALaunched or tagCTADLaunched,
//	                                      rebased
//	launch  = uvarint(flags) delta(kernel) [varint(t)] [uvarint(stream)]
//	          [ref(parent) varint(warp) varint(lane) varint(at)]
//	          [varint(workload)] [varint(inline_cycles)] [list(after)]
//	          [uvarint(device_stream<<1 | creates_stream)]
//	cta     = ref varint(cycles) list(warp_cycles)
//	ctad    = ref varint(cycles) list(warp_cycles) uvarint(insts)
//	          uvarint(dram_bytes)
//	access  = ref uvarint(buffer) uvarint(lo) uvarint(hi-lo) enum(mode)
//	pages   = ref uvarint(buffer) list(r) list(w)
//	accessat = access varint(at)          at != 0, under tagAccessAt
//	pagesat  = pages varint(at)           at != 0, under tagPagesAt
//	sync    = uvarint(op) uvarint(stream) uvarint(event) varint(t) ret(ret)
//
// The header's flags byte says whether gpu_spec follows (headerGPUSpec) and
// whether the trace declares ordered_trees (headerOrderedTrees); traces
// written before the second bit existed have 0 or 1 there, so they read
// unchanged, and a reader that predates it rejects the byte.
//
// A cta record with demand (insts or dram_bytes not zero) is written as a
// ctad body under tag tagCTADemand instead of KindCTA's, so traces without
// demands are byte-identical to those of readers that predate the fields,
// and such readers reject a trace with demands as an unknown tag rather
// than misreading it. Both decode to a CTA.
//
// Access and pages records with at not zero (a first touch after the CTA's
// start) are written the same way: an accessat or pagesat body, the old body
// and then at, under tag tagAccessAt or tagPagesAt (the kind with the high
// bit set). Records at 0 keep the old tag and body, so traces without
// positions are byte-identical to those written before at existed, and a
// reader that predates it rejects a trace with positions as an unknown tag.
// Each pair decodes to one Access or Pages.
//
// A memcpy record with blocking, pageable or ret set is a memcpyx body,
// the old body and then the flags and ret, under tag tagMemcpyCall
// (0x83); one with none of them keeps KindMemcpy's tag and body, so a
// trace without them is byte-identical to one written before they
// existed, and a reader that predates them rejects the tag instead of
// reading a blocking copy as an asynchronous one. A memcpyx body whose
// flags and ret are all 0, or whose flags have other bits, is refused:
// each record has one encoding. A sync record's op is its SyncOp
// (1 device, 2 stream, 3 event, 4 record, 5 wait); any other is refused.
//
// Three short forms shorten a launch tree's records, each decoding to
// the record its long form does. A launch-heavy trace declares each
// child right before its device launch, then its cta records (BFS:
// 165,464 children of 3.2 CTAs at scale 20), and each child repeated its
// name (a third of its bytes), then coded its launch's parent against
// the previous child's last CTA and its first CTA against that parent,
// deltas that grow with the kernel ids, bytes that zstd could match
// against nothing. With the forms BFS scale 20 is 0.71 MB, not 2.07 MB
// (8.5 MB decompressed, not 12.6 MB), and zstd decompresses it in 50.7M
// instructions, not 126.8M.
//
//   - kernelalike (tag 0x84): a kernel record declared as the kernel
//     record before it in the stream (its name, grid y and z, block,
//     regs and smem are that one's), its id coded against that one's. A
//     kernelalike body with no kernel record before it is refused.
//   - launchalike (0x85): a launch record whose parent's kernel and CTA
//     are coded against the parent of the last launch record that had
//     one, not against the last ref: the body is a launch body, read
//     with the ref state set to that parent (deltaState.rebase). One
//     with no such launch before it is refused.
//   - ctalaunched (0x46, or 0xc6 for a ctad body): a cta record coded
//     against the last launch record's kernel: a cta or ctad body read
//     with the ref state set to that kernel before its CTA 0, so a
//     child's first record codes its ref as two zero bytes.
//
// The Writer writes kernelalike where the kernel record before it was of
// a kernel the device launched (a launch with a parent followed it),
// launchalike for every device launch whose parent a device launch had
// before it, and ctalaunched for the record after a device launch of
// the kernel it launched. So a trace with no device launch is
// byte-identical to what writers before the forms wrote, and a reader
// that predates them rejects a trace with them as an unknown tag rather
// than misreading it.
//
// ret(ret) codes a call's captured return against the same record's t,
// 0 standing for "none" (ret 0):
//
//	ret(ret) = uvarint(0)                      ret = 0
//	         = uvarint(zigzag(ret - t) + 1)    otherwise
//
// where the one ret whose code wraps to 0, ret = t - 2^63, takes the
// code ret = 0 would have had, uvarint(zigzag(-t) + 1): a bijection, so
// every value round-trips. A blocking call's ret is at or just after its
// t, one or two bytes.
//
// where uvarint and varint are Go's encoding/binary varints (varint is
// zigzag), f64 is an IEEE 754 double in 8 little-endian bytes, str is
// uvarint(length) and that many bytes of UTF-8, and enum is uvarint(i) naming
// the i-th known value (1-based) or 0 followed by str(value) for any other.
// A launch's optional fields are present iff their flag bit is set (see
// launchHasParent and friends); absent ones are zero.
//
// Delta coding keeps the common case to one byte per id. All arithmetic wraps
// modulo 2^64, so any value round-trips:
//
//	delta(kernel) = varint(kernel - (previous launch's kernel + 1))
//	ref           = varint(kernel - previous kernel) varint(cta - expected)
//	list(xs)      = uvarint(n) varint(xs[i] - xs[i-1])*n
//
// ref's "previous" is the kernel and CTA of the last cta, access or pages
// record or launch parent; expected is 0 when the kernel changed, otherwise
// the previous CTA plus one for a cta record and the previous CTA itself for
// the others. A list's xs[-1] is 0, except warp_cycles' which is the CTA's
// cycles. An empty list, map or absent gpu_spec decodes as nil.

import (
	"fmt"
	"math"
)

// tagExtended, set in a record's tag, says its body is the kind's body with
// more fields after it (see above). Only the tags below have it; any other
// tag with the bit set is unknown.
const tagExtended = 0x80

// The extended tags: a cta record that carries insts and dram_bytes, an
// access or pages record with an at, a memcpy record with its call's
// blocking, pageable or ret, and the short forms kernelalike (whose body
// is not the kernel body's but a shorter one) and launchalike (see
// above).
const (
	tagKernelAlike = tagExtended | byte(KindKernel)
	tagLaunchAlike = tagExtended | byte(KindLaunch)
	tagMemcpyCall  = tagExtended | byte(KindMemcpy)
	tagCTADemand   = tagExtended | byte(KindCTA)
	tagAccessAt    = tagExtended | byte(KindAccess)
	tagPagesAt     = tagExtended | byte(KindPages)
)

// tagLaunched, set in a cta record's tag (with or without tagExtended),
// says its ref is coded against the last launch record's kernel (see
// above: ctalaunched).
const tagLaunched = 0x40

// The cta tags coded against the last launch.
const (
	tagCTALaunched  = tagLaunched | byte(KindCTA)
	tagCTADLaunched = tagLaunched | tagCTADemand
)

// splitTag is the kind a tag's record decodes to and whether its body is
// the extended one. A tag that is neither a kind nor an extended tag comes
// back as Kind(tag), which names no kind.
func splitTag(tag byte) (k Kind, extended bool) {
	switch tag {
	case tagMemcpyCall, tagCTADemand, tagAccessAt, tagPagesAt, tagKernelAlike, tagLaunchAlike:
		return Kind(tag &^ tagExtended), true
	case tagCTALaunched, tagCTADLaunched:
		return KindCTA, tag&tagExtended != 0
	}
	return Kind(tag), false
}

// extendedTag is the tag of a record of kind k, extended or not.
func extendedTag(k Kind, extended bool) byte {
	if extended {
		return tagExtended | byte(k)
	}
	return byte(k)
}

// binaryMagic opens every decompressed binary trace, so a zstd file of
// something else is recognised as such instead of misread.
const binaryMagic = "GPUTRACE"

// zstdMagic opens every zstd frame (RFC 8878); Open sniffs it to tell the
// binary encoding from JSONL.
const zstdMagic = "\x28\xb5\x2f\xfd"

// Limits on lengths read from a stream. They are far above anything a real
// trace holds and exist so a corrupt length is reported instead of being
// allocated; the writer enforces them too, so every trace it writes reads.
const (
	maxStringLen  = MaxString
	maxListLen    = 1 << 24 // entries in one list (every page of a 64 GiB buffer)
	maxMetaLen    = 1 << 16 // entries in the header's meta map
	maxZstdWindow = 1 << 25 // zstd window; the writer uses writerWindow
	writerWindow  = 1 << 20
)

// MaxString is the most bytes one string field of a record (a kernel's
// or a buffer's name) holds, in either encoding: an importer refuses a
// longer name at the row it read it from, where the writer could only
// name the record it was writing.
const MaxString = 1 << 20

// Header flag bits.
const (
	headerGPUSpec      = 1 << 0
	headerOrderedTrees = 1 << 1
)

// Launch flag bits: which optional launch fields follow.
const (
	launchHasParent = 1 << iota
	launchHasT
	launchHasStream
	launchHasWorkload
	launchHasInline
	launchHasAfter
	// launchHasDevStream: a device launch's stream kind other than
	// OwnStream, or creates_stream. Traces without it are byte-identical
	// to those written before the fields existed, and a reader that
	// predates them rejects the unknown bit rather than misread.
	launchHasDevStream
	launchFlagsMask = 1<<iota - 1
)

// Memcpy flag bits, in a memcpyx body.
const (
	memcpyBlocking = 1 << iota
	memcpyPageable
	memcpyFlagsMask = 1<<iota - 1
)

// retCode is ret(ret) of a record at t (see above).
func retCode(t, ret int64) uint64 {
	if ret == 0 {
		return 0
	}
	if c := zigzagOf(ret-t) + 1; c != 0 {
		return c
	}
	return zigzagOf(-t) + 1 // ret - t is -2^63: ret 0's code, which is free
}

// retOf decodes retCode's c for a record at t.
func retOf(t int64, c uint64) int64 {
	switch c {
	case 0:
		return 0
	case zigzagOf(-t) + 1:
		return t + math.MinInt64
	}
	return t + zigzag(c-1)
}

// zigzagOf is v's zigzag code, what binary.AppendVarint writes as a
// uvarint.
func zigzagOf(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// The enumerations of string-valued fields, in enum order (1-based on disk).
var (
	roleNames = []string{string(RoleInput), string(RoleOutput), string(RoleInOut), string(RoleTemp)}
	dirNames  = []string{DirH2D, DirD2H}
	modeNames = []string{ModeRead, ModeWrite, ModeReadWrite}
)

// deltaState is what writer and reader both remember between records to
// delta-code ids. It is O(1): five ids.
type deltaState struct {
	kernel   uint64 // kernel of the last ref
	cta      uint64 // CTA of the last ref
	launched uint64 // kernel of the last launch record
	// The parent's kernel and CTA of the last launch record that had
	// one (parent: there was one), which a launchalike body's parent is
	// coded against (rebase).
	pk, pc uint64
	parent bool
}

// rebase makes d code the record of tag, one of the rebased forms, as
// the form says; any other tag leaves d as it is. It reports false for a
// launchalike tag with no launch before it that had a parent, which has
// nothing to be coded against.
func (d *deltaState) rebase(tag byte) bool {
	switch tag {
	case tagLaunchAlike:
		if !d.parent {
			return false
		}
		d.kernel, d.cta = d.pk, d.pc
	case tagCTALaunched, tagCTADLaunched:
		d.kernel, d.cta = d.launched, ^uint64(0)
	}
	return true
}

// parented records the parent just coded (the last ref) as the last
// launch's parent.
func (d *deltaState) parented() { d.pk, d.pc, d.parent = d.kernel, d.cta, true }

// shortState is what a Writer keeps of the records it wrote last to tell
// where a record takes a short form: the kernel record written last (for
// kernelalike), and whether the last launch record was a device launch
// (for ctalaunched).
type shortState struct {
	have   bool   // a kernel record was written: decl
	decl   Kernel // the kernel record written last
	device bool   // a device launch of it was written after it
	// fromDevice: the launch record written last was a device launch.
	fromDevice bool
}

// alike reports whether k is written as a kernelalike body: declared as
// the kernel record written last (all but its id and grid x that one's),
// whose kernel the device launched.
func (d *shortState) alike(k *Kernel) bool {
	p := &d.decl
	return d.have && d.device && k.Name == p.Name && k.Grid[1] == p.Grid[1] && k.Grid[2] == p.Grid[2] && k.Block == p.Block && k.Regs == p.Regs && k.Smem == p.Smem
}

// wrote records k as the kernel record written last.
func (d *shortState) wrote(k *Kernel) { d.have, d.decl, d.device = true, *k, false }

// launched records launch l: a device launch of the kernel written last
// lets the next kernel record be written alike.
func (d *shortState) launched(l *Launch) {
	d.fromDevice = l.Parent != nil
	if d.fromDevice && d.have && l.Kernel == d.decl.ID {
		d.device = true
	}
}

func newDeltaState() deltaState {
	// Chosen so a trace's first launch of kernel 0 and first cta record of
	// CTA 0 code as zero deltas.
	return deltaState{cta: ^uint64(0), launched: ^uint64(0)}
}

// expectedCTA is the CTA a ref to kernel is coded against; next is true for
// cta records, which usually come in CTA order.
func (d *deltaState) expectedCTA(kernel uint64, next bool) uint64 {
	switch {
	case kernel != d.kernel:
		return 0
	case next:
		return d.cta + 1
	default:
		return d.cta
	}
}

// rangeError is a field value that cannot be real; the reader reports its
// message as is.
type rangeError struct{ msg string }

func (e *rangeError) Error() string { return e.msg }

func errRange(format string, args ...any) error {
	return &rangeError{fmt.Sprintf(format, args...)}
}

// rebaseCTA is rebase for the tag of a cta record (KindCTA's or
// tagCTADemand, with tagLaunched or not): a test of one bit where
// rebase's switch compared the tag with three (Validator.Child).
func (d *deltaState) rebaseCTA(tag byte) bool {
	if tag&tagLaunched != 0 {
		d.kernel, d.cta = d.launched, ^uint64(0)
	}
	return true
}
