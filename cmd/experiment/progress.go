package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressEvery is --progress: how often a running replay writes a line
// to the log (0: never). An experiment logs a line as each replay ends,
// but one replay can run for minutes, and a Slurm or CI log then shows
// nothing; this shows the replay moving. The number of replays an
// experiment runs is not known up front (searches stop early), so the
// line counts those done rather than promising a time left.
var progressEvery time.Duration

// progressLog writes the progress lines of the experiment's replays.
type progressLog struct {
	mu    sync.Mutex
	start time.Time
	last  time.Time
	done  int
}

var progress = &progressLog{start: time.Now()}

// watch returns the replay.Options.Progress callback of one replay, nil
// when --progress is off.
func (p *progressLog) watch(log io.Writer, label string, mhz float64) func(ctas, cycle int64) {
	if progressEvery <= 0 {
		return nil
	}
	return func(ctas, cycle int64) {
		p.mu.Lock()
		defer p.mu.Unlock()
		now := time.Now()
		if now.Sub(p.last) < progressEvery {
			return
		}
		p.last = now
		fmt.Fprintf(log, "experiment: progress: %d replays done; %s: %d CTAs replayed, %s simulated; %s elapsed\n",
			p.done, label, ctas, simulated(cycle, mhz), now.Sub(p.start).Round(time.Second))
	}
}

// pointRun writes, with --progress, that a point of the grid of unstated
// inputs has run (label), done of n: a grid's points replay benchmarks
// again side by side, and their logs are written whole, in the points'
// order, once all have run, so a long grid (spawn-paper's, most of two
// hours on 2 cores) showed nothing of its points until its end.
func (p *progressLog) pointRun(log io.Writer, done, n int, label string) {
	if progressEvery <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(log, "experiment: progress: %d of %d grid points run, the last %s; %s elapsed\n",
		done, n, label, time.Since(p.start).Round(time.Second))
}

// finished counts a replay done.
func (p *progressLog) finished() {
	p.mu.Lock()
	p.done++
	p.mu.Unlock()
}

// simulated formats cycles at mhz as a duration a person reads.
func simulated(cycles int64, mhz float64) string {
	if mhz <= 0 {
		return fmt.Sprintf("%d cycles", cycles)
	}
	return time.Duration(float64(cycles) / mhz * float64(time.Microsecond)).Round(time.Microsecond).String()
}
