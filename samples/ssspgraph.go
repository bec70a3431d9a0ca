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
	// dragonli relaxes as Dragon_li's code does (relaxDragonli), its
	// loops and children run by dlLoops; child is then the part of a
	// degree-d vertex's edges its child kernel takes (0 for the Reg
	// code, which launches none). flat is the Reg code. block is the
	// persistent grid's CTA size, step the price of an iteration of a
	// thread's loop, and loops, for the worklist just relaxed, each
	// warp's loop in cycles by the warp's first item.
	dragonli bool
	child    func(degree int) int
	flat     bool
	block    int
	step     int64
	loops    map[int]int64
	// atomics counts, where countAtomics is set, the relaxation's atomic
	// transactions as GPGPU-Sim's GLOBAL_ATOMIC count does
	// (TestSSSPAtomicsHeldOut): a warp's atomicMin, one for each 32-byte
	// sector its lanes that take the lowering branch touch and one more
	// for each further lane on a word one of them touches already
	// (memory_coalescing_arch_atomic, abstract_hardware_model.cc:590-675
	// at 667834cf; -gpgpu_gmem_skip_L1D 1 makes Kepler's segment a
	// sector), and an atomicAdd on the frontier's one counter for each
	// lane that appends.
	atomics int
	// childWait is, for the relaxation just run, what each child CTA (by
	// its worklist item and its index) waited at the frontier's counter
	// beyond its price (ssspdlcounter.go).
	childWait    map[[2]int]int64
	countAtomics bool
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
	if s.dragonli {
		return s.relaxDragonli(worklist)
	}
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

// relaxDragonli is relax as Dragon_li's SSSP runs it
// (sssp/ssspCdpDevice.h, ssspCdpThread.h, ssspRegDevice.h at 1397e03):
//
//   - Every edge whose atomicMin lowers dist[u] appends u to the next
//     frontier ("if(newDstDistance < prevDstDistance) { SizeType
//     globalOffset = ctaOutputAssignment.getCtaOutputAssignment(1); …
//     devFrontierOut[globalOffset] = neighborVertexId;"), with no visited
//     flag, so a vertex lowered k times is in the next frontier k times,
//     and each copy relaxes (and, at a site, launches) again.
//   - A parent thread's own loop relaxes its edges one after another, and
//     the appends are in the order the warps of every CTA reach them at
//     once, as SIMT runs the loop (dlLoops). In the CDP code a launching
//     lane's children relax the rest of its edges beside the loops, each
//     child CTA when the simulator would run it (ssspdlchildren.go).
//   - A child warp's 32 lanes read dist[u] together, then issue their
//     atomicMin, and GPGPU-Sim sends a warp's transactions last first
//     (shader.cc's ldst_unit takes inst.accessq_back() and pops it, the
//     queue being built in lane order by memory_coalescing_arch_atomic,
//     one transaction per lane on the same word). Where a vertex's
//     parallel arcs share a child warp in ascending weight (R-MAT files
//     list them so, and Dragon_li keeps the file's order), each lighter
//     arc lowers the heavier one's result again and appends again.
//
// The next frontier is the appends in the order they reach the counter.
func (s *ssspSolver) relaxDragonli(worklist []int32) []int32 {
	src := make([]int64, len(worklist))
	for i, v := range worklist {
		src[i] = s.dist[v]
	}
	s.lowered = s.lowered[:0]
	s.atomics = 0
	at := make([]int, len(worklist)) // each item's first flag in s.lowered
	for i, v := range worklist {
		at[i] = len(s.lowered)
		s.lowered = append(s.lowered, make([]bool, s.g.degree(v))...)
	}
	return s.dlLoops(worklist, src, at, nil)
}

// countAtomicMin adds to s.atomics the transactions of one warp's
// atomicMin whose lanes relax the edges at these indices of g.cols.
func (s *ssspSolver) countAtomicMin(edges []int) {
	if !s.countAtomics {
		return
	}
	u := make([]int32, len(edges))
	for i, e := range edges {
		u[i] = s.g.cols[e]
	}
	slices.Sort(u)
	for i := 0; i < len(u); {
		// A sector holds 8 distances: its transactions are the most
		// lanes on one of its words.
		j, most := i, 0
		for j < len(u) && u[j]>>3 == u[i]>>3 {
			k := j
			for k < len(u) && u[k] == u[j] {
				k++
			}
			most, j = max(most, k-j), k
		}
		s.atomics += most
		i = j
	}
}
