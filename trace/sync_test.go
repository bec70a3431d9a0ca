package trace

import (
	"errors"
	"strings"
	"testing"
)

// Lines of sync records for the validator's cases below: base (lines 1-4)
// launches kernel 1 on stream 0 at t 0.
const (
	rec3  = `{"type":"sync","op":"record","stream":0,"event":3,"t":5}`
	wait3 = `{"type":"sync","op":"wait","stream":1,"event":3,"t":6}`
	sync1 = `{"type":"sync","op":"stream","stream":1,"t":7,"ret":9}`
	ev3   = `{"type":"sync","op":"event","event":3,"t":10,"ret":20}`
	dev   = `{"type":"sync","op":"device","t":30,"ret":40}`
)

func TestValidatorAcceptsSyncs(t *testing.T) {
	tests := map[string][]string{
		// A sync opens no launch tree: it may sit among a tree's records.
		"among a tree's records": with(rec3, c10, wait3, sync1, c11, ev3, dev),
		"before the first launch": {hdr, `{"type":"sync","op":"device","t":0}`,
			`{"type":"sync","op":"record","stream":2,"event":1,"t":1}`, `{"type":"sync","op":"stream","stream":2,"t":2}`,
			`{"type":"sync","op":"wait","stream":4,"event":1,"t":2}`, `{"type":"sync","op":"stream","stream":4,"t":3}`, buf1, k1, l1, c10, c11},
		"between trees": with(c10, c11, rec3, `{"type":"sync","op":"event","event":3,"t":5,"ret":5}`, k2,
			`{"type":"launch","kernel":2,"t":8,"stream":0}`, c20, c21, `{"type":"sync","op":"device","t":9}`),
		"a memcpy's stream exists": with(c10, c11, `{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":6,"t":1}`,
			`{"type":"sync","op":"stream","stream":6,"t":2,"ret":3}`),
		"an event recorded again": with(rec3, `{"type":"sync","op":"record","stream":1,"event":3,"t":5}`, ev3, c10, c11),
		"copy calls": with(c10, c11, `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":0,"t":50,"blocking":true,"ret":80}`,
			`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":0,"t":80,"pageable":true}`,
			`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":0,"t":90,"blocking":true,"pageable":true,"ret":1099511627776}`),
		// Device and event syncs name no stream: only their t's range is
		// held, not a stream's order.
		"device sync before a stream's last call": with(`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":0,"t":50}`,
			`{"type":"sync","op":"device","t":3}`, c10, c11),
	}
	for name, lines := range tests {
		if recs, err := validate(lines); err != nil || len(recs) != len(lines) {
			t.Errorf("%s: %d records, %v; want %d records, no error", name, len(recs), err, len(lines))
		}
	}
}

