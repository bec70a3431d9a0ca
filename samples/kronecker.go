package samples

import "math/rand/v2"

// The R-MAT quadrant probabilities of the Graph500 Kronecker generator
// (the Graph500 specification, after Chakrabarti et al.'s R-MAT): at each of
// the scale bit levels an edge falls in the top-left quadrant with
// probability A, top-right B, bottom-left C, bottom-right D = 1-A-B-C = 0.05.
// The skew toward low ids is what makes a few vertices' degrees huge.
const (
	kronA = 0.57
	kronB = 0.19
	kronC = 0.19
)

// kroneckerGraph builds the Graph500 graph of 2^scale vertices from
// edgefactor·2^scale generated edges, as a simple undirected CSR.
func kroneckerGraph(rng *rand.Rand, scale, edgefactor int) *csr {
	src, dst := kroneckerEdges(rng, scale, edgefactor)
	return newCSR(1<<scale, src, dst)
}

// kroneckerEdges draws edgefactor·2^scale edges the way the Graph500
// reference generator (kronecker_generator.m) does: for each bit level it
// picks the source bit with P(1) = C+D, then the destination bit with the
// conditional probability given the source bit. It then relabels the
// vertices with a random permutation so that vertex ids carry no hint of
// degree. The reference code also shuffles the edge list; newCSR sorts each
// neighbour list, which makes that shuffle irrelevant, so it is skipped.
func kroneckerEdges(rng *rand.Rand, scale, edgefactor int) (src, dst []int32) {
	n := 1 << scale
	m := edgefactor * n
	const (
		ab    = kronA + kronB
		cNorm = kronC / (1 - ab) // P(dst bit 0 | src bit 1)
		aNorm = kronA / ab       // P(dst bit 0 | src bit 0)
	)
	src = make([]int32, m)
	dst = make([]int32, m)
	for e := 0; e < m; e++ {
		var i, j int32
		for bit := 0; bit < scale; bit++ {
			iBit := rng.Float64() > ab
			p := aNorm
			if iBit {
				p = cNorm
			}
			jBit := rng.Float64() > p
			if iBit {
				i |= 1 << bit
			}
			if jBit {
				j |= 1 << bit
			}
		}
		src[e], dst[e] = i, j
	}
	perm := rng.Perm(n)
	for e := range src {
		src[e] = int32(perm[src[e]])
		dst[e] = int32(perm[dst[e]])
	}
	return src, dst
}

// graph500Root picks the BFS root as Graph500 picks its search keys: a
// uniformly random vertex with at least one neighbour, by rejection. ok is
// false when the graph has no edge at all (possible only at tiny scales).
func graph500Root(rng *rand.Rand, g *csr) (root int32, ok bool) {
	if g.edges() == 0 {
		return 0, false
	}
	for {
		v := int32(rng.IntN(g.vertices()))
		if g.degree(v) > 0 {
			return v, true
		}
	}
}
