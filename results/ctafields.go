package results

import (
	"unsafe"

	"github.com/gpureplay/gpureplay/tables"
)

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

// CTAs writes a block of ctas rows (tables.CTABlockSink): what CTAFields
// writes for each of its rows, into a Recorder's spool chunks a column at
// a time, as many rows a chunk as it has room for, or row by row into a
// file Writer's builders.
func (w *Writer) CTAs(b *tables.CTABlock) {
	if w.sp == nil {
		for i := range b.N {
			w.CTAFields(b.KernelID[i], b.CTA[i], b.SM[i], b.Start[i], b.Start[i], b.End[i], 0, nil, b.Slowdown[i], b.HasSlowdown[i])
		}
		return
	}
	for lo := 0; lo < b.N; {
		ch, k := w.sp.takeUpTo(b.N - lo)
		ch.ctas.fill(b, lo, lo+k)
		lo += k
		w.sp.sent(ch)
	}
}

// fill appends rows [lo, hi) of b, which c has room for, a column at a
// time: copies, where a row at a time took each row's eleven fields in
// turn. A row's dispatch is its start, its stall 0 and its group null
// (tables.CTABlock); its slowdown 0 where it has none, as CTAFields
// stores it.
func (c *ctaRows) fill(b *tables.CTABlock, lo, hi int) {
	n := c.n
	m := n + hi - lo
	copyBits(c.kernelID[n:m], b.KernelID[lo:hi])
	copyBits(c.cta[n:m], b.CTA[lo:hi])
	copy(c.sm[n:m], b.SM[lo:hi])
	copy(c.dispatchCycle[n:m], b.Start[lo:hi])
	copy(c.startCycle[n:m], b.Start[lo:hi])
	copy(c.endCycle[n:m], b.End[lo:hi])
	clear(c.stallCycles[n:m])
	clear(c.groupID[n:m])
	clear(c.groupIDValid[n:m])
	copy(c.slowdown[n:m], b.Slowdown[lo:hi])
	has := b.HasSlowdown[lo:hi]
	copy(c.slowdownValid[n:m], has)
	if !allSet(has) {
		for i, ok := range has {
			if !ok {
				c.slowdown[n+i] = 0
			}
		}
	}
	c.n = m
}

// copyBits copies unsigned ids into an int64 column, keeping their bits
// (id).
func copyBits(dst []int64, src []uint64) {
	copy(dst, unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(src))), len(src)))
}
