package tempfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// staleAge is how long a temporary file must have gone unmodified before
// a sweep may remove it. The process id and the lock say whether its
// writer is alive; the age covers the instant between a writer on another
// machine (a cluster's shared file system, where its process id means
// nothing here) creating the file and locking it, with room for the
// machines' clocks to differ.
const staleAge = 30 * time.Second

var (
	sweptMu sync.Mutex
	swept   = map[string]bool{}
	onSweep func(dir string, removed []string)
)

// OnSweep sets the function told of the files a sweep removed (their
// paths), to say so to the user. Call it before the first Create.
func OnSweep(fn func(dir string, removed []string)) { onSweep = fn }

// sweepOnce removes, the first time this process writes into dir, the
// temporary files there that a process killed outright left behind.
func sweepOnce(dir string) {
	sweptMu.Lock()
	done := swept[dir]
	swept[dir] = true
	sweptMu.Unlock()
	if done {
		return
	}
	if removed := Sweep(dir); len(removed) > 0 && onSweep != nil {
		onSweep(dir, removed)
	}
}

// Sweep removes the temporary files in dir whose writer is gone and
// returns their paths. A file is removed only when all of these hold: its
// name is this package's (".NAME.tmp-PID-RANDOM"), no process with its
// PID runs here, no process anywhere holds its lock (a writer holds it
// from creating the file until it is renamed or removed; the system
// releases it when the process dies, however it dies), and it has not
// been modified for staleAge. So a live writer's file is never removed,
// whether that writer is this process, another one here, or one on
// another machine sharing the directory through a file system with
// locking; a file whose writer cannot be judged (locks unsupported) stays.
// Files of other names, those of earlier versions included, are never
// touched.
func Sweep(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, ok := ownerPID(e.Name())
		if !ok || !e.Type().IsRegular() || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < staleAge {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if removeIfUnlocked(path) {
			removed = append(removed, path)
		}
	}
	return removed
}

// ownerPID is the process id in a temporary file's name
// (".NAME.tmp-PID-RANDOM"), if the name is one.
func ownerPID(name string) (int, bool) {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 1 {
		return 0, false
	}
	pid, random, ok := strings.Cut(name[i+len(".tmp-"):], "-")
	if !ok || !digits(pid) || !digits(random) {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
