package results

import (
	"sync"
	"sync/atomic"

	"github.com/gpureplay/gpureplay/tables"
)

// spoolRows is how many rows a Recorder gathers before its builder
// goroutine takes them, and spoolDepth how many such chunks may wait: a
// replay that outruns the builder then waits for it.
const (
	spoolRows  = 1024
	spoolDepth = 4
)

// A spool moves a Recorder's row building off its caller's goroutine. The
// replay's engine hands over plain row structs, a chunk at a time; one
// builder goroutine appends them to the Arrow builders, in order, and
// hands the full batches on. Appending to column builders is most of what
// a row costs, so the engine's goroutine, the one every replay waits on,
// keeps only the copying of structs.
type spool struct {
	ch     chan *rowChunk
	free   chan *rowChunk
	done   chan struct{}
	cur    *rowChunk
	run    tables.Run  // the run of the rows from now on (Begin)
	failed atomic.Bool // the builder met an error: later rows are dropped
	abort  atomic.Bool // Abort: the builder drops what is left
	mu     sync.Mutex
	err    error // the builder's first error
}

// rowChunk is a run of rows in the order the Sink got them. Rows of
// different tables need not keep their relative order (each table is its
// own file), only rows of one table, which each slice does.
type rowChunk struct {
	run       tables.Run
	n         int
	summary   []tables.Summary
	kernels   []tables.Kernel
	ctas      []tables.CTA
	launches  []tables.Launch
	occupancy []tables.Occupancy
	pages     []tables.Page
	stages    []tables.Stage
}

func (c *rowChunk) reset() {
	c.n = 0
	c.summary, c.kernels, c.ctas = c.summary[:0], c.kernels[:0], c.ctas[:0]
	c.launches, c.occupancy = c.launches[:0], c.occupancy[:0]
	c.pages, c.stages = c.pages[:0], c.stages[:0]
}

// startSpool makes w's Sink methods hand their rows to a builder goroutine.
func (w *Writer) startSpool() {
	s := &spool{
		ch:   make(chan *rowChunk, spoolDepth),
		free: make(chan *rowChunk, spoolDepth+2),
		done: make(chan struct{}),
	}
	w.sp = s
	ch := s.ch // stop may clear s.ch before the goroutine first runs
	go func() {
		defer close(s.done)
		for c := range ch {
			if !s.abort.Load() && w.err == nil {
				w.build(c)
				if w.err != nil {
					s.mu.Lock()
					s.err = w.err
					s.mu.Unlock()
					s.failed.Store(true)
				}
			}
			c.reset()
			select {
			case s.free <- c:
			default:
			}
		}
	}()
}

// build appends a chunk's rows to the tables; on the builder goroutine.
func (w *Writer) build(c *rowChunk) {
	w.run = c.run
	addAll(w, &w.summary, c.summary)
	addAll(w, &w.kernels, c.kernels)
	addAll(w, &w.ctas, c.ctas)
	addAll(w, &w.launches, c.launches)
	addAll(w, &w.occupancy, c.occupancy)
	addAll(w, &w.pages, c.pages)
	addAll(w, &w.stages, c.stages)
}

// addAll appends rs to t's columns a column at a time (bulk.go), as runs
// that each fit the pending batch, so a batch holds the same rows as when
// they come one at a time.
func addAll[R any, T columns[R]](w *Writer, t T, rs []R) {
	tb := t.base()
	for len(rs) > 0 && w.err == nil {
		n := min(len(rs), tb.room())
		tb.addRun(&w.run, n)
		t.appendRows(rs[:n])
		if err := tb.addRows(n); err != nil {
			w.err = err
		}
		rs = rs[n:]
	}
}

// chunk returns the chunk taking rows, or nil once the builder has failed
// (the rows are dropped, as a Writer drops them after an error).
func (s *spool) chunk() *rowChunk {
	if s.cur == nil {
		if s.failed.Load() {
			return nil
		}
		select {
		case s.cur = <-s.free:
		default:
			s.cur = new(rowChunk)
		}
		s.cur.run = s.run
	}
	return s.cur
}

// added counts a row into the current chunk and sends it when full.
func (s *spool) added() {
	s.cur.n++
	if s.cur.n >= spoolRows {
		s.send()
	}
}

func (s *spool) send() {
	if s.cur != nil && s.cur.n > 0 {
		s.ch <- s.cur
		s.cur = nil
	}
}

// begin starts a new run: rows so far keep the old one.
func (s *spool) begin(run tables.Run) {
	s.send()
	s.run = run
}

// stop sends what is left (unless aborting) and waits for the builder,
// whose error is then the Writer's.
func (s *spool) stop(abort bool) {
	if abort {
		s.abort.Store(true)
	} else {
		s.send()
	}
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
		<-s.done
	}
}

func (s *spool) error() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
