package replay

import (
	"testing"

	"github.com/gpureplay/gpureplay/internal/eventq"
)

// The countdown's processor sharing on its virtual clock, by hand: a
// countdown of 9 (10 services) at 1 pass a cycle. a joins at 0 and has
// 4 services alone by 4; b joins at 4, c at 5 (a and b had half a pass
// each in between). From 5 three heads get a third of a pass a cycle:
// a's last 5.5 services take 16.5 cycles, so it goes at 22 (events fall
// on whole cycles), when b has had 1/2 + 17/3 and c 17/3. Then two heads
// get half a pass each: b's last 23/6 take 7.67 cycles, so it goes at
// 30, when c has had 17/3 + 4 of 10; c's last 1/3 alone takes 1/3 of a
// cycle: 31.
func TestCountdownShares(t *testing.T) {
	var c eventClock
	var out []int64
	var s *streamCountdown
	ks := []*Kernel{{id: 1}, {id: 2}, {id: 3}}
	s = newStreamCountdown(9, 1000, func(k *Kernel) {
		out = append(out, int64(k.id)*1000+c.t)
		k.state = kDispatched // an entry at once
		s.entered(&c)
	})
	c.handlers[evCountdown] = func(ev eventq.Event) { s.fire(&c, ev) }
	at := func(t int64) { fireUntil(&c, t) }
	s.join(&c, ks[0])
	at(4)
	s.join(&c, ks[1])
	at(5)
	s.join(&c, ks[2])
	at(1 << 20)
	want := []int64{1022, 2030, 3031}
	if len(out) != len(want) {
		t.Fatalf("released %v, want %v (kernel·1000 + cycle)", out, want)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("released %v, want %v (kernel·1000 + cycle)", out, want)
			break
		}
	}
}

// A head released with no entry free keeps its share of the passes until
// it enters, by hand: a countdown of 9 (10 services) at 1 pass a cycle.
// a joins at 0 and, alone, is released at 10, but takes its entry only
// at 16. b joins at 12: to 16 it shares the passes with blocked a, half
// a pass a cycle (2 services), then has them alone: its last 8 take 8
// cycles, so it goes at 24 (22 were a blocked head left out).
func TestCountdownBlockedShare(t *testing.T) {
	var c eventClock
	var out []int64
	var s *streamCountdown
	a, b := &Kernel{id: 1}, &Kernel{id: 2}
	s = newStreamCountdown(9, 1000, func(k *Kernel) {
		out = append(out, int64(k.id)*1000+c.t)
		if k == b {
			k.state = kDispatched
			s.entered(&c)
		}
	})
	c.handlers[evCountdown] = func(ev eventq.Event) { s.fire(&c, ev) }
	at := func(t int64) { fireUntil(&c, t) }
	s.join(&c, a)
	at(12)
	s.join(&c, b)
	at(16)
	if len(s.waiting) != 1 || s.waiting[0] != a {
		t.Fatalf("waiting for an entry %v, want a alone", s.waiting)
	}
	a.state = kDispatched
	s.entered(&c)
	at(1 << 20)
	want := []int64{1010, 2024}
	if len(out) != len(want) || out[0] != want[0] || out[1] != want[1] {
		t.Errorf("released %v, want %v (kernel·1000 + cycle)", out, want)
	}
}

// Stale events that outlive the run, each alone in its cycle, are no
// cycles the run lived: settled, they leave the last live cycle where it
// was, and the last of them puts the clock back to it (cdpmulti's run
// ended at 443,123 where its last kernel ended at 124,872, each stale
// event's settle having noted its own cycle as live).
func TestCountdownStaleEventsPastTheEnd(t *testing.T) {
	var c eventClock
	var kd kernelDistributor
	s := newStreamCountdown(9, 1000, func(*Kernel) {})
	s.live = 100
	for _, at := range []int64{500, 600} {
		c.q.Push(eventq.Event{At: at, Kind: uint8(evCountdown), Ref: 7})
	}
	for c.q.Len() > 0 {
		ev := c.q.Pop()
		c.t = ev.At
		s.fire(&c, ev)
		s.settle(&c, &kd)
	}
	if c.t != 100 || s.live != 100 {
		t.Errorf("clock at %d, live %d after two stale events past the end, want 100 and 100", c.t, s.live)
	}
}

// A stale event that is the run's last, first of its cycle, with no head
// waiting, puts the clock back to the last cycle that settled: the run
// did not end at it.
func TestCountdownStaleLastEvent(t *testing.T) {
	var c eventClock
	s := newStreamCountdown(9, 1000, func(*Kernel) {})
	s.live = 100
	c.t = 500
	s.fire(&c, eventq.Event{At: 500, Kind: uint8(evCountdown), Ref: 7})
	if c.t != 100 {
		t.Errorf("clock at %d after the last, stale event, want 100", c.t)
	}
	c.t = 600
	c.q.Push(eventq.Event{At: 700, Kind: uint8(evIssue)})
	s.fire(&c, eventq.Event{At: 600, Kind: uint8(evCountdown), Ref: 7})
	if c.t != 600 {
		t.Errorf("clock at %d after a stale event with another pending, want 600", c.t)
	}
}

// fireUntil fires c's events due by t, in order, and leaves the clock at t.
func fireUntil(c *eventClock, t int64) {
	for c.q.Len() > 0 && c.q.Peek() <= t {
		c.fire(c.q.Pop())
	}
	c.t = t
}
