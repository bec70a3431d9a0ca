package study

import (
	"errors"
	"sync"

	"github.com/gpureplay/gpureplay/results"
)

// QueueBytes bounds the rows one replay may hold while it waits for the
// replays before it in the plan to reach the tables: past it the replay
// pauses until its turn. Run keeps at most 2J replays of J jobs started
// and not yet closed, so a Merge holds at most 2J × QueueBytes of rows
// (plus one batch a table per replay being built).
const QueueBytes = 64 << 20

// queueBytes is QueueBytes, a variable for the tests.
var queueBytes int64 = QueueBytes

// A Merge writes the rows of replays that run side by side into one set
// of tables, in plan order, so the files are the same whatever the
// number of jobs. Each replay records its rows in batches
// (results.NewRecorder); one goroutine appends the batches of the first
// unfinished replay to the tables as they come, then those of the next.
type Merge struct {
	w      *results.Writer
	queues []*queue
	done   chan struct{}
	err    error // the writer's or a replay's failure; read after done
	stop   sync.Once
}

// NewMerge starts merging the rows of n replays, given by their index in
// the plan, into w.
func NewMerge(w *results.Writer, n int) *Merge {
	m := &Merge{w: w, queues: make([]*queue, n), done: make(chan struct{})}
	for i := range m.queues {
		m.queues[i] = newQueue()
	}
	go m.run()
	return m
}

// Output is where the replay at index i of the plan writes its rows.
func (m *Merge) Output(i int) Output {
	q := m.queues[i]
	return &recording{Writer: results.NewRecorder(q.push), q: q}
}

// OutputParking is Output(i) for a replay that is told, through park,
// when it waits for the merge to take its rows (on) and when it no longer
// does: a caller running replays in lockstep (ingest.Shared) lets that
// one go meanwhile (ingest.Shared.Park) and lends its token, or a later
// replay waiting for the merge and an earlier one waiting on the tape for
// it would wait for each other.
func (m *Merge) OutputParking(i int, park func(on bool)) Output {
	m.queues[i].parkWith(park)
	return m.Output(i)
}

// Close waits until every replay's rows are written, then completes the
// tables. Every Output must be closed or aborted first.
func (m *Merge) Close() error {
	<-m.done
	if m.err != nil {
		m.w.Abort()
		return m.err
	}
	return m.w.Close()
}

// Abort gives the tables up; the replays' rows are dropped.
func (m *Merge) Abort() {
	m.halt(errAborted)
	<-m.done
	m.w.Abort()
}

var (
	errAborted = errors.New("study: merge aborted")
	errFailed  = errors.New("study: a replay failed")
)

func (m *Merge) run() {
	defer close(m.done)
	for _, q := range m.queues {
		for {
			b, ok, err := q.pop()
			if err != nil {
				m.err = err
				m.halt(err)
				return
			}
			if !ok {
				break
			}
			m.w.WriteBatch(b)
			if err := m.w.Err(); err != nil {
				m.err = err
				m.halt(err)
				return
			}
		}
	}
}

// halt stops the merge: replays waiting to hand over rows drop them.
func (m *Merge) halt(err error) {
	m.stop.Do(func() {
		for _, q := range m.queues {
			q.halt(err)
		}
	})
}

// recording is a replay's Output into a Merge.
type recording struct {
	*results.Writer
	q *queue
}

// Close hands over the replay's last rows; it fails if the merge has
// stopped (the tables could not be written, or a replay failed).
func (r *recording) Close() error {
	err := r.Writer.Close()
	if err == nil {
		err = r.q.close()
	}
	if err != nil {
		r.Abort()
	}
	return err
}

func (r *recording) Abort() {
	r.Writer.Abort()
	r.q.fail()
}

// queue holds one replay's batches until the merge takes them.
type queue struct {
	mu      sync.Mutex
	cond    sync.Cond
	batches []results.Batch
	bytes   int64
	closed  bool  // the replay handed over its last batch
	failed  bool  // the replay failed
	halted  error // the merge stopped
	// park, where set, is told that the replay waits for the merge (on)
	// and no longer: its runner lends its token meanwhile.
	park func(on bool)
}

// parkWith sets q's park (before its replay's first row).
func (q *queue) parkWith(park func(on bool)) {
	q.mu.Lock()
	q.park = park
	q.mu.Unlock()
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

// push appends a batch, waiting while the queue holds QueueBytes or more.
func (q *queue) push(b results.Batch) {
	q.mu.Lock()
	defer q.mu.Unlock()
	parked := false
	for q.bytes >= queueBytes && q.halted == nil {
		if q.park != nil && !parked {
			parked = true
			q.mu.Unlock()
			q.park(true)
			q.mu.Lock()
			continue
		}
		q.cond.Wait()
	}
	if parked {
		q.mu.Unlock()
		q.park(false)
		q.mu.Lock()
	}
	if q.halted != nil {
		b.Release()
		return
	}
	q.batches = append(q.batches, b)
	q.bytes += b.Bytes()
	q.cond.Broadcast()
}

// pop takes the next batch, waiting for one; ok is false once the replay
// has handed over its last.
func (q *queue) pop() (b results.Batch, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.batches) == 0 && !q.closed && !q.failed && q.halted == nil {
		q.cond.Wait()
	}
	switch {
	case q.halted != nil:
		return b, false, q.halted
	case q.failed:
		return b, false, errFailed
	case len(q.batches) == 0:
		return b, false, nil
	}
	b = q.batches[0]
	q.batches[0] = results.Batch{}
	q.batches = q.batches[1:]
	q.bytes -= b.Bytes()
	q.cond.Broadcast()
	return b, true, nil
}

func (q *queue) close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
	if q.halted != nil && !errors.Is(q.halted, errFailed) {
		return q.halted
	}
	return nil
}

func (q *queue) fail() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failed = true
	q.cond.Broadcast()
}

// halt drops what the queue holds and whatever comes.
func (q *queue) halt(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.halted = err
	for _, b := range q.batches {
		b.Release()
	}
	q.batches, q.bytes = nil, 0
	q.cond.Broadcast()
}
