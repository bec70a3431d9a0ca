package results

import "github.com/gpureplay/gpureplay/tables"

// CTAFields writes a ctas row given as its fields (tables.CTAFieldSink):
// what CTA writes for the row with those fields, into a Recorder's spool
// chunk a field a column (as the generated CTA does), or into a file
// Writer's builders (add).
func (w *Writer) CTAFields(kernelID, cta uint64, sm int32, dispatch, start, end, stall int64, groupID *uint64, slowdown float64, hasSlowdown bool) {
	if !hasSlowdown {
		slowdown = 0 // opt's value for a null
	}
	if w.sp == nil {
		r := tables.CTA{KernelID: kernelID, CTA: cta, SM: sm, DispatchCycle: dispatch, StartCycle: start,
			EndCycle: end, StallCycles: stall, GroupID: groupID}
		if hasSlowdown {
			v := slowdown // its own, here: &slowdown would move the parameter to the heap on every call
			r.Slowdown = &v
		}
		add(w, &w.ctas, r)
		return
	}
	ch := w.sp.take()
	c := &ch.ctas
	i := c.n
	c.kernelID[i] = id(kernelID)
	c.cta[i] = id(cta)
	c.sm[i] = sm
	c.dispatchCycle[i] = dispatch
	c.startCycle[i] = start
	c.endCycle[i] = end
	c.stallCycles[i] = stall
	c.groupID[i], c.groupIDValid[i] = optID(groupID)
	c.slowdown[i], c.slowdownValid[i] = slowdown, hasSlowdown
	c.n = i + 1
	w.sp.sent(ch)
}
