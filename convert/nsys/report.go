package nsys

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpureplay/gpureplay/convert/nsys/internal/sqlite"
	"github.com/gpureplay/gpureplay/internal/tempfile"
)

// Magic is the 16-byte string every SQLite 3 database file, and so every
// export Convert reads, starts with; checking it first turns "not an nsys
// export" into a clear error instead of an SQLite one (and lets a caller
// tell an export given to another importer).
const Magic = sqlite.Magic

// report is an open Nsight Systems SQLite export and the columns of the
// tables the importer reads.
type report struct {
	file    string
	f       *os.File
	logs    []*os.File // the database's journal and write-ahead log, where open
	db      *sqlite.DB
	tables  map[string]*sqlite.Table         // lower-case table name → the table
	cols    map[string]map[string]bool       // lower-case table name → lower-case column names
	strs    map[valueKey]any                 // StringIds: id → value, read on first use
	sorted  map[string][]entry               // a query's rows in its order, by query name
	launchT map[string]map[launchKey]any     // table → its rows' API calls' start
	calls   map[string]map[launchKey]callRec // table → its rows' API calls' end and name
}

// openReport checks that path is an SQLite database and opens it
// read-only.
func openReport(path string) (*report, error) {
	f, err := tempfile.Open(path)
	if err != nil {
		return nil, &Error{File: path, Row: -1, Msg: "opening the report", Err: err}
	}
	var head [len(Magic)]byte
	_, err = io.ReadFull(f, head[:])
	if err != nil || string(head[:]) != Magic {
		f.Close()
		return nil, errorf(path, "", -1, "not an SQLite database; convert takes the SQLite export of a report (nsys export --type sqlite REPORT.nsys-rep)")
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Row: -1, Msg: "opening the database", Err: err}
	}
	r := &report{file: path, f: f, tables: map[string]*sqlite.Table{}, cols: map[string]map[string]bool{},
		sorted: map[string][]entry{}, launchT: map[string]map[launchKey]any{}, calls: map[string]map[launchKey]callRec{}}
	logs, err := r.openLogs(path)
	if err != nil {
		r.close()
		return nil, &Error{File: path, Row: -1, Msg: "opening the database's journal", Err: err}
	}
	if r.db, err = sqlite.Open(f, st.Size(), logs); err != nil {
		r.close()
		return nil, &Error{File: path, Row: -1, Msg: "opening the database", Err: err}
	}
	r.readSchema()
	return r, nil
}

// openLogs opens the rollback journal and write-ahead log beside the
// database, where SQLite looks for them: beside the file its path names
// once every symbolic link is resolved (unixFullPathname), so that a
// link to an export in WAL mode reads the log's committed pages as
// sqlite3 does.
func (r *report) openLogs(path string) (sqlite.Logs, error) {
	var logs sqlite.Logs
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path // a name that is no path (/proc/self/fd/N of a deleted file): beside it
	}
	for _, l := range []struct {
		suffix string
		r      *io.ReaderAt
		size   *int64
	}{{"-journal", &logs.Journal, &logs.JournalSize}, {"-wal", &logs.WAL, &logs.WALSize}} {
		f, err := os.Open(real + l.suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return logs, err
		}
		r.logs = append(r.logs, f)
		st, err := f.Stat()
		if err != nil {
			return logs, err
		}
		*l.r, *l.size = f, st.Size()
	}
	return logs, nil
}

func (r *report) close() error {
	for _, f := range r.logs {
		f.Close()
	}
	return r.f.Close()
}

// readSchema records the columns of every table the importer may read.
func (r *report) readSchema() {
	for _, t := range r.db.Tables() {
		name := strings.ToLower(t.Name)
		if !known[name] {
			continue
		}
		cols := map[string]bool{}
		for _, c := range t.Columns {
			cols[strings.ToLower(c.Name)] = true
		}
		r.tables[name], r.cols[name] = t, cols
	}
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
	t := r.tables[strings.ToLower(table)]
	if err := t.Err(); err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "reading the table", Err: err}
	}
	if _, err := r.columnIndex(t, table, cols); err != nil {
		return err
	}
	for _, c := range cols {
		if !r.hasCol(table, c) {
			return errorf(r.file, table, -1, "no column %s (the importer selects columns by name; this export's schema lacks one it needs)", c)
		}
	}
	return nil
}

// scan calls fn with every row of table in rowid order: its rowid and
// the values of cols (nil for a column the table lacks). The values are
// valid during the call.
func (r *report) scan(table, msg string, cols []string, fn func(id int64, v []any) error) error {
	t := r.tables[strings.ToLower(table)]
	if t == nil {
		return nil
	}
	idx, err := r.columnIndex(t, table, cols)
	if err != nil {
		return err
	}
	v := make([]any, len(cols))
	err = t.Scan(func(id int64, rec []any) error {
		for i, j := range idx {
			v[i] = nil
			if j >= 0 {
				v[i] = rec[j]
			}
		}
		return fn(id, v)
	})
	var se *sqlite.Error
	if errors.As(err, &se) {
		return &Error{File: r.file, Table: table, Row: -1, Msg: msg, Err: err}
	}
	return err
}

// columnIndex maps column names to their positions in t (-1: missing).
// A VIRTUAL generated column is an error: SQLite computes its values
// from an expression when it reads them, and this reader evaluates no
// SQL.
func (r *report) columnIndex(t *sqlite.Table, table string, cols []string) ([]int, error) {
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = t.Column(c)
		if idx[i] >= 0 && t.Columns[idx[i]].Generated == "VIRTUAL" {
			return nil, errorf(r.file, table, -1, "column %s is a VIRTUAL generated column, computed by SQLite when read; this reader does not compute it", t.Columns[idx[i]].Name)
		}
	}
	return idx, nil
}

// strings returns StringIds as a map from id to value.
func (r *report) stringIds() (map[valueKey]any, error) {
	if r.strs != nil {
		return r.strs, nil
	}
	r.strs = map[valueKey]any{}
	err := r.scan(tabStrings, "reading the strings", []string{"id", "value"}, func(_ int64, v []any) error {
		k := keyOf(v[0])
		if _, dup := r.strs[k]; !dup && v[0] != nil {
			r.strs[k] = copyValue(v[1])
		}
		return nil
	})
	return r.strs, err
}

// copyValue copies a blob out of the reader's buffers.
func copyValue(v any) any {
	if b, ok := v.([]byte); ok {
		return append([]byte{}, b...)
	}
	return v
}
