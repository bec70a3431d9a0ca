package results

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpureplay/gpureplay/tables"
)

// spoolRows is how many rows a Recorder gathers before its builder
// goroutine takes them, and spoolDepth how many such chunks may wait: a
// replay that outruns the builder then waits for it. Each column's
// append of a chunk's rows costs the Arrow builders some 200
// instructions whatever their number (the validity bits of a partial
// byte, a call to set the rest, a copy's call): chunks of 4,096 rows,
// one waiting, where four of 1,024 waited (as many rows held, a chunk
// of 2.2 MB), cost --out 15 instructions a CTA fewer on BFS with Parquet
// (scripts/instructions.sh bfs-parquet: 806 → 791), the same wall time
// under GOMAXPROCS=1 and less without, and about the same memory.
const (
	spoolRows  = 4096
	spoolDepth = 1
)

// A spool moves a Recorder's row building off its caller's goroutine. The
// replay's engine puts each row's fields in a chunk's columns (bulk.go)
// and hands the chunk over when full; one builder goroutine appends them
// to the Arrow builders, in order, and hands the full batches on.
// Appending to column builders is most of what a row costs, so the
// engine's goroutine, the one every replay waits on, keeps only the
// copying of fields.
type spool struct {
	ch     chan *rowChunk
	free   chan *rowChunk
	done   chan struct{}
	cur    *rowChunk   // the chunk taking rows, of the run of rows from now on (Begin)
	failed atomic.Bool // the builder met an error, or stop: later rows are dropped
	abort  atomic.Bool // Abort: the builder drops what is left
	mu     sync.Mutex
	err    error // the builder's first error
}

// rowChunk is a run of rows in the order the Sink got them, each table's
// a column each (bulk.go). Rows of different tables need not keep their
// relative order (each table is its own file), only rows of one table,
// which each table's columns do. A chunk takes spoolRows rows in all, so
// each table's columns have room for them.
type rowChunk struct {
	run       tables.Run
	n         int
	summary   summaryRows
	kernels   kernelRows
	ctas      ctaRows
	launches  launchRows
	occupancy occupancyRows
	pages     pageRows
	stages    stageRows
	syncs     syncRows
}

func (c *rowChunk) reset() {
	c.n = 0
	c.summary.reset()
	c.kernels.reset()
	c.ctas.reset()
	c.launches.reset()
	c.occupancy.reset()
	c.pages.reset()
	c.stages.reset()
	c.syncs.reset()
}

// startSpool makes w's Sink methods hand their rows to a builder goroutine.
func (w *Writer) startSpool() {
	s := &spool{
		ch:   make(chan *rowChunk, spoolDepth),
		free: make(chan *rowChunk, spoolDepth+2),
		done: make(chan struct{}),
		cur:  new(rowChunk),
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
	addAll(w, &w.summary, &c.summary, c.summary.n)
	addAll(w, &w.kernels, &c.kernels, c.kernels.n)
	addAll(w, &w.ctas, &c.ctas, c.ctas.n)
	addAll(w, &w.launches, &c.launches, c.launches.n)
	addAll(w, &w.occupancy, &c.occupancy, c.occupancy.n)
	addAll(w, &w.pages, &c.pages, c.pages.n)
	addAll(w, &w.stages, &c.stages, c.stages.n)
	addAll(w, &w.syncs, &c.syncs, c.syncs.n)
}

// spooled is a table's column set as the builder goroutine appends a
// chunk's rows to it, C its rows' columns in a chunk (ctaRows, ...).
type spooled[C any] interface {
	base() *table
	appendRows(c *C, lo, hi int)
}

// addAll appends the n rows of c to t's columns a column at a time
// (bulk.go), as runs that each fit the pending batch, so a batch holds
// the same rows as when they come one at a time.
func addAll[C any, T spooled[C]](w *Writer, t T, c *C, n int) {
	tb := t.base()
	for lo := 0; lo < n && w.err == nil; {
		k := min(n-lo, tb.room())
		tb.addRun(&w.run, k)
		tb.grow(k)
		t.appendRows(c, lo, lo+k)
		if err := tb.addRows(k); err != nil {
			w.err = err
		}
		lo += k
	}
}

// take counts a row into the chunk taking rows, which has room for it,
// and returns it for the row; sent, after the row's fields, sends the
// chunk where the row filled it. The call that sends a chunk comes after
// the fields are stored, so that a Sink method keeps them in registers:
// with the call before them (a full chunk sent when the next row came),
// the method stored its fields on the stack at every row and loaded them
// back, synth --out parquet 3 instructions a CTA more
// (scripts/instructions.sh --quick synth-parquet).
func (s *spool) take() *rowChunk {
	c := s.cur
	c.n++
	return c
}

// takeUpTo counts up to n rows into the chunk taking rows, as many as it
// has room for, and returns it and how many; sent, after the rows'
// fields, sends it where they filled it.
func (s *spool) takeUpTo(n int) (*rowChunk, int) {
	c := s.cur
	k := min(n, spoolRows-c.n)
	c.n += k
	return c, k
}

// sent sends c, the chunk taking rows, where it is full.
func (s *spool) sent(c *rowChunk) {
	if c.n == spoolRows {
		s.next()
	}
}

// next sends the chunk taking rows and starts an empty one of its run.
// Once the builder has failed, the chunk's rows are dropped instead, as a
// Writer drops rows after an error.
func (s *spool) next() *rowChunk {
	c := s.cur
	if s.failed.Load() {
		c.reset()
		return c
	}
	run := c.run
	s.ch <- c
	select {
	case s.cur = <-s.free:
	default:
		s.cur = new(rowChunk)
	}
	s.cur.run = run
	return s.cur
}

// begin starts a new run: rows so far keep the old one.
func (s *spool) begin(run tables.Run) {
	if s.cur.n > 0 {
		s.next()
	}
	s.cur.run = run
}

// stop sends what is left (unless aborting) and waits for the builder,
// whose error is then the Writer's.
func (s *spool) stop(abort bool) {
	if s.ch == nil {
		return
	}
	if abort {
		s.abort.Store(true)
	} else if s.cur.n > 0 && !s.failed.Load() {
		s.ch <- s.cur
	}
	close(s.ch)
	s.ch = nil
	<-s.done
	// Rows after Close or Abort are dropped: the chunk is the builder's
	// no more, and takes them until it is full.
	s.failed.Store(true)
	s.cur.reset()
}

func (s *spool) error() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// appendNullable appends a run of a nullable column's values, valid
// saying which rows hold one (bulk.go). Where every row does (a CTA's
// slowdown wherever the contention model is on), it passes no validity:
// Arrow then sets the run's bits a byte at a time, where it takes the
// bools one at a time, and the arrays are the same. synth --out
// parquet: 3 instructions a CTA fewer (scripts/instructions.sh --quick
// synth-parquet).
func appendNullable[T any, B interface{ AppendValues([]T, []bool) }](b B, v []T, valid []bool) {
	if allSet(valid) {
		valid = nil
	}
	b.AppendValues(v, valid)
}

// allSet reports whether every one of bs is true: a false is a zero
// byte, found a wide word at a time.
func allSet(bs []bool) bool {
	return bytes.IndexByte(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(bs))), len(bs)), 0) < 0
}
