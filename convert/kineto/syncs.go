package kineto

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpureplay/gpureplay/convert/internal/profile"
	"github.com/gpureplay/gpureplay/trace"
)

// The host's synchronisation: the runtime calls that make the host wait
// for the GPU (cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventSynchronize) or order streams by events (cudaEventRecord,
// cudaStreamWaitEvent) become sync records in program order among the
// launches and copies (see "Synchronisation" in the package doc). Which
// stream or event a call names is not on its cuda_runtime event: CUPTI's
// synchronisation records, which Kineto writes as cuda_sync events
// ("Context Sync", "Stream Sync", "Event Sync", "Stream Wait Event") with
// the call's correlation, carry it. Which cudaEventRecord a wait or event
// sync waits for is named by the record's correlation, or (PyTorch 2.11)
// only by the event's id, which the record calls do not carry: see
// eventRecords.

// syncEvent is a cuda_sync event.
type syncEvent struct {
	name       string // "Context Sync", "Stream Sync", "Event Sync", "Stream Wait Event"
	corr       ident
	device     ident // args.device, else pid
	stream     ident // args.stream, else tid: the stream synchronised or made to wait
	waitStream ident // the stream the awaited event was recorded on
	recordCorr ident // the correlation of the cudaEventRecord awaited
	event      ident // the awaited event's id (wait_on_cuda_event_id)
	used       bool
}

// addSync files a cuda_sync event; one without a correlation is counted
// as unused.
func (p *capture) addSync(i int, off int64, ev *event) *Error {
	var a launchArgs
	if err := unmarshalArgs(ev.Args, &a); err != nil || a.Correlation == "" {
		p.unused[ev.Cat]++
		return nil
	}
	s := &syncEvent{name: ev.Name, corr: a.Correlation, device: a.Device, stream: a.Stream, waitStream: a.WaitStream, recordCorr: a.RecordCorr, event: a.EventID}
	if s.device == "" {
		s.device = ev.Pid
	}
	if s.stream == "" {
		s.stream = ev.Tid
	}
	p.syncs = append(p.syncs, s)
	return nil
}

// syncCalls maps the runtime calls that become sync records to their op.
// The HIP names are ROCm's equivalents; roctracer records no cuda_sync
// events, so only their device syncs and (inferred) stream syncs convert.
var syncCalls = map[string]trace.SyncOp{
	"cudaDeviceSynchronize":    trace.SyncDevice,
	"cudaStreamSynchronize":    trace.SyncStream,
	"cudaEventSynchronize":     trace.SyncEvent,
	"cudaEventRecord":          trace.EventRecord,
	"cudaEventRecordWithFlags": trace.EventRecord,
	"cudaStreamWaitEvent":      trace.StreamWait,
	"hipDeviceSynchronize":     trace.SyncDevice,
	"hipStreamSynchronize":     trace.SyncStream,
}

// hostSync is a sync record to be written: its call, what it names, and
// its times (ns in the profile until the plan maps them to cycles).
type hostSync struct {
	call   *hostCall
	op     trace.SyncOp
	stream ident     // stream, record and wait
	record *hostCall // event and wait: the cudaEventRecord awaited
	// event and wait named by event id: the stream the record is
	// inferred to be on (eventRecords); "" where the cuda_sync event
	// names it (wait_on_stream)
	recordStream ident
	ts           int64 // ns: the call's start
	ret          int64 // ns: a blocking call's return (ts + dur)
	rec          trace.Sync
}

// Reasons a sync call becomes no record, counted in Summary.Unused under
// the call's cat:name and the reason.
const (
	skipEarly     = "before the profile's first GPU op"
	skipDevice    = "other device"
	skipNoStream  = "no cuda_sync event names its stream"
	skipNoRecord  = "the cudaEventRecord it waits for is not in the profile"
	skipUnawaited = "no converted sync waits for it"
	skipNoEvent   = "no cuda_sync event names its event"
	skipThreads   = "another host thread issued GPU work while it waited"
	// A wait or event sync that names its event only by id
	// (eventRecords).
	skipOtherEvent   = "a wait for another event came after its thread's last cudaEventRecord"
	skipOtherThread  = "another host thread recorded an event after its thread's last cudaEventRecord"
	skipRecordStream = "its thread launched no GPU op before the cudaEventRecord"
	// A stream sync whose stream had nothing on it yet (dropIdleSyncs).
	skipIdleStream = "no GPU op, event record or wait came on its stream before it"
)

