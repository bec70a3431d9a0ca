package replay

import "iter"

// ctaRuns holds the CTA records: every resident CTA's state (ctaRun), by
// slot, for events to name them by, those finished for reuse, and the
// placed CTAs that wait to go on: stalled before their start (the gate or
// the scoreboard said no) and paused at a page mid-run (segments.go).
//
// It owns the records' storage and the waiting lists' order and nothing
// else: it never starts, ends or schedules a CTA. The engine takes a
// record at a placement (get), puts it back at the CTA's end (put), and
// retries the waiting ones at a cycle's end (retryStalled, retryPaused).
type ctaRuns struct {
	runs    []*ctaRun // every CTA state ever made, by slot (events name them so)
	free    int32     // 1 + the slot of the last finished record, its list linked through nextFree; 0 when none
	stalled []*ctaRun // placed, not started, in the order they were placed
	paused  []*ctaRun // stopped mid-run at a page, in the order they stopped
	// (the kernels of plain CTAs, with no record, are numbered by the Kernel Distributor: plainKernels)
}

// get returns a record for a CTA being placed, reusing a finished CTA's:
// replays run millions of CTAs, and recycling keeps the garbage
// collector out of the hot loop. The record is not reset.
//
// The finished records are a list linked by slot through the records
// themselves, last put first: no pointer, so no write barrier at a CTA's
// end, and no slice to grow and bound-check, which cost 6 instructions
// a CTA more on uniform, 9 on synth (scripts/instructions.sh --quick).
func (r *ctaRuns) get() *ctaRun {
	if r.free > 0 {
		c := r.runs[r.free-1]
		r.free = c.nextFree
		return c
	}
	c := &ctaRun{slot: int32(len(r.runs))}
	r.runs = append(r.runs, c)
	return c
}

// put gives a finished CTA's record back for reuse.
func (r *ctaRuns) put(c *ctaRun) { c.nextFree, r.free = r.free, c.slot+1 }

// at is the CTA of an event, by its slot.
func (r *ctaRuns) at(slot int32) *ctaRun { return r.runs[slot] }

// stall holds a placed CTA that may not start yet.
func (r *ctaRuns) stall(c *ctaRun) { r.stalled = append(r.stalled, c) }

// pause holds a CTA stopped at a page.
func (r *ctaRuns) pause(c *ctaRun) { r.paused = append(r.paused, c) }

// waiting reports whether any CTA is stalled or paused.
func (r *ctaRuns) waiting() bool { return len(r.stalled)+len(r.paused) > 0 }

// retryStalled calls went on each stalled CTA in the order they were
// placed and keeps those for which it reports false (it did not start).
func (r *ctaRuns) retryStalled(went func(*ctaRun) bool) {
	r.stalled = retry(r.stalled, went)
}

// retryPaused calls went on each paused CTA in the order they stopped and
// keeps those for which it reports false (it did not go on).
func (r *ctaRuns) retryPaused(went func(*ctaRun) bool) {
	r.paused = retry(r.paused, went)
}

// retry calls went on each waiting CTA in order and keeps, in order, those
// for which it reports false (it did not go on).
func retry(waiting []*ctaRun, went func(*ctaRun) bool) []*ctaRun {
	j := 0
	for _, c := range waiting {
		if !went(c) {
			waiting[j] = c
			j++
		}
	}
	clear(waiting[j:])
	return waiting[:j]
}

// held is every stalled, then every paused, CTA (for the deadlock report).
func (r *ctaRuns) held() iter.Seq[*ctaRun] {
	return func(yield func(*ctaRun) bool) {
		for _, list := range [2][]*ctaRun{r.stalled, r.paused} {
			for _, c := range list {
				if !yield(c) {
					return
				}
			}
		}
	}
}
