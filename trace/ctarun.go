package trace

import "encoding/binary"

// Runs of cta records. Most of a trace is cta records, a kernel's CTAs
// one after another, and through Next each is a call down every layer
// (Validator, Reader) and a type switch at each: on a uniform trace of 1M
// CTAs those calls cost more than decoding the record does. CTAs takes a
// run of them in one call, decoded and checked in one loop.

// ctaRunner is a source that decodes cta records straight into the
// caller's storage: the binary Reader (and Open's file, which embeds it).
type ctaRunner interface {
	runReader() *Reader
}

// RunWarps is the room for warp_cycles CTAs needs for each record it
// reads: a record with more takes Next's way.
const RunWarps = maxFastWarps

// CTAs reads on from a cta record of kernel that Next returned: the cta
// records that follow it while they are kernel's, up to its grid's last
// CTA, decoded into dst (at most len(dst)) with their warp_cycles in
// warps (RunWarps of room for each), and checked as Next checks them. It
// takes only what it can read the fast way, from a binary trace, and
// leaves the rest to Next: another kind of record, another kernel's, one
// across the end of the read buffer or with more than RunWarps
// warp_cycles (n is 0 for a source with no fast way, as JSONL). dst[:n] are
// the records read, those before any error; at a record that breaks a
// rule it returns the error Next would return there, and so does every
// later call to Next.
//
// The records and their warp_cycles are the caller's, valid until it
// reuses dst and warps, and read-only: a record that repeats the one
// before it byte for byte shares that one's warp_cycles (ctaRun).
func (v *Validator) CTAs(kernel uint64, dst []CTA, warps []int64) (n int, err error) {
	if v.runner == nil || v.err != nil || !v.header {
		return v.tapeCTAs(kernel, dst, warps)
	}
	r := v.runner.runOf(kernel)
	if r == nil {
		return 0, nil
	}
	// The kernel looked up last with no call of inTree: a child's run
	// follows its first record, which Next checked (BFS --quick: 12
	// instructions a CTA).
	k := v.last
	if k == nil || k.id != kernel {
		k, _ = v.inTree("cta", kernel)
	}
	if k == nil {
		return 0, nil // Next says so, at the record
	}
	return v.ctaRun(r, k, dst, warps, noRepeat)
}

// ctaRun is CTAs's run, of k's records read with r, once both are found:
// Child reads a child's run after its first record so, rep its first
// record. A record that repeats the one before it byte for byte (rep) is
// that one with the next CTA: copied, its fields not checked again (the
// one before kept their rules), where nextCTA decoded and fieldsKeep
// checked each (repeat.go). Its warp_cycles are that one's, the same
// slice, and take no room in warps: copied into room of its own, a
// repeat's two or so cost BFS scale 20 (58% of its records repeat) 19
// instructions a CTA (scripts/instructions.sh bfs: 1,959 → 1,940).
// Where they are kept unchecked (quick), the repeats that come one after
// another are copied in a loop of their own, whole (*c = *p, four 16-byte
// moves), with the reader's place, the seen set and Same set once a run
// of them: BFS scale 20 1,797 → 1,783 instructions a CTA, --quick 2,368
// → 2,361 (D 1,028 → 1,022, E as it was). Where they are not, the
// records are read as any other (nextCTA), and checked.
func (v *Validator) ctaRun(r *Reader, k *treeKernel, dst []CTA, warps []int64, rep repeat) (n int, err error) {
	// nextCTA reads the CTA after the last record's: with quick, k's next.
	quick := v.keepsFrom(k, r.delta.cta+1)
	in := r.in
	// kept: the record keeps its rules unchecked; same: the repeats (<64).
	var kept, same = false, uint64(0)
	for used := 0; n < len(dst) && len(warps)-used >= RunWarps; { // warps[:used]: the records'
		c := &dst[n]
		if at := in.r; quick && in.w-at > repeatMax && rep.matches(in.buf[at:at+repeatMax]) {
			p, from, end := rep.prev, n, n+int(min(uint64(len(dst)-n), k.ctas-rep.prev.CTA-1)) // kept: the one before kept its fields' rules
			for b := in.buf[:in.w]; ; c = &dst[n] {
				*c = *p
				if c.CTA, p, n, at = c.CTA+1, c, n+1, at+rep.size; n == end || !rep.at(b, at) {
					break
				}
			}
			r.offset, in.r, r.delta.cta, rep.prev, k.seen.dense, same = in.base+int64(at-rep.size), at, p.CTA, p, k.seen.dense+uint64(n-from), same|(1<<(n-from)-1)<<(from&63)
			if p.CTA+1 == k.ctas {
				break
			}
			continue
		} else {
			if !r.nextCTA(c, (*[RunWarps]int64)(warps[used:])) {
				break
			}
			kept = quick && k.fieldsKeep(c, r.warpsOK)
			rep.set(in.buf[at:at+repeatMax], in.r-at, c)
			used += len(c.WarpCycles)
		}
		if kept {
			k.seen.dense++
		} else if err := v.checkCTAOf(k, c); err != nil {
			v.counted(r, n+1)
			v.err = v.errorAt(KindCTA, err)
			return n, v.err
		} else {
			quick = v.keepsFrom(k, c.CTA+1) // as checkCTAOf left k and the at check
		}
		if n++; c.CTA+1 == k.ctas {
			break // the grid's last CTA: no try at one more (BFS --quick: 9 a CTA)
		}
	}
	if v.same = same; n > 0 {
		v.counted(r, n)
		v.at.ctaRecord(&dst[n-1]) // the at check's CTA, once a run
	}
	return n, nil
}

