package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"
)

// progress shows a live CTA count and the simulated time reached on stderr
// during long replays, only when stderr is a terminal (so logs and pipes
// stay clean).
type progress struct {
	w     io.Writer
	label string
	mhz   float64
	on    bool
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, traceName, policy string, clockMHz float64) *progress {
	return &progress{w: w, label: traceName + " " + policy, mhz: clockMHz, on: isTerminal(w), last: time.Now()}
}

func (p *progress) update(ctas, cycle int64) {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r%s: %d CTAs replayed, %s simulated\033[K", p.label, ctas, simulated(cycle, p.mhz))
}

// simulated formats cycles at mhz as a duration a person reads.
func simulated(cycles int64, mhz float64) string {
	if mhz <= 0 {
		return fmt.Sprintf("%d cycles", cycles)
	}
	return (time.Duration(float64(cycles) / mhz * float64(time.Microsecond))).Round(time.Microsecond).String()
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startCPUProfile profiles the rest of the command into path.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
