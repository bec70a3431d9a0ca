package ingest_test

import (
	"io"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/replay"
	"github.com/gpureplay/gpureplay/trace"
)

var _ replay.ReadAhead = ingest.Ahead{}

// Records' source closes, as the engine closes what it reads ahead before
// the trace itself; Go runs its loop.
func TestAhead(t *testing.T) {
	src := trace.NewJSONLReader(strings.NewReader(`{"type":"header","version":1}`))
	r := ingest.Ahead{}.Records(src)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	c, ok := r.(io.Closer)
	if !ok {
		t.Fatalf("Records gives a %T, not an io.Closer", r)
	}
	c.Close()
	done := make(chan bool)
	ingest.Ahead{}.Go(func() { done <- true })
	<-done
}