// runOf is r where its next records may be a run of kernel's cta
// records: the record decoded last named kernel, and cta records are
// read (not skipped); else nil.
func (r *Reader) runOf(kernel uint64) *Reader {
	if r.err != nil || r.delta.kernel != kernel || r.skipped(KindCTA) {
		return nil
	}
	return r
}

// nextCTA decodes the next record into c, with its warp_cycles in warps,
// when it is a cta record of the kernel runOf was asked for, of the CTA
// after the last record's (both deltas zero: its head, read here with no
// call of ctaHead, BFS --quick 16 instructions a CTA fewer), that ctaFast
// reads whole from the buffer; else it reads nothing and reports false.
// Its caller counts the record (counted). The room for the warps is an
// array's, one pointer, where a slice of the caller's, three words made
// with their bounds checks at each record, cost BFS --quick 3
// instructions a CTA more.
func (r *Reader) nextCTA(c *CTA, warps *[RunWarps]int64) bool {
	in := r.in
	if in.w-in.r <= ctaRoom {
		return false // not surely a whole record
	}
	p := in.buf[in.r : in.r+ctaRoom+1] // of a constant length: no bounds checks below
	tag := p[0]
	if p[1] != 0 || p[2] != 0 || tag != byte(KindCTA) && tag != tagCTADemand {
		return false
	}
	offset := in.offset()
	if !r.ctaFastInto(c, tag == tagCTADemand, warps[:], p, 0, 0, 3) {
		return false
	}
	r.offset = offset
	return true
}

// PlainCTA is a plain cta record as PlainCTAs hands it over: one with no
// warp_cycles, for the CTA after the record before it, whose kernel and
// CTA are therefore the caller's to count.
type PlainCTA struct {
	Cycles           int64
	Insts, DRAMBytes uint64
}

// PlainCTAs reads on, as CTAs does, from a cta record of kernel that Next
// or CTAs returned, but only while the records are plain: CTAs first,
// first+1, … of kernel, each the one after the record before it, with no
// warp_cycles, each field of the fast form (ctaFastInto) and the rules
// holding. dst[:n] are the records read; first must be the CTA after
// the last record's, or it reads none. It never fails: it leaves a record
// that is not plain, or that breaks a rule, to CTAs and Next, which say
// what is wrong with it.
//
// A host kernel's grid is nearly all such records (every generator
// writes them so). Read this way, a record is decoded and checked in one
// short loop, with no CTA between, and what the checks of a run keep is
// updated once a run (the CTAs seen, the host kernel's order, the at
// check's CTA): on uniform and synth about 280 instructions a CTA fewer
// than CTAs with the tree reader's filing (scripts/instructions.sh
// --quick).
func (v *Validator) PlainCTAs(kernel, first uint64, dst []PlainCTA) int {
	if v.runner == nil || v.err != nil || !v.header || v.at.latest != 0 {
		return v.tapePlain(kernel, first, dst)
	}
	r := v.runner.runOf(kernel)
	if r == nil || r.delta.cta+1 != first {
		return 0
	}
	k, err := v.inTree("cta", kernel)
	// A record's checks come down to its own fields while its CTA is in
	// the grid, the next the seen set counts in order, and, in an ordered
	// host kernel, not before the last record's.
	if err != nil || first >= k.ctas || k.seen.dense != first || k.seen.out != 0 || k == v.orderK && first < v.hostCTA {
		return 0
	}
	n := r.plainCTAs(dst[:min(uint64(len(dst)), k.ctas-first)], k.warps)
	if n == 0 {
		return 0
	}
	last := first + uint64(n) - 1
	v.record += int64(n)
	k.seen.dense = last + 1
	if k == v.orderK {
		v.hostCTA = last
	}
	v.at.kernel, v.at.cta, v.at.cycles = kernel, last, dst[n-1].Cycles
	return n
}

