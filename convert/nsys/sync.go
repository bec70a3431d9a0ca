package nsys

import (
	"database/sql"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

// syncOp is one of the host's synchronisation calls on the converted
// device, as a sync record will carry it: a device, stream or event
// synchronize, an event record or a stream wait, at the start of its API
// call (t) and, where the report has it, its end (ret).
type syncOp struct {
	row           *row
	op            trace.SyncOp
	t, ret        int64 // the call's start and end (ns)
	hasRet        bool
	stream, event streamKey
}

func (s *syncOp) at() int64 { return s.t }

// The syncType values (ENUM_CUPTI_SYNC_TYPE, CUpti_ActivitySynchronization
// Type); syncLabels are the export's labels, for the unused counts.
const (
	syncEvent      = 1 // cudaEventSynchronize
	syncStreamWait = 2 // cudaStreamWaitEvent
	syncStream     = 3 // cudaStreamSynchronize
	syncContext    = 4 // cudaDeviceSynchronize, cuCtxSynchronize
)

var syncLabels = []string{"Unknown", "Event sync", "Stream wait sync", "Stream sync", "Context sync"}

// syncLabel names a syncType.
func syncLabel(kind sql.NullInt64) string {
	if kind.Valid && kind.Int64 >= 0 && kind.Int64 < int64(len(syncLabels)) {
		return syncLabels[kind.Int64]
	}
	return "syncType " + nullText(kind)
}

// bySyncType is the op a synchronization row stands for when its API
// call does not say (no call, or a function syncCalls does not list).
var bySyncType = map[int64]trace.SyncOp{
	syncEvent: trace.SyncEvent, syncStreamWait: trace.StreamWait,
	syncStream: trace.SyncStream, syncContext: trace.SyncDevice,
}

// syncCalls are the runtime and driver functions whose calls become sync
// records, by name without the _vNNNN and per-thread (_ptsz, _ptds)
// suffixes. The call decides the op rather than the row's syncType:
// Nsight Systems 2024.5 exports a cudaDeviceSynchronize's row with
// syncType 1 (event sync) and an invalid event.
var syncCalls = map[string]trace.SyncOp{
	"cudaDeviceSynchronize": trace.SyncDevice, "cudaThreadSynchronize": trace.SyncDevice,
	"cuCtxSynchronize":      trace.SyncDevice,
	"cudaStreamSynchronize": trace.SyncStream, "cuStreamSynchronize": trace.SyncStream,
	"cudaEventSynchronize": trace.SyncEvent, "cuEventSynchronize": trace.SyncEvent,
	"cudaStreamWaitEvent": trace.StreamWait, "cuStreamWaitEvent": trace.StreamWait,
	"cudaEventRecord": trace.EventRecord, "cudaEventRecordWithFlags": trace.EventRecord,
	"cuEventRecord": trace.EventRecord, "cuEventRecordWithFlags": trace.EventRecord,
}

// baseName is an API function's name without the per-thread default
// stream suffix (cudaStreamSynchronize_ptsz).
func baseName(fn string) string {
	return strings.TrimSuffix(strings.TrimSuffix(fn, "_ptsz"), "_ptds")
}

// invalidID is CUPTI_SYNCHRONIZATION_INVALID_VALUE as the exports store
// it: the streamId of a context or event sync, the eventId of a stream
// or context sync.
const invalidID = 1<<32 - 1

// syncNames are the columns the synchronization query selects after the
// rowid, for messages.
var syncNames = []string{"call start", "call end", "streamId", "eventId", "syncType", "globalPid", "call", "eventSyncId"}

// syncQuery selects the device's synchronizations in host order: by
// their API call's start (their own without one) and correlation id.
func (r *report) syncQuery() *query {
	return &query{name: "synchronization", table: tabSync, names: syncNames, strings: true,
		cols:  []string{"deviceId", "correlationId", "globalPid", "start", "end", "streamId", "eventId", "syncType", "eventSyncId"},
		where: func(v []any, dev int64) bool { return equal(v[0], dev) },
		order: func(v []any, t any) [3]any { return [3]any{coalesce(t, v[3]), v[1], v[3]} },
		sel: func(r *report, v []any, t any) []any {
			call := r.callOf(tabSync, v[1], v[2])
			end := v[4]
			if t != nil {
				end = call.end
			}
			return []any{coalesce(t, v[3]), end, v[5], v[6], v[7], r.pid(tabSync, v[2]), r.function(call.name), v[8]}
		}}
}

// recordNames are the columns the event record query selects.
var recordNames = []string{"call start", "streamId", "eventId", "globalPid"}

// recordQuery selects the device's event records (CUPTI_ACTIVITY_KIND_
// CUDA_EVENT, which tells the stream an event was recorded on) in host
// order; the table has no times, so each comes from its API call.
func (r *report) recordQuery() *query {
	return &query{name: "cuda_event", table: tabEvent, names: recordNames,
		cols:  []string{"deviceId", "correlationId", "globalPid", "streamId", "eventId"},
		where: func(v []any, dev int64) bool { return equal(v[0], dev) },
		order: func(v []any, t any) [3]any { return [3]any{t, v[1]} },
		sel: func(r *report, v []any, t any) []any {
			return []any{t, v[3], v[4], r.pid(tabEvent, v[2])}
		}}
}

// unused counts a row that became no record, under what (in the writing
// pass only: the timing pass reads the same rows).
func (c *converter) unused(what string) {
	if c.writing {
		c.sum.Unused[what]++
	}
}

// readRecord decodes an event record row; one without a call time or
// ids is counted and skipped.
func (c *converter) readRecord(rw *row) (op, error) {
	var v [3]int64
	var has [3]bool
	var err error
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
		c.unused("cuda_event (no API call)")
		return nil, nil
	case !has[1] || !has[2]:
		c.unused("cuda_event (no streamId or eventId)")
		return nil, nil
	}
	return &syncOp{row: rw, op: trace.EventRecord, t: v[0],
		stream: streamKey{pid: pid, id: v[1]}, event: streamKey{pid: pid, id: v[2]}}, nil
}

