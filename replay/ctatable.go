package replay

// ctaTable holds what the trace says about a kernel's CTAs, by index. A
// kernel of up to flatCTAs CTAs gets one slice; a larger one gets chunks
// allocated as its cta records arrive, so memory follows the records
// read, never a declared grid (a header-only kernel of 2^32 CTAs costs
// nothing until its records prove it).
type ctaTable struct {
	flat   []ctaSpec
	chunks map[uint64]*[ctaChunk]ctaSpec
}

const (
	flatCTAs = 1 << 22
	ctaChunk = 1 << 12
)

func newCTATable(total uint64) ctaTable {
	if total <= flatCTAs {
		return ctaTable{flat: make([]ctaSpec, total)}
	}
	return ctaTable{chunks: map[uint64]*[ctaChunk]ctaSpec{}}
}

// at is CTA i's spec, created empty on first use; i must be inside the
// grid.
func (t *ctaTable) at(i uint64) *ctaSpec {
	if t.chunks == nil {
		return &t.flat[i]
	}
	c := t.chunks[i/ctaChunk]
	if c == nil {
		c = new([ctaChunk]ctaSpec)
		t.chunks[i/ctaChunk] = c
	}
	return &c[i%ctaChunk]
}