// Each refusal, exactly, at its line.
func TestValidatorRejectsSyncs(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		line  int64
		want  string
	}{
		{"device sync names a stream", with(`{"type":"sync","op":"device","stream":1,"t":1}`), 5,
			"device sync names stream 1 and event 0; a device sync waits for every stream and names neither (both 0)"},
		{"device sync names an event", with(rec3, `{"type":"sync","op":"device","event":3,"t":6}`), 6,
			"device sync names stream 0 and event 3; a device sync waits for every stream and names neither (both 0)"},
		{"stream sync names an event", with(`{"type":"sync","op":"stream","stream":0,"event":2,"t":1}`), 5,
			"stream sync of stream 0 names event 2; a stream sync names none (0)"},
		{"event sync names a stream", with(rec3, `{"type":"sync","op":"event","stream":1,"event":3,"t":6}`), 6,
			"event sync of event 3 names stream 1; an event sync names none (0): it waits for the stream its event was recorded on"},
		{"a stream that does not exist", with(`{"type":"sync","op":"stream","stream":5,"t":1}`), 5,
			"stream sync of stream 5 at t 1: a sync on a stream that does not exist (no host launch, memcpy, event record or stream wait came on it before)"},
		{"a stream known only by a wait's event", with(rec3, `{"type":"sync","op":"stream","stream":3,"t":6}`), 6,
			"stream sync of stream 3 at t 6: a sync on a stream that does not exist (no host launch, memcpy, event record or stream wait came on it before)"},
		{"a wait on an event never recorded", with(`{"type":"sync","op":"wait","stream":0,"event":3,"t":1}`), 5,
			"stream wait for event 3 at t 1: a wait on an event never recorded (no event record of it came before)"},
		{"an event sync on an event never recorded", with(rec3, `{"type":"sync","op":"event","event":4,"t":6}`), 6,
			"event sync of event 4 at t 6: a wait on an event never recorded (no event record of it came before)"},
		{"sync before time", with(`{"type":"sync","op":"device","t":-1}`), 5,
			"device sync at t -1; want 0 to 1099511627776 (2^40) cycles"},
		{"sync after 2^40", with(`{"type":"sync","op":"record","stream":0,"event":1,"t":1099511627777}`), 5,
			"event record of event 1 at t 1099511627777; want 0 to 1099511627776 (2^40) cycles"},
		{"returns before its call", with(`{"type":"sync","op":"device","t":10,"ret":5}`), 5,
			"device sync at t 10 returns at 5; want ret 0 (returned at t) or from t to 1099511627776 (2^40) cycles"},
		{"returns after 2^40", with(`{"type":"sync","op":"device","t":10,"ret":1099511627777}`), 5,
			"device sync at t 10 returns at 1099511627777; want ret 0 (returned at t) or from t to 1099511627776 (2^40) cycles"},
		{"a record returns", with(`{"type":"sync","op":"record","stream":0,"event":1,"t":1,"ret":2}`), 5,
			"event record of event 1 at t 1 returns at 2; an event record or stream wait does not block the host, want ret 0"},
		{"a wait returns", with(rec3, `{"type":"sync","op":"wait","stream":0,"event":3,"t":6,"ret":6}`), 6,
			"stream wait for event 3 at t 6 returns at 6; an event record or stream wait does not block the host, want ret 0"},
		{"a copy returns before its call", with(`{"type":"memcpy","dir":"d2h","buffer":1,"t":50,"blocking":true,"ret":40}`), 5,
			"memcpy at t 50 returns at 40; want ret 0 (returned at t) or from t to 1099511627776 (2^40) cycles"},
		{"a record before its stream's last call", with(`{"type":"memcpy","dir":"h2d","buffer":1,"t":10}`, rec3), 6,
			"event record of event 3 at t 5 on stream 0, before the stream's previous call at t 10; a stream's calls are in program order"},
		{"a launch before its stream's wait", with(c10, c11, rec3, `{"type":"sync","op":"wait","stream":1,"event":3,"t":20}`, k2,
			`{"type":"launch","kernel":2,"t":10,"stream":1}`), 10,
			"host launch of kernel 2 at t 10 on stream 1, before the stream's previous call at t 20; a stream's calls are in program order"},
		{"a stream sync before its stream's last call", with(`{"type":"memcpy","dir":"h2d","buffer":1,"t":10}`, `{"type":"sync","op":"stream","stream":0,"t":9}`), 6,
			"stream sync of stream 0 at t 9 on stream 0, before the stream's previous call at t 10; a stream's calls are in program order"},
		{"a wait on stream 2^63", with(rec3, `{"type":"sync","op":"wait","stream":9223372036854775808,"event":3,"t":6}`), 6,
			"stream wait for event 3 on stream 9223372036854775808; want a stream id from 0 to 2^63-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := validate(tt.lines)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("got %v after %d records, want a *trace.Error", err, len(recs))
			}
			if te.Msg != tt.want || te.Line != tt.line || te.Record != tt.line {
				t.Errorf("got %q (line %d, record %d)\nwant %q at line %d", te.Msg, te.Line, te.Record, tt.want, tt.line)
			}
			if want := kindOf(decodeJSONL(t, []byte(tt.lines[tt.line-1]))[0]); te.Kind != want {
				t.Errorf("%q names a %s record, not a %s", te, te.Kind, want)
			}
			if len(recs) != int(tt.line)-1 {
				t.Errorf("passed %d records before the error, want %d", len(recs), tt.line-1)
			}
		})
	}
}

// An op JSONL cannot name (a Go source's) is refused by name.
func TestValidatorRejectsUnknownSyncOp(t *testing.T) {
	for _, op := range []SyncOp{0, numSyncOps, 255} {
		src := &sliceSource{recs: []Record{&Header{Version: Version, ClockMHz: 1}, &Sync{Op: op, T: 1}}}
		_, err := ReadAll(NewValidator(src))
		var te *Error
		if !errors.As(err, &te) || te.Record != 2 || te.Kind != KindSync || !strings.HasPrefix(te.Msg, "sync op ") ||
			!strings.HasSuffix(te.Msg, "; want device, stream, event, record or wait") {
			t.Errorf("op %d: got %v", op, err)
		}
	}
}

// The validator keeps at most MaxEvents recorded events; recording one
// already recorded again costs nothing.
func TestValidatorEventCap(t *testing.T) {
	if testing.Short() {
		t.Skip("a million records")
	}
	recs := []Record{&Header{Version: Version, ClockMHz: 1}}
	for e := uint64(0); e < MaxEvents; e++ {
		recs = append(recs, &Sync{Op: EventRecord, Event: e, T: 1})
	}
	recs = append(recs, &Sync{Op: EventRecord, Event: 0, T: 2}, &Sync{Op: EventRecord, Event: MaxEvents, T: 3})
	got, err := ReadAll(NewValidator(&sliceSource{recs: recs}))
	want := "event record of event 1048576: the trace records more than 1048576 (2^20) distinct events; number events by the program's handles, which it reuses"
	var te *Error
	if !errors.As(err, &te) || te.Msg != want || te.Record != int64(len(recs)) || len(got) != len(recs)-1 {
		t.Errorf("after %d records: %v; want %q at record %d", len(got), err, want, len(recs))
	}
}
