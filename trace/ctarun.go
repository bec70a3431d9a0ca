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
// reuses dst and warps.
func (v *Validator) CTAs(kernel uint64, dst []CTA, warps []int64) (n int, err error) {
	if v.runner == nil || v.err != nil || !v.header {
		return 0, nil
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
	fast := k != v.orderK // a device kernel's: no order to keep (keeps)
	for n < len(dst) && len(warps) >= RunWarps {
		c := &dst[n]
		if !r.nextCTA(c, warps[:RunWarps:RunWarps]) {
			break
		}
		v.record++
		if fast && v.at.latest == 0 && k.keeps(c, r.warpsOK) {
			k.seen.dense++
		} else if err := v.checkCTAOf(k, c); err != nil {
			v.err = v.errorAt(KindCTA, err)
			return n, v.err
		}
		warps = warps[len(c.WarpCycles):]
		if n++; c.CTA+1 == k.ctas {
			break // the grid's last CTA: no try at one more (BFS --quick: 9 a CTA)
		}
	}
	if n > 0 {
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
func (r *Reader) nextCTA(c *CTA, warps []int64) bool {
	in := r.in
	p := in.buf[in.r:in.w] // sliced once, its first bytes with no bounds checks
	if len(p) <= ctaRoom || p[1] != 0 || p[2] != 0 {
		return false
	}
	tag := p[0]
	if tag != byte(KindCTA) && tag != tagCTADemand {
		return false
	}
	offset := in.offset()
	if !r.ctaFastInto(c, tag == tagCTADemand, warps, p, 0, 0, 3) {
		return false
	}
	r.record++
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
		return 0
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
// bytes each: 13), rounded up to a power of two, so that an index into
// it masked by plainMax-1 needs no bounds check.
const plainMax = 16

// plainCTAs decodes into dst the plain records that come next, those of
// the CTAs after the last record's, in kernel's (runOf) with warps warps
// a CTA, as far as each is whole in the buffer and keeps to the rules
// that hold a record alone: its cycles not negative, its demand within
// the bounds. It returns how many it read, and moves the reader past
// them as Next would have.
//
// Each record is read from a fixed array of plainMax bytes, its varints
// by offsets masked to it (short3At): the same loop over the slice, with
// a bounds check at each byte, kept so many values live that the
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
// records read, where the last starts and where the next does. It is a
// function of its own so that the reader and its buffer are not live
// across the loop, where they were spilled and reloaded at each record
// (scripts/instructions.sh --quick uniform and synth: 6 and 7
// instructions a CTA fewer).
func plainRun(p []byte, dst []PlainCTA, warps int) (n, last, at int) {
	for end := len(p) - plainMax; n < len(dst) && at <= end; n++ { // the last start with room (uniform --quick: 7 a CTA)
		q := (*[plainMax]byte)(p[at:])
		// The tag and both deltas in one load: zero deltas, the CTA
		// after the last, are its second and third bytes zero.
		h := binary.LittleEndian.Uint32(q[:4])
		tag := byte(h)
		if tag != byte(KindCTA) && tag != tagCTADemand || h&0xffff00 != 0 {
			break
		}
		u, m := short3At(q, 3)
		j := 3 + m
		if m == 0 || q[j&(plainMax-1)] != 0 {
			break
		}
		c := PlainCTA{Cycles: zigzag(u)}
		j++
		if tag == tagCTADemand {
			if c.Insts, m = short3At(q, j); m == 0 {
				break
			}
			j += m
			if c.DRAMBytes, m = short3At(q, j); m == 0 {
				break
			}
			j += m
		}
		if c.Cycles < 0 || !demandBelow(c.Cycles, c.Insts, c.DRAMBytes, warps) {
			break
		}
		dst[n] = c
		last = at
		at += j
	}
	return n, last, at
}

// short3At is short3 over q: the varint at q[i:] where it takes at most
// three bytes, and the bytes it takes, or 0 where it takes more. i is at
// most plainMax-3.
func short3At(q *[plainMax]byte, i int) (v uint64, n int) {
	const m = plainMax - 1
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

// keeps reports whether cta record c of k keeps the rules checkCTAOf
// holds it to that come down to its own fields and k's seen set: its CTA
// in the grid and the next the set counts in order, its cycles,
// warp_cycles and demand within their bounds. Where it does, and neither
// the host kernel's order nor an at before it is to be checked (k is a
// device kernel's; the at check's latest is 0), CTAs counts it seen, and
// sets the at check's CTA once a run; where it does not, checkCTAOf says
// what is wrong. BFS's child CTAs so make no call to checkCTAOf
// (scripts/instructions.sh --quick bfs: 13 instructions a CTA fewer).
// warpsOK is the Reader's for c, which ctaFastInto read: its warp_cycles'
// values keep the rules (warpCyclesOK's, with the count left to test).
// ctaFastInto reads insts and dram_bytes of at most three bytes, below
// 2^21, so the demand is demandBelow's with no test of their size
// (withinDemand's): so keeps is small enough to inline in CTAs and
// firstCTA, where its call cost BFS --quick 21 instructions a CTA.
func (k *treeKernel) keeps(c *CTA, warpsOK bool) bool {
	return c.CTA == k.seen.dense && k.seen.out == 0 && c.CTA < k.ctas && uint64(c.Cycles) <= MaxCycles &&
		(c.WarpCycles == nil || len(c.WarpCycles) == k.warps && warpsOK) && demandBelow(c.Cycles, c.Insts, c.DRAMBytes, k.warps)
}
