// Package tempfile writes files that appear under their final name only
// when complete: each is written as a temporary file beside its final
// path and renamed into place by Commit. Every temporary file in flight is
// remembered, so a process stopped by a signal can remove them all
// (Exit) and leave nothing half written behind.
package tempfile

import (
	"os"
	"path/filepath"
	"sync"
)

// File is a temporary file on its way to a final path.
type File struct {
	*os.File
	final string
}

var (
	mu   sync.Mutex
	live = map[string]bool{}
)

// Create opens a new temporary file in final's directory, named after
// final (".NAME.tmp-RANDOM"), and remembers it.
//
// The file is created under the lock RemoveAll takes, so a signal handler
// never misses a file another goroutine is creating at that moment.
func Create(final string) (*File, error) {
	mu.Lock()
	defer mu.Unlock()
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return nil, err
	}
	live[f.Name()] = true
	return &File{File: f, final: final}, nil
}

// Final is the path Commit renames the file to.
func (f *File) Final() string { return f.final }

// Commit closes the file and renames it to its final path, readable by
// all (0644, as os.Create would make it under the usual umask). On
// failure the temporary file is removed.
func (f *File) Commit() error {
	err := f.File.Close()
	mu.Lock()
	defer mu.Unlock()
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	delete(live, f.Name())
	return err
}

// Discard closes and removes the file.
func (f *File) Discard() {
	f.File.Close()
	mu.Lock()
	defer mu.Unlock()
	os.Remove(f.Name())
	delete(live, f.Name())
}

// Exit removes every temporary file not yet committed or discarded, calls
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
