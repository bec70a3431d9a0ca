package replaycli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/timeline"
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
func checkOutputs(inputs, outputs []named) error {
	for i, o := range outputs {
		if st, err := os.Stat(o.path); err == nil && st.IsDir() {
			return badInput(fmt.Errorf("%s %s is a directory; name a file", o.role, o.path))
		}
		for _, in := range inputs {
			if samePath(o.path, in.path) {
				return badInput(fmt.Errorf("%s %s is also %s: writing it would destroy it", o.role, o.path, in.role))
			}
		}
		for _, p := range outputs[:i] {
			if samePath(o.path, p.path) {
				return badInput(fmt.Errorf("%s %s is also %s: name two different files", o.role, o.path, p.role))
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file: the same path once
// made absolute with its symbolic links resolved, or, when both exist,
// the same file (hard links).
func samePath(a, b string) bool {
	if resolve(a) == resolve(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// resolve makes path absolute and resolves its symbolic links, those of
// its directory alone when it does not exist yet.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

// tableFiles are the files --out DIR in format f writes.
func tableFiles(dir string, f results.Format) []named {
	var fs []named
	for _, t := range results.Tables() {
		fs = append(fs, named{"the " + t + " table in " + dir, filepath.Join(dir, t+"."+string(f))})
	}
	return fs
}

// checkTimelinePath refuses to replace a file that is not a timeline: a
// command line that forgot the timeline's name (--timeline a.trace.zst
// b.trace.zst) would otherwise turn the trace a.trace.zst into JSON. An
// empty file, a device or a pipe may be written.
func checkTimelinePath(path string) error {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // its creation says why it cannot be written
	}
	defer f.Close()
	head := make([]byte, len(timeline.Prefix))
	n, _ := io.ReadFull(f, head)
	if bytes.Equal(head[:n], []byte(timeline.Prefix)) {
		return nil
	}
	return badInput(fmt.Errorf("--timeline %s: the file exists and is not a timeline, and replay replaces only its own timelines (was the timeline's file name forgotten?); name a new file, or remove it first", path))
}
