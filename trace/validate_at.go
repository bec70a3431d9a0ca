package trace

import "fmt"

// atCheck ties the at of access and pages records to their CTA's cycles:
// at is cycles into the CTA's own run, so it may not lie beyond its end.
// The validator holds no per-CTA state, so it checks this for the CTA whose
// records it is in: access and pages records right after the CTA's cta
// record (with only other access and pages records of the CTA between)
// against its cycles, and those right before it when the cta record comes.
// That is exact for every trace whose CTAs' records are together (what the
// generators write, and the Accel-Sim importer for pages records); a record
// separated from its CTA's cta record by another CTA's records (the
// importer's access records, written after the kernel's last CTA) is only
// held to 0..2^40.
//
// It starts as newAtCheck, as if at CTA 0 of kernel 0 before its cta
// record: a first access or pages record is then held to 0..2^40 as any
// CTA's is before its cta record, whichever CTA it names.
type atCheck struct {
	kernel, cta uint64 // the CTA whose records these are
	cycles      int64  // its cycles, or -1 before its cta record
	// The record with the largest at among the CTA's before its cta
	// record; latestKind is 0 while none has an at above 0.
	latest       int64
	latestKind   Kind
	latestBuffer uint64
}

func newAtCheck() atCheck { return atCheck{cycles: -1} }

// ctaRecord is cta record c where no record of its CTA before it had an
// at (latest 0, and so latestKind and latestBuffer too), as for nearly
// every cta record: its CTA becomes the one whose records follow. The
// others go to ctaRecordAfter. The Validator asks which (checkCTAOf), so
// that both its test and this stay inline in its loop over a run of cta
// records.
func (a *atCheck) ctaRecord(c *CTA) {
	a.kernel, a.cta, a.cycles = c.Kernel, c.CTA, c.Cycles
}

// ctaRecordAfter is cta record c where a record before it had an at:
// c's cycles must cover that at if it is c's CTA's.
func (a *atCheck) ctaRecordAfter(c *CTA) error {
	kernel, cta, cycles := c.Kernel, c.CTA, c.Cycles
	if a.kernel == kernel && a.cta == cta && a.cycles < 0 && a.latest > cycles {
		return fmt.Errorf("CTA %d of kernel %d takes %d cycles, but its %s record of buffer %d before this one says it first touches them at %d; at is cycles into the CTA's own run, at most its cycles", cta, kernel, cycles, a.latestKind, a.latestBuffer, a.latest)
	}
	*a = atCheck{kernel: kernel, cta: cta, cycles: cycles}
	return nil
}

// touch checks the at of an access or pages record (kind k) of buffer by
// CTA cta of kernel.
func (a *atCheck) touch(k Kind, buffer, kernel, cta uint64, at int64) error {
	same := a.kernel == kernel && a.cta == cta
	limit, bound := int64(MaxCycles), "2^40"
	if same && a.cycles >= 0 {
		limit, bound = a.cycles, "the CTA's cycles"
	}
	if at < 0 || at > limit {
		return fmt.Errorf("%s of buffer %d by CTA %d of kernel %d at %d cycles; want 0 to %d (%s): at is cycles into the CTA's own run", k, buffer, cta, kernel, at, limit, bound)
	}
	if !same {
		*a = atCheck{kernel: kernel, cta: cta, cycles: -1}
	}
	if a.cycles < 0 && at > a.latest {
		a.latest, a.latestKind, a.latestBuffer = at, k, buffer
	}
	return nil
}
