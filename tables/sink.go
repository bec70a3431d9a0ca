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
