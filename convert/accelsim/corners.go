package accelsim

// The CRCS profiler bounds what a CTA touches by evaluating each array
// index expression at the CTA's corner threads — thread index 0 or N-1 in
// every dimension — assuming the index is an affine function of the thread
// index. The trace gives real addresses, so a corner thread active at an
// instruction is sampled as it is, and an inactive one is extrapolated from
// the instruction's active lanes when they fit an affine function.

// corner is one corner thread of a block.
type corner struct {
	warp, lane int
	xyz        [3]int64
}

// geometry is what a kernel's block shape fixes: each thread's coordinates
// and the corner threads.
type geometry struct {
	block   [3]uint32
	vary    [3]bool // dimensions longer than 1
	xyz     [][3]int64
	corners []corner
}

func newGeometry(block [3]uint32) *geometry {
	g := &geometry{block: block}
	for d, n := range block {
		g.vary[d] = n > 1
	}
	threads := int(block[0]) * int(block[1]) * int(block[2])
	g.xyz = make([][3]int64, (threads+31)/32*32)
	bx, by := int64(block[0]), int64(block[1])
	for tid := range g.xyz {
		t := int64(tid)
		g.xyz[tid] = [3]int64{t % bx, t / bx % by, t / (bx * by)}
	}
	seen := map[int]bool{}
	for _, z := range ends(block[2]) {
		for _, y := range ends(block[1]) {
			for _, x := range ends(block[0]) {
				xyz := [3]int64{x, y, z}
				tid := int(x + int64(block[0])*(y+int64(block[1])*z))
				if !seen[tid] {
					seen[tid] = true
					g.corners = append(g.corners, corner{warp: tid / 32, lane: tid % 32, xyz: xyz})
				}
			}
		}
	}
	return g
}

// ends is {0, n-1} without repeats.
func ends(n uint32) []int64 {
	if n <= 1 {
		return []int64{0}
	}
	return []int64{0, int64(n) - 1}
}

// warp returns the thread indices of a warp's 32 lanes. The lanes of a
// last, partial warp have the indices the block's shape would give them;
// they are never active.
func (g *geometry) warp(w int) *[32][3]int64 {
	return (*[32][3]int64)(g.xyz[w*32 : w*32+32])
}

// affine is an address function fitted to one instruction's lanes:
// addr(t) = base + Σ s[d]·(t[d] − ref[d]); only the coefficients of the
// dimensions along which the lanes vary are known.
type affine struct {
	base  uint64
	ref   [3]int64
	s     [3]int64
	known [3]bool
}

// fitAffine fits an affine function to n lanes (lane numbers lane,
// addresses addr) of a warp whose lanes have thread indices xyz, in a block
// that extends along the dimensions vary says, and reports whether they all
// lie on it. Arithmetic wraps, like the address arithmetic it models.
func fitAffine(n int, lane *[32]uint8, addr *[32]uint64, xyz *[32][3]int64, vary [3]bool) (affine, bool) {
	f := affine{base: addr[0], ref: xyz[lane[0]]}
	for d := 0; d < 3; d++ {
		if !vary[d] {
			continue
		}
		for j := 1; j < n; j++ {
			delta, ok := f.delta(xyz[lane[j]], d)
			if !ok || delta[d] == 0 {
				continue
			}
			rem := int64(addr[j] - f.base)
			for e := 0; e < d; e++ {
				rem -= f.s[e] * delta[e]
			}
			if rem%delta[d] != 0 {
				return f, false
			}
			f.s[d], f.known[d] = rem/delta[d], true
			break
		}
	}
	for j := 1; j < n; j++ {
		a, ok := f.at(xyz[lane[j]])
		if !ok || a != addr[j] {
			return f, false
		}
	}
	return f, true
}

// delta returns t − ref when it can fix dimension d's coefficient: zero in
// the later dimensions, and zero or known in the earlier ones.
func (f *affine) delta(t [3]int64, d int) ([3]int64, bool) {
	var delta [3]int64
	for e := range delta {
		delta[e] = t[e] - f.ref[e]
		if e != d && delta[e] != 0 && (e > d || !f.known[e]) {
			return delta, false
		}
	}
	return delta, true
}

// at evaluates the function at thread t, when every dimension along which
// t differs from the reference lane is known.
func (f *affine) at(t [3]int64) (uint64, bool) {
	a := f.base
	for d := range t {
		if delta := t[d] - f.ref[d]; delta != 0 {
			if !f.known[d] {
				return 0, false
			}
			a += uint64(f.s[d] * delta)
		}
	}
	return a, true
}
