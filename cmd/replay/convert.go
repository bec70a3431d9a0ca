package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpureplay/gpureplay/trace"
)

const convertSynopsis = `replay convert — turn a trace into the canonical binary form

Usage:
  replay convert --from=FORMAT INPUT -o OUT.trace.zst

The input is read, validated record by record and written to OUT (binary
*.trace.zst, or JSONL if OUT ends in .jsonl). OUT appears only when the
whole input converted cleanly.

Example:
  replay convert --from=jsonl testdata/app.jsonl -o app.trace.zst
`

// importers are the formats convert reads, by --from name.
var importers = map[string]func(inputs []string, out trace.Sink) error{
	"jsonl": importJSONL,
}

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("convert", convertSynopsis, stdout)
	from := fs.String("from", "", "input format: "+strings.Join(importerNames(), ", "))
	out := fs.StringP("output", "o", "", "output trace file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	imp, ok := importers[*from]
	switch {
	case *from == "":
		return usagef("convert: --from is required (%s)", strings.Join(importerNames(), ", "))
	case !ok:
		return usagef("convert: unknown --from %q; supported: %s", *from, strings.Join(importerNames(), ", "))
	case *out == "":
		return usagef("convert: -o OUT is required")
	case fs.NArg() == 0:
		return usagef("convert: no input given")
	}
	return writeTrace(*out, func(s trace.Sink) error { return imp(fs.Args(), s) })
}

func importerNames() []string {
	var ns []string
	for n := range importers {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// importJSONL copies a validated JSONL trace.
func importJSONL(inputs []string, out trace.Sink) error {
	if len(inputs) != 1 {
		return usagef("convert --from=jsonl takes one input, got %d", len(inputs))
	}
	return copyTrace(inputs[0], out)
}

// copyTrace streams every record of a validated trace into out.
func copyTrace(path string, out trace.Sink) error {
	src, err := trace.Open(path)
	if err != nil {
		return badInput(err)
	}
	defer src.Close()
	return badInputIfTrace(forEach(trace.NewValidator(src), out.Write))
}

// forEach calls fn for every record of src.
func forEach(src trace.Source, fn func(trace.Record) error) error {
	for {
		r, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// writeTrace creates path atomically: the records go to a temporary file
// beside it that is renamed only when fill and the encoder both succeed, so
// a failed run never leaves a half-written trace.
func writeTrace(path string, fill func(trace.Sink) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	var enc interface {
		trace.Sink
		Close() error
	}
	if strings.HasSuffix(path, ".jsonl") {
		enc = trace.NewJSONLWriter(bw)
	} else {
		enc = trace.NewWriter(bw)
	}
	if err := fill(enc); err != nil {
		return err
	}
	if err := errors.Join(enc.Close(), bw.Flush(), tmp.Close()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}
