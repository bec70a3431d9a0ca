package nsys

// op is one row of the host-ordered walk over the report: a kernel, a
// copy, an event record or a stream wait. at is when the host issued it
// (ns on the report's clock).
type op interface{ at() int64 }

// source walks one query whose rows come ordered by host time.
type source struct {
	table string
	next  func() (*row, error)   // the query's next row; nil at the end
	read  func(*row) (op, error) // decodes a row; a nil op skips it
	head  op                     // the next op; nil at the end
}

// advance moves head to the next row that decodes to an op.
func (s *source) advance() error {
	for {
		rw, err := s.next()
		if err != nil {
			return err
		}
		if rw == nil {
			s.head = nil
			return nil
		}
		o, err := s.read(rw)
		if err != nil {
			return err
		}
		if o != nil {
			s.head = o
			return nil
		}
	}
}

// walk is the merge of several sources into one host-ordered sequence.
// Ops at the same host time come in source order.
type walk struct {
	file    string
	sources []*source
}

// open runs q on r for device dev and adds it to the walk.
func (w *walk) open(r *report, q *query, read func(*row) (op, error), dev int64) error {
	next, err := r.rows(q, dev)
	if err != nil {
		return err
	}
	s := &source{table: q.table, next: next, read: read}
	w.sources = append(w.sources, s)
	return s.advance()
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
	return o, first.advance()
}

// close ends the walk.
func (w *walk) close() {}
