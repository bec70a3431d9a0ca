package perfetto

import (
	"strings"
	"testing"
)

// The rules the timeline depends on, each on a small file: an end written
// before its start at one time is dropped, a second start of a live id
// is dropped whatever its pid, a flow binds to the slice enclosing it, a
// complete slice overlapping the one before it on a track is dropped.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		events string
		flows  int
		stat   string
	}{
		{"start then end", `
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},
{"ph":"X","pid":1,"tid":2,"ts":5,"dur":10,"name":"b"},
{"ph":"s","id":1,"pid":1,"tid":1,"ts":5,"name":"l","cat":"l"},
{"ph":"f","id":1,"pid":1,"tid":2,"ts":5,"name":"l","cat":"l","bp":"e"}`, 1, ""},
		{"end written first", `
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},
{"ph":"X","pid":1,"tid":2,"ts":5,"dur":10,"name":"b"},
{"ph":"f","id":1,"pid":1,"tid":2,"ts":5,"name":"l","cat":"l","bp":"e"},
{"ph":"s","id":1,"pid":1,"tid":1,"ts":5,"name":"l","cat":"l"}`, 0, "flow_end_without_start"},
		{"an id in two processes", `
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},
{"ph":"X","pid":2,"tid":1,"ts":0,"dur":10,"name":"a"},
{"ph":"s","id":1,"pid":1,"tid":1,"ts":1,"name":"l","cat":"l"},
{"ph":"s","id":1,"pid":2,"tid":1,"ts":2,"name":"l","cat":"l"},
{"ph":"f","id":1,"pid":2,"tid":1,"ts":3,"name":"l","cat":"l","bp":"e"}`, 1, "flow_duplicate_id"},
		{"no enclosing slice", `
{"ph":"s","id":1,"pid":1,"tid":1,"ts":1,"name":"l","cat":"l"}`, 0, "flow_no_enclosing_slice"},
		{"overlap", `
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":9.999,"dur":10,"name":"b"}`, 0, "slice_drop_overlapping_complete_event"},
		{"v2", `
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a","bind_id":"0xa","flow_out":true},
{"ph":"X","pid":1,"tid":2,"ts":5,"dur":10,"name":"b","bind_id":"0xa","flow_in":true}`, 1, ""},
	} {
		tr, err := Import(strings.NewReader(`{"traceEvents":[` + c.events + `]}`))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(tr.Flows) != c.flows || (c.stat != "" && tr.Stats[c.stat] != 1) || (c.stat == "" && len(tr.Stats) > 0) {
			t.Errorf("%s: %d flows, stats %v; want %d and %q", c.name, len(tr.Flows), tr.Stats, c.flows, c.stat)
		}
	}
}
