package replay

// The CTA-spec codec: every form a CTA's trace data takes between the
// trace reader and a placed CTA, and the one way between each two. A
// per-CTA field of the trace is added here, to each form that carries
// it, and nowhere else in the engine.
//
//   - trace.CTA is the record as the trace reader decodes it, in trace
//     cycles, its warps the reader's to reuse.
//   - ctaRecord is the record as the engine keeps it (read): rescaled to
//     the replay clock, its warps dropped where every warp runs the CTA's
//     cycles.
//   - The packed form is a cta record's numbers in a device kernel's
//     table until a spec is asked for (appendPacked, from the trace.CTA;
//     ctaSpec.decode, into the spec; ctaTable owns the table's header).
//   - ctaSpec is what placing a CTA reads: its cycles, per-warp cycles,
//     demand per cycle alone and rare parts (fill).
//   - slimSpec and rareSpec are a ctaSpec split into its pointer-free part
//     and its pointers (slim, setRare; expand), the form host CTAs take
//     from the tree reader's window (specWindow) through its messages to
//     the engine's queue (specQueue): 24 bytes a CTA the collector need
//     not scan, the rare parts apart for the few that have them. A
//     record with no per-warp cycles of its own that fills a new entry
//     becomes its slim directly (plainSlim).
//
// The codec's functions are small enough to be inlined where they are
// called once a CTA (appendPacked and decode excepted): the forms cost no
// calls on the hot paths.

import (
	"encoding/binary"
	"slices"

	"github.com/gpureplay/gpureplay/trace"
)

// ctaSpec is what the trace says about one CTA. Launch sites are rare, so
// they live behind a pointer.
type ctaSpec struct {
	cycles int64
	warps  []int64 // per-warp cycles; nil when every warp runs `cycles`
	x      *ctaExtra
	// issue and dram are the CTA's demand per cycle alone (insts and
	// dram_bytes over its time alone), zero when the trace records none.
	// float32 keeps a kernel's table of CTAs small.
	issue, dram float32
}

// ctaRecord is one cta record as the engine keeps it: its cycles and
// non-uniform warps rescaled to the replay clock (warps nil when every
// warp runs cycles), and its demand, if it records one.
type ctaRecord struct {
	cycles       int64
	warps        []int64
	demand       bool
	insts, bytes uint64
}

// read sets r to the record c, rescaled with clk. The warps it keeps are
// c's, rescaled in place: c is the reader's until its next record, so a
// form that keeps r past that copies them (ctaTable.record, specWindow).
func (r *ctaRecord) read(c *trace.CTA, clk clock) {
	*r = ctaRecord{cycles: clk.scale(c.Cycles), demand: c.HasDemand(), insts: c.Insts, bytes: c.DRAMBytes}
	if ownWarps(c) {
		r.warps = c.WarpCycles
		for i, w := range r.warps {
			r.warps[i] = clk.scale(w)
		}
	}
}

// uniform reports whether every warp runs the CTA's cycles, which is what
// a spec without warps says: such CTAs (most of a child kernel's, full
// ones) keep no slice.
func uniform(warps []int64, cycles int64) bool {
	for _, w := range warps {
		if w != cycles {
			return false
		}
	}
	return true
}

// fill writes the record into spec s, as record order has it: a later
// record of the same CTA overwrites what it sets.
func (r *ctaRecord) fill(s *ctaSpec) {
	s.cycles = r.cycles
	if r.warps != nil {
		s.warps = r.warps
	}
	if r.demand {
		if alone := s.alone(); alone > 0 {
			s.issue, s.dram = perCycle(r.insts, r.bytes, alone)
		}
	}
}

// perCycle is a demand of insts and bytes over alone cycles (> 0), a
// CTA's time alone: its issue and DRAM demand per cycle. The trace's
// validator holds a CTA's insts and bytes to 2 and 1,024 a warp a cycle
// of at most 2^40 cycles and 32 warps, under 2^63, so they convert to
// float64 as the int64s they are equal to, one instruction each, where
// a uint64's conversion tests its top bit first.
func perCycle(insts, bytes uint64, alone int64) (issue, dram float32) {
	return float32(float64(int64(insts)) / float64(alone)), float32(float64(int64(bytes)) / float64(alone))
}

