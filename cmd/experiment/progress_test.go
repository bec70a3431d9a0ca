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