// skip counts sync call c as unused for why: it becomes no record.
func (pl *plan) skip(c *hostCall, why string) {
	c.used = true
	pl.unused[c.key+" ("+why+")"]++
}

// eventRecords finds the cudaEventRecord a wait or event sync waits for
// where its cuda_sync event names the event only by id: PyTorch 2.11
// writes wait_on_cuda_event_id with wait_on_cuda_event_record_corr_id
// and wait_on_stream −1, and its record call (cudaEventRecordWithFlags)
// has no cuda_sync event and no event or stream in its args. The record
// is the last record call on the wait's host thread before it, provided
// no wait or event sync between them (on that thread) named another event
// id, which that record may then have been for, and no other host thread
// recorded an event between them. The record's stream is that of the last
// GPU op its thread launched before it: PyTorch records an event on the
// current stream (torch.cuda.Event.record), where the ops before it were
// launched. Neither is in the profile, so both are inferred: a record of
// an event no wait names (a timing event's) between the awaited record
// and its wait is taken for the awaited one, and a record on a stream
// other than the last launch's gets that launch's stream.
type eventRecords struct {
	last   map[ident]*hostCall      // by host thread: its last record call
	named  map[ident]map[ident]bool // by host thread: event ids waited on since it
	any    *hostCall                // the last record call of any thread
	before map[*hostCall]*gpuOp     // a record's thread's last GPU op before it
}

func newEventRecords() *eventRecords {
	return &eventRecords{last: map[ident]*hostCall{}, named: map[ident]map[ident]bool{}, before: map[*hostCall]*gpuOp{}}
}

// record files a record call c; op is the last GPU op its thread launched
// before it (nil for none).
func (e *eventRecords) record(c *hostCall, op *gpuOp) {
	e.last[c.tid], e.named[c.tid], e.any = c, nil, c
	e.before[c] = op
}

// awaited is the record call that c (whose cuda_sync event names its
// event by id) waits for, or the reason there is none to convert; it
// then notes that c's thread waited on that event.
func (e *eventRecords) awaited(c *hostCall) (r *hostCall, why string) {
	id := c.sync.event
	r = e.last[c.tid]
	switch {
	case r == nil:
		why = skipNoRecord
	case len(e.named[c.tid]) > 1 || len(e.named[c.tid]) == 1 && !e.named[c.tid][id]:
		why = skipOtherEvent
	case e.any != r:
		why = skipOtherThread
	}
	e.waited(c)
	if why != "" {
		return nil, why
	}
	return r, ""
}

// waited notes that c, a wait or event sync, named its event id on its
// thread.
func (e *eventRecords) waited(c *hostCall) {
	if c.sync == nil || c.sync.event == "" {
		return
	}
	if e.named[c.tid] == nil {
		e.named[c.tid] = map[ident]bool{}
	}
	e.named[c.tid][c.sync.event] = true
}

// byEventID reports whether a cuda_sync event names its record only by
// the event's id: no valid wait_on_cuda_event_record_corr_id (absent or
// −1) and a wait_on_cuda_event_id.
func (s *syncEvent) byEventID() bool {
	_, corr := s.recordCorr.uint()
	_, id := s.event.uint()
	return !corr && id
}

// streamBias is what some PyTorch versions add to a stream id to make the
// tid of its cuda_sync events (the trace viewer's row), and what a stream
// read from a tid may carry.
const streamBias = 1_000_000

