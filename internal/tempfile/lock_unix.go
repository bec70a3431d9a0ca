//go:build unix

package tempfile

import (
	"errors"
	"os"
	"syscall"
)

// lock takes the writer's lock on a new temporary file: an exclusive
// flock, held as long as the file is open and released by the system
// when the process dies. A file system that refuses locks leaves the file
// unlocked; a sweep there cannot take the lock either, so it removes
// nothing.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
		return nil
	}
	return err
}

// processAlive reports whether a process with this id runs here (one
// that belongs to another user counts).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// removeIfUnlocked removes path if no process holds its lock, holding the
// lock itself while it does so that no writer can be mid-way.
func removeIfUnlocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	return os.Remove(path) == nil
}
