package trace

// Runs of cta records. Most of a trace is cta records, a kernel's CTAs
// one after another, and through Next each is a call down every layer
// (Validator, Reader) and a type switch at each: on a uniform trace of 1M
// CTAs those calls cost more than decoding the record does. CTAs takes a
// run of them in one call, decoded and checked in one loop.

// ctaRunner is a source that decodes cta records straight into the
// caller's storage: the binary Reader (and Open's file, which embeds it).
type ctaRunner interface {
	runOf(kernel uint64) *Reader
}

// RunWarps is the room for warp_cycles CTAs needs for each record it
// reads: a record with more takes Next's way.
const RunWarps = maxFastWarps

// CTAs reads on from a cta record of kernel that Next returned: the cta
// records that follow it while they are kernel's, decoded into dst (at
// most len(dst) of them) with their warp_cycles in warps (RunWarps of
// room for each), and checked as Next checks them. It takes only what it
// can read the fast way, from a binary trace, and leaves the rest to
// Next: another kind of record, another kernel's, a record across the
// end of the read buffer, a record with more than RunWarps warp_cycles
// (n is 0 for a source that has no fast way, such as JSONL). dst[:n] are
// the records read, those before any error; at a record that breaks a
// rule it returns the error Next would return there, and so does every
// later call to Next.
//
// The records and their warp_cycles are the caller's, valid until it
// reuses dst and warps.
func (v *Validator) CTAs(kernel uint64, dst []CTA, warps []int64) (n int, err error) {
	src, ok := v.src.(ctaRunner)
	if !ok || v.err != nil || !v.header {
		return 0, nil
	}
	r := src.runOf(kernel)
	if r == nil {
		return 0, nil
	}
	k, err := v.inTree("cta", kernel)
	if err != nil {
		return 0, nil // Next says so, at the record
	}
	for n < len(dst) && len(warps) >= RunWarps {
		c := &dst[n]
		if !r.nextCTA(c, warps[:RunWarps:RunWarps]) {
			break
		}
		v.record++
		if err := v.checkCTAOf(k, c); err != nil {
			v.err = v.errorAt(KindCTA, err)
			return n, v.err
		}
		warps = warps[len(c.WarpCycles):]
		n++
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
// when it is a cta record of the kernel runOf was asked for (its kernel
// delta is zero) that ctaFast reads whole from the buffer; else it reads
// nothing and reports false.
func (r *Reader) nextCTA(c *CTA, warps []int64) bool {
	in := r.in
	if in.w-in.r < 2 || in.buf[in.r+1] != 0 {
		return false
	}
	tag := in.buf[in.r]
	if tag != byte(KindCTA) && tag != tagCTADemand {
		return false
	}
	offset := in.offset()
	in.r++
	if !r.ctaFastInto(c, tag == tagCTADemand, warps) {
		in.r--
		return false
	}
	r.record++
	r.offset = offset
	return true
}
