package samples

import "slices"

// saIndex is a k-mer index of the reference, the q-gram index an
// all-mapper such as BitMapper (SPAWN's SA, ref. [9]) seeds from: for
// every k-mer, the sorted positions where it occurs. Entries are packed as
// code<<32 | position and sorted, so a k-mer's positions are one run.
type saIndex struct {
	k       int
	entries []uint64
}

// newSAIndex indexes every k-mer of g (k ≤ 16, so a code fits 32 bits).
func newSAIndex(g []byte, k int) *saIndex {
	ix := &saIndex{k: k, entries: make([]uint64, 0, max(len(g)-k+1, 0))}
	mask := uint64(1)<<(2*k) - 1
	code := uint64(0)
	for p, b := range g {
		code = (code<<2 | uint64(b)) & mask
		if p >= k-1 {
			ix.entries = append(ix.entries, code<<32|uint64(p-k+1))
		}
	}
	slices.Sort(ix.entries)
	return ix
}

// occurrences returns the run of entries of the k-mer s[:k]; the low 32
// bits of each are a position.
func (ix *saIndex) occurrences(s []byte) []uint64 {
	code := uint64(0)
	for _, b := range s[:ix.k] {
		code = code<<2 | uint64(b)
	}
	lo, _ := slices.BinarySearch(ix.entries, code<<32)
	hi, _ := slices.BinarySearch(ix.entries, (code+1)<<32)
	return ix.entries[lo:hi]
}

// saMapper maps reads by seed and verify, as an all-mapper does: it cuts a
// read into non-overlapping k-mer seeds, takes every reference position a
// seed occurs at, shifted back by the seed's offset, as a candidate start,
// and verifies each distinct candidate by banded edit distance. A seed
// occurring more than maxHits times is skipped as uninformative, as
// mappers cap repetitive seeds.
type saMapper struct {
	ref              []byte
	ix               *saIndex
	maxEdits, maxHit int
}

// saRead is one read's mapping work: the seed hits its thread gathered,
// and for each distinct candidate, in reference order, the DP rows its
// verification ran before it finished or gave up.
type saRead struct {
	seeds, hits int
	steps       []int32
	matches     int // candidates within maxEdits: the alignments reported
}

// candidates returns the distinct candidate starts of read, in reference
// order, and how many seed hits produced them.
func (m *saMapper) candidates(read []byte) (starts []int32, seeds, hits int) {
	last := len(m.ref) - len(read)
	for off := 0; off+m.ix.k <= len(read); off += m.ix.k {
		seeds++
		occ := m.ix.occurrences(read[off:])
		if len(occ) > m.maxHit {
			continue
		}
		hits += len(occ)
		for _, e := range occ {
			if s := int(uint32(e)) - off; s >= 0 && s <= last {
				starts = append(starts, int32(s))
			}
		}
	}
	slices.Sort(starts)
	return slices.Compact(starts), seeds, hits
}

// mapRead finds read's candidates and verifies each.
func (m *saMapper) mapRead(read []byte, band *saBand) saRead {
	starts, seeds, hits := m.candidates(read)
	r := saRead{seeds: seeds, hits: hits, steps: make([]int32, len(starts))}
	for i, s := range starts {
		d, rows := band.distance(read, m.ref[s:], m.maxEdits)
		r.steps[i] = int32(rows)
		if d <= m.maxEdits {
			r.matches++
		}
	}
	return r
}

// saBand computes banded edit distances, reusing its two rows.
type saBand struct {
	prev, cur []int
}

// saInf is a band cell outside the table: larger than any distance.
const saInf = 1 << 30

// distance is the edit distance between read and a prefix of text whose
// length is within e of the read's — the alignment of read starting at
// text[0] with at most e insertions and deletions — computed in the band
// |i−j| ≤ e of the table D[i][j] (read[:i] against text[:j]). It stops
// early, as the bit-vector verifier of BitMapper does, once every cell of
// a row exceeds e: the read cannot align any more. It returns the distance
// (e+1 when over e) and the rows computed, the verification's trip count.
func (b *saBand) distance(read, text []byte, e int) (dist, rows int) {
	w := 2*e + 1 // band cell c of row i is column j = i + c − e
	if len(b.prev) < w+1 {
		b.prev, b.cur = make([]int, w+1), make([]int, w+1)
	}
	// Each row has a sentinel cell w, always saInf, so cell w−1 needs no
	// bounds test when it looks at the row above.
	prev, cur := b.prev[:w+1], b.cur[:w+1]
	for c := range prev {
		prev[c] = saInf
		if j := c - e; j >= 0 && j <= len(text) && c < w {
			prev[c] = j // row 0: j text bases inserted
		}
	}
	cur[w] = saInf
	for i := 1; i <= len(read); i++ {
		var best int
		if lo := i - e; lo >= 1 && lo+w-1 <= len(text) {
			best = saBandRow(prev, cur, read[i-1], text[lo-1:lo-1+w])
		} else {
			best = saBandEdgeRow(prev[:w], cur[:w], read[i-1], text, i-e)
		}
		prev, cur = cur, prev
		if best > e {
			return e + 1, i
		}
	}
	return min(slices.Min(prev[:w]), e+1), len(read)
}

// saBandRow computes a row of the band whose columns all lie in the text:
// cell c compares base with diag[c], the text base of its column. prev and
// cur have the sentinel cell after the band's len(diag).
func saBandRow(prev, cur []int, base byte, diag []byte) (best int) {
	prev, cur = prev[:len(diag)+1], cur[:len(diag)]
	best, left := saInf, saInf
	for c, t := range diag {
		v := min(prev[c]+saMismatch(base, t), prev[c+1]+1, left+1)
		cur[c], left = v, v
		best = min(best, v)
	}
	return best
}

// saBandEdgeRow computes a row of the band some of whose columns fall
// before the text's start (column 0 is all deletions) or past its end;
// lo is the column of cell 0.
func saBandEdgeRow(prev, cur []int, base byte, text []byte, lo int) (best int) {
	best = saInf
	for c := range cur {
		v := saInf
		switch j := lo + c; {
		case j == 0:
			v = lo + len(cur)/2 // D[i][0] = i: the read bases so far deleted
		case j > 0 && j <= len(text):
			v = prev[c] + saMismatch(base, text[j-1])
			if c+1 < len(prev) {
				v = min(v, prev[c+1]+1)
			}
			if c > 0 {
				v = min(v, cur[c-1]+1)
			}
		}
		cur[c] = v
		best = min(best, v)
	}
	return best
}

func saMismatch(a, b byte) int {
	if a != b {
		return 1
	}
	return 0
}
