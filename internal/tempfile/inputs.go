package tempfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// The inputs of this process: every file a command reads, remembered so
// that no output replaces one. The rule lives here, beside the only way
// an output reaches its final name (Commit), so it holds for every
// command and every file a command discovers as it goes (the config
// beside a GPGPU-Sim log, the kernel files an Accel-Sim kernelslist.g
// names), not only the ones its command line names. A file read again
// (a study's replays open each trace twice, and a GPU file once each) is
// kept once, by resolved path: a study of many replays stays as cheap to
// check as the files it reads. Guarded by mu.
var (
	inputs []input
	known  = map[string]bool{} // the resolved paths in inputs
)

// input is a file read: its path as given, and made absolute with its
// symbolic links resolved. A hard link to it is caught by comparing the
// files the two paths name when the output is checked (not when the input
// was read: a file removed since may have left its inode to the output).
type input struct {
	path, resolved string
}

// InputError is an output that would replace a file the command reads.
type InputError struct {
	Output, Input string
}

func (e *InputError) Error() string {
	if e.Output == e.Input {
		return fmt.Sprintf("%s is also an input of this command: writing it would destroy it; name another file", e.Output)
	}
	return fmt.Sprintf("%s is also an input of this command (%s): writing it would destroy it; name another file", e.Output, e.Input)
}

// Open opens path for reading, as os.Open does, and remembers it as an
// input: no File is committed onto it for the rest of the process (or
// until ForgetInputs).
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err == nil {
		AddInput(path)
	}
	return f, err
}

// ReadFile reads path, as os.ReadFile does, and remembers it as an input.
func ReadFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		AddInput(path)
	}
	return data, err
}

// AddInput remembers path as an input without reading it: a command
// names the files it will read before it creates its outputs, so an
// output that is one is refused before any work.
func AddInput(path string) {
	in := input{path: path, resolved: resolve(path)}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return // a device or a pipe is read and written in place
	}
	mu.Lock()
	defer mu.Unlock()
	if !known[in.resolved] {
		known[in.resolved] = true
		inputs = append(inputs, in)
	}
}

// ForgetInputs forgets every input: a process that runs one command after
// another (a test) starts each afresh.
func ForgetInputs() {
	mu.Lock()
	defer mu.Unlock()
	inputs, known = nil, map[string]bool{}
}

// inputAt is the input final would replace, if any; mu is held.
func inputAt(final string) *InputError {
	if len(inputs) == 0 {
		return nil
	}
	r := resolve(final)
	st, statErr := os.Stat(final)
	for _, in := range inputs {
		if r == in.resolved {
			return &InputError{Output: final, Input: in.path}
		}
		if statErr == nil { // a hard link to an input is the input
			if ist, err := os.Stat(in.path); err == nil && os.SameFile(st, ist) {
				return &InputError{Output: final, Input: in.path}
			}
		}
	}
	return nil
}

// SamePath reports whether a and b name one file: the same path once
// made absolute with its symbolic links resolved, or, when both exist,
// the same file (hard links).
func SamePath(a, b string) bool {
	if resolve(a) == resolve(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// resolve makes path absolute and resolves its symbolic links, those of
// its directory alone when it does not exist yet (and a link to a file
// not there yet, the name the rename would replace, resolved as far as
// it goes).
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
