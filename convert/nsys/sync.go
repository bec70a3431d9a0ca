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
func (r *report) recordQuery() string {
	return r.launchCTE(tabEvent) + `SELECT e.rowid, l.t, e.streamId, e.eventId, ` + r.pidOf(tabEvent, "e") + `
	FROM ` + tabEvent + ` e` + r.launchJoin(tabEvent, "e") + `
	WHERE e.deviceId = ? ORDER BY l.t, e.rowid`
}

// waitQuery selects the device's stream waits in host order.
func (r *report) waitQuery() string {
	return r.launchCTE(tabSync) + `SELECT m.rowid, COALESCE(l.t, m.start), m.streamId, m.eventId, ` + r.pidOf(tabSync, "m") + `
	FROM ` + tabSync + ` m` + r.launchJoin(tabSync, "m") + `
	WHERE m.deviceId = ? AND m.syncType = 2 ORDER BY 2, m.rowid`
}

// readRecord decodes an event record row.
func (c *converter) readRecord(rows *sql.Rows) (op, error) {
	return c.readEvent(rows, tabEvent, "cuda_event", false)
}

// readWait decodes a stream wait row.
func (c *converter) readWait(rows *sql.Rows) (op, error) {
	return c.readEvent(rows, tabSync, "synchronization:"+syncLabels[syncStreamWait], true)
}

// readEvent decodes an event record or stream wait row (the queries
// select the same columns); a row without a time or ids is counted as
// unused under what and skipped.
func (c *converter) readEvent(rows *sql.Rows, table, what string, wait bool) (op, error) {
	rw, err := scanRow(rows, c.r.file, table, eventNames)
	if err != nil {
		return nil, err
	}
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
