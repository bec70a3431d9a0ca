package policies

import (
	"github.com/gpureplay/gpureplay/model"
	"testing"

	"github.com/gpureplay/gpureplay/replay"
)

// n rises by x on a launch and falls as child CTAs finish.
func TestCCQSCountsChildCTAs(t *testing.T) {
	q := ccqs{window: 1024}
	q.launched(3)
	if q.n != 3 {
		t.Fatalf("n = %d after launching 3 CTAs", q.n)
	}
	q.started(100)
	q.finishedCTA(600, 500, 500, 1)
	if q.n != 2 || q.tCTA() != 500 {
		t.Errorf("after one finished: n = %d, t_cta = %v; want 2 and 500", q.n, q.tCTA())
	}
	q.started(600)
	q.finishedCTA(1600, 1000, 1900, 2)
	if q.n != 1 || q.tCTA() != 750 {
		t.Errorf("after two finished: n = %d, t_cta = %v; want 1 and 750 (running mean)", q.n, q.tCTA())
	}
}

// n_con and t_warp are the previous complete window's values: they change
// only when a window closes. Window [0,1024): one CTA runs 0..512 and
// another 256..1000, so n_con = (512 + 744)/1024 = 1.2265625; warps of 512
// and 744 cycles finish in it, so t_warp = 628.
func TestCCQSWindows(t *testing.T) {
	q := ccqs{window: 1024}
	q.started(0)
	q.started(256)
	q.finishedCTA(512, 512, 512, 1)
	q.advance(1000)
	if q.nCon != 0 || q.tWarp != 0 {
		t.Fatalf("inside the first window: n_con %v, t_warp %v; want 0, 0", q.nCon, q.tWarp)
	}
	q.finishedCTA(1000, 744, 744, 1)
	q.advance(1023)
	if q.nCon != 0 || q.tWarp != 0 {
		t.Fatalf("at 1023: n_con %v, t_warp %v; the window is not complete yet", q.nCon, q.tWarp)
	}
	q.advance(1024)
	if q.nCon != 1.2265625 || q.tWarp != 628 {
		t.Fatalf("after [0,1024): n_con %v, t_warp %v; want 1.2265625, 628", q.nCon, q.tWarp)
	}
	// [1024, 2048) runs nothing and no warp finishes: n_con 0, t_warp kept.
	q.advance(2048)
	if q.nCon != 0 || q.tWarp != 628 {
		t.Errorf("after an idle window: n_con %v, t_warp %v; want 0, 628", q.nCon, q.tWarp)
	}
	// A CTA running from 2100 through several windows: the windows it
	// fills whole report n_con = 1, without a warp finishing.
	q.started(2100)
	q.advance(10 * 1024)
	if q.nCon != 1 || q.tWarp != 628 {
		t.Errorf("after busy windows: n_con %v, t_warp %v; want 1, 628", q.nCon, q.tWarp)
	}
}

// spawn.ncon=busy averages over the cycles in which a child CTA runs, and
// keeps n_con through idle windows. Window [0,1024) as in
// TestCCQSWindows: CTAs run 0..512 and 256..1000, 1256 CTA-cycles over
// 1000 busy cycles. Window [1024,2048) is idle: 0, or kept under busy.
// Later windows skipped at once, all idle, likewise. Window [2048,3072): one CTA 2100..2600, two 2800..3000: 900 CTA-cycles
// over 700 busy cycles.
func TestCCQSBusyNCon(t *testing.T) {
	for _, tc := range []struct {
		busyOnly            bool
		w0, idle, w2, later float64
	}{
		{false, 1256.0 / 1024, 0, 900.0 / 1024, 0},
		{true, 1256.0 / 1000, 1256.0 / 1000, 900.0 / 700, 900.0 / 700},
	} {
		q := ccqs{window: 1024, busyOnly: tc.busyOnly}
		q.started(0)
		q.started(256)
		q.finishedCTA(512, 512, 512, 1)
		q.finishedCTA(1000, 744, 744, 1)
		q.advance(1024)
		w0 := q.nCon
		q.advance(2048)
		idle := q.nCon
		q.started(2100)
		q.finishedCTA(2600, 500, 500, 1)
		q.started(2800)
		q.started(2800)
		q.finishedCTA(3000, 200, 200, 1)
		q.finishedCTA(3000, 200, 200, 1)
		q.advance(3072)
		w2 := q.nCon
		q.advance(10 * 1024) // several idle windows at once
		if w0 != tc.w0 || idle != tc.idle || w2 != tc.w2 || q.nCon != tc.later {
			t.Errorf("busyOnly %v: n_con %v, %v, %v, %v; want %v, %v, %v, %v",
				tc.busyOnly, w0, idle, w2, q.nCon, tc.w0, tc.idle, tc.w2, tc.later)
		}
	}
}

