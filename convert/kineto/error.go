package kineto

import (
	"fmt"
	"strconv"
)

// Error is a problem with a Kineto trace. It names the file and, where the
// problem is one event, the event's 0-based index in traceEvents and the
// byte offset just past it in the (decompressed) JSON, so a user can find
// it in a trace of millions of events.
type Error struct {
	File   string // the trace file
	Event  int    // 0-based index in traceEvents; -1 when not about one event
	Offset int64  // byte offset in the JSON text; -1 when unknown
	Msg    string // what was wrong
	Err    error  // the underlying error (I/O, decompression, JSON syntax), if any
}

func (e *Error) Error() string {
	s := e.File
	if e.Event >= 0 {
		s += ": event " + strconv.Itoa(e.Event)
	}
	if e.Offset >= 0 {
		s += " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
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

// errorf makes an *Error about one event (event -1 for the whole file).
func errorf(file string, event int, offset int64, format string, a ...any) *Error {
	return &Error{File: file, Event: event, Offset: offset, Msg: fmt.Sprintf(format, a...)}
}
