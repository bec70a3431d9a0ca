package nsys

import (
	"database/sql"
	"slices"
)

// streamKey names a CUDA stream, or an event, of one process: stream and
// event ids, like correlation ids, are only unique within a process.
type streamKey struct {
	pid sql.NullInt64 // the process (globalPid / 2^24); NULL when the report cannot tell
	id  int64
}

// streamOf reads the stream (column i) and process (column pid) of a row.
func streamOf(rw *row, i, pid int) (streamKey, error) {
	id, err := rw.need(i)
	if err != nil {
		return streamKey{}, err
	}
	p, err := rw.nullInt(pid)
	return streamKey{pid: p, id: id}, err
}

// streamIDs numbers the trace's streams. The streams of the first process
// seen keep their CUDA stream id when it fits in 32 bits; others (other
// processes' streams, ids out of range) get 2^32 + k in order of first
// use, so no two CUDA streams share a trace stream.
type streamIDs struct {
	ids     map[streamKey]uint64
	first   sql.NullInt64 // the first process seen
	started bool
	next    uint64
}

func newStreamIDs() *streamIDs {
	return &streamIDs{ids: map[streamKey]uint64{}, next: 1 << 32}
}

// id returns s's trace stream.
func (m *streamIDs) id(s streamKey) uint64 {
	if v, ok := m.ids[s]; ok {
		return v
	}
	if !m.started {
		m.first, m.started = s.pid, true
	}
	var v uint64
	if s.pid == m.first && s.id >= 0 && s.id < 1<<32 {
		v = uint64(s.id)
	} else {
		v = m.next
		m.next++
	}
	m.ids[s] = v
	return v
}

// deps turns cudaEventRecord / cudaStreamWaitEvent pairs into the after
// lists of host launches. Walking the report in host order, it keeps the
// last kernel launched on each stream; an event record remembers the
// last kernel of its stream at that moment (the work the event
// completes); a wait makes the next kernel launched on the waiting
// stream depend on that kernel.
type deps struct {
	last    map[streamKey]uint64   // stream → its last kernel
	events  map[streamKey]eventRec // (process, event id) → its latest record
	pending map[streamKey][]uint64 // stream → kernels its next kernel waits for
}

// eventRec is what an event's latest record completes.
type eventRec struct {
	stream streamKey
	kernel uint64 // 0 when no kernel of the stream came before the record
}

func newDeps() *deps {
	return &deps{last: map[streamKey]uint64{}, events: map[streamKey]eventRec{}, pending: map[streamKey][]uint64{}}
}

// record notes a cudaEventRecord of event on stream.
func (d *deps) record(event, stream streamKey) {
	d.events[event] = eventRec{stream: stream, kernel: d.last[stream]}
}

// wait notes a cudaStreamWaitEvent of stream on event; known is false
// when no record of the event came before it.
func (d *deps) wait(event, stream streamKey) (known bool) {
	rec, ok := d.events[event]
	if !ok {
		return false
	}
	if rec.kernel != 0 && rec.stream != stream && !slices.Contains(d.pending[stream], rec.kernel) {
		d.pending[stream] = append(d.pending[stream], rec.kernel)
	}
	return true
}

// launch notes kernel id launched on stream and returns the kernels it
// must wait for, in increasing order.
func (d *deps) launch(id uint64, stream streamKey) []uint64 {
	after := d.pending[stream]
	delete(d.pending, stream)
	d.last[stream] = id
	slices.Sort(after)
	return after
}
