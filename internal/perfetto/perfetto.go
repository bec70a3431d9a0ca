// Package perfetto imports a Chrome trace-event JSON file the way
// Perfetto's trace processor does, so that tests can ask what the
// Perfetto UI will draw rather than what the file says. It models the
// parts that decide whether a slice is kept and which slices a flow joins
// (src/trace_processor/importers/json/json_trace_tokenizer.cc,
// json_trace_parser_impl.cc, sorter/trace_sorter.h,
// importers/common/slice_tracker.cc and flow_tracker.cc in
// google/perfetto):
//
//   - Timestamps and durations are microseconds, rounded to whole
//     nanoseconds (llround(ts*1000)).
//   - Events are sorted by timestamp before they are parsed; at one
//     timestamp 'E' events come first, then complete ('X') events, the
//     longest first, then everything else (flow events, 'B', instants,
//     counters) in file order.
//   - Each thread (pid, tid) is a track with a stack of open slices. A
//     slice starting at t pops the slices that ended before t, or at t
//     unless both are instants; one that starts inside the top slice and
//     ends after it is dropped (slice_drop_overlapping_complete_event).
//   - Version 1 flow events ('s', 't', 'f') are keyed by (cat, name, id),
//     the id alone across the whole file: no pid. 's' binds to the topmost
//     slice of its track's stack at that point (flow_no_enclosing_slice
//     when it is empty); a second 's' with a key already begun is dropped
//     (flow_duplicate_id), as a flow is never closed by its 'f'. 'f' with
//     "bp":"e" binds to the topmost slice of its track, without it to the
//     next slice to begin on the track; an 'f' whose key has no 's' yet is
//     dropped (flow_end_without_start).
//   - Version 2 flows: a 'B' or 'X' event with "bind_id" and "flow_out"
//     begins a flow at that slice, with "flow_in" ends one there.
//
// A flow joins its two slices from the earlier-starting one to the later.
// The UI draws exactly the flow table's rows.
package perfetto

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Slice is one slice the importer kept.
type Slice struct {
	ID       int
	Pid, Tid int
	Ts, Dur  int64 // nanoseconds
	Name     string
	Depth    int
	Args     map[string]any
}

// Flow is one arrow the UI draws, from slice Out to slice In.
type Flow struct {
	Out, In int // slice ids
}

// Trace is what the importer made of a file.
type Trace struct {
	Slices []Slice
	Flows  []Flow
	// Stats counts what was dropped, by Perfetto's stat names
	// (flow_duplicate_id, flow_end_without_start, flow_no_enclosing_slice,
	// slice_drop_overlapping_complete_event, ...).
	Stats map[string]int
	// Process and thread names from the metadata events.
	Processes map[int]string
	Threads   map[[2]int]string
}

type event struct {
	Ph      string          `json:"ph"`
	Name    string          `json:"name"`
	Cat     string          `json:"cat"`
	Pid     int             `json:"pid"`
	Tid     int             `json:"tid"`
	Ts      json.Number     `json:"ts"`
	Dur     json.Number     `json:"dur"`
	ID      json.RawMessage `json:"id"`
	BindID  json.RawMessage `json:"bind_id"`
	FlowIn  bool            `json:"flow_in"`
	FlowOut bool            `json:"flow_out"`
	Bp      string          `json:"bp"`
	Args    map[string]any  `json:"args"`

	ts, dur int64
	key     int64 // the sorter's tie-break
	seq     int   // file order
}

type v1Key struct {
	cat, name string
	id        uint64
}

type track struct {
	stack   []int // slice ids, innermost last
	pending []int // flow ids waiting for the next slice (an 'f' without bp)
}

type importer struct {
	t      Trace
	tracks map[[2]int]*track
	v1     map[v1Key]int
	next   int         // next v1 flow id (v2 ids are kept apart by sign)
	begun  map[int]int // flow id -> slice it last bound to
}

