package samples

import (
	"math"
	"math/rand/v2"
)

// The citation model's shape, after Price's model of citation networks
// (D. J. de S. Price, 1976; the "cumulative advantage" that
// Barabási–Albert's preferential attachment later made undirected).
const (
	// citeSigma is the log-normal spread of a paper's reference count
	// (the σ of its logarithm): reference-list lengths are roughly
	// log-normal, and σ = 1 gives a wide but bounded spread: at edgefactor
	// 16 about one paper in eleven makes two references or fewer, half make
	// fewer than 10, and among 4096 papers the longest list is ~20 times
	// the mean (a survey), not a hub of Kronecker size.
	citeSigma = 1.0

	// citeAttract is Price's initial attractiveness a, as a multiple of
	// the mean reference count m: a paper cited k times draws the next
	// citation with probability ∝ k + a, which makes the in-degree tail
	// fall as k^-(2+a/m) (Dorogovtsev, Mendes and Samukhin, 2000). a = m
	// gives exponent 3, what Redner measured for the citations of Physical
	// Review papers; Kronecker graphs' tails are far heavier.
	citeAttract = 1.0
)

// citationGraph builds a citation-like graph of 2^scale papers that cite
// edgefactor earlier papers each on average, as a simple undirected CSR:
// traversal codes treat the citation network as undirected, as the DIMACS-10
// collection the SPAWN paper took its citation input from stores
// citationCiteseer (268,495 papers, 1.16 M citations: edgefactor 4). Its
// degrees follow a power law too, but one much less skewed at the top than
// a Kronecker graph's; at CiteSeer's density a quarter of the papers have
// degree 2 or less.
func citationGraph(rng *rand.Rand, scale, edgefactor int) *csr {
	n := 1 << scale
	src, dst := citationEdges(rng, n, edgefactor)
	perm := rng.Perm(n)
	for e := range src {
		src[e] = int32(perm[src[e]])
		dst[e] = int32(perm[dst[e]])
	}
	return newCSR(n, src, dst)
}

// citationEdges grows a citation network of n papers in publication order:
// paper i cites min(k, i) distinct earlier papers, k log-normal with mean
// edgefactor, each drawn with probability ∝ (citations received so far + a)
// (citeAttract). Edge e is paper src[e] citing the earlier paper dst[e], so
// the graph is acyclic. The relabelling that hides publication order from
// vertex ids is citationGraph's.
func citationEdges(rng *rand.Rand, n, edgefactor int) (src, dst []int32) {
	mu := math.Log(float64(edgefactor)) - citeSigma*citeSigma/2 // E[k] = edgefactor
	a := citeAttract * float64(edgefactor)
	src = make([]int32, 0, n*edgefactor)
	dst = make([]int32, 0, n*edgefactor)
	pickedBy := make([]int32, n) // the last paper that cited each paper, + 1
	for i := 1; i < n; i++ {
		refs := i
		if k := math.Round(math.Exp(mu + citeSigma*rng.NormFloat64())); k < float64(i) {
			refs = int(k)
		}
		// dst holds one entry per citation made by earlier papers: an urn
		// in which each paper appears as often as it has been cited.
		cited := len(dst)
		for chosen := 0; chosen < refs; {
			var j int32
			if rng.Float64()*(float64(cited)+a*float64(i)) < float64(cited) {
				j = dst[rng.IntN(cited)]
			} else {
				j = int32(rng.IntN(i))
			}
			if pickedBy[j] == int32(i)+1 {
				continue // a paper cites another at most once
			}
			pickedBy[j] = int32(i) + 1
			src = append(src, int32(i))
			dst = append(dst, j)
			chosen++
		}
	}
	return src, dst
}