// collectSyncs turns the sync calls of the converted device into
// hostSyncs in the order their calls started, counting the rest as
// unused with the reason, and marks the cuda_sync events the hostSyncs
// use (unusedSyncEvents counts the others).
func (pl *plan) collectSyncs(p *capture) {
	for _, s := range p.syncs {
		if c := p.calls[s.corr]; c != nil && c.sync == nil {
			c.sync = s
		}
	}
	known := map[ident]bool{} // streams with ops on the device
	for _, op := range p.ops {
		if op.device == pl.device {
			known[op.stream] = true
		}
	}
	// Host calls in the order they started: the syncs, and the calls
	// of GPU ops a stream sync's stream may be inferred from.
	var calls []*hostCall
	for _, c := range p.calls {
		if _, ok := syncCalls[c.name]; ok || c.op != nil {
			calls = append(calls, c)
		}
	}
	slices.SortFunc(calls, func(a, b *hostCall) int {
		if c := cmp.Compare(a.ts, b.ts); c != 0 {
			return c
		}
		return strings.Compare(string(a.args.Correlation), string(b.args.Correlation))
	})
	markConcurrent(calls, pl.device)
	var first int64
	if len(pl.ops) > 0 {
		first = pl.ops[0].order.host
	}
	lastOp := map[ident]*gpuOp{} // by host thread
	awaited := map[*hostCall]ident{}
	records := newEventRecords()
	var syncs []*hostSync
	for _, c := range calls {
		if c.op != nil {
			lastOp[c.tid] = c.op
			continue
		}
		op := syncCalls[c.name]
		if op == trace.EventRecord {
			records.record(c, lastOp[c.tid])
		}
		s := &hostSync{call: c, op: op, ts: c.ts}
		if op.Blocks() {
			s.ret = c.ts + c.dur
		}
		device := pl.device
		if c.sync != nil && c.sync.device != "" {
			device = c.sync.device
		}
		switch op {
		case trace.SyncStream:
			switch {
			case c.sync != nil:
				s.stream = pl.syncStream(c.sync.stream, known)
			case lastOp[c.tid] != nil:
				// No cuda_sync event (profiles before PyTorch 2.2):
				// PyTorch synchronises the stream of the copy it has
				// just issued (copy_kernel_cuda's memcpy_and_sync).
				s.stream, device = lastOp[c.tid].stream, lastOp[c.tid].device
			}
		case trace.SyncEvent, trace.StreamWait:
			if c.sync == nil {
				pl.skip(c, skipNoEvent)
				continue
			}
			if c.sync.byEventID() {
				r, why := records.awaited(c)
				if why == "" && r.ts < first {
					why = skipNoRecord
				}
				if why == "" {
					switch before := records.before[r]; {
					case before == nil:
						why = skipRecordStream
					case before.device != pl.device:
						why = skipDevice
					default:
						s.recordStream = before.stream
					}
				}
				if why != "" {
					pl.skip(c, why)
					continue
				}
				s.record = r
			} else {
				records.waited(c)
				r := p.calls[c.sync.recordCorr]
				if r == nil || c.sync.recordCorr == "" || syncCalls[r.name] != trace.EventRecord || r.ts > c.ts || r.ts < first {
					pl.skip(c, skipNoRecord)
					continue
				}
				s.record = r
			}
			if op == trace.StreamWait {
				s.stream = pl.syncStream(c.sync.stream, known)
			}
		}
		switch {
		case op == trace.EventRecord: // kept once a wait on it is
		case c.ts < first || len(pl.ops) == 0:
			pl.skip(c, skipEarly)
			continue
		case device != pl.device:
			pl.skip(c, skipDevice)
			continue
		case op.Blocks() && c.concurrent:
			pl.skip(c, skipThreads)
			continue
		case (op == trace.SyncStream || op == trace.StreamWait) && s.stream == "":
			pl.skip(c, skipNoStream)
			continue
		}
		if s.record != nil {
			ws := s.recordStream
			if ws == "" {
				ws = pl.syncStream(c.sync.waitStream, known)
			}
			if ws == "" {
				pl.skip(c, skipNoStream)
				continue
			}
			if _, ok := awaited[s.record]; !ok {
				awaited[s.record] = ws
			}
		}
		syncs = append(syncs, s)
	}
	for _, s := range syncs {
		if s.op == trace.EventRecord {
			ws, ok := awaited[s.call]
			if !ok {
				pl.skip(s.call, skipUnawaited)
				continue
			}
			s.stream = ws
		}
		s.call.used = true
		if s.call.sync != nil {
			s.call.sync.used = true
		}
		pl.syncs = append(pl.syncs, s)
	}
}

