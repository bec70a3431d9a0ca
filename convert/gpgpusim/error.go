package gpgpusim

import (
	"fmt"
	"strconv"
)

// Error is a problem with a GPGPU-Sim log. It names the file and, where
// the problem is one line, its 1-based number and text, so a user can find
// it in a log of millions of lines.
type Error struct {
	File string // the log (or config) file
	Line int    // 1-based line number; 0 when not about one line
	Text string // the line, shortened; empty when not about one line
	Msg  string // what was wrong
	Err  error  // the underlying error (I/O, decompression), if any
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	s += ": " + e.Msg
	if e.Text != "" {
		s += " (line: " + strconv.Quote(e.Text) + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, so errors.Is(err, fs.ErrNotExist)
// works on a missing file.
func (e *Error) Unwrap() error { return e.Err }

// maxQuoted bounds the line text an error repeats.
const maxQuoted = 160

func lineError(file string, n int, text []byte, format string, a ...any) *Error {
	if len(text) > maxQuoted {
		text = append(text[:maxQuoted:maxQuoted], "…"...)
	}
	return &Error{File: file, Line: n, Text: string(text), Msg: fmt.Sprintf(format, a...)}
}