// readSync decodes a synchronization row. Its API call decides the op
// (syncCalls), else its syncType; the stream of a stream sync or wait and
// the event of an event sync or wait come from the row, the event
// through its eventSyncId where the export has one (see eventIDs). A row
// that cannot become a record is counted and skipped.
func (c *converter) readSync(rw *row) (op, error) {
	t, hasT, err := rw.int(0)
	if err != nil {
		return nil, err
	}
	end, hasEnd, err := rw.int(1)
	if err != nil {
		return nil, err
	}
	kind, err := rw.nullInt(4)
	if err != nil {
		return nil, err
	}
	pid, err := rw.nullInt(5)
	if err != nil {
		return nil, err
	}
	label := "synchronization:" + syncLabel(kind)
	fn := baseName(rw.text(6))
	o, ok := syncCalls[fn]
	switch {
	case !hasT:
		c.unused(label + " (no host time)")
		return nil, nil
	case ok && o == trace.EventRecord:
		c.unused(label + " (in " + fn + ")")
		return nil, nil
	case !ok && fn != "":
		// A synchronization inside another call (a synchronous copy's),
		// which that call's record stands for.
		c.unused(label + " (in " + fn + ")")
		return nil, nil
	case !ok:
		if o, ok = bySyncType[kind.Int64]; !ok || !kind.Valid {
			c.unused(label)
			return nil, nil
		}
	}
	s := &syncOp{row: rw, op: o, t: t, ret: end, hasRet: hasEnd}
	if o == trace.SyncStream || o == trace.StreamWait {
		id, has, err := rw.int(2)
		if err != nil {
			return nil, err
		}
		if !has || id == invalidID {
			c.unused(label + " (no streamId)")
			return nil, nil
		}
		s.stream = streamKey{pid: pid, id: id}
	}
	if o == trace.SyncEvent || o == trace.StreamWait {
		id, has, err := rw.int(3)
		if err != nil {
			return nil, err
		}
		syncID, hasSync, err := rw.int(7)
		if err != nil {
			return nil, err
		}
		if e, ok := c.eventOf[streamKey{pid: pid, id: syncID}]; hasSync && ok {
			id, has = e, true
		}
		if !has || id == invalidID {
			c.unused(label + " (no eventId)")
			return nil, nil
		}
		s.event = streamKey{pid: pid, id: id}
	}
	return s, nil
}

// eventIDs maps each event record's eventSyncId to its eventId, by
// process, where both tables have the column. Nsight Systems 2025.5
// exports a cudaEventSynchronize's row with the eventSyncId of the
// record it waits for in both eventId and eventSyncId, so the record's
// eventId (the event the program created) comes from the record row.
func (r *report) eventIDs(dev int64) (map[streamKey]int64, error) {
	m := map[streamKey]int64{}
	if !r.hasCol(tabEvent, "eventSyncId") || !r.hasCol(tabSync, "eventSyncId") {
		return m, nil
	}
	byPid := r.hasPid(tabEvent)
	err := r.scan(tabEvent, "reading event records", []string{"deviceId", "eventSyncId", "eventId", "globalPid"}, func(_ int64, v []any) error {
		sid, ok1 := v[1].(int64)
		id, ok2 := v[2].(int64)
		if !equal(v[0], dev) || !ok1 || !ok2 {
			return nil
		}
		var pid sql.NullInt64
		if byPid {
			if p, ok := perProcess(v[3]).(int64); ok {
				pid = sql.NullInt64{Int64: p, Valid: true}
			}
		}
		m[streamKey{pid: pid, id: sid}] = id
		return nil
	})
	return m, err
}

// sync writes a sync record, or counts one the trace cannot hold yet: a
// stream sync of a stream no operation used before, an event sync or a
// wait of an event not recorded before (recorded before the capture, or
// its record on another device).
func (c *converter) sync(s *syncOp) error {
	t, ret, err := c.hostT(s.row)
	if err != nil {
		return err
	}
	rec := &trace.Sync{Op: s.op, T: t}
	if s.op.Blocks() && ret > t {
		rec.Ret = ret
	}
	label := "sync:" + s.op.String()
	switch s.op {
	case trace.SyncStream:
		rec.Stream = c.streams.id(s.stream)
		if !c.used[rec.Stream] {
			c.unused(label + " (stream without earlier operations)")
			return nil
		}
	case trace.SyncEvent, trace.StreamWait:
		e, ok := c.events.ids[s.event]
		if !ok || !c.recorded[e] {
			c.unused(label + " (event not recorded)")
			return nil
		}
		rec.Event = e
		if s.op == trace.StreamWait {
			rec.Stream = c.streams.id(s.stream)
			c.used[rec.Stream] = true
		}
	case trace.EventRecord:
		rec.Event = c.events.id(s.event)
		rec.Stream = c.streams.id(s.stream)
		c.recorded[rec.Event] = true
		c.used[rec.Stream] = true
	}
	c.sum.Syncs++
	return c.out.Write(rec)
}
