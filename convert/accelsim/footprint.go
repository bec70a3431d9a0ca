package accelsim

import (
	"math"
	"math/bits"
	"sort"
)

// footprint is what the first pass gathers: for every copied region, what
// the kernels did to it, and for the address space outside them, the pages
// the kernels touched with the first and last byte touched in each. Pages
// are kept per gap between copied regions, so a page that a copied region
// splits yields two independent halves.
type footprint struct {
	copies  spans
	copyAcc []access
	shift   uint // log2 of the page size
	chunks  map[footKey]*footChunk
	cache   regionCache
	lastKey footKey
	last    *footChunk
}

// footKey names 64 consecutive pages of one gap.
type footKey struct {
	gap   int
	chunk uint64 // page number / 64
}

// footChunk holds 64 pages: which were touched and written, and the byte
// offsets of the first and last byte touched in each.
type footChunk struct {
	touched, written uint64
	lo, hi           [64]uint32
}

func newFootprint(copies spans, pageBytes int64) *footprint {
	return &footprint{
		copies:  copies,
		copyAcc: make([]access, len(copies)),
		shift:   uint(bits.TrailingZeros64(uint64(pageBytes))),
		chunks:  make(map[footKey]*footChunk),
		cache:   regionCache{regionOf: copies},
		lastKey: footKey{gap: -1},
	}
}

// touch records an access of kind acc to the bytes [a, e].
func (f *footprint) touch(a, e uint64, acc access) {
	for {
		i, inside, hi := f.cache.find(a)
		end := min(e, hi)
		if inside {
			f.copyAcc[i] |= acc
		} else {
			f.touchGap(i, a, end, acc)
		}
		if end == e || end == math.MaxUint64 {
			return
		}
		a = end + 1
	}
}

// touchGap records an access to [a, e], which lies in gap g.
func (f *footprint) touchGap(g int, a, e uint64, acc access) {
	mask := uint64(1)<<f.shift - 1
	for p := a >> f.shift; ; p++ {
		lo, hi := uint32(0), uint32(mask)
		if p == a>>f.shift {
			lo = uint32(a & mask)
		}
		if p == e>>f.shift {
			hi = uint32(e & mask)
		}
		f.touchPage(g, p, lo, hi, acc)
		if p == e>>f.shift {
			return
		}
	}
}

func (f *footprint) touchPage(g int, p uint64, lo, hi uint32, acc access) {
	key := footKey{gap: g, chunk: p / 64}
	c := f.last
	if key != f.lastKey {
		c = f.chunks[key]
		if c == nil {
			c = new(footChunk)
			f.chunks[key] = c
		}
		f.lastKey, f.last = key, c
	}
	i, bit := p%64, uint64(1)<<(p%64)
	if c.touched&bit == 0 {
		c.touched |= bit
		c.lo[i], c.hi[i] = lo, hi
	} else {
		c.lo[i], c.hi[i] = min(c.lo[i], lo), max(c.hi[i], hi)
	}
	if acc&accWrite != 0 {
		c.written |= bit
	}
}

// run is a maximal run of consecutive touched pages of one gap, trimmed to
// the bytes touched: one uncopied buffer.
type run struct {
	span
	written bool
}

// runs returns the uncopied buffers in address order.
func (f *footprint) runs() []run {
	keys := make([]footKey, 0, len(f.chunks))
	for k := range f.chunks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].gap != keys[b].gap {
			return keys[a].gap < keys[b].gap
		}
		return keys[a].chunk < keys[b].chunk
	})
	var out []run
	open := false
	var cur run
	var prevGap int
	var prevPage uint64
	for _, k := range keys {
		c := f.chunks[k]
		for m := c.touched; m != 0; m &= m - 1 {
			i := uint64(bits.TrailingZeros64(m))
			p := k.chunk*64 + i
			base := p << f.shift
			if open && (k.gap != prevGap || p != prevPage+1) {
				out = append(out, cur)
				open = false
			}
			if !open {
				cur = run{span: span{lo: base + uint64(c.lo[i])}}
				open = true
			}
			cur.hi = base + uint64(c.hi[i])
			cur.written = cur.written || c.written&(1<<i) != 0
			prevGap, prevPage = k.gap, p
		}
	}
	if open {
		out = append(out, cur)
	}
	return out
}