// markConcurrent marks the calls of calls (in the order they started)
// during which a host thread other than their own started a call that
// issued GPU work on device. A trace has one host thread: a replay holds
// every later call until a blocking call returns, where the profile had
// other threads (PyTorch's autograd thread, data loaders) issue work
// meanwhile. Such a call is written as not blocking (a sync is dropped, a
// copy loses its blocking fields), and the calls after it keep their
// profiled times as they did before syncs were converted.
func markConcurrent(calls []*hostCall, device ident) {
	var issuing []*hostCall
	for _, c := range calls {
		if c.op != nil && c.op.device == device {
			issuing = append(issuing, c)
		}
	}
	for _, c := range calls {
		i, _ := slices.BinarySearchFunc(issuing, c.ts, func(o *hostCall, ts int64) int { return cmp.Compare(o.ts, ts) })
		for ; i < len(issuing) && issuing[i].ts < c.ts+c.dur; i++ {
			if issuing[i].tid != c.tid {
				c.concurrent = true
				break
			}
		}
	}
}

// syncStream is the Kineto stream a cuda_sync event names: its args.stream
// (else its tid), less streamBias where that is what makes it a stream
// with ops on the device; "" for none (a negative id: Kineto writes -1
// where the call names no stream).
func (pl *plan) syncStream(id ident, known map[ident]bool) ident {
	if id == "" || known[id] {
		return id
	}
	if v, ok := id.uint(); ok && v >= streamBias {
		if b := ident(strconv.FormatUint(v-streamBias, 10)); known[b] {
			return b
		}
	}
	if _, ok := id.uint(); !ok {
		return ""
	}
	return id
}

// hostOp is one record of program order: a GPU op or a sync.
type hostOp struct {
	op   *gpuOp
	sync *hostSync
}

// programOrderSyncs merges the syncs (in the order their calls started)
// into the ops' program order: a sync goes after every op whose place is
// at or before its call's start. An op without a host call that started
// on the GPU before a blocking sync returned goes before that sync as
// well: the sync's host thread issued nothing while it waited.
func (pl *plan) programOrderSyncs() {
	pl.host = make([]hostOp, 0, len(pl.ops)+len(pl.syncs))
	i := 0
	for _, s := range pl.syncs {
		for ; i < len(pl.ops); i++ {
			op := pl.ops[i]
			if op.order.host > s.ts && !(op.call == nil && s.op.Blocks() && op.ts < s.ret) {
				break
			}
			pl.host = append(pl.host, hostOp{op: op})
		}
		pl.host = append(pl.host, hostOp{sync: s})
	}
	for ; i < len(pl.ops); i++ {
		pl.host = append(pl.host, hostOp{op: pl.ops[i]})
	}
}

// dropIdleSyncs drops from the program order the stream syncs whose
// stream nothing came on before them: no GPU op, event record or stream
// wait, and takes them out of the syncs (hostSyncCost's median is over
// the syncs written). Such a call waited for nothing, and a trace names a stream only
// from its first operation on (the validator refuses a sync on a stream
// that does not exist yet), so it is counted unused, with its cuda_sync
// event. A profile that begins mid-run, or a program that synchronises a
// stream before its first use, has them. Streams are told apart by their
// trace numbers (numberStreams), which two spellings of one stream ("7",
// "0x7") share.
func (pl *plan) dropIdleSyncs() {
	seen := map[uint64]bool{}
	kept := pl.host[:0]
	for _, h := range pl.host {
		switch {
		case h.op != nil:
			seen[pl.streams[h.op.stream]] = true
		case h.sync.op == trace.SyncStream && !seen[pl.streams[h.sync.stream]]:
			pl.skip(h.sync.call, skipIdleStream)
			if h.sync.call.sync != nil {
				h.sync.call.sync.used = false // counted unused (unusedSyncEvents)
			}
			continue
		case h.sync.op == trace.EventRecord || h.sync.op == trace.StreamWait:
			seen[pl.streams[h.sync.stream]] = true
		}
		kept = append(kept, h)
	}
	pl.host = kept
	// The syncs left, in the order their calls started: program order
	// keeps it (programOrderSyncs).
	pl.syncs = pl.syncs[:0]
	for _, h := range kept {
		if h.sync != nil {
			pl.syncs = append(pl.syncs, h.sync)
		}
	}
}

