// Package tables defines the output tables of a replay (docs/design.md §6,
// docs/tables.md): the row each table holds (rows.go) and the Sink a
// replay hands its rows to (sink.go).
//
// It imports nothing outside the standard library, so the deterministic
// core that produces rows (package replay) does not link the file
// formats' libraries. Package results writes the tables as Parquet, Arrow
// IPC or CSV.
package tables
