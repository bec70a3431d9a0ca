package samples

import (
	"math"
	"math/rand/v2"
)

// Bases are stored one per byte as 2-bit codes, A=0, C=1, G=2, T=3, so a
// base's complement is 3−code and k bases pack into a 2k-bit k-mer code.

// saBaseWeights is Arabidopsis thaliana's base composition (36% GC, NCBI
// TAIR10), for the unique sequence between repeats: P(A), P(C), P(G), P(T).
var saBaseWeights = [4]float64{0.32, 0.18, 0.18, 0.32}

// The repeat structure of the reference, after A. thaliana's: its repeats
// are mostly transposable elements — many families, a few of them with most
// of the copies, inserted in either orientation, young copies nearly
// identical and old ones diverged — and the 178-bp CEN180 satellite, in
// long tandem arrays at the five centromeres.
const (
	saSatelliteShare = 0.3  // of the repeat bases, the share in satellite arrays; the rest are TEs
	saSatelliteUnit  = 178  // CEN180 monomer length
	saCentromeres    = 5    // one satellite array per chromosome
	saSatelliteDiv   = 0.08 // a monomer's substitutions from the consensus, drawn from [0, this)
	saTEFamilies     = 40   // transposable element families; family f gets copies ∝ 1/(f+1)
	saTEMinLen       = 300  // shortest family consensus (bp), log-uniform to saTEMaxLen
	saTEMaxLen       = 6000 // longest: the size of an Athila retrotransposon
	saTEMinFragment  = 0.2  // a copy keeps a 3' fragment of at least this share of its consensus
	saTEDiv          = 0.2  // a copy's substitutions from its consensus, drawn from [0, this)
)

// saReference builds a genome of n bases: unique sequence of A. thaliana's
// composition, overwritten at random places by repeats until repeatFrac of
// n has been written as satellite monomers and TE copies. Repeats make some
// k-mers occur many times, which is what skews the candidates per read.
func saReference(rng *rand.Rand, n int, repeatFrac float64) []byte {
	g := make([]byte, n)
	for i := range g {
		g[i] = saRandomBase(rng)
	}
	satellite := int(repeatFrac * saSatelliteShare * float64(n))
	saSatellites(rng, g, satellite)
	saTransposons(rng, g, int(repeatFrac*float64(n))-satellite)
	return g
}

// saSatellites writes total bases of tandem CEN180-like monomers, split
// evenly over saCentromeres arrays at random places.
func saSatellites(rng *rand.Rand, g []byte, total int) {
	unit := saRandomSeq(rng, saSatelliteUnit)
	per := total / saCentromeres
	if per == 0 || per > len(g) {
		return
	}
	for c := 0; c < saCentromeres; c++ {
		at := rng.IntN(len(g) - per + 1)
		for off := 0; off < per; off += len(unit) {
			copy(g[at+off:at+per], saMutate(rng, unit, rng.Float64()*saSatelliteDiv))
		}
	}
}

// saTransposons writes TE copies at random places until total bases are
// written: each copy is of a family drawn with Zipf weights, a 3' fragment
// of its consensus (5' truncation, as most plant TE copies are), diverged
// by its age, and reverse-complemented half the time.
func saTransposons(rng *rand.Rand, g []byte, total int) {
	families := make([][]byte, saTEFamilies)
	weights := make([]float64, saTEFamilies)
	sum := 0.0
	for f := range families {
		length := saTEMinLen * math.Pow(saTEMaxLen/saTEMinLen, rng.Float64())
		families[f] = saRandomSeq(rng, int(length))
		weights[f] = 1 / float64(f+1)
		sum += weights[f]
	}
	for written := 0; written < total; {
		f := saPick(rng, weights, sum)
		cons := families[f]
		keep := int(float64(len(cons)) * (saTEMinFragment + (1-saTEMinFragment)*rng.Float64()))
		keep = min(max(keep, 1), len(g))
		c := saMutate(rng, cons[len(cons)-keep:], rng.Float64()*saTEDiv)
		if rng.IntN(2) == 1 {
			saReverseComplement(c)
		}
		copy(g[rng.IntN(len(g)-len(c)+1):], c)
		written += len(c)
	}
}

// saReads samples count reads of length readLen from g's forward strand,
// uniformly, each base substituted with probability errRate (sequencing
// errors, which on Illumina reads are almost all substitutions). It returns
// the reads and where each came from.
func saReads(rng *rand.Rand, g []byte, count, readLen int, errRate float64) (reads [][]byte, origins []int) {
	reads = make([][]byte, count)
	origins = make([]int, count)
	for i := range reads {
		origins[i] = rng.IntN(len(g) - readLen + 1)
		reads[i] = saMutate(rng, g[origins[i]:origins[i]+readLen], errRate)
	}
	return reads, origins
}

// saMutate returns a copy of s with each base substituted by one of the
// three others with probability rate.
func saMutate(rng *rand.Rand, s []byte, rate float64) []byte {
	c := make([]byte, len(s))
	for i, b := range s {
		if rate > 0 && rng.Float64() < rate {
			b = (b + 1 + byte(rng.IntN(3))) & 3
		}
		c[i] = b
	}
	return c
}

func saRandomSeq(rng *rand.Rand, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = saRandomBase(rng)
	}
	return s
}

func saRandomBase(rng *rand.Rand) byte {
	return byte(saPick(rng, saBaseWeights[:], 1))
}

// saPick draws an index with probability weights[i]/sum.
func saPick(rng *rand.Rand, weights []float64, sum float64) int {
	x := rng.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// saReverseComplement turns s into its reverse complement in place: the
// same element read from the other strand.
func saReverseComplement(s []byte) {
	for i, j := 0, len(s)-1; i <= j; i, j = i+1, j-1 {
		s[i], s[j] = 3-s[j], 3-s[i]
	}
}