// scheduleSyncs maps the syncs' call times to trace cycles as the ops'
// profiled times are mapped (a profile time ns stands for t =
// cycles(ns − base) − origin), and numbers the recorded events in program
// order, one per record.
//
// An op's t is not its call's start but the latest issue that has it on
// the GPU by its profiled start (timing.go), so a sync's call may map
// before the op ahead of it in program order or after the one behind it.
// A record's, a wait's and a stream sync's t is held between theirs, so
// a stream's calls stay in order (the validator's rule); a device or
// event sync, which orders no stream, keeps its call's own time, since
// holding it at a queued launch's later t would push it past its own
// return and lose the wait (on the H100 streams capture three of four
// event syncs did). The replay issues it after the call before it in any
// case. Its ret stays the profiled return (at least its t), which the
// calls after it are measured from.
func (pl *plan) scheduleSyncs() {
	hi := make([]int64, len(pl.host)) // the t of the next op in program order
	next := int64(profile.MaxCycles)
	for i := len(pl.host) - 1; i >= 0; i-- {
		hi[i] = next
		if op := pl.host[i].op; op != nil {
			next = op.t
		}
	}
	var lo int64
	events := map[*hostCall]uint64{}
	for i, h := range pl.host {
		if h.op != nil {
			lo = h.op.t
			continue
		}
		s := h.sync
		r := &s.rec
		r.Op = s.op
		r.T = max(pl.at(s.ts), 0)
		if s.op != trace.SyncDevice && s.op != trace.SyncEvent {
			r.T = min(max(r.T, lo), hi[i])
		}
		if s.op.Blocks() {
			r.Ret = max(pl.at(s.ret), r.T)
		}
		switch s.op {
		case trace.EventRecord:
			events[s.call] = uint64(len(events) + 1)
			r.Event, r.Stream = events[s.call], pl.streams[s.stream]
		case trace.StreamWait:
			r.Event, r.Stream = events[s.record], pl.streams[s.stream]
		case trace.SyncEvent:
			r.Event = events[s.record]
		case trace.SyncStream:
			r.Stream = pl.streams[s.stream]
		}
	}
}

// at is the trace time of profile time ns.
func (pl *plan) at(ns int64) int64 {
	return profile.CyclesBetween(pl.base, ns, pl.gpu.Spec.ClockMHz) - pl.origin
}

// hostSyncCost is the median cost of the blocking calls' own work, in
// cycles: for each blocking sync and blocking copy, ret − max(its call's
// start, the end of the last converted GPU op that ended by ret), the
// time the call took beyond the GPU work it can have waited for. A replay
// charges lat.host_sync after a blocking call's wait. ok is false where
// the profile has no blocking call.
func (pl *plan) hostSyncCost() (cycles int64, n int, ok bool) {
	ends := make([]int64, 0, len(pl.ops))
	for _, op := range pl.ops {
		ends = append(ends, op.ts+op.dur)
	}
	slices.Sort(ends)
	var costs []int64
	cost := func(ts, ret int64) {
		from := ts
		if i, _ := slices.BinarySearch(ends, ret+1); i > 0 {
			from = max(from, ends[i-1])
		}
		costs = append(costs, max(ret-from, 0))
	}
	for _, s := range pl.syncs {
		if s.op.Blocks() {
			cost(s.ts, s.ret)
		}
	}
	for _, op := range pl.ops {
		if op.copy && copyBlocks(op) {
			cost(op.call.ts, op.call.ts+op.call.dur)
		}
	}
	if len(costs) == 0 {
		return 0, 0, false
	}
	slices.Sort(costs)
	return pl.cycles(costs[(len(costs)-1)/2]), len(costs), true
}
