package samples

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// joinKeys draws n join keys from [0, domain): uniformly, or with
// gaussian from a normal distribution centred on the domain with standard
// deviation sigma·domain, redrawing the values that fall outside it — the
// two inputs of the DTBL and SPAWN JOIN benchmarks. Gaussian keys repeat
// near the centre, which is what skews the hash table's buckets.
func joinKeys(rng *rand.Rand, n, domain int, gaussian bool, sigma float64) []int32 {
	keys := make([]int32, n)
	mean, sd := float64(domain)/2, sigma*float64(domain)
	for i := range keys {
		if !gaussian {
			keys[i] = int32(rng.IntN(domain))
			continue
		}
		for {
			k := math.Floor(mean + sd*rng.NormFloat64())
			if k >= 0 && k < float64(domain) {
				keys[i] = int32(k)
				break
			}
		}
	}
	return keys
}

// joinLoad is the hash table's load factor: R tuples per bucket on
// average, the usual choice for a chained GPU hash join (the bucket count
// is rounded up to a power of two, so it is between 1 and 2).
const joinLoad = 2

// joinTable is the hash table a GPU hash join builds over relation R: the
// keys of R grouped by bucket, in bucket order, as the histogram, scan
// and scatter kernels lay them out.
type joinTable struct {
	bits    int     // the table has 2^bits buckets
	offsets []int32 // bucket b holds keys[offsets[b]:offsets[b+1]]
	keys    []int32
}

// newJoinTable builds the table over keys. Within a bucket keys keep
// their order in R, a deterministic stand-in for the order the scatter
// kernel's atomics would give.
func newJoinTable(keys []int32) *joinTable {
	t := &joinTable{bits: bits.Len(uint(max(len(keys)/joinLoad, 1) - 1))}
	n := 1 << t.bits
	t.offsets = make([]int32, n+1)
	for _, k := range keys {
		t.offsets[t.bucket(k)+1]++
	}
	for b := 0; b < n; b++ {
		t.offsets[b+1] += t.offsets[b]
	}
	fill := make([]int32, n)
	copy(fill, t.offsets[:n])
	t.keys = make([]int32, len(keys))
	for _, k := range keys {
		b := t.bucket(k)
		t.keys[fill[b]] = k
		fill[b]++
	}
	return t
}

// buckets is the number of buckets.
func (t *joinTable) buckets() int { return 1 << t.bits }

// bucket hashes a key to its bucket by Fibonacci (multiplicative)
// hashing: the top bits of key·⌊2^32/φ⌋, which spreads consecutive keys
// evenly, so bucket sizes follow the keys' repetition and not their order.
func (t *joinTable) bucket(key int32) int {
	if t.bits == 0 {
		return 0
	}
	return int(uint32(key) * 0x9e3779b9 >> (32 - t.bits))
}

// probe returns the keys in key's bucket: what a probing thread scans.
func (t *joinTable) probe(key int32) []int32 {
	b := t.bucket(key)
	return t.keys[t.offsets[b]:t.offsets[b+1]]
}

// maxBucket is the largest bucket's size.
func (t *joinTable) maxBucket() int {
	m := 0
	for b := 0; b < t.buckets(); b++ {
		m = max(m, int(t.offsets[b+1]-t.offsets[b]))
	}
	return m
}

// joinMatches is the number of entries of bucket equal to key: the pairs a
// probe emits.
func joinMatches(bucket []int32, key int32) int {
	n := 0
	for _, k := range bucket {
		if k == key {
			n++
		}
	}
	return n
}
