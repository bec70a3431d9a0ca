package nsys

import "database/sql"

// eventOp is a cudaEventRecord (event recorded on stream) or, with wait
// set, a cudaStreamWaitEvent (stream waits for event), at the host time
// of its API call (a wait without one: the synchronization row's start).
type eventOp struct {
	t             int64
	wait          bool
	event, stream streamKey
}

func (e *eventOp) at() int64 { return e.t }

// syncStreamWait is the syncType (ENUM_CUPTI_SYNC_TYPE) of a stream
// waiting for an event; syncLabels are the export's labels of all types.
const syncStreamWait = 2

var syncLabels = []string{"Unknown", "Event sync", "Stream wait sync", "Stream sync", "Context sync"}

// syncLabel names a syncType.
func syncLabel(kind sql.NullInt64) string {
	if kind.Valid && kind.Int64 >= 0 && kind.Int64 < int64(len(syncLabels)) {
		return syncLabels[kind.Int64]
	}
	return "syncType " + nullText(kind)
}

var eventNames = []string{"start", "streamId", "eventId", "globalPid"}

// recordQuery selects the device's event records (CUPTI_ACTIVITY_KIND_
// CUDA_EVENT, which tells the stream an event was recorded on) in host
// order; the table has no times, so each comes from its API call.
func (r *report) recordQuery() *query {
	return &query{name: "cuda_event", table: tabEvent, names: eventNames,
		cols:  []string{"deviceId", "correlationId", "globalPid", "streamId", "eventId"},
		where: func(v []any, dev int64) bool { return equal(v[0], dev) },
		order: func(v []any, t any) [3]any { return [3]any{t} },
		sel: func(r *report, v []any, t any) []any {
			return []any{t, v[3], v[4], r.pid(tabEvent, v[2])}
		}}
}

// waitQuery selects the device's stream waits in host order.
func (r *report) waitQuery() *query {
	return &query{name: "synchronization", table: tabSync, names: eventNames,
		cols: []string{"deviceId", "correlationId", "globalPid", "start", "streamId", "eventId", "syncType"},
		where: func(v []any, dev int64) bool {
			return equal(v[0], dev) && equal(v[6], int64(syncStreamWait))
		},
		order: func(v []any, t any) [3]any { return [3]any{coalesce(t, v[3])} },
		sel: func(r *report, v []any, t any) []any {
			return []any{coalesce(t, v[3]), v[4], v[5], r.pid(tabSync, v[2])}
		}}
}

// readRecord decodes an event record row.
func (c *converter) readRecord(rw *row) (op, error) {
	return c.readEvent(rw, "cuda_event", false)
}

// readWait decodes a stream wait row.
func (c *converter) readWait(rw *row) (op, error) {
	return c.readEvent(rw, "synchronization:"+syncLabels[syncStreamWait], true)
}

// readEvent decodes an event record or stream wait row (the queries
// select the same columns); a row without a time or ids is counted as
// unused under what and skipped.
func (c *converter) readEvent(rw *row, what string, wait bool) (op, error) {
	var err error
	var v [3]int64
	var has [3]bool
	for i := range v {
		if v[i], has[i], err = rw.int(i); err != nil {
			return nil, err
		}
	}
	pid, err := rw.nullInt(3)
	switch {
	case err != nil:
		return nil, err
	case !has[0]:
		c.sum.Unused[what+" (no host time)"]++
		return nil, nil
	case !has[1] || !has[2]:
		c.sum.Unused[what+" (no streamId or eventId)"]++
		return nil, nil
	}
	return &eventOp{t: v[0], wait: wait, stream: streamKey{pid: pid, id: v[1]}, event: streamKey{pid: pid, id: v[2]}}, nil
}
