package nsys

import (
	"database/sql"
	"io"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go)

	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// sqliteMagic is the 16-byte string every SQLite 3 database file starts
// with; checking it first turns "not an nsys export" into a clear error
// instead of an SQLite one.
const sqliteMagic = "SQLite format 3\x00"

// report is an open Nsight Systems SQLite export and the columns of the
// tables the importer reads.
type report struct {
	file string
	db   *sql.DB
	cols map[string]map[string]bool // lower-case table name → lower-case column names
}

// openReport checks that path is an SQLite database and opens it
// read-only.
func openReport(path string) (*report, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, &Error{File: path, Row: -1, Msg: "opening the report", Err: err}
	}
	var head [len(sqliteMagic)]byte
	_, err = io.ReadFull(f, head[:])
	f.Close()
	if err != nil || string(head[:]) != sqliteMagic {
		return nil, errorf(path, "", -1, "not an SQLite database; convert takes the SQLite export of a report (nsys export --type sqlite REPORT.nsys-rep)")
	}
	db, err := sql.Open("sqlite", readOnlyURI(path))
	if err != nil {
		return nil, &Error{File: path, Row: -1, Msg: "opening the database", Err: err}
	}
	r := &report{file: path, db: db, cols: map[string]map[string]bool{}}
	if err := r.readSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return r, nil
}

// readOnlyURI is the SQLite URI that opens path read-only. SQLite
// percent-decodes a URI's path, and the driver splits its parameters at
// the first '?', so those characters (and '#') are escaped.
func readOnlyURI(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?mode=ro"
}

func (r *report) close() error { return r.db.Close() }

// readSchema records the columns of every table the importer may read.
func (r *report) readSchema() error {
	rows, err := r.db.Query(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`)
	if err != nil {
		return &Error{File: r.file, Row: -1, Msg: "reading the schema", Err: err}
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return &Error{File: r.file, Row: -1, Msg: "reading the schema", Err: err}
		}
		if known[strings.ToLower(name)] {
			tables = append(tables, name)
		}
	}
	if err := closeRows(rows); err != nil {
		return &Error{File: r.file, Row: -1, Msg: "reading the schema", Err: err}
	}
	for _, t := range tables {
		if err := r.readColumns(t); err != nil {
			return err
		}
	}
	return nil
}

// readColumns records table's column names.
func (r *report) readColumns(table string) error {
	rows, err := r.db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "reading the columns", Err: err}
	}
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return &Error{File: r.file, Table: table, Row: -1, Msg: "reading the columns", Err: err}
		}
		cols[strings.ToLower(name)] = true
	}
	if err := closeRows(rows); err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "reading the columns", Err: err}
	}
	r.cols[strings.ToLower(table)] = cols
	return nil
}

// has reports whether the report has table.
func (r *report) has(table string) bool {
	_, ok := r.cols[strings.ToLower(table)]
	return ok
}

// hasCol reports whether table exists and has column col.
func (r *report) hasCol(table, col string) bool {
	return r.cols[strings.ToLower(table)][strings.ToLower(col)]
}

// need checks that table exists and has every one of cols.
func (r *report) need(table string, cols ...string) error {
	if !r.has(table) {
		return errorf(r.file, "", -1, "no table %s%s", table, whyNeeded[table])
	}
	for _, c := range cols {
		if !r.hasCol(table, c) {
			return errorf(r.file, table, -1, "no column %s (the importer selects columns by name; this export's schema lacks one it needs)", c)
		}
	}
	return nil
}

// closeRows closes rows and returns the first error iterating them met.
func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}
