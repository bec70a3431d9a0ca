package samples

import (
	"math"
	"math/rand/v2"
)

// spmmShape is the size of one SpMM problem: A is rows×rows with a mean of
// nnz nonzeros per row, B and C are rows×cols and dense.
type spmmShape struct {
	rows, cols, nnz int
}

// spmmPresets are the size=small|large shapes. SPAWN's Table I names its
// MM inputs only "small sparse matrix" and "large sparse matrix", and §III
// says MM launches few but heavyweight children; these shapes keep that:
//
//   - small: a 4096×4096 A with 8 nonzeros per row (0.2% dense), times a
//     4096×128 B, so each child is 2 CTAs of 64 threads;
//   - large: a 32768×32768 A with 16 per row (0.05% dense), times a
//     32768×512 B, so each child is 8 CTAs.
//
// Row lengths follow a power law by default, the skew of real sparse
// matrices (SuiteSparse's web and citation graphs) that makes MM imbalanced.
var spmmPresets = map[string]spmmShape{
	"small": {rows: 4096, cols: 128, nnz: 8},
	"large": {rows: 32768, cols: 512, nnz: 16},
}

// spmmRowLengths draws the number of nonzeros in each of rows rows, with
// mean about mean, each in [1, rows] (A is square, so a row has at most
// rows distinct columns). dist "uniform" draws each length uniformly from
// [1, 2·mean−1]. dist "powerlaw" draws Pareto weights w = U^(−1/(alpha−1)),
// whose density falls as w^−alpha like the degree distributions of
// scale-free matrices, and scales them so their sum is mean·rows before
// rounding and clamping.
func spmmRowLengths(rng *rand.Rand, rows, mean int, dist string, alpha float64) []int32 {
	lengths := make([]int32, rows)
	if dist == "uniform" {
		for i := range lengths {
			lengths[i] = int32(min(1+rng.IntN(2*mean-1), rows))
		}
		return lengths
	}
	w := make([]float64, rows)
	sum := 0.0
	for i := range w {
		w[i] = math.Pow(1-rng.Float64(), -1/(alpha-1)) // 1−U is in (0, 1]
		sum += w[i]
	}
	scale := float64(mean) * float64(rows) / sum
	for i, x := range w {
		lengths[i] = int32(min(max(math.Round(x*scale), 1), float64(rows)))
	}
	return lengths
}