// plainMax is the room a plain record is decoded in: the most bytes one
// takes in the fast form (its tag, two zero deltas, its cycles in three
// bytes, a zero count of warp_cycles, and insts and dram_bytes in three
// bytes each: 13) and the four loaded from any offset below 16, rounded
// up to a power of two, so that an index into it masked by plainMax-1,
// or a four-byte load at one masked by 15, needs no bounds check.
const plainMax = 32

// plainCTAs decodes into dst the plain records that come next, those of
// the CTAs after the last record's, in kernel's (runOf) with warps warps
// a CTA, as far as each is whole in the buffer and keeps to the rules
// that hold a record alone: its cycles not negative, its demand within
// the bounds. It returns how many it read, and moves the reader past
// them as Next would have.
//
// Each record is read from a fixed array (plainMax bytes; fastRoom where
// shapeAt reads it) at offsets masked to it: the same loop over the slice,
// with a bounds check at each byte, kept so many values live that the
// compiler spilled them to the stack, 30 instructions a CTA more
// (scripts/instructions.sh --quick uniform).
func (r *Reader) plainCTAs(dst []PlainCTA, warps int) int {
	in := r.in
	n, last, at := plainRun(in.buf[in.r:in.w], dst, warps)
	if n > 0 {
		r.record += int64(n)
		r.offset = in.offset() + int64(last)
		r.delta.cta += uint64(n)
		in.r += at
	}
	return n
}

// plainRun is plainCTAs's loop over p, the buffer's unread bytes: the
// records read, where the last starts and where the next does. It finds
// the layout of the record at hand (shapeAt) and reads on while the
// records keep it (plainShape.run): a generator writes a kernel's numbers
// in the same few bytes, so that is once a run where the shape is the
// same. It is a function of its own so that the reader and its buffer
// are not live across the loop, where they were spilled and reloaded at
// each record (scripts/instructions.sh --quick uniform and synth: 6 and
// 7 instructions a CTA fewer).
func plainRun(p []byte, dst []PlainCTA, warps int) (n, last, at int) {
	for n < len(dst) && at <= len(p)-fastRoom {
		s, ok := shapeAt((*[fastRoom]byte)(p[at:]))
		if !ok {
			break
		}
		k, l, next := s.run(p[at:], dst[n:], warps)
		if k == 0 {
			break // its demand breaks the bounds
		}
		n, last, at = n+k, at+l, at+next
	}
	return n, last, at
}

// plainShape is the layout of a plain record: its tag, its zero deltas
// and count of warp_cycles, how many bytes each of its varints takes (the
// continuation bits of their bytes) and its cycles' sign (a zigzag
// varint's low bit), as a mask over its first 13 bytes, in the words of
// bytes 0-7 and 5-12, and the bits under it, with where its numbers
// start and the masks of their bits. A record of the shape is checked
// with two loads and two tests, and its numbers are a load, a mask and
// low7s each (run): 78 instructions a record of synth's where a
// test a byte and a branch a number took 116 (scripts/instructions.sh
// --quick: synth 1,582 to 1,546, uniform 816 to 781 a CTA).
type plainShape struct {
	maskLo, lo, maskHi, hi uint64
	cycles, insts, bytes   uint32 // the masks of their numbers' bits (low7Mask), from where each starts
	instsAt, bytesAt       int    // where insts and dram_bytes start
	size                   int
}