// Import reads a trace-event JSON object ({"traceEvents": [...]}) or array.
func Import(r io.Reader) (*Trace, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var events []*event
	var doc struct {
		TraceEvents []*event `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err == nil && doc.TraceEvents != nil {
		events = doc.TraceEvents
	} else if err := json.Unmarshal(data, &events); err != nil {
		return nil, fmt.Errorf("not a trace-event file: %w", err)
	}
	im := &importer{
		t:      Trace{Stats: map[string]int{}, Processes: map[int]string{}, Threads: map[[2]int]string{}},
		tracks: map[[2]int]*track{},
		v1:     map[v1Key]int{},
		begun:  map[int]int{},
	}
	var timed []*event
	for i, e := range events {
		e.seq = i
		if e.Ph == "M" {
			im.meta(e)
			continue
		}
		ts, ok := toNs(e.Ts)
		if !ok {
			im.t.Stats["json_parser_failure"]++
			continue
		}
		e.ts = ts
		e.key = math.MaxInt64
		switch e.Ph {
		case "E":
			e.key = math.MinInt64
		case "X":
			d, ok := toNs(e.Dur)
			if !ok {
				continue
			}
			e.dur = d
			e.key = math.MaxInt64 - d
		}
		timed = append(timed, e)
	}
	sort.SliceStable(timed, func(i, j int) bool {
		a, b := timed[i], timed[j]
		if a.ts != b.ts {
			return a.ts < b.ts
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return a.seq < b.seq
	})
	for _, e := range timed {
		im.parse(e)
	}
	return &im.t, nil
}

// toNs is the tokenizer's microseconds to nanoseconds.
func toNs(n json.Number) (int64, bool) {
	if n == "" {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i * 1000, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}

func (im *importer) meta(e *event) {
	name, _ := e.Args["name"].(string)
	switch e.Name {
	case "process_name":
		im.t.Processes[e.Pid] = name
	case "thread_name":
		im.t.Threads[[2]int{e.Pid, e.Tid}] = name
	}
}

func (im *importer) track(e *event) *track {
	k := [2]int{e.Pid, e.Tid}
	t := im.tracks[k]
	if t == nil {
		t = &track{}
		im.tracks[k] = t
	}
	return t
}

func (im *importer) parse(e *event) {
	switch e.Ph {
	case "X":
		if id, ok := im.begin(e, e.dur); ok {
			im.v2(e, id)
		}
	case "B":
		if id, ok := im.begin(e, -1); ok {
			im.v2(e, id)
		}
	case "E":
		t := im.track(e)
		for i := len(t.stack) - 1; i >= 0; i-- {
			s := &im.t.Slices[t.stack[i]]
			if s.Dur == -1 {
				s.Dur = e.ts - s.Ts
				if i == len(t.stack)-1 {
					t.stack = t.stack[:i]
				}
				break
			}
		}
	case "s", "t", "f":
		id, ok := flowID(e.ID)
		if !ok {
			im.t.Stats["flow_invalid_id"]++
			return
		}
		k := v1Key{e.Cat, e.Name, id}
		fid, seen := im.v1[k]
		if !seen {
			im.next++
			fid = im.next
			im.v1[k] = fid
		}
		t := im.track(e)
		switch e.Ph {
		case "s":
			if top, ok := t.top(); ok {
				im.flowBegin(top, fid)
			} else {
				im.t.Stats["flow_no_enclosing_slice"]++
			}
		case "t":
			if top, ok := t.top(); ok {
				im.flowStep(top, fid)
			} else {
				im.t.Stats["flow_no_enclosing_slice"]++
			}
		case "f":
			if e.Bp != "e" {
				t.pending = append(t.pending, fid)
				return
			}
			if top, ok := t.top(); ok {
				im.flowEnd(top, fid)
			} else {
				im.t.Stats["flow_no_enclosing_slice"]++
			}
		}
	}
}

func (t *track) top() (int, bool) {
	if len(t.stack) == 0 {
		return 0, false
	}
	return t.stack[len(t.stack)-1], true
}

// begin starts a slice of duration dur (-1: until its 'E') on e's track,
// as SliceTracker::StartSlice does, and binds the flows waiting there.
func (im *importer) begin(e *event, dur int64) (int, bool) {
	t := im.track(e)
	for len(t.stack) > 0 {
		s := im.t.Slices[t.stack[len(t.stack)-1]]
		if s.Dur == -1 {
			break // an open 'B' slice: nest
		}
		end := s.Ts + s.Dur
		if end < e.ts || (end == e.ts && !(s.Dur == 0 && dur == 0)) {
			t.stack = t.stack[:len(t.stack)-1]
			continue
		}
		if dur >= 0 && e.ts < end && e.ts+dur > end {
			im.t.Stats["slice_drop_overlapping_complete_event"]++
			return 0, false
		}
		break
	}
	id := len(im.t.Slices)
	im.t.Slices = append(im.t.Slices, Slice{ID: id, Pid: e.Pid, Tid: e.Tid, Ts: e.ts, Dur: dur,
		Name: e.Name, Depth: len(t.stack), Args: e.Args})
	t.stack = append(t.stack, id)
	for _, fid := range t.pending {
		if out, ok := im.begun[fid]; ok {
			im.t.Flows = append(im.t.Flows, Flow{Out: out, In: id})
		}
	}
	t.pending = nil
	return id, true
}

// v2 binds a slice's own flow ids (bind_id with flow_in / flow_out).
func (im *importer) v2(e *event, slice int) {
	id, ok := flowID(e.BindID)
	if !ok {
		return
	}
	fid := -int(id) - 1 // apart from the v1 ids
	switch {
	case e.FlowIn && e.FlowOut:
		im.flowStep(slice, fid)
	case e.FlowOut:
		im.flowBegin(slice, fid)
	case e.FlowIn:
		im.flowEnd(slice, fid)
	default:
		im.t.Stats["flow_without_direction"]++
	}
}

func (im *importer) flowBegin(slice, fid int) {
	if _, dup := im.begun[fid]; dup {
		im.t.Stats["flow_duplicate_id"]++
		return
	}
	im.begun[fid] = slice
}

func (im *importer) flowStep(slice, fid int) {
	prev, ok := im.begun[fid]
	if !ok {
		im.t.Stats["flow_step_without_start"]++
		return
	}
	im.join(prev, slice)
	im.begun[fid] = slice
}

// flowEnd joins the flow's slice to this one; the flow stays begun
// (FlowTracker::End with close_flow false, as the JSON parser calls it).
func (im *importer) flowEnd(slice, fid int) {
	prev, ok := im.begun[fid]
	if !ok {
		im.t.Stats["flow_end_without_start"]++
		return
	}
	im.join(prev, slice)
}

func (im *importer) join(a, b int) {
	if im.t.Slices[a].Ts > im.t.Slices[b].Ts {
		a, b = b, a
	}
	im.t.Flows = append(im.t.Flows, Flow{Out: a, In: b})
}

// flowID reads an id as the parser does: a number, or a string of hex
// digits.
func flowID(raw json.RawMessage) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return u, true
		}
		if f, err := n.Float64(); err == nil {
			return uint64(f), true
		}
		return 0, false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X") // strtoull's base 16
		u, err := strconv.ParseUint(s, 16, 64)
		return u, err == nil
	}
	return 0, false
}