// plainSlim is cta record c, rescaled with clk, as the slim of a new
// entry it alone fills (fill over an empty spec), where c has no per-warp
// cycles of its own (none, or all the CTA's: ownWarps). The tree reader
// files the host kernel's records in CTA order so
// (specWindow.appendPlain), without the ctaRecord and ctaSpec between.
func plainSlim(c *trace.CTA, clk clock) slimSpec {
	return slimOf(clk.scale(c.Cycles), c.Insts, c.DRAMBytes)
}

// slimOf is the slim of a new entry that a record with no per-warp
// cycles of its own alone fills: its cycles, rescaled to the replay's
// clock, and its demand of insts and bytes, if it records one, per cycle
// of them. A plain record (trace.PlainCTA) becomes its slim so too
// (specWindow.appendPlains). The scaling is the caller's, so that this
// is small enough to inline without a profile's say.
func slimOf(cycles int64, insts, bytes uint64) slimSpec {
	e := slimSpec{cycles: cycles}
	if (insts != 0 || bytes != 0) && cycles > 0 {
		e.issue, e.dram = perCycle(insts, bytes, cycles)
	}
	return e
}

// ownWarps reports whether c has per-warp cycles of its own, which the
// engine keeps: some warp's differ from the CTA's.
func ownWarps(c *trace.CTA) bool { return len(c.WarpCycles) > 0 && !uniform(c.WarpCycles, c.Cycles) }

// The packed form: a record of CTA i is the uvarint of a tag (the number
// of per-warp cycles, shifted left by three, whether it names its CTA,
// whether its numbers are short and whether it records a demand), the
// uvarint of i where it names its CTA, then its cycles, its insts and
// bytes where it records a demand, and its per-warp cycles. A record names its
// CTA unless that is the CTA after the last record's that did not (CTA 0
// for the first): records in CTA order, as every generator writes them,
// name none. Where each of its numbers is below 2^16 and not negative (a
// child CTA of BFS's, short) each takes two bytes, little-endian; else
// each is a varint (cycles and per-warp cycles zigzagged). A CTA takes 7
// to 12 bytes, about a fifth of a ctaSpec.
//
// The short form is read with one load a number, where a varint took a
// test a byte and, past its first, a loop (uvarintAt, kept small enough
// to inline): scripts/instructions.sh --quick bfs, 65 instructions a CTA
// fewer, written and read. A child CTA of BFS's took 9.7 bytes where it
// took 8.2 (8.7 once records in order named no CTA); BFS scale 20's peak
// resident memory stays 65 MB.
const (
	tagDemand    = 1       // the record has a demand: insts and bytes
	tagShort     = 2       // its numbers take two bytes each
	tagNamed     = 4       // it names its CTA
	tagWarpShift = 3       // the tag's number of per-warp cycles, shifted so
	shortMax     = 1 << 16 // a short number is below
)

// tagWarps is the number of per-warp cycles a record's tag says it has.
func tagWarps(tag uint64) int { return int(tag >> tagWarpShift) }

// appendPacked appends cta record c, rescaled with clk, in the packed
// form, naming its CTA where named says so: the ctaRecord read makes of
// it, written straight from c, with no ctaRecord between
// (ctaTable.record). It returns the bytes and the per-warp cycles kept:
// none where every warp runs the CTA's cycles.
func appendPacked(p []byte, c *trace.CTA, clk clock, named bool) ([]byte, int) {
	var nw int
	own, top := packedWarps(c)
	if own {
		nw = len(c.WarpCycles)
	}
	cycles := clk.scale(c.Cycles)
	tag := uint64(nw) << tagWarpShift
	demand := c.HasDemand()
	if demand {
		tag |= tagDemand
	}
	if named {
		tag |= tagNamed
	}
	short := uint64(cycles)|uint64(clk.scale(top))|c.Insts|c.DRAMBytes < shortMax
	if short {
		tag |= tagShort
	}
	p = appendUvarint(p, tag)
	if named {
		p = appendUvarint(p, c.CTA)
	}
	if short {
		if demand { // the numbers before the warps in one append, as decode reads them
			p = append(p, byte(cycles), byte(cycles>>8), byte(c.Insts), byte(c.Insts>>8), byte(c.DRAMBytes), byte(c.DRAMBytes>>8))
		} else {
			p = binary.LittleEndian.AppendUint16(p, uint16(cycles))
		}
		for _, w := range c.WarpCycles[:nw] {
			p = binary.LittleEndian.AppendUint16(p, uint16(clk.scale(w)))
		}
		return p, nw
	}
	p = appendUvarint(p, zigzagOf(cycles))
	if demand {
		p = appendUvarint(p, c.Insts)
		p = appendUvarint(p, c.DRAMBytes)
	}
	for _, w := range c.WarpCycles[:nw] {
		p = appendUvarint(p, zigzagOf(clk.scale(w)))
	}
	return p, nw
}