// shapeAt is the shape of the record at q, where it is a plain record
// whose numbers take at most three bytes each and whose cycles are not
// negative.
func shapeAt(q *[fastRoom]byte) (s plainShape, ok bool) {
	tag := q[0]
	if tag != byte(KindCTA) && tag != tagCTADemand || q[1]|q[2] != 0 || q[3]&1 != 0 {
		return s, false // a zigzag varint is negative where its low bit is set
	}
	var mask [plainMax]byte
	mask[0], mask[1], mask[2] = 0xff, 0xff, 0xff
	n := shapeVarint(q, &mask, 3)
	if n == 0 {
		return s, false
	}
	mask[3] |= 1
	s.cycles = low7Mask(n)
	j := 3 + n
	if q[j] != 0 {
		return s, false // warp_cycles
	}
	mask[j] = 0xff
	j++
	if tag == tagCTADemand {
		if n = shapeVarint(q, &mask, j); n == 0 {
			return s, false
		}
		s.insts, s.instsAt = low7Mask(n), j
		j += n
		if n = shapeVarint(q, &mask, j); n == 0 {
			return s, false
		}
		s.bytes, s.bytesAt = low7Mask(n), j
		j += n
	}
	var bits [plainMax]byte
	for i := range bits {
		bits[i] = q[i] & mask[i]
	}
	s.maskLo, s.lo = binary.LittleEndian.Uint64(mask[:8]), binary.LittleEndian.Uint64(bits[:8])
	s.maskHi, s.hi = binary.LittleEndian.Uint64(mask[5:13]), binary.LittleEndian.Uint64(bits[5:13])
	s.size = j
	return s, true
}

// shapeVarint is the size of the varint at q[i:] where it takes at most
// three bytes (short3At), else 0, with its continuation bits set in mask.
func shapeVarint(q *[fastRoom]byte, mask *[plainMax]byte, i int) int {
	_, n := short3At(q, i)
	for k := range n {
		mask[(i+k)&(plainMax-1)] = 0x80
	}
	return n
}

// run reads into dst the records at the start of p that have shape s and
// keep to the rules that hold a record alone (its demand within the
// bounds: its cycles are not negative by its shape), as plainRun does.
// Its records all take s.size bytes, so the last starts s.size before
// at (where n > 0), worked out once: kept a record, with the loop's
// other values, it was spilled and reloaded at each
// (scripts/instructions.sh --quick synth and uniform: 5 and 6
// instructions a CTA fewer). The masks are applied on the loads' own
// line: the compiler marks an inlined call with an instruction of its
// line, and the second load's, with none there, had a NOP at every record.
func (s plainShape) run(p []byte, dst []PlainCTA, warps int) (n, last, at int) {
	for end := len(p) - plainMax; n < len(dst) && at <= end; n++ {
		q := (*[plainMax]byte)(p[at:])
		lo, hi := binary.LittleEndian.Uint64(q[:8])&s.maskLo, binary.LittleEndian.Uint64(q[5:13])&s.maskHi
		if lo != s.lo || hi != s.hi {
			break
		}
		c := PlainCTA{
			Cycles:    int64(low7s(binary.LittleEndian.Uint32(q[3:])&s.cycles) >> 1),
			Insts:     low7s(binary.LittleEndian.Uint32(q[s.instsAt&15:]) & s.insts),
			DRAMBytes: low7s(binary.LittleEndian.Uint32(q[s.bytesAt&15:]) & s.bytes),
		}
		if !demandBelow(c.Cycles, c.Insts, c.DRAMBytes, warps) {
			break
		}
		dst[n] = c
		at += s.size
	}
	return n, at - s.size, at
}

// low7s is the number a varint of at most three bytes holds, x its bytes
// with their continuation bits clear (masked by low7Mask): b0 + b1<<7 +
// b2<<14 of its bytes b0, b1, b2, worked out as (x+b0)/2 less b2<<14 in
// seven instructions, where or-ing each byte's seven bits in took nine
// (scripts/instructions.sh --quick synth and uniform: 5 instructions a
// CTA fewer).
func low7s(x uint32) uint64 { return uint64((x+x&0x7f)>>1 - x>>2&0x1fc000) }

// low7Mask is the mask of the bits of an n-byte varint's value (n at most
// three), each byte's low seven, for low7s.
func low7Mask(n int) uint32 { return 0x7f7f7f >> (8 * (3 - n)) }

