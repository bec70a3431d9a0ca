package trace

import (
	"bytes"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func encodeJSONL(t testing.TB, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("Write(%#v): %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeJSONL(t testing.TB, data []byte) []Record {
	t.Helper()
	recs, err := ReadAll(NewJSONLReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestJSONLRoundTrip(t *testing.T) {
	recs := exoticRecords()
	got := decodeJSONL(t, encodeJSONL(t, recs))
	if len(got) != len(recs) {
		t.Fatalf("got %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Errorf("record %d:\n got %#v\nwant %#v", i+1, got[i], recs[i])
		}
	}
}

// The committed fixture is in the writer's exact format, so reading and
// writing it back must reproduce it: the output format is stable.
func TestJSONLFixtureIsCanonical(t *testing.T) {
	want, err := os.ReadFile("testdata/valid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeJSONL(t, decodeJSONL(t, want)); !bytes.Equal(got, want) {
		t.Errorf("re-encoded fixture differs:\n%s", got)
	}
}

func TestBinaryJSONLBinaryIsIdentical(t *testing.T) {
	recs := append(append(exoticRecords(), fixture(t, "valid.jsonl")...), syntheticCTAs(3, 5000)...)
	bin := encodeBinary(t, recs)
	again := encodeBinary(t, decodeJSONL(t, encodeJSONL(t, decodeBinary(t, bin))))
	if !bytes.Equal(bin, again) {
		t.Errorf("binary → JSONL → binary changed the bytes (%d → %d)", len(bin), len(again))
	}
}

func TestJSONLFormat(t *testing.T) {
	tests := []struct {
		rec  Record
		want string
	}{
		{&Launch{Kernel: 3, Stream: 1}, `{"type":"launch","kernel":3,"t":0,"stream":1}`},
		{&Launch{Kernel: 4, Parent: &Parent{Kernel: 3, Warp: 1, Lane: 5, At: 120}},
			`{"type":"launch","kernel":4,"parent":{"kernel":3,"cta":0,"warp":1,"lane":5,"at":120},"workload":0,"inline_cycles":0}`},
		{&Launch{Kernel: 4, T: 9, Parent: &Parent{}, After: []uint64{1, 2}},
			`{"type":"launch","kernel":4,"t":9,"parent":{"kernel":0,"cta":0,"warp":0,"lane":0,"at":0},"workload":0,"inline_cycles":0,"after":[1,2]}`},
		{&Launch{Kernel: 5, Workload: 2}, `{"type":"launch","kernel":5,"t":0,"stream":0,"workload":2}`},
		{&Header{Version: 1, ClockMHz: 1e21, GPUSpec: &GPUSpec{}}, `{"type":"header","version":1,"clock_mhz":1e+21,"gpu_spec":{}}`},
		{&Header{Version: 1, ClockMHz: 0.000001, PageBytes: 8192}, `{"type":"header","version":1,"clock_mhz":0.000001,"page_bytes":8192}`},
		{&Header{Version: 1, ClockMHz: 706, OrderedTrees: true}, `{"type":"header","version":1,"clock_mhz":706,"ordered_trees":true}`},
		{&Buffer{ID: 1, Bytes: 10, Role: RoleTemp}, `{"type":"buffer","id":1,"base":0,"bytes":10,"role":"temp"}`},
		{&Kernel{ID: 2, Name: "a\"b\\c\x01", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
			`{"type":"kernel","id":2,"name":"a\"b\\c\u0001","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}`},
		{&CTA{Kernel: 1, CTA: 2, Cycles: 3, WarpCycles: []int64{3, -1}}, `{"type":"cta","kernel":1,"cta":2,"cycles":3,"warp_cycles":[3,-1]}`},
		{&Pages{Kernel: 1, W: []uint64{4}}, `{"type":"pages","kernel":1,"cta":0,"buffer":0,"w":[4]}`},
		{&Pages{Kernel: 1, W: []uint64{4}, At: 70}, `{"type":"pages","kernel":1,"cta":0,"buffer":0,"w":[4],"at":70}`},
		{&Access{Kernel: 1, Hi: 5, Mode: ModeRead, At: 9}, `{"type":"access","kernel":1,"cta":0,"buffer":0,"lo":0,"hi":5,"mode":"r","at":9}`},
		{&Access{Kernel: 1, Hi: 5, Mode: ModeRead}, `{"type":"access","kernel":1,"cta":0,"buffer":0,"lo":0,"hi":5,"mode":"r"}`},
		{&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 50}, `{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":0,"t":50}`},
		{&Memcpy{Dir: DirD2H, Buffer: 1, Bytes: 4, T: 50, Blocking: true, Ret: 80},
			`{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":0,"t":50,"blocking":true,"ret":80}`},
		{&Memcpy{Dir: DirH2D, Buffer: 1, Bytes: 4, Stream: 2, T: 50, Pageable: true},
			`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":2,"t":50,"pageable":true}`},
		{&Sync{Op: SyncDevice, T: 1000, Ret: 5000}, `{"type":"sync","op":"device","t":1000,"ret":5000}`},
		{&Sync{Op: SyncDevice}, `{"type":"sync","op":"device","t":0}`},
		{&Sync{Op: SyncStream, Stream: 7, T: 10, Ret: 20}, `{"type":"sync","op":"stream","stream":7,"t":10,"ret":20}`},
		{&Sync{Op: EventRecord, Stream: 7, Event: 3, T: 12}, `{"type":"sync","op":"record","stream":7,"event":3,"t":12}`},
		{&Sync{Op: StreamWait, Stream: 8, Event: 3, T: 13}, `{"type":"sync","op":"wait","stream":8,"event":3,"t":13}`},
		{&Sync{Op: SyncEvent, Event: 3, T: 14, Ret: 900}, `{"type":"sync","op":"event","event":3,"t":14,"ret":900}`},
	}
	for _, tt := range tests {
		if got := strings.TrimSuffix(string(encodeJSONL(t, []Record{tt.rec})), "\n"); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

func TestJSONLWriterRefusesUnencodable(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	for _, rec := range []Record{
		nil,
		(*Header)(nil),
		&Header{ClockMHz: math.NaN()},
		&Header{ClockMHz: 1, GPUSpec: &GPUSpec{ClockMHz: math.Inf(1)}},
		&Buffer{Name: "\xff"},
		&Header{ClockMHz: 1, Meta: map[string]string{"\xfe": "x"}},
		&Sync{T: 1},
		&Sync{Op: numSyncOps},
		(*Sync)(nil),
	} {
		var te *Error
		if err := w.Write(rec); !errors.As(err, &te) || te.Record != 1 || te.Line != 1 {
			t.Errorf("Write(%#v) = %v, want a *Error for record 1", rec, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("refused records were written: %q", buf.String())
	}
}

func TestJSONLReaderAccepts(t *testing.T) {
	tests := []struct {
		line string
		want Record
	}{
		{"  {\"kernel\" : 1 , \"type\":\"cta\", \"cycles\":-0}\r", &CTA{Kernel: 1}},
		{`{"type":"pages","r":null,"w":[]}`, &Pages{}},
		{`{"type":"launch","kernel":18446744073709551615,"parent":null,"after":null}`, &Launch{Kernel: math.MaxUint64}},
		{`{"type":"kernel","name":"caf\u00e9 \ud83d\ude00 \/\b\f\n\r\t","grid":[1,2,3],"block":[4,5,6]}`,
			&Kernel{Name: "café 😀 /\b\f\n\r\t", Grid: [3]uint32{1, 2, 3}, Block: [3]uint32{4, 5, 6}}},
		{`{"type":"header","version":1,"clock_mhz":7.06e2,"meta":{}}`, &Header{Version: 1, ClockMHz: 706}},
		{`{"type":"header","version":1,"clock_mhz":1E-2,"gpu_spec":null,"meta":{"k":"v"}}`,
			&Header{Version: 1, ClockMHz: 0.01, Meta: map[string]string{"k": "v"}}},
		{`{"type":"header","version":1,"clock_mhz":1,"ordered_trees": false}`, &Header{Version: 1, ClockMHz: 1}},
		{`{"type":"header","version":1,"clock_mhz":1,"ordered_trees":true}`, &Header{Version: 1, ClockMHz: 1, OrderedTrees: true}},
		{`{"type":"cta","kernel":1,"cycles":-9223372036854775808}`, &CTA{Kernel: 1, Cycles: math.MinInt64}},
		{`{"t":13,"event":3,"stream":8,"op":"wait","type":"sync"}`, &Sync{Op: StreamWait, Stream: 8, Event: 3, T: 13}},
		{`{"type":"sync","op":"record","event":3,"stream":7,"t":12,"ret":0}`, &Sync{Op: EventRecord, Stream: 7, Event: 3, T: 12}},
		{`{"type":"memcpy","dir":"d2h","blocking":false,"pageable":true}`, &Memcpy{Dir: DirD2H, Pageable: true}},
	}
	for _, tt := range tests {
		got := decodeJSONL(t, []byte(tt.line))
		if len(got) != 1 || !reflect.DeepEqual(got[0], tt.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tt.line, got, tt.want)
		}
	}
}

func TestJSONLReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string
	}{
		{"unknown field", `{"type":"cta","kernel":1,"cyles":5}`, `unknown field "cyles"`},
		{"field of another type", `{"type":"cta","kernel":1,"mode":"r"}`, `unknown field "mode"`},
		{"case differs", `{"type":"cta","Kernel":1}`, `unknown field "Kernel"`},
		{"unknown nested field", `{"type":"launch","parent":{"kernel":1,"thread":2}}`, `field "parent": unknown field "thread"`},
		{"unknown type", `{"type":"grid","id":1}`, `unknown record type "grid"`},
		{"missing type", `{"kernel":1,"cta":0}`, `missing "type" field`},
		{"type not a string", `{"type":3}`, `field "type": column 9: unexpected '3', want a string`},
		{"duplicate field", `{"type":"cta","kernel":1,"kernel":2}`, `duplicate field "kernel"`},
		{"duplicate meta key", `{"type":"header","meta":{"a":"1","a":"2"}}`, `duplicate key "a"`},
		{"ordered_trees not a bool", `{"type":"header","ordered_trees":1}`, `want true or false`},
		{"fraction", `{"type":"cta","cycles":1.5}`, `field "cycles": 1.5 is not an integer`},
		{"exponent", `{"type":"cta","cta":1e3}`, `field "cta": 1e3 is not an integer`},
		{"negative unsigned", `{"type":"cta","kernel":-1}`, `field "kernel": -1 is negative`},
		{"overflow", `{"type":"cta","kernel":18446744073709551616}`, `out of range`},
		{"int64 overflow", `{"type":"cta","cycles":9223372036854775808}`, `out of range`},
		{"float overflow", `{"type":"header","clock_mhz":1e999}`, `field "clock_mhz": 1e999 is out of range`},
		{"null scalar", `{"type":"cta","kernel":null}`, `field "kernel": null is not allowed`},
		{"string for number", `{"type":"cta","kernel":"1"}`, `want a number`},
		{"two dimensions", `{"type":"kernel","grid":[1,1]}`, `field "grid": want 3 dimensions, got 2`},
		{"four dimensions", `{"type":"kernel","block":[1,1,1,1]}`, `field "block": want 3 dimensions, got more`},
		{"dimension too big", `{"type":"kernel","grid":[4294967296,1,1]}`, `does not fit in 32 bits`},
		{"trailing garbage", `{"type":"cta"} x`, `unexpected 'x', want end of line`},
		{"two objects", `{"type":"cta"}{"type":"cta"}`, `want end of line`},
		{"not an object", `[1,2]`, `unexpected '[', want '{'`},
		{"unterminated", `{"type":"cta","kernel":1`, `unexpected end of line, want ',' or '}'`},
		{"leading zero", `{"type":"cta","kernel":01}`, `leading zero`},
		{"bad escape", `{"type":"kernel","name":"a\qb"}`, `invalid escape \q`},
		{"lone surrogate", `{"type":"kernel","name":"\ud800"}`, `half of a UTF-16 surrogate pair`},
		{"control character", "{\"type\":\"kernel\",\"name\":\"a\tb\"}", `control character`},
		{"invalid utf-8", "{\"type\":\"kernel\",\"name\":\"\xff\"}", `not valid UTF-8`},
		{"bare word", `{"type":"cta","kernel":one}`, `want a number`},
		{"unknown sync op", `{"type":"sync","op":"host","t":1}`, `field "op": unknown sync op "host" (want device, stream, event, record or wait)`},
		{"sync op not a string", `{"type":"sync","op":1,"t":1}`, `field "op": column`},
		{"sync without op", `{"type":"sync","t":1}`, `missing "op" field`},
		{"unknown sync field", `{"type":"sync","op":"device","t":1,"kernel":2}`, `unknown field "kernel"`},
		{"memcpy blocking not a bool", `{"type":"memcpy","blocking":1}`, `field "blocking": `},
		{"unknown memcpy field", `{"type":"memcpy","sync":true}`, `unknown field "sync"`},
		{"deep nesting", `{"x":` + strings.Repeat("[", 100) + `{"type":"cta"}`, `nested more than 32 deep`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad line is the third line and the second record.
			in := "{\"type\":\"cta\"}\n\n" + tt.line + "\n{\"type\":\"cta\"}\n"
			r := NewJSONLReader(strings.NewReader(in))
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			_, err := r.Next()
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a *trace.Error", err)
			}
			if !strings.Contains(te.Msg, tt.want) || te.Line != 3 || te.Record != 2 || te.Offset != 16 {
				t.Errorf("got %q (line %d, record %d, offset %d), want %q at line 3, record 2, offset 16",
					te, te.Line, te.Record, te.Offset, tt.want)
			}
			if !strings.Contains(te.Error(), "line 3") {
				t.Errorf("%q does not name line 3", te)
			}
			if _, again := r.Next(); again != err {
				t.Errorf("error is not sticky: then %v, now %v", err, again)
			}
		})
	}
}

func TestJSONLPos(t *testing.T) {
	in := "\n{\"type\":\"cta\"}\n   \n{\"type\":\"cta\",\"cta\":1}"
	r := NewJSONLReader(strings.NewReader(in))
	want := []struct{ record, offset, line int64 }{{1, 1, 2}, {2, 20, 4}}
	for _, w := range want {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		record, offset := r.Pos()
		if record != w.record || offset != w.offset || r.Line() != w.line {
			t.Errorf("Pos() = %d, %d, Line() = %d; want %d, %d, %d", record, offset, r.Line(), w.record, w.offset, w.line)
		}
	}
	if _, err := r.Next(); err == nil {
		t.Error("no io.EOF at the end")
	}
}

func TestJSONLLongLines(t *testing.T) {
	pages := make([]uint64, 100000)
	for i := range pages {
		pages[i] = uint64(i * 7)
	}
	recs := []Record{&Pages{Kernel: 1, R: pages}, &CTA{Kernel: 2}}
	if got := decodeJSONL(t, encodeJSONL(t, recs)); !reflect.DeepEqual(got, recs) {
		t.Error("a line longer than the read buffer did not round-trip")
	}
}
