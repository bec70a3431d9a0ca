package nsys

import "database/sql"

// op is one row of the host-ordered walk over the report: a kernel, a
// copy, an event record or a stream wait. at is when the host issued it
// (ns on the report's clock).
type op interface{ at() int64 }

// source walks one query whose rows come ordered by host time.
type source struct {
	table string
	rows  *sql.Rows
	read  func(*sql.Rows) (op, error) // decodes the current row; a nil op skips it
	head  op                          // the next op; nil at the end
}

// advance moves head to the next row that decodes to an op.
func (s *source) advance(file string) error {
	for s.rows.Next() {
		o, err := s.read(s.rows)
		if err != nil {
			return err
		}
		if o != nil {
			s.head = o
			return nil
		}
	}
	s.head = nil
	if err := s.rows.Err(); err != nil {
		return &Error{File: file, Table: s.table, Row: -1, Msg: "reading rows", Err: err}
	}
	return nil
}

// walk is the merge of several sources into one host-ordered sequence.
// Ops at the same host time come in source order.
type walk struct {
	file    string
	sources []*source
}

// open runs query on r for table and adds it to the walk.
func (w *walk) open(r *report, table, query string, read func(*sql.Rows) (op, error), args ...any) error {
	rows, err := r.db.Query(query, args...)
	if err != nil {
		return &Error{File: r.file, Table: table, Row: -1, Msg: "querying", Err: err}
	}
	s := &source{table: table, rows: rows, read: read}
	w.sources = append(w.sources, s)
	return s.advance(r.file)
}

// next returns the earliest pending op and moves its source on; nil at
// the end of every source.
func (w *walk) next() (op, error) {
	var first *source
	for _, s := range w.sources {
		if s.head != nil && (first == nil || s.head.at() < first.head.at()) {
			first = s
		}
	}
	if first == nil {
		return nil, nil
	}
	o := first.head
	return o, first.advance(w.file)
}

// close releases the sources' rows.
func (w *walk) close() {
	for _, s := range w.sources {
		s.rows.Close()
	}
}
