package trace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCreateOpenBothEncodings(t *testing.T) {
	recs := fixture(t, "valid.jsonl")
	dir := t.TempDir()
	for _, name := range []string{"t.trace.zst", "t.jsonl", "t.bin"} {
		path := filepath.Join(dir, name)
		w, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}

		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if isBinary := string(data[:4]) == zstdMagic; isBinary != (filepath.Ext(name) != ".jsonl") {
			t.Errorf("%s: written in the wrong encoding", name)
		}

		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(NewValidator(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, recs) {
			t.Errorf("%s: records differ after a round trip", name)
		}
		if _, ok := src.(interface{ Pos() (int64, int64) }); !ok {
			t.Errorf("%s: the opened source has no Pos", name)
		}
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A trace being written is under a temporary name beside its path, and
// appears there only when Close has finished it: Abort, as a failed writer
// calls it, leaves the path as it was, an older trace there included, and
// no temporary file.
func TestCreateAppearsOnlyWhole(t *testing.T) {
	recs := fixture(t, "valid.jsonl")
	for _, name := range []string{"t.trace.zst", "t.jsonl"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		write := func(n int) *File {
			w, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs[:n] {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			return w
		}
		w := write(len(recs))
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: under its name before Close (%v)", name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		whole, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w.Abort() // after Close: nothing
		w = write(len(recs) / 2)
		w.Abort()
		if got, err := os.ReadFile(path); err != nil || string(got) != string(whole) {
			t.Errorf("%s: an aborted trace changed the one there (%v)", name, err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("%s: Close after Abort: %v", name, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: the directory holds %d entries, want the trace alone", name, len(entries))
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}

	// A file that starts like zstd but is not a trace fails at Open.
	bad := filepath.Join(dir, "bad.trace.zst")
	if err := os.WriteFile(bad, compress([]byte("not a trace at all")), 0o644); err != nil {
		t.Fatal(err)
	}
	var te *Error
	if _, err := Open(bad); !errors.As(err, &te) {
		t.Errorf("Open of a non-trace zstd file: %v, want a *trace.Error", err)
	}

	// An empty file is an empty JSONL trace, which validation rejects.
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := ReadAll(NewValidator(src)); !errors.As(err, &te) {
		t.Errorf("empty file: %v, want a *trace.Error", err)
	}
}
