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
