package tempfile

import (
	"os"
	"os/signal"
	"syscall"
)

// ExitOnSignals has the process, on SIGINT, SIGTERM or SIGHUP, remove
// every temporary file it has open and every empty directory MadeDir
// named (Exit), call report with the signal and how many files it
// removed, and exit 130, 143 or 129, as a shell does for a process the
// signal killed. Call it before the first Create, so that no signal finds
// a temporary file without the handler that removes it.
func ExitOnSignals(report func(s os.Signal, removed int)) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		Exit(signalCode(s), func(n int) { report(s, n) })
	}()
}

// signalCode is the exit status a shell gives a process signal s killed.
func signalCode(s os.Signal) int {
	switch s {
	case syscall.SIGTERM:
		return 143
	case syscall.SIGHUP:
		return 129
	}
	return 130
}
