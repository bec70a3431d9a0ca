package samples

import "math/rand/v2"

// gcUncolored is the color of a vertex no round has colored yet.
const gcUncolored = -1

// gcColoring runs the Jones–Plassmann coloring of GraphBIG's GPU graph
// coloring benchmark (the SPAWN paper's GC, its ref. [23]). Every vertex
// draws a random priority; in round r each vertex still uncolored scans its
// neighbours, skipping those colored in earlier rounds, and stops at the
// first that outranks it. A vertex no uncolored neighbour outranks — a local
// maximum — takes color r. Two adjacent vertices cannot both be local
// maxima, so each round's colored vertices are an independent set and the
// coloring is proper; each round colors at least the highest-ranked
// uncolored vertex, so the rounds end.
type gcColoring struct {
	g     *csr
	prio  []uint32 // each vertex's random priority
	color []int32  // the round that colored each vertex, or gcUncolored
	round int32    // the round step runs next

	// scanned holds, for the worklist step last ran over, how many
	// neighbours each vertex's loop visited: up to and including the first
	// that outranks it, or all of them for a local maximum.
	scanned []int32
}

// gcPriorities draws each vertex's priority, a 32-bit random number as
// GraphBIG's host code draws for the GPU.
func gcPriorities(rng *rand.Rand, n int) []uint32 {
	prio := make([]uint32, n)
	for v := range prio {
		prio[v] = rng.Uint32()
	}
	return prio
}

// newGCColoring starts a coloring: nothing is colored, and the first
// worklist holds every vertex in id order.
func newGCColoring(g *csr, prio []uint32) (*gcColoring, []int32) {
	c := &gcColoring{g: g, prio: prio, color: make([]int32, g.vertices())}
	worklist := make([]int32, g.vertices())
	for v := range worklist {
		c.color[v] = gcUncolored
		worklist[v] = int32(v)
	}
	return c, worklist
}

// step runs one round over worklist and returns the next worklist: the
// vertices left uncolored, in worklist order (a deterministic stand-in for
// the order a GPU queue's atomic appends give). A neighbour colored earlier
// in this same round counts as uncolored, as it does for a GPU thread that
// reads its color before or after the write: either way it outranks the
// scanning vertex, being a local maximum.
func (c *gcColoring) step(worklist []int32) []int32 {
	c.scanned = c.scanned[:0]
	var next []int32
	for _, v := range worklist {
		n, blocked := c.scan(v)
		c.scanned = append(c.scanned, n)
		if blocked {
			next = append(next, v)
		} else {
			c.color[v] = c.round
		}
	}
	c.round++
	return next
}

// scan is one vertex's loop over its neighbours in the current round: how
// many it visits, and whether one outranks it.
func (c *gcColoring) scan(v int32) (scanned int32, blocked bool) {
	nbrs := c.g.neighbours(v)
	for i, u := range nbrs {
		if cu := c.color[u]; cu != gcUncolored && cu < c.round {
			continue
		}
		if c.outranks(u, v) {
			return int32(i + 1), true
		}
	}
	return int32(len(nbrs)), false
}

// outranks reports whether u's priority beats v's: the larger random
// number, a tie going to the smaller id (GraphBIG's rule), so priorities
// are a strict order.
func (c *gcColoring) outranks(u, v int32) bool {
	return c.prio[u] > c.prio[v] || (c.prio[u] == c.prio[v] && u < v)
}

// coloredNow reports whether the round step last ran colored v.
func (c *gcColoring) coloredNow(v int32) bool {
	return c.color[v] == c.round-1
}
