// Package tables defines the output tables of a replay (docs/design.md §6,
// docs/tables.md): the row each table holds (rows.go), the Sink a replay
// hands its rows to (sink.go), and each table's columns, declared once
// (columns.go).
//
// It imports nothing outside the standard library, so the deterministic
// core that produces rows (package replay) does not link the file
// formats' libraries. Package results writes the tables as Parquet, Arrow
// IPC or CSV; its column builders and the Python reader's schema
// (interop/python/gpureplay_tables.py) are generated from the
// declarations here by `go generate ./results`.
//
// A new column is a field of its row, a line in its table's declaration,
// the code in replay that sets the field, and its line in docs/tables.md
// (TestColumnsDocumented); then `go generate ./results`.
package tables
