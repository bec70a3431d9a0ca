package tables

// CTABlockRows is how many rows a CTABlock holds: a power of two, so that
// a producer indexing the block by a uint8 needs no bounds checks.
const CTABlockRows = 256

// CTABlock is a run of ctas rows, in the order they were written, of CTAs
// that waited for nothing and belong to no group: each row's dispatch
// cycle is its start cycle, its stall 0 and its group null. Slowdown[i]
// is read only where HasSlowdown[i]. Only the first N rows are rows.
//
// A replay ends most CTAs so (a plain CTA: no mechanism, watcher or
// segment touches it), millions of them, and a row is a few stores into
// the block where a call of CTAFields passes eleven arguments through an
// interface and the sink checks its room for each row.
type CTABlock struct {
	N           int
	KernelID    [CTABlockRows]uint64
	CTA         [CTABlockRows]uint64
	SM          [CTABlockRows]int32
	Start       [CTABlockRows]int64
	End         [CTABlockRows]int64
	Slowdown    [CTABlockRows]float64
	HasSlowdown [CTABlockRows]bool
}

// CTABlockSink is a CTAFieldSink that also takes ctas rows a block at a
// time: CTAs(b) writes what CTAFields would for each of b's rows in turn.
// The block is the producer's again when CTAs returns. A producer that
// holds rows in a block writes them before any other ctas row, so that
// the table's rows keep their order; rows of other tables may be written
// in between (each table is a file of its own).
type CTABlockSink interface {
	CTAFieldSink
	CTAs(b *CTABlock)
}
