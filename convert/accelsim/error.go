package accelsim

import (
	"fmt"
	"strconv"
)

// Error is a problem with an Accel-Sim trace. It names the file and, where
// the problem is on one line, the 1-based line number, so a user can find
// it in a trace of millions of lines.
type Error struct {
	File string // the kernelslist.g or kernel trace file
	Line int64  // 1-based line; 0 when the problem is not on one line
	Msg  string // what was wrong
	Err  error  // the underlying error (I/O, decompression), if any
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.FormatInt(e.Line, 10)
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

// errorf makes an *Error at a line of a file.
func errorf(file string, line int64, format string, a ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
}
