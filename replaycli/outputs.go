package replaycli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpureplay/gpureplay/internal/tempfile"
	"github.com/gpureplay/gpureplay/report"
	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/timeline"
	"github.com/gpureplay/gpureplay/trace"
)

// named is a path the command reads or writes, with the flag (or role)
// that named it, for messages.
type named struct{ role, path string }

// checkOutputs refuses, before any work, an output that would destroy
// something: one that is an input (compared by resolved path and by
// os.SameFile, so a symbolic or hard link to an input is caught too), two
// outputs that are one file, and an output that is a directory. Whether
// an output's directory can be written is left to the file's creation,
// which each command does before its work too.
//
// Each input is also remembered by tempfile (AddInput), whose Commit is
// where the rule is kept for every file a command reads, including those
// it finds only as it goes (an importer's config): this check only makes
// the refusal come before the work, with the flags' names.
func checkOutputs(inputs, outputs []named) error {
	for _, in := range inputs {
		tempfile.AddInput(in.path)
	}
	for i, o := range outputs {
		if st, err := os.Stat(o.path); err == nil && st.IsDir() {
			return badInput(fmt.Errorf("%s %s is a directory; name a file", o.role, o.path))
		}
		for _, in := range inputs {
			if tempfile.SamePath(o.path, in.path) {
				return badInput(fmt.Errorf("%s %s is also %s: writing it would destroy it", o.role, o.path, in.role))
			}
		}
		for _, p := range outputs[:i] {
			if tempfile.SamePath(o.path, p.path) {
				return badInput(fmt.Errorf("%s %s is also %s: name two different files", o.role, o.path, p.role))
			}
		}
	}
	return nil
}

// tableFiles are the files --out DIR in format f writes.
func tableFiles(dir string, f results.Format) []named {
	var fs []named
	for _, t := range results.Tables() {
		fs = append(fs, named{"the " + t + " table in " + dir, filepath.Join(dir, t+"."+string(f))})
	}
	return fs
}

// checkReplaceable refuses to replace an existing file that is not one
// of the command's own kind (own reports whether the open file is): a
// command line that forgot an output's name (--timeline a.trace.zst
// b.trace.zst, -o results/summary.parquet) would otherwise turn a trace
// or a table into something else. An empty file, a device or a pipe may
// be written.
func checkReplaceable(flag, path, kind string, own func(f *os.File) bool) error {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // its creation says why it cannot be written
	}
	defer f.Close()
	if own(f) {
		return nil
	}
	return badInput(fmt.Errorf("%s %s: the file exists and is not %s, and replay replaces only its own (was the output's file name forgotten?); name a new file, or remove it first", flag, path, kind))
}

// startsWith reports whether f begins with prefix.
func startsWith(prefix string) func(f *os.File) bool {
	return func(f *os.File) bool {
		head := make([]byte, len(prefix))
		n, _ := io.ReadFull(f, head)
		return bytes.Equal(head[:n], []byte(prefix))
	}
}

// checkTimelinePath refuses to replace a file that is not a timeline.
func checkTimelinePath(path string) error {
	return checkReplaceable("--timeline", path, "a timeline", startsWith(timeline.Prefix))
}

// checkTracePath refuses to replace a file that is not a trace (-o of
// convert and gen): one whose first record is not a header, in either
// encoding. A zstd-compressed log is not a trace.
func checkTracePath(path string) error {
	return checkReplaceable("-o", path, "a trace", func(f *os.File) bool {
		in := bufio.NewReader(f)
		var src trace.Source = trace.NewJSONLReader(in)
		if magic, _ := in.Peek(4); string(magic) == "\x28\xb5\x2f\xfd" {
			r, err := trace.NewReader(in)
			if err != nil {
				return false
			}
			src = r
		}
		rec, err := src.Next()
		return err == nil && rec.Kind() == trace.KindHeader
	})
}

// checkReportPath refuses to replace a file that is not a report (-o of
// report).
func checkReportPath(path string) error {
	return checkReplaceable("-o", path, "a report", startsWith(report.Prefix))
}
