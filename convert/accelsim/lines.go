package accelsim

import (
	"bufio"
	"errors"
	"io"
)

// maxLine is the longest line accepted. The longest line the tracer writes
// is an instruction with 32 listed addresses, well under 1 KiB.
const maxLine = 1 << 20

// lineReader yields a file's lines one at a time, without their line
// ending, counting lines and bytes so errors and progress can say where.
// A returned line is valid only until the next call.
type lineReader struct {
	r     *bufio.Reader
	file  string
	line  int64 // number of the line last returned
	bytes int64 // bytes consumed
}

func newLineReader(r io.Reader, file string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<16), file: file}
}

// next returns the next line, or io.EOF after the last one. A final line
// without a newline is still a line.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return l.long(b)
	}
	if len(b) == 0 && err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, &Error{File: l.file, Line: l.line + 1, Msg: "reading", Err: err}
	}
	if err != nil && err != io.EOF {
		return nil, &Error{File: l.file, Line: l.line + 1, Msg: "reading", Err: err}
	}
	l.line++
	l.bytes += int64(len(b))
	return trimEOL(b), nil
}

// long assembles a line longer than the reader's buffer, up to maxLine.
func (l *lineReader) long(first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		b, err := l.r.ReadSlice('\n')
		buf = append(buf, b...)
		if len(buf) > maxLine {
			return nil, errorf(l.file, l.line+1, "line longer than %d bytes", maxLine)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && err != io.EOF:
			return nil, &Error{File: l.file, Line: l.line + 1, Msg: "reading", Err: err}
		}
		l.line++
		l.bytes += int64(len(buf))
		return trimEOL(buf), nil
	}
}

// errorf makes an *Error at the line last returned.
func (l *lineReader) errorf(format string, a ...any) *Error {
	return errorf(l.file, l.line, format, a...)
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// isSpace reports whether c separates fields: the tracer writes single
// spaces, but tabs, runs of blanks and other control characters are
// accepted too.
func isSpace(c byte) bool { return c <= ' ' }

// trimBlanks removes leading and trailing blanks.
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// blank reports whether a line has nothing but blanks.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// fields walks the blank-separated fields of a line without allocating.
type fields struct {
	b []byte
	i int
}

// next returns the next field, or nil when there is none.
func (f *fields) next() []byte {
	for f.i < len(f.b) && isSpace(f.b[f.i]) {
		f.i++
	}
	start := f.i
	for f.i < len(f.b) && !isSpace(f.b[f.i]) {
		f.i++
	}
	if start == f.i {
		return nil
	}
	return f.b[start:f.i]
}

// hasPrefix reports whether b starts with s.
func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}
