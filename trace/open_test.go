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
