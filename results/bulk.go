package results

// A Recorder's spool keeps its rows a column each (the generated ctaRows
// and the like of columns_gen.go): the engine's goroutine puts each
// field of a row in its column, and the builder goroutine (spool.go,
// addAll) appends each column's values to its builder in one call, which
// copies them and sets their validity bits in bulk. Appended a value at
// a time, each column checked its room and set a bit for every row, most
// of what building a row of the tables with a row per CTA, kernel,
// launching lane or SM and time window (millions a replay) cost. Kept as
// row structs, the rows were copied whole into the chunk and then
// gathered a column at a time into scratch slices for the same call: put
// a column each, --out adds 89 instructions a CTA fewer on synth and 205
// on BFS with Parquet, 93 and 200 with CSV (scripts/instructions.sh
// --quick), for a chunk of 600 KB where the row structs took what the
// rows needed. A row written straight to a file Writer goes a value at a
// time (the generated append): for one row, a call of AppendValues per
// column costs more than it saves.

// id stores an unsigned id in an int64 column, keeping its bits
// (tables.Type).
func id(v uint64) int64 { return int64(v) }

func optID(p *uint64) (int64, bool) {
	if p == nil {
		return 0, false
	}
	return id(*p), true
}

func opt[V any](p *V) (V, bool) {
	if p == nil {
		var zero V
		return zero, false
	}
	return *p, true
}
