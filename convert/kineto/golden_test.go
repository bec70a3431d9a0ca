package kineto

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// sliceSink keeps the records written to it.
type sliceSink struct{ recs []trace.Record }

func (s *sliceSink) Write(r trace.Record) error { s.recs = append(s.recs, r); return nil }

// hostLines renders the records other than the header and cta records as
// JSON lines, {"type":KIND,...} with the record's fields.
func hostLines(t *testing.T, recs []trace.Record) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		switch r.(type) {
		case *trace.Header, *trace.CTA:
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, `{"type":"`+r.Kind().String()+`",`+strings.TrimPrefix(string(b), "{"))
	}
	return out
}

func TestDump(t *testing.T) {
	var s sliceSink
	sum, err := Convert(*dumpFile, &s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	t.Log(s.recs[0].(*trace.Header).Meta)
	for _, l := range hostLines(t, s.recs) {
		t.Log(l)
	}
}

var dumpFile = flag.String("dump", "testdata/event_sync_trace.json", "")
