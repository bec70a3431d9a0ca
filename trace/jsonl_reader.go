package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// maxJSONLLine bounds one line, so a file without newlines is reported
// instead of being read into memory whole.
const maxJSONLLine = 64 << 20

// JSONLReader decodes the JSONL encoding one record per call. It is strict:
// an unknown field or record type, a duplicate key, a null where a value is
// required, a fraction where an integer is, or anything but whitespace after
// the object is an error. A field left out reads as its zero value (see the
// JSONL encoding in jsonl.go); blank lines are skipped.
//
// Every error Next returns, other than io.EOF at the end, is a *Error naming
// the line and record, and it is returned again by every later call.
type JSONLReader struct {
	in     *bufio.Reader
	long   []byte // a line longer than in's buffer, assembled
	next   int64  // byte offset of the next line
	lines  int64  // lines read
	record int64  // number of the record last returned or being read
	line   int64  // its line
	offset int64  // its line's byte offset
	err    error
}

// NewJSONLReader returns a reader of the JSONL records in r.
func NewJSONLReader(r io.Reader) *JSONLReader {
	return &JSONLReader{in: bufio.NewReaderSize(r, 64<<10)}
}

// Pos reports the 1-based number of the record Next last returned or failed
// on and the byte offset of its line; before the first record it is 0, 0.
func (r *JSONLReader) Pos() (record, offset int64) { return r.record, r.offset }

// Line reports the 1-based line number of the record Next last returned or
// failed on.
func (r *JSONLReader) Line() int64 { return r.line }

// Next returns the next record, a fresh value the caller may keep, or io.EOF
// after the last one.
func (r *JSONLReader) Next() (Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		start := r.next
		text, err := r.readLine()
		if err == io.EOF {
			r.err = io.EOF
			return nil, io.EOF
		}
		if len(bytes.TrimSpace(text)) == 0 && err == nil {
			continue
		}
		r.record++
		r.line = r.lines
		r.offset = start
		if err != nil {
			return nil, r.fail(0, err)
		}
		rec, err := decodeJSONLine(text)
		if err != nil {
			return nil, r.fail(kindOf(rec), err)
		}
		return rec, nil
	}
}

// readLine returns the next line, without its newline, valid until the next
// call. It returns io.EOF only when no bytes are left.
func (r *JSONLReader) readLine() ([]byte, error) {
	p, err := r.in.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], p...)
		for err == bufio.ErrBufferFull && len(r.long) <= maxJSONLLine {
			p, err = r.in.ReadSlice('\n')
			r.long = append(r.long, p...)
		}
		p = r.long
	}
	if len(p) == 0 && err != nil {
		return nil, err
	}
	r.next += int64(len(p))
	r.lines++
	switch {
	case len(p) > maxJSONLLine:
		return nil, fmt.Errorf("line is longer than %d MiB", maxJSONLLine>>20)
	case err != nil && err != io.EOF:
		return nil, fmt.Errorf("read error: %v", err)
	}
	return bytes.TrimSuffix(p, []byte("\n")), nil
}

func (r *JSONLReader) fail(k Kind, err error) error {
	r.err = &Error{Record: r.record, Line: r.line, Offset: r.offset, Kind: k, Msg: err.Error()}
	return r.err
}

// decodeJSONLine decodes one non-blank line. On error the record returned,
// if any, only tells the record's kind.
func decodeJSONLine(line []byte) (Record, error) {
	if !utf8.Valid(line) {
		return nil, errors.New("line is not valid UTF-8")
	}
	k, err := lineKind(line)
	if err != nil {
		return nil, err
	}
	d := lineDecoder{s: jsonScanner{b: line}}
	var rec Record
	switch k {
	case KindHeader:
		rec, err = d.header()
	case KindBuffer:
		rec, err = d.buffer()
	case KindMemcpy:
		rec, err = d.memcpy()
	case KindKernel:
		rec, err = d.kernel()
	case KindLaunch:
		rec, err = d.launch()
	case KindCTA:
		rec, err = d.cta()
	case KindAccess:
		rec, err = d.access()
	case KindPages:
		rec, err = d.pages()
	case KindSync:
		rec, err = d.sync()
	}
	if err == nil {
		err = d.s.end()
	}
	return rec, err
}

var errFoundType = errors.New("found type")

// lineKind finds the record's "type", looking no further than that key.
func lineKind(line []byte) (Kind, error) {
	s := jsonScanner{b: line}
	var k Kind
	err := s.object(func(key []byte) error {
		if string(key) != "type" {
			return s.skip(1)
		}
		name, err := s.str()
		if err != nil {
			return fmt.Errorf("field \"type\": %v", err)
		}
		var ok bool
		if k, ok = KindOf(string(name)); !ok {
			return fmt.Errorf("unknown record type %q", name)
		}
		return errFoundType
	})
	switch err {
	case errFoundType:
		return k, nil
	case nil:
		return 0, errors.New(`missing "type" field`)
	}
	return 0, err
}
