// Package tempfile writes files that appear under their final name only
// when complete: each is written as a temporary file beside its final
// path and renamed into place by Commit. Every temporary file in flight is
// remembered, so a process stopped by a signal can remove them all
// (Exit) and leave nothing half written behind.
//
// A process killed outright (SIGKILL, the kernel's out-of-memory killer,
// a lost node) cannot remove its files, so each one is named after its
// process (".NAME.tmp-PID-RANDOM") and locked while it is open; the first
// Create in a directory removes the files there whose process is gone
// (see stale.go).
package tempfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is a temporary file on its way to a final path.
type File struct {
	*os.File
	final string
	// inPlace: final is a device or a pipe (/dev/null, a FIFO), written
	// directly: there is no name to rename onto, and nothing to remove.
	inPlace bool
}

var (
	mu   sync.Mutex
	live = map[string]bool{}
	made []string // directories this process created for its outputs (MadeDir)
)

// MadeDir remembers a directory this process created to write its
// outputs in, so that Exit removes it if it is still empty: a command
// stopped before its first file is committed leaves no empty output
// directory, as one that fails on bad input does not (issue 75). A
// directory with anything in it stays.
func MadeDir(dir string) {
	mu.Lock()
	defer mu.Unlock()
	made = append(made, dir)
}

// Create opens a new temporary file in final's directory, named after
// final and this process (".NAME.tmp-PID-RANDOM"), and remembers it. A
// final path that is an input of this process (AddInput) is refused with
// an *InputError.
// Errors name final, not the temporary file. A final path that is a
// directory is refused at once (the rename would fail only at the end);
// one that is a device or a pipe is opened for writing in place.
//
// The file is created under the lock RemoveAll takes, so a signal handler
// never misses a file another goroutine is creating at that moment.
func Create(final string) (*File, error) {
	if st, err := os.Stat(final); err == nil {
		if st.IsDir() {
			return nil, &os.PathError{Op: "create", Path: final, Err: errors.New("is a directory")}
		}
		if !st.Mode().IsRegular() {
			f, err := os.OpenFile(final, os.O_WRONLY, 0)
			if err != nil {
				return nil, renamed(err, final)
			}
			return &File{File: f, final: final, inPlace: true}, nil
		}
	}
	dir := filepath.Dir(final)
	sweepOnce(dir)
	mu.Lock()
	defer mu.Unlock()
	if err := inputAt(final); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf(".%s.tmp-%d-*", filepath.Base(final), os.Getpid()))
	if err != nil {
		return nil, renamed(err, final)
	}
	if err := lock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, renamed(err, final)
	}
	live[f.Name()] = true
	return &File{File: f, final: final}, nil
}

// renamed makes an error about the temporary file (or its directory) one
// about the final path, the name the user gave.
func renamed(err error, final string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "create", Path: final, Err: pe.Err}
	}
	return fmt.Errorf("create %s: %w", final, err)
}

// Write writes to the file; an error names the final path.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil {
		err = renamed(err, f.final)
	}
	return n, err
}

// Sync commits the file to stable storage; an error names the final path.
func (f *File) Sync() error {
	if f.inPlace {
		return nil // a device or a pipe has nothing to sync
	}
	if err := f.File.Sync(); err != nil {
		return renamed(err, f.final)
	}
	return nil
}

// Final is the path Commit renames the file to.
func (f *File) Final() string { return f.final }

// Commit renames the file to its final path, readable by all (0644, as
// os.Create would make it under the usual umask), and closes it. On
// failure the temporary file is removed. The file is renamed before it is
// closed, so it keeps its lock until it no longer has a temporary name.
// A final path that became an input after Create (a file the command
// found it had to read, such as an importer's config) is not replaced:
// the temporary file is removed and the error is an *InputError.
func (f *File) Commit() error {
	if f.inPlace {
		if err := f.File.Close(); err != nil {
			return renamed(err, f.final)
		}
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if ierr := inputAt(f.final); ierr != nil {
		f.File.Close()
		os.Remove(f.Name())
		delete(live, f.Name())
		return ierr
	}
	err := f.File.Chmod(0o644)
	if err == nil {
		err = os.Rename(f.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	if cerr := f.File.Close(); err == nil && cerr != nil {
		// Written and renamed, but the system reports a failed write on
		// close (a network file system can): the file is not whole.
		os.Remove(f.final)
		err = cerr
	}
	delete(live, f.Name())
	if err != nil {
		return renamed(err, f.final)
	}
	return nil
}

// Discard closes and removes the file.
func (f *File) Discard() {
	f.File.Close()
	if f.inPlace {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	os.Remove(f.Name())
	delete(live, f.Name())
}

// Exit removes every temporary file not yet committed or discarded and
// every directory MadeDir named that is left empty, calls
// report with how many it removed, and exits the process with code: a
// signal handler's way out. It holds the lock to the end, so every other
// goroutine creating, committing or discarding a file waits for the exit
// instead of racing it (a file half created, a rename, an error exit).
func Exit(code int, report func(removed int)) {
	mu.Lock()
	n := 0
	for name := range live {
		if os.Remove(name) == nil {
			n++
		}
	}
	for i := len(made) - 1; i >= 0; i-- {
		os.Remove(made[i]) // only if empty: what else is there is not ours
	}
	report(n)
	os.Exit(code)
}

// WriteFile writes data to path through a temporary file committed when
// complete, as os.WriteFile would but never leaving part of it.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}
