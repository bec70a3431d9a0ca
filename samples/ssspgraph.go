package samples

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ssspUniformGraph builds a graph of 2^scale vertices from edgefactor·2^scale
// edges whose endpoints are drawn uniformly (an Erdős–Rényi G(n, m) graph):
// the balanced counterpart of the Kronecker graph, whose degrees cluster
// around the mean instead of following a power law.
func ssspUniformGraph(rng *rand.Rand, scale, edgefactor int) *csr {
	n := 1 << scale
	m := edgefactor * n
	src := make([]int32, m)
	dst := make([]int32, m)
	for e := range src {
		src[e] = int32(rng.IntN(n))
		dst[e] = int32(rng.IntN(n))
	}
	return newCSR(n, src, dst)
}

// ssspWeights draws an integer weight in [1, maxWeight] for every undirected
// edge of g, uniformly (the Graph500 SSSP kernel draws uniform weights; the
// integer form is what the GPU SSSP codes store). The result is parallel to
// g.cols, and both directions of an edge carry the same weight.
func ssspWeights(rng *rand.Rand, g *csr, maxWeight int) []int32 {
	w := make([]int32, len(g.cols))
	for v := int32(0); int(v) < g.vertices(); v++ {
		for i, u := range g.neighbours(v) {
			if u < v {
				continue
			}
			e := int(g.offsets[v]) + i
			w[e] = int32(1 + rng.IntN(maxWeight))
			back, _ := slices.BinarySearch(g.neighbours(u), v)
			w[int(g.offsets[u])+back] = w[e]
		}
	}
	return w
}

// ssspUnreached is the distance of a vertex no path reaches.
const ssspUnreached = math.MaxInt64

// ssspSolver runs the worklist Bellman-Ford of the GPU SSSP codes the DTBL
// and SPAWN papers use: each iteration relaxes the out-edges of the
// vertices whose distance fell in the previous one, until none falls.
type ssspSolver struct {
	g      *csr
	weight []int32 // parallel to g.cols
	dist   []int64
	queued []bool // in the next worklist already
	// lowered holds, for the worklist just relaxed, one flag per edge in
	// worklist order: whether relaxing that edge lowered a distance.
	lowered []bool
}

// newSSSPSolver starts a search from root: the first worklist is {root}.
func newSSSPSolver(g *csr, weight []int32, root int32) (*ssspSolver, []int32) {
	s := &ssspSolver{g: g, weight: weight, dist: make([]int64, g.vertices()), queued: make([]bool, g.vertices())}
	for v := range s.dist {
		s.dist[v] = ssspUnreached
	}
	s.dist[root] = 0
	return s, []int32{root}
}

// relax runs one iteration over worklist and returns the next worklist, in
// the order a sequential sweep first lowers each vertex (a deterministic
// stand-in for a GPU queue's atomic appends). Every thread reads its
// vertex's distance when the kernel starts, so the sources' distances are
// taken before any edge is relaxed; a source lowered during the iteration
// is relaxed again in the next. s.lowered records which edges lowered.
func (s *ssspSolver) relax(worklist []int32) []int32 {
	src := make([]int64, len(worklist))
	for i, v := range worklist {
		src[i] = s.dist[v]
	}
	s.lowered = s.lowered[:0]
	var next []int32
	for i, v := range worklist {
		lo := s.g.offsets[v]
		for j, u := range s.g.neighbours(v) {
			d := src[i] + int64(s.weight[int(lo)+j])
			better := d < s.dist[u]
			if better {
				s.dist[u] = d
				if !s.queued[u] {
					s.queued[u] = true
					next = append(next, u)
				}
			}
			s.lowered = append(s.lowered, better)
		}
	}
	for _, u := range next {
		s.queued[u] = false
	}
	return next
}
