package gpgpusim

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/gpureplay/gpureplay/trace"
)

// Event records and stream waits, read where the log has them: at
// PTX_SIM_DEBUG=3 GPGPU-Sim prints every CUDA API call it takes
// ("GPGPU-Sim PTX: CUDA API function "cudaError_t
// cudaEventRecordInternal(...)" has been called."), and a push into the
// stream manager prints the manager's state after it (stream_manager::
// push, stream_manager.cc:446-485: "GPGPU-Sim API: Stream Manager
// State", then each stream's "stream N has K operations" and its
// operations, "stream operation event" for a record, "stream operation "
// with no name for a wait). Neither line names the event, so:
//
//   - a cudaEventRecordInternal is a record on the stream whose list the
//     next state shows changed and ending in an event, of a new event
//     (numbered 1, 2, ... in the trace);
//   - a cudaStreamWaitEventInternal is a wait, by the stream whose list
//     changed and ends in the nameless operation, for the last event
//     recorded.
//
// A call whose stream the state does not single out is counted
// (Summary.EventsUnread) and not written. At PTX_SIM_DEBUG=1 neither line
// is printed, and records and waits are not in the trace (sync.go).
var (
	lineAPICall     = []byte(`GPGPU-Sim PTX: CUDA API function "`)
	apiEventRecord  = []byte("cudaEventRecordInternal(")
	apiStreamWait   = []byte("cudaStreamWaitEventInternal(")
	lineStateStart  = []byte("GPGPU-Sim API: Stream Manager State")
	prefixStateLine = []byte("GPGPU-Sim API:    ")
	stateStream     = []byte("stream ")
	stateOperation  = []byte("stream operation")
)

// eventCall is the API call waiting for the state that says its stream.
type eventCall uint8

const (
	noEventCall eventCall = iota
	recordCall
	waitCall
)

// streamStates are the stream manager's states as the log prints them:
// the last one whole, and the one being read.
type streamStates struct {
	call    eventCall
	callT   int64
	last    map[uint64][]string // each stream's operations in the last state
	cur     map[uint64][]string // the state being read, nil outside one
	stream  uint64              // the stream whose operations are being read
	records int                 // events recorded so far (the last one's number)
}

// eventLine reads the API-call and stream-state lines; it reports
// whether b was one.
func (r *Reader) eventLine(b []byte) bool {
	s := &r.states
	switch {
	case bytes.HasPrefix(b, lineAPICall):
		r.endState()
		call := b[len(lineAPICall):]
		if i := bytes.IndexByte(call, ' '); i >= 0 {
			call = call[i+1:] // past the return type
		}
		switch {
		case bytes.HasPrefix(call, apiEventRecord):
			s.call, s.callT = recordCall, r.now()
		case bytes.HasPrefix(call, apiStreamWait):
			s.call, s.callT = waitCall, r.now()
		}
		return true
	case bytes.HasPrefix(b, lineStateStart):
		r.endState()
		s.cur = map[uint64][]string{}
		return true
	case s.cur != nil && bytes.HasPrefix(b, prefixStateLine):
		line := bytes.TrimSpace(b[len(prefixStateLine):])
		if bytes.HasPrefix(line, stateStream) && !bytes.HasPrefix(line, stateOperation) {
			f := bytes.Fields(line[len(stateStream):])
			if len(f) > 0 {
				if id, err := strconv.ParseUint(string(f[0]), 10, 64); err == nil {
					s.stream = id
					s.cur[id] = []string{}
				}
			}
			return true
		}
		if i := bytes.Index(line, stateOperation); i >= 0 {
			s.cur[s.stream] = append(s.cur[s.stream], string(bytes.TrimSpace(line[i+len(stateOperation):])))
		}
		return true
	}
	return false
}

// endState finishes the state being read: the API call waiting for it
// gets its stream, and the state becomes the last one.
func (r *Reader) endState() {
	s := &r.states
	if s.cur == nil {
		return
	}
	cur := s.cur
	s.cur = nil
	if s.call != noEventCall && r.opts.Syncs {
		want := "event"
		if s.call == waitCall {
			want = ""
		}
		var found []uint64
		for id, ops := range cur {
			if len(ops) > 0 && ops[len(ops)-1] == want && !slices.Equal(ops, s.last[id]) {
				found = append(found, id)
			}
		}
		switch {
		case len(found) != 1:
			r.sum.EventsUnread++
		case s.call == recordCall:
			s.records++
			r.hostCall(&trace.Sync{Op: trace.EventRecord, Event: uint64(s.records), Stream: found[0], T: s.callT})
		case s.records == 0:
			r.sum.EventsUnread++ // a wait for an event recorded before the log's first record
		default:
			r.hostCall(&trace.Sync{Op: trace.StreamWait, Event: uint64(s.records), Stream: found[0], T: s.callT})
		}
	}
	s.call = noEventCall
	s.last = cur
}

// hostCall queues a record or a wait among the host's operations, in
// program order; it orders streams, not the host.
func (r *Reader) hostCall(s *trace.Sync) {
	r.host = append(r.host, &hostOp{sync: s, done: true, what: "cudaEventRecord or cudaStreamWaitEvent", line: r.line})
	r.sum.Events++
}