// packedWarps is what appendPacked needs of c's per-warp cycles, in one
// pass over them: whether c has its own (ownWarps), and top, their
// bitwise or, which is at least each where none is negative, and
// negative where one is. The clock's scaling keeps order, so the warps
// are short where top, rescaled, is. One pass with no branch in it where
// there were two, uniform's and the short test's: scripts/instructions.sh
// --quick bfs, 8 instructions a CTA fewer.
func packedWarps(c *trace.CTA) (own bool, top int64) {
	var diff int64
	for _, w := range c.WarpCycles {
		diff |= w ^ c.Cycles
		top |= w
	}
	return diff != 0, top
}

// recordHead decodes the head of the packed record at p[at:]: its tag,
// its CTA (next, where it names none, and then next is the CTA after it)
// and the index of its body after them. Records in CTA order name none
// and are read so with no number but the tag: BFS's child CTAs
// (scripts/instructions.sh --quick bfs: 24 instructions a CTA fewer,
// a byte less a CTA).
func recordHead(p []byte, at int, next *uint64) (tag, i uint64, body int) {
	tag, at = uvarintAt(p, at)
	if tag&tagNamed != 0 {
		i, at = uvarintAt(p, at)
		return tag, i, at
	}
	i = *next
	*next = i + 1
	return tag, i, at
}

// decode writes into spec s the body at p[at:] of a packed record whose
// head held tag, as fill writes the record the body was appended from,
// the warps into the start of buf (which must hold them), and returns
// the index after the body. The body goes straight into the spec, with
// no ctaRecord between: decoded into one and filled from it, its seven
// words were written and read again, and each number sliced what was
// left of the bytes (ctaTable.nextSpec, once a placed CTA:
// scripts/instructions.sh --quick bfs, 63 instructions a CTA fewer). It
// reads a short body itself, a call fewer than a dispatch to each form's
// reader (12 instructions a CTA), and leaves a long one to decodeLong.
func (s *ctaSpec) decode(tag uint64, p []byte, at int, buf []int64) int {
	if tag&tagShort == 0 {
		return s.decodeLong(tag, p, at, buf)
	}
	// The numbers before the warps in one slice of known length, at
	// constant indexes: one bounds check, where each number took two.
	var insts, bytes uint64
	if tag&tagDemand != 0 {
		b := p[at : at+6]
		s.cycles = int64(b[0]) | int64(b[1])<<8
		insts, bytes = uint64(b[2])|uint64(b[3])<<8, uint64(b[4])|uint64(b[5])<<8
		at += 6
	} else {
		s.cycles = shortAt(p, at)
		at += 2
	}
	alone := s.cycles // s.alone() once the record is in s
	if nw := tagWarps(tag); nw > 0 {
		warps := buf[:nw:nw]
		alone = 0
		for w := range warps {
			warps[w] = shortAt(p, at)
			at += 2
			alone = max(alone, warps[w])
		}
		s.warps = warps
	} else if s.warps != nil { // an earlier record's
		alone = s.alone()
	}
	if tag&tagDemand != 0 {
		s.setDemand(insts, bytes, alone)
	}
	return at
}

// decodeLong is decode for a body of varints.
func (s *ctaSpec) decodeLong(tag uint64, p []byte, at int, buf []int64) int {
	u, at := uvarintAt(p, at)
	s.cycles = unzigzag(u)
	var insts, bytes uint64
	if tag&tagDemand != 0 {
		insts, at = uvarintAt(p, at)
		bytes, at = uvarintAt(p, at)
	}
	alone := s.cycles
	if nw := tagWarps(tag); nw > 0 {
		warps := buf[:nw:nw]
		alone = 0
		for w := range warps {
			u, at = uvarintAt(p, at)
			warps[w] = unzigzag(u)
			alone = max(alone, warps[w])
		}
		s.warps = warps
	} else if s.warps != nil {
		alone = s.alone()
	}
	if tag&tagDemand != 0 {
		s.setDemand(insts, bytes, alone)
	}
	return at
}

