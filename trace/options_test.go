package trace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// SetReadOptions reaches the Reader of a binary file Open returns, and
// leaves a JSONL file's reader as it is: it reads every record, which the
// options' consumers accept. A Reader's options replace those it had.
func TestSetReadOptions(t *testing.T) {
	all := readValidFixture(t)
	var noKernels []Record
	for _, rec := range all {
		if rec.Kind() != KindKernel {
			noKernels = append(noKernels, rec)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		data  []byte
		takes bool
	}{
		{"t.trace.zst", encodeBinary(t, all), true},
		{"t.jsonl", encodeJSONL(t, all), false},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := SetReadOptions(f, ReadOptions{Skip: []Kind{KindCTA}}); got != c.takes {
			t.Errorf("%s: SetReadOptions says %v, want %v", c.name, got, c.takes)
		}
		// The second set replaces the first: cta records are back.
		SetReadOptions(f, ReadOptions{Skip: []Kind{KindKernel}})
		got, err := ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := all
		if c.takes {
			want = noKernels
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %d records, want %d", c.name, len(got), len(want))
		}
	}
}
