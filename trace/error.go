package trace

import "fmt"

// Error is a problem with a trace's content or encoding. It carries where
// the problem is, so a user can find the record in a file of millions.
type Error struct {
	Record int64  // 1-based record number; 0 when not known
	Offset int64  // byte offset of the record in the decompressed stream (binary) or of its line (JSONL); -1 when not known
	Line   int64  // 1-based line number for JSONL; 0 otherwise
	Kind   Kind   // the record's kind when known
	Msg    string // what was wrong
}

func (e *Error) Error() string {
	s := "trace"
	if e.Record > 0 {
		s += fmt.Sprintf(": record %d", e.Record)
	}
	if e.Kind != 0 {
		s += " (" + e.Kind.String() + ")"
	}
	if e.Line > 0 {
		s += fmt.Sprintf(", line %d", e.Line)
	}
	if e.Offset >= 0 && e.Line == 0 {
		s += fmt.Sprintf(", byte offset %d", e.Offset)
	}
	return s + ": " + e.Msg
}
