package replaycli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/gpureplay/gpureplay/study"
	"github.com/gpureplay/gpureplay/tables"
)

// progress shows, on stderr, how many replays have finished and the CTA
// count and simulated time of the replay that last reported. On a
// terminal it is one line redrawn in place. Elsewhere it is silent, so
// logs and pipes stay clean, unless asked for (--progress=INTERVAL): then
// a Slurm or CI log gets a line every interval, with the replays done,
// their rate and the time left at that rate, where it would otherwise
// show nothing until the end. Replays running side by side call it from
// their workers.
type progress struct {
	w     io.Writer
	on    bool          // a terminal: redraw one line
	every time.Duration // not a terminal: a line this often (0: none)
	total int
	start time.Time

	mu       sync.Mutex
	count    int // replays finished
	last     time.Time
	lastLine time.Time
	shown    bool
	mhz      map[int]float64 // by replay id
	now      string          // the last report, for the next line
}

// progressUsage is the --progress flag's help, for replay and study run.
const progressUsage = "when standard error is not a terminal (a batch or CI log), write a progress line this often, e.g. 30s: replays done, their rate, time left, the replay running (0: none; a terminal always shows progress in place)"

func newProgress(w io.Writer, total int, every time.Duration) *progress {
	now := time.Now()
	p := &progress{w: w, total: total, on: isTerminal(w), last: now, lastLine: now, start: now, mhz: map[int]float64{}}
	if !p.on {
		p.every = every
	}
	return p
}

func (p *progress) update(r study.Replay, ctas, cycle int64) {
	if !p.on && p.every <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on {
		p.now = fmt.Sprintf("%s: %d CTAs replayed, %s simulated", p.label(r), ctas, simulated(cycle, p.clock(r)))
		p.line(false)
		return
	}
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	label := p.label(r)
	done := ""
	if p.total > 1 {
		done = fmt.Sprintf("[%d/%d done] ", p.count, p.total)
	}
	fmt.Fprintf(p.w, "\r%s%s: %d CTAs replayed, %s simulated\033[K", done, label, ctas, simulated(cycle, p.clock(r)))
}

// line writes a progress line for a log when the interval has passed
// (or, final, at the end): replays done, their rate and the time left at
// it, the replay that last reported, and the time so far.
func (p *progress) line(final bool) {
	now := time.Now()
	if !final && now.Sub(p.lastLine) < p.every {
		return
	}
	p.lastLine = now
	elapsed := now.Sub(p.start)
	if final {
		fmt.Fprintf(p.w, "replay: progress: %d/%d replays done in %s\n", p.count, p.total, elapsed.Round(time.Second))
		return
	}
	rate := "no replay done yet"
	if p.count > 0 {
		per := elapsed / time.Duration(p.count)
		rate = fmt.Sprintf("%.3g replays/min, about %s left", float64(p.count)/elapsed.Minutes(), (per * time.Duration(p.total-p.count)).Round(time.Second))
	}
	last := ""
	if p.now != "" {
		last = p.now + "; "
	}
	fmt.Fprintf(p.w, "replay: progress: %d/%d replays done (%s); %s%s elapsed\n", p.count, p.total, rate, last, elapsed.Round(time.Second))
}

func (p *progress) label(r study.Replay) string {
	label := r.Name + " " + r.Policy
	if r.Params() != "" {
		label += " " + r.Params()
	}
	return label
}

// clock is the replay's GPU clock, looked up once per replay.
func (p *progress) clock(r study.Replay) float64 {
	mhz, ok := p.mhz[r.ID]
	if !ok {
		if cfg, err := r.Config(); err == nil {
			mhz = cfg.GPU.ClockMHz
		}
		p.mhz[r.ID] = mhz
	}
	return mhz
}

func (p *progress) finished(r study.Replay, _ tables.Summary) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	delete(p.mhz, r.ID)
	if p.every > 0 {
		p.line(false)
	}
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
	if p.every > 0 {
		p.line(true)
	}
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
//
// The environment's GPUREPLAY_CPUPROFILE_HZ, where set, is the samples a
// second of CPU time (runtime/pprof's own is 100): scripts/pgo.sh takes
// 1,000, so that the profile it makes default.pgo from holds ten times
// the samples in the same time, and two profiles of the same code agree
// on which calls are hot. It is set before StartCPUProfile, whose own
// rate the runtime then refuses, printing so on stderr.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if v := os.Getenv("GPUREPLAY_CPUPROFILE_HZ"); v != "" {
		hz, err := strconv.Atoi(v)
		if err != nil || hz < 1 || hz > 10000 {
			f.Close()
			return nil, fmt.Errorf("GPUREPLAY_CPUPROFILE_HZ=%q: want samples a second, 1 to 10000", v)
		}
		runtime.SetCPUProfileRate(hz)
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
