package tables

// Sink receives a replay's rows as they are produced. The engine writes to
// it and never reads back, so a Sink can stream rows straight to disk.
type Sink interface {
	Kernel(Kernel)
	CTA(CTA)
	Launch(Launch)
	Occupancy(Occupancy)
	Page(Page)
	Stage(Stage)
}

// CTAFieldSink is a Sink that also takes a CTA row as its fields, the
// same row as CTA's but for Name, which the ctas table does not hold:
// groupID nil for a CTA of no group, slowdown read only where
// hasSlowdown. A producer writes CTA rows through CTAFields where its
// sink has it. Passed to an interface method, a CTA (eleven words) is
// copied through memory, where its fields mostly travel in registers;
// and its slowdown needs no value of its own for the row to point at.
type CTAFieldSink interface {
	CTAFields(kernelID, cta uint64, sm int32, dispatch, start, end, stall int64, groupID *uint64, slowdown float64, hasSlowdown bool)
}

// Discarder is a Sink that may keep no rows at all (a replay run for its
// summary alone). A producer that finds DiscardsRows true skips building
// the rows of its largest tables, one per CTA, kernel and launch site
// (millions a replay), as nothing would read them; its totals are counted
// apart from the rows and do not change.
type Discarder interface {
	Sink
	DiscardsRows() bool
}

// Discards reports whether s keeps no rows.
func Discards(s Sink) bool {
	d, ok := s.(Discarder)
	return ok && d.DiscardsRows()
}

// RefSink is a Sink that also takes kernel and launch rows by reference:
// KernelRow(r) writes what Kernel(*r) would, LaunchRow(r) what Launch(*r)
// would. The row, and what its fields point at, are the producer's again
// when the call returns. Passed to an interface method by value, a
// Kernel (17 words) or a Launch (21) is copied through memory into the
// call's arguments: a producer writes one of each a child kernel (BFS
// scale 20: 165K), each built on the stack and copied, where the replay
// stores a reused row's fields in place (scripts/instructions.sh
// bfs-parquet: +771 → +758 a CTA).
type RefSink interface {
	KernelRow(r *Kernel)
	LaunchRow(r *Launch)
}

// Refs is s as a RefSink: s itself where it is one, else one that hands
// s each row by value.
func Refs(s Sink) RefSink {
	if r, ok := s.(RefSink); ok {
		return r
	}
	return byValue{s}
}

// byValue is a Sink as a RefSink.
type byValue struct{ s Sink }

func (b byValue) KernelRow(r *Kernel) { b.s.Kernel(*r) }
func (b byValue) LaunchRow(r *Launch) { b.s.Launch(*r) }