func decideSpawn(p *spawn, cycle int64, lanes ...replay.Lane) []replay.Verdict {
	out := make([]replay.Verdict, len(lanes))
	p.Decide(&replay.Site{Cycle: cycle, Lanes: lanes}, out)
	return out
}

// Algorithm 1's rules, with the CCQS state set by hand: t_cta = 1000,
// n_con = 2, t_warp = 100, n = 10; one lane on k20c-spawn with its costs
// in cycles of its own clock (cdp.clock_mhz = 0), so t_overhead is the
// engine's charge there, Table II's 20210 + 1721 = 21931.
func TestSpawnDecisions(t *testing.T) {
	cfg, err := model.Preset("k20c-spawn")
	if err != nil {
		t.Fatal(err)
	}
	cfg.CDP.ClockMHz = 0
	fresh := func() *spawn {
		p := newSpawn(cfg)
		p.q.finished, p.q.ctaSum, p.q.nCon, p.q.tWarp, p.q.n = 1, 1000, 2, 100, 10
		p.q.warpOK = true
		return p
	}
	// t_child = 21931 + (2+10)·1000/2 = 27931.
	cases := []struct {
		name     string
		workload int64
		ctas     uint64
		queue    int64
		want     replay.Decision
	}{
		{"small workload inlines (t_parent 27900 < t_child)", 279, 2, 65536, replay.Inline},
		{"large workload launches (t_parent 28000 >= t_child)", 280, 2, 65536, replay.Launch},
		{"the queue cap forces inlining (n + x = 12 > 11)", 100000, 2, 11, replay.Inline},
		{"a queue with room launches (n + x = 12 <= 12)", 100000, 2, 12, replay.Launch},
	}
	for _, c := range cases {
		p := fresh()
		p.cfg.Spawn.MaxQueue = c.queue
		v := decideSpawn(p, 0, replay.Lane{Workload: c.workload, ChildCTAs: c.ctas})[0]
		if v.Decision != c.want {
			t.Errorf("%s: got %s (t_child %.0f, t_parent %.0f)", c.name, v.Decision, *v.EstChildCycles, *v.EstParentCycles)
		}
	}
	// The first site, with no finished child CTA, launches whatever the
	// estimates say. Its CTAs join n at the decision (spawn.queue=decision,
	// Algorithm 1 line 8) or when the child reaches the KMU (arrival).
	for _, tc := range []struct {
		queue         string
		atSite, atKMU int64
	}{{"decision", 5, 5}, {"arrival", 0, 5}} {
		cfg.Spawn.Queue = tc.queue
		p := newSpawn(cfg)
		v := decideSpawn(p, 0, replay.Lane{Workload: 0, ChildCTAs: 5})[0]
		atSite := p.q.n
		if tc.queue == "arrival" {
			p.q.launched(5) // what KernelArrived adds for a 5-CTA child
		}
		if v.Decision != replay.Launch || atSite != tc.atSite || p.q.n != tc.atKMU {
			t.Errorf("queue=%s, t_cta = 0: got %s, n = %d after the decision and %d at the KMU; want launch, %d and %d",
				tc.queue, v.Decision, atSite, p.q.n, tc.atSite, tc.atKMU)
		}
	}
}

// With t_cta known and no t_warp yet, spawn.no_twarp decides: launch (the
// initialization of Algorithm 1 covering t_warp) or inline (line 2 read
// literally, t_parent = 0).
func TestSpawnWithoutTWarp(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want replay.Decision
	}{{"launch", replay.Launch}, {"inline", replay.Inline}} {
		cfg := k20c(t)
		cfg.Spawn.NoTWarp = tc.mode
		p := newSpawn(cfg)
		p.q.finished, p.q.ctaSum = 1, 1000
		v := decideSpawn(p, 0, replay.Lane{Workload: 1000, ChildCTAs: 1})[0]
		if v.Decision != tc.want || *v.EstParentCycles != 0 {
			t.Errorf("no_twarp=%s: %s (t_parent %v); want %s with t_parent 0", tc.mode, v.Decision, *v.EstParentCycles, tc.want)
		}
		p.q.warpOK, p.q.tWarp = true, 100 // with t_warp: Equation 2 decides
		if v := decideSpawn(p, 0, replay.Lane{Workload: 1000, ChildCTAs: 1})[0]; v.Decision != replay.Launch {
			t.Errorf("no_twarp=%s with t_warp: %s; want launch (t_parent 100000 >= t_child)", tc.mode, v.Decision)
		}
	}
}
