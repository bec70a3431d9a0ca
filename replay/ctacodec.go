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
//   - The packed form is a cta record as the spec it makes, in words, in
//     a device kernel's table until a spec is asked for (appendPacked,
//     from the trace.CTA; ctaSpec.decode, into the spec, which shares
//     its per-warp cycles; ctaTable owns the table's header).
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
// called once a CTA (appendPacked excepted): the forms cost no
// calls on the hot paths.

import (
	"math"
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

// The packed form: a record of CTA i is two words, its head and its
// demand, then its per-warp cycles, one a word, rescaled. The head holds
// its cycles, rescaled (below 2^51: trace.MaxCycles by MaxClockRatio),
// and above them its number of per-warp cycles (at most 32: a CTA has at
// most 1,024 threads); none where every warp runs the CTA's cycles. The
// demand is the CTA's issue and DRAM demand per cycle alone, as float32
// bits, low and high: computed as the record is filed, over its cycles,
// which are its time alone (with warp_cycles, the trace's rule makes
// cycles the longest warp's time, and rescaling keeps order). A record of
// another CTA than the one after the last record's that named none (CTA
// 0 for the first) comes after a word that names it: its CTA, with the
// sign bit set, which no head has. Records in CTA order, as every
// generator writes them, name none.
//
// A record so is the spec fill makes of it over an empty one, where a
// CTA has one record (the trace's rule: trace.Validator rejects a
// second), read back with no tag, no varint and no division: BFS's child
// CTAs, 9 bytes each as varints or two-byte numbers behind a tag, were
// appended and read again in some 260 instructions a CTA
// (scripts/instructions.sh bfs, a027e2f). A record takes 16 bytes, 32
// with two warps' cycles of its own (BFS's child kernels' last CTAs).
const (
	headWarpShift = 56                   // a head's number of per-warp cycles, shifted so
	headCycles    = 1<<headWarpShift - 1 // a head's cycles
	namesCTA      = -1 << 63             // set in a word that names a record's CTA
)

// appendPacked appends the words of cs, cta records of the table's CTAs
// that the header counts (ctaTable.recordRun; appendNamed names their
// CTAs where it does not), rescaled with clk, in the packed form: the
// ctaRecord read makes of each, written straight from it, with no
// ctaRecord between (scripts/instructions.sh --quick bfs: 10 fewer a
// CTA). It returns the per-warp cycles kept: none where every warp runs
// the CTA's cycles. A child's records (treeReader.kidCTAs) are filed in
// one call, not one a record through record. A record's words are
// appended, the slice stored back as a self-assignment, which the
// compiler stores with no write barrier (a pointer store takes one while
// the GC marks, much of a replay's first reading): held in a local and
// stored back once a run, it took BFS (full) 17 instructions a CTA more,
// spilled; made room for at once (slices.Grow) and written through a
// slice of the new words, with their bounds checks, 18 more (BFS
// --quick: 2,987 to 2,969), and the warps appended in one call (a
// memmove) or checked two at a time in packedWarps, 14 and 7 more.
// It is appendKid with no record known to repeat the one before (one
// test a record more, within the counts' spread: --quick synth 1,170 →
// 1,171).
func (t *ctaTable) appendPacked(cs []trace.CTA, clk clock) (warps int) {
	return t.appendKid(cs, 0, clk)
}

// packedWarps is ownWarps for appendPacked, with no branch a warp; two (BFS's
// children's), with no loop: --quick bfs 2,314 -> 2,303 a CTA, D 1,008 -> 997.
func packedWarps(c *trace.CTA) bool {
	if ws, diff := c.WarpCycles, int64(0); len(ws) == 2 { // BFS's every record
		return (ws[0]^c.Cycles)|(ws[1]^c.Cycles) != 0
	} else {
		for _, w := range ws {
			diff |= w ^ c.Cycles
		}
		return diff != 0
	}
}

// decode sets spec s, whole, to the packed record whose head is at p[at]
// and returns the index after it; its warps stay in p (none writes them).
func (s *ctaSpec) decode(p []int64, at int) int {
	head, demand := p[at], uint64(p[at+1])
	*s = ctaSpec{cycles: head & headCycles, issue: math.Float32frombits(uint32(demand)), dram: math.Float32frombits(uint32(demand >> 32))}
	at += 2
	if nw := int(head >> headWarpShift); nw > 0 {
		s.warps = p[at : at+nw : at+nw]
		at += nw
	}
	return at
}

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

// appendNamed files cs as appendPacked does, for a run whose first record
// is not of the CTA the header says comes next (ctaTable.recordRun):
// record by record, each naming its CTA where the header says it must.
func (t *ctaTable) appendNamed(cs []trace.CTA, clk clock) (warps int) {
	for i := range cs {
		if p := t.words(); uint64(p[0]&headerLow) == cs[i].CTA {
			p[0]++
		} else { // it names its CTA
			p[0] |= outOfOrder
			t.push1(int64(cs[i].CTA) | namesCTA)
		}
		warps += t.appendPacked(cs[i:i+1], clk)
	}
	return warps
}

// appendKid is appendPacked for a child's records that trace.Validator's
// Child read with its launch, same the bits of those that repeat the
// record before them byte for byte (trace.ChildHead.Same): such a record
// packs to that one's words, as the packed form is a function of the
// record's fields and clk alone, so the repeats of a record with no
// per-warp cycles of its own (a full CTA of BFS's children, most
// repeats) have its two words appended again, still in registers, with
// no rescaling, demand or test of their warps.
func (t *ctaTable) appendKid(cs []trace.CTA, same uint64, clk clock) (warps int) {
	if len(cs) > 64 {
		same = 0 // a bit a record: none past the 64th
	}
	for i := 0; i < len(cs); {
		c := &cs[i]
		i++
		cycles := clk.scale(c.Cycles)
		var issue, dram float32
		if c.HasDemand() && cycles > 0 {
			issue, dram = perCycle(c.Insts, c.DRAMBytes, cycles)
		}
		demand := int64(math.Float32bits(issue)) | int64(math.Float32bits(dram))<<32
		if !packedWarps(c) {
			t.push2(cycles, demand)
			for ; i < len(cs) && same>>(i&63)&1 != 0; i++ {
				t.push2(cycles, demand)
			}
			continue
		}
		nw := len(c.WarpCycles)
		t.push2(cycles|int64(nw)<<headWarpShift, demand)
		for _, w := range t.reserve(c.WarpCycles) {
			t.put(clk.scale(w))
		}
		warps += nw
	}
	return warps
}
