package nsys

import (
	"fmt"
	"strconv"
)

// Error is a problem with an Nsight Systems report. It names the file and,
// where the problem is one row, the table and the row's rowid, so a user
// can look at it with sqlite3 ("SELECT * FROM TABLE WHERE rowid = N").
type Error struct {
	File  string // the report file
	Table string // the table the problem is in; "" when about the file as a whole
	Row   int64  // the row's rowid in Table; -1 when not about one row
	Msg   string // what was wrong
	Err   error  // the underlying error (I/O, SQLite), if any
}

func (e *Error) Error() string {
	s := e.File
	if e.Table != "" {
		s += ": " + e.Table
		if e.Row >= 0 {
			s += " row " + strconv.FormatInt(e.Row, 10)
		}
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, so errors.Is(err, fs.ErrNotExist)
// works on a missing file.
func (e *Error) Unwrap() error { return e.Err }

// errorf makes an *Error about one row of table (row -1 for the table as a
// whole, table "" for the file).
func errorf(file, table string, row int64, format string, a ...any) *Error {
	return &Error{File: file, Table: table, Row: row, Msg: fmt.Sprintf(format, a...)}
}
