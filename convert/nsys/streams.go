package nsys

import "database/sql"

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

// streamIDs numbers the trace's streams, and apart from them its events.
// The streams (events) of the first process seen keep their CUDA id when
// it fits in 32 bits; others (other processes', ids out of range) get
// 2^32 + k in order of first use, so no two CUDA streams (events) share a
// trace id.
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
