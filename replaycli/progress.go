package replaycli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/gpureplay/gpureplay/results"
	"github.com/gpureplay/gpureplay/study"
)

// progress shows, on stderr and only when it is a terminal (so logs and
// pipes stay clean), how many replays have finished and the CTA count and
// simulated time of the replay that last reported. Replays running side
// by side call it from their workers.
type progress struct {
	w     io.Writer
	on    bool
	total int

	mu    sync.Mutex
	count int // replays finished
	last  time.Time
	shown bool
	mhz   map[int]float64 // by replay id
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, on: isTerminal(w), last: time.Now(), mhz: map[int]float64{}}
}

func (p *progress) update(r study.Replay, ctas, cycle int64) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	mhz, ok := p.mhz[r.ID]
	if !ok {
		if cfg, err := r.Config(); err == nil {
			mhz = cfg.GPU.ClockMHz
		}
		p.mhz[r.ID] = mhz
	}
	label := r.Name + " " + r.Policy
	if r.Params() != "" {
		label += " " + r.Params()
	}
	done := ""
	if p.total > 1 {
		done = fmt.Sprintf("[%d/%d done] ", p.count, p.total)
	}
	fmt.Fprintf(p.w, "\r%s%s: %d CTAs replayed, %s simulated\033[K", done, label, ctas, simulated(cycle, mhz))
}

func (p *progress) finished(r study.Replay, _ results.Summary) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	delete(p.mhz, r.ID)
}

// simulated formats cycles at mhz as a duration a person reads.
func simulated(cycles int64, mhz float64) string {
	if mhz <= 0 {
		return fmt.Sprintf("%d cycles", cycles)
	}
	return (time.Duration(float64(cycles) / mhz * float64(time.Microsecond))).Round(time.Microsecond).String()
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
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