// short3At is short3 over q: the varint at q[i:] where it takes at most
// three bytes, and the bytes it takes, or 0 where it takes more.
func short3At(q *[fastRoom]byte, i int) (v uint64, n int) {
	const m = fastRoom - 1
	b0 := uint64(q[i&m])
	if b0 < 0x80 {
		return b0, 1
	}
	b1 := uint64(q[(i+1)&m])
	if b1 < 0x80 {
		return b0&0x7f | b1<<7, 2
	}
	if b2 := uint64(q[(i+2)&m]); b2 < 0x80 {
		return b0&0x7f | (b1&0x7f)<<7 | b2<<14, 3
	}
	return 0, 0
}

// runReader is the Reader that decodes runs for a source that embeds r:
// asked once (NewValidator), so that each run's runOf is a direct call,
// inlined, where through ctaRunner it was a call through an interface
// (BFS --quick, one a child kernel: 7 instructions a CTA).
func (r *Reader) runReader() *Reader { return r }

// keepsFrom reports whether the cta records of k that come next, from
// CTA cta on, each of the CTA after the one before, keep the rules
// checkCTAOf holds them to where each keeps those of its own fields
// (fieldsKeep): k is a device kernel's, with no order to keep, no record
// before them with an at is to be checked (the at check's latest is 0),
// and cta is the CTA k's seen set counts next, in its grid. Where it
// holds, such a record is counted seen (dense), and the at check's CTA
// is set once a run; where not, checkCTAOf says what is wrong. BFS's
// child CTAs so make no call to checkCTAOf (scripts/instructions.sh
// --quick bfs: 13 instructions a CTA fewer). What it tests holds on
// through a run of records so counted, up to the grid's last CTA, where
// the run ends, and only checkCTAOf changes it: CTAs asks it once a run
// and again after a record checkCTAOf checks, not a record, and keeps
// the warp_cycles it has decoded as a count, not a slice resliced a
// record, and counts its records once a run (counted): BFS
// (scripts/instructions.sh bfs, means of 3) 2,717 to 2,711 instructions
// a CTA; with each record's CTA not tested against the set's, 2,704 to
// 2,697 (with ctaFastInto's cycles stored before its warps' loop).
func (v *Validator) keepsFrom(k *treeKernel, cta uint64) bool {
	return k != v.orderK && v.at.latest == 0 && k.seen.out == 0 && cta == k.seen.dense && cta < k.ctas
}

// fieldsKeep reports whether cta record c of k keeps the rules of
// checkCTAOf's that come down to its own fields: its cycles, warp_cycles
// and demand within their bounds. warpsOK is the Reader's for c, which
// ctaFastInto read: its warp_cycles' values keep the rules
// (warpCyclesOK's, with the count left to test). Its insts and bytes
// take at most three bytes there, so the demand's bounds are
// demandBelow's, with no test of their size: so fieldsKeep is small
// enough to inline (scripts/instructions.sh --quick bfs: 3,710 to 3,690
// and 3,688 a CTA).
func (k *treeKernel) fieldsKeep(c *CTA, warpsOK bool) bool {
	return uint64(c.Cycles) <= MaxCycles && (c.WarpCycles == nil || len(c.WarpCycles) == k.warps && warpsOK) && demandBelow(c.Cycles, c.Insts, c.DRAMBytes, k.warps)
}

// counted counts n records that CTAs read (nextCTA) in r's count and
// v's, where they are asked for: once a run, or before an error at its
// last.
func (v *Validator) counted(r *Reader, n int) {
	r.record += int64(n)
	v.record += int64(n)
}

// usedWarps is how many warp_cycles of the room CTAs was given the
// records cs it read hold: a record read as a repeat of the one before
// it holds none of its own (ctaRun).
func usedWarps(cs []CTA) int {
	n := 0
	for i := range cs {
		if w := cs[i].WarpCycles; len(w) > 0 && (i == 0 || !sharesWarps(w, cs[i-1].WarpCycles)) {
			n += len(w)
		}
	}
	return n
}

// sharesWarps reports whether w is p, the warp_cycles of the record
// before it: a record CTAs read as a repeat of that one (ctaRun).
func sharesWarps(w, p []int64) bool { return len(p) > 0 && &w[0] == &p[0] }
