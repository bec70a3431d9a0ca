package replay

// kdOrder is the kernels holding a Kernel Distributor entry, in the order
// they took it: what a policy looking for a kernel to coalesce into sees
// (Site.KD), oldest first.
//
// Kernels mostly give their entries back in the order they took them
// (BFS scale 20 under CDP: 83% of 165K leave as the oldest, nearly all
// of them from 32 entries), so the kernels sit in a window of a larger
// array that a removal narrows from whichever end is nearer: the oldest
// leaves by moving the window's start, where closing the gap from the
// back moved all the others, each a pointer that while the collector
// marks took a write barrier. The window moves down to the array's start
// only when it reaches the end, and only if that leaves it room for as
// many again; otherwise the array grows.
type kdOrder struct {
	buf    []*Kernel // buf[lo:hi] are the kernels
	lo, hi int
}

// kernels is the kernels in entry order, valid until the next change.
func (o *kdOrder) kernels() []*Kernel { return o.buf[o.lo:o.hi] }

// len is the number of entries held.
func (o *kdOrder) len() int { return o.hi - o.lo }

// add appends k, the latest to take an entry. Small enough to inline,
// with makeRoom kept out of it: each kernel's entry adds it (under CDP
// every device kernel's), and a call cost BFS --quick 6 instructions a
// CTA.
func (o *kdOrder) add(k *Kernel) {
	if o.hi == len(o.buf) {
		o.makeRoom()
	}
	o.buf[o.hi] = k
	o.hi++
}

// makeRoom moves the window down to the array's start when that frees
// at least as much room as the window holds, and otherwise moves it to
// an array four times its length. Rare, and kept out of add (noinline),
// where it made add too costly to inline.
//
//go:noinline
func (o *kdOrder) makeRoom() {
	n := o.len()
	if o.lo < max(n, 1) {
		buf := make([]*Kernel, max(4*n, 16))
		copy(buf, o.kernels())
		o.buf, o.lo, o.hi = buf, 0, n
		return
	}
	copy(o.buf, o.kernels())
	clear(o.buf[o.lo:o.hi]) // lo >= n: the copy overwrote none of these
	o.lo, o.hi = 0, n
}

// remove takes k out, keeping the others' order.
func (o *kdOrder) remove(k *Kernel) {
	s := o.buf[o.lo:o.hi] // not o.kernels(): its inlined call put remove over the inlining budget
	for i, x := range s {
		if x != k {
			continue
		}
		if i < len(s)/2 {
			for ; i > 0; i-- { // the oldest leaving (most do) moves none; copy's call for the few (1/3 of kernels) cost ~40 each
				s[i] = s[i-1]
			}
			s[0] = nil
			o.lo++
			return
		}
		copy(s[i:], s[i+1:])
		s[len(s)-1] = nil
		o.hi--
		return
	}
}

// removeOldest takes k, which holds an entry, out if it is the oldest,
// and reports whether it was: asked before remove, as most kernels leave
// as the oldest (kernelDistributor.leave), its test alone spares the
// window's slice and the search. k held, the window is not empty.
func (o *kdOrder) removeOldest(k *Kernel) bool {
	if o.buf[o.lo] != k {
		return false
	}
	o.buf[o.lo] = nil
	o.lo++
	return true
}

// drop takes k, which holds an entry, out: kernelDistributor.leave's,
// where held keeps the order. A call of its own, not removeOldest's test
// behind unhold's in one condition, whose result every kernel's leave set
// and tested again, under LaunchAll too, which keeps no order (callgrind,
// --quick BFS: plainKernelDone 4 instructions a kernel fewer, 1.7 a CTA).
func (o *kdOrder) drop(k *Kernel) {
	if !o.removeOldest(k) {
		o.remove(k)
	}
}