// shortAt is the short number at p[i:]: one load of two bytes after a
// bounds check of each, where binary.LittleEndian.Uint16(p[i:]) sliced
// p first (about six instructions more a number).
func shortAt(p []byte, i int) int64 {
	_ = p[i+1]
	return int64(p[i]) | int64(p[i+1])<<8
}

// setDemand sets s's demand per cycle alone from a record's insts and bytes,
// as fill does: where the CTA's time alone is not zero.
func (s *ctaSpec) setDemand(insts, bytes uint64, alone int64) {
	if alone > 0 {
		s.issue, s.dram = perCycle(insts, bytes, alone)
	}
}

// appendUvarint is binary.AppendUvarint with its one- and two-byte cases
// (a CTA's index and tag, most cycles) unrolled: appendPacked appends
// some five for every CTA of a device kernel.
func appendUvarint(p []byte, x uint64) []byte {
	switch {
	case x < 1<<7:
		return append(p, byte(x))
	case x < 1<<14:
		return append(p, byte(x)|0x80, byte(x>>7))
	}
	return binary.AppendUvarint(p, x)
}

// zigzagOf is binary.AppendVarint's coding of v as a uvarint.
func zigzagOf(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// uvarintAt decodes binary.Uvarint's encoding at p[i:], which must hold a
// valid one (the packed form's own bytes do): the number and the index
// after it; binary.Uvarint checks for overflow, which the packed form's
// numbers cannot. Its one-byte case (most CTAs' indexes, every tag) is
// unrolled, the rest a loop: so it is small enough (cost 78) to inline
// at every call, hot in the profile or not. With the two-byte case
// unrolled too (cost 100) it inlined only where the profile said so,
// which a new decoder's calls (ctaSpec.decode) are not: they cost BFS
// 15 instructions a CTA more (scripts/instructions.sh --quick bfs).
func uvarintAt(p []byte, i int) (uint64, int) {
	if b0 := p[i]; b0 < 0x80 {
		return uint64(b0), i + 1
	}
	return uvarintLong(p, i)
}

// uvarintLong is uvarintAt for a number of two bytes or more. Its shifts
// are masked to 63, as a valid number's are, so that the compiler makes
// no test for one of 64 or more (BFS --quick: 12 instructions a CTA).
func uvarintLong(p []byte, i int) (uint64, int) {
	var x uint64
	for s := uint(0); ; s += 7 {
		b := p[i]
		i++
		if b < 0x80 {
			return x | uint64(b)<<(s&63), i
		}
		x |= uint64(b&0x7f) << (s & 63)
	}
}

// unzigzag is binary.Varint's decoding of the uvarint ux: x, or ^x when
// the low bit is set.
func unzigzag(ux uint64) int64 { return int64(ux>>1) ^ -int64(ux&1) }

// slimSpec is a ctaSpec without its pointers.
type slimSpec struct {
	cycles      int64
	issue, dram float32
	rare        int32 // where its rare parts are, in the holder's own terms (specWindow, specQueue); 0: none
}

// rareSpec is what of a ctaSpec is behind pointers.
type rareSpec struct {
	warps []int64
	x     *ctaExtra
}

// slim sets e's pointer-free part to s's; s's rare parts, where it has
// any (hasRare), go in a rareSpec of the holder's (setRare).
func (e *slimSpec) slim(s *ctaSpec) { e.cycles, e.issue, e.dram = s.cycles, s.issue, s.dram }

// hasRare reports whether s has parts behind pointers.
func (s *ctaSpec) hasRare() bool { return s.warps != nil || s.x != nil }

// setRare sets r to s's parts behind pointers.
func (r *rareSpec) setRare(s *ctaSpec) { r.warps, r.x = s.warps, s.x }

// expand sets the pointer-free part of *dst to e's; its rare parts, if
// e has any, are the holder's to add (rareSpec.expand).
func (e *slimSpec) expand(dst *ctaSpec) { dst.cycles, dst.issue, dst.dram = e.cycles, e.issue, e.dram }

// expand sets the parts of *dst behind pointers to r's.
func (r *rareSpec) expand(dst *ctaSpec) { dst.warps, dst.x = r.warps, r.x }

// readOwned is read with a copy of c's warps, for a form that keeps r
// past c's next record (ctaTable.fill, the spec window).
func (r *ctaRecord) readOwned(c *trace.CTA, clk clock) {
	r.read(c, clk)
	r.warps = slices.Clone(r.warps)
}
