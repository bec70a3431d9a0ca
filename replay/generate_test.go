package replay

import (
	"bytes"
	"testing"

	"github.com/gpureplay/gpureplay/samples"
	"github.com/gpureplay/gpureplay/trace"
)

// GenerateBytes is the binary trace generator name writes with params,
// for the package's tests inside and outside it (export: the external
// tests reach it as replay.GenerateBytes).
func GenerateBytes(t *testing.T, name string, params ...string) []byte {
	t.Helper()
	g, _ := samples.Lookup(name)
	p, err := g.ParseParams(params)
	if err != nil {
		t.Fatal(err)
	}
	return Encode(t, func(w *trace.Writer) error { return g.Run(p, w) })
}

// Encode is the binary trace write writes.
func Encode(t *testing.T, write func(*trace.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
