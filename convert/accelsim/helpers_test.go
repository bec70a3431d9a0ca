package accelsim

import (
	"bytes"
	"io"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

// records is a trace.Sink that keeps what it is given, and a trace.Source
// that gives it back.
type records struct {
	recs []trace.Record
	next int
}

func (r *records) Write(rec trace.Record) error {
	r.recs = append(r.recs, rec)
	return nil
}

func (r *records) Next() (trace.Record, error) {
	if r.next == len(r.recs) {
		return nil, io.EOF
	}
	r.next++
	return r.recs[r.next-1], nil
}

// convert converts the trace at path with opts and checks the result with
// trace.NewValidator.
func convert(t testing.TB, path string, opts Options) []trace.Record {
	t.Helper()
	out := &records{}
	if err := Convert(path, out, opts); err != nil {
		t.Fatalf("Convert(%s): %v", path, err)
	}
	v := trace.NewValidator(&records{recs: out.recs})
	for {
		_, err := v.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Convert(%s) wrote an invalid trace: %v", path, err)
		}
	}
	return out.recs
}

// jsonl renders records as JSONL.
func jsonl(t testing.TB, recs []trace.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := trace.NewJSONLWriter(&buf)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
