package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"
)

// --progress off, a replay reports nothing; on, a line at most once per
// interval with the replays done and the running one's CTAs and
// simulated time.
func TestProgressLines(t *testing.T) {
	defer func(e time.Duration) { progressEvery = e }(progressEvery)
	var log bytes.Buffer
	p := &progressLog{start: time.Now()}
	progressEvery = 0
	if p.watch(&log, "bfs cdp", 706) != nil {
		t.Fatal("a progress callback without --progress")
	}
	progressEvery = time.Hour
	report := p.watch(&log, "bfs cdp", 706)
	p.finished()
	report(1776, 189091)
	report(1800, 190000) // within the hour: no line
	want := regexp.MustCompile(`^experiment: progress: 1 replays done; bfs cdp: 1776 CTAs replayed, 268µs simulated; 0s elapsed\n$`)
	if !want.MatchString(log.String()) {
		t.Errorf("log %q", log.String())
	}
}

// --progress on, each grid point that has run says so as it ends (the
// points' own logs come whole, in order, at the grid's end); off, none.
func TestProgressGridPoints(t *testing.T) {
	defer func(e time.Duration) { progressEvery = e }(progressEvery)
	var log bytes.Buffer
	p := &progressLog{start: time.Now()}
	progressEvery = 0
	p.pointRun(&log, 1, 84, "gpu.issue_width 2")
	if log.Len() > 0 {
		t.Fatalf("a grid point's line without --progress: %q", log.String())
	}
	progressEvery = time.Minute
	p.pointRun(&log, 3, 84, "gpu.issue_width 2")
	want := regexp.MustCompile(`^experiment: progress: 3 of 84 grid points run, the last gpu.issue_width 2; 0s elapsed\n$`)
	if !want.MatchString(log.String()) {
		t.Errorf("log %q", log.String())
	}
}
