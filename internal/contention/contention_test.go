package contention

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/internal/eventq"
)

// sim drives a Model the way the replay engine does: wake-ups go into an
// event queue, starts are events of their own, and Settle runs at the end
// of every cycle.
type sim struct {
	q    eventq.Queue
	m    *Model
	ends map[uint64]int64
	pops []eventq.Event // every event popped, where log is set
	log  bool
}

type start struct {
	at   int64
	sm   int
	work float64
	d    Demand
}

const evWake, evStart = 1, 2

func run(t *testing.T, sms int, width, bw float64, starts []start) map[uint64]int64 {
	t.Helper()
	s := newSim(sms, width, bw)
	s.play(starts, nil)
	return s.ends
}

func newSim(sms int, width, bw float64) *sim {
	s := &sim{ends: map[uint64]int64{}}
	s.m = New(sms, width, bw, func(sm int, at int64, gen uint32) {
		s.q.Push(eventq.Event{At: at, Kind: evWake, Ref: int32(sm), Aux: int32(gen)})
	})
	s.m.MoveWith(func(sm int, at, prev int64, gen uint32) {
		s.q.Move(eventq.Event{At: prev, Kind: evWake, Ref: int32(sm), Aux: int32(gen - 1)},
			eventq.Event{At: at, Kind: evWake, Ref: int32(sm), Aux: int32(gen)})
	})
	return s
}

// play runs the jobs of starts to their ends, calling settled (when not
// nil) after every Settle.
func (s *sim) play(starts []start, settled func(at int64)) {
	for i, st := range starts {
		s.q.Push(eventq.Event{At: st.at, Kind: evStart, Ref: int32(i)})
	}
	for s.q.Len() > 0 {
		ev := s.q.Pop()
		if s.log {
			s.pops = append(s.pops, ev)
		}
		switch ev.Kind {
		case evStart:
			st := starts[ev.Ref]
			s.m.Start(ev.At, st.sm, st.work, st.d, uint64(ev.Ref))
		case evWake:
			for _, ref := range finished(s.m.Wake(ev.At, int(ev.Ref), uint32(ev.Aux))) {
				s.ends[ref] = ev.At
			}
		}
		if s.q.Len() == 0 || s.q.Peek() != ev.At {
			s.m.Settle(ev.At)
			if settled != nil {
				settled(ev.At)
			}
		}
	}
}

func check(t *testing.T, got map[uint64]int64, want ...int64) {
	t.Helper()
	for i, w := range want {
		if got[uint64(i)] != w {
			t.Errorf("job %d ends at %d, want %d (all: %v)", i, got[uint64(i)], w, got)
		}
	}
}

// Two jobs of 100 cycles, each asking the SM's whole issue width: each
// runs at half speed, both end at 200.
func TestIssueShared(t *testing.T) {
	full := Demand{Issue: 4}
	check(t, run(t, 1, 4, 1e9, []start{{0, 0, 100, full}, {0, 0, 100, full}}), 200, 200)
}

// The second arrives at 50: the first has 50 cycles of work left at half
// speed (ends at 150); the second does 50 by then and its last 50 alone.
func TestIssueLateArrival(t *testing.T) {
	full := Demand{Issue: 4}
	check(t, run(t, 1, 4, 1e9, []start{{0, 0, 100, full}, {50, 0, 100, full}}), 150, 200)
}

// Two SMs, each job alone asking the GPU's whole DRAM bandwidth: both at
// half speed.
func TestDRAMShared(t *testing.T) {
	bw := Demand{DRAM: 100}
	check(t, run(t, 2, 4, 100, []start{{0, 0, 100, bw}, {0, 1, 100, bw}}), 200, 200)
}

// An SM slowed below the water level by its own issue width keeps its
// share; the other SM takes what is left of the bandwidth. SM 0: two jobs
// of issue 4 and DRAM 20 each (a = 0.5, moving 20 B/cycle); SM 1: one job
// of DRAM 100 gets the remaining 80 (g = 0.8) and ends at 125; SM 0's jobs
// run at 0.5 throughout and end at 200.
func TestDRAMWaterFill(t *testing.T) {
	a := Demand{Issue: 4, DRAM: 20}
	check(t, run(t, 2, 4, 100, []start{{0, 0, 100, a}, {0, 0, 100, a}, {0, 1, 100, Demand{DRAM: 100}}}), 200, 200, 125)
}

// When the water level is below an SM's issue share, it binds that SM too:
// SM 0 as above but moving 60 B/cycle per job: min(0.5, g)·120 + g·100 =
// 100 gives g = 100/220 for everyone, and all three end at 220.
func TestDRAMBindsAll(t *testing.T) {
	a := Demand{Issue: 4, DRAM: 60}
	check(t, run(t, 2, 4, 100, []start{{0, 0, 100, a}, {0, 0, 100, a}, {0, 1, 100, Demand{DRAM: 100}}}), 220, 220, 220)
}

// Issue demand within the width does not slow anything.
func TestUnderWidth(t *testing.T) {
	d := Demand{Issue: 1}
	check(t, run(t, 1, 4, 1e9, []start{{0, 0, 100, d}, {0, 0, 100, d}, {10, 0, 30, d}, {0, 0, 7, d}}), 100, 100, 40, 7)
}

// A fractional finish rounds up to the next whole cycle: three full-width
// jobs of 100 share the SM, finishing at 300; a fourth of 10 joining at 0
// gets a quarter until it ends at 40, then three share.
func TestRoundsUp(t *testing.T) {
	full := Demand{Issue: 4}
	got := run(t, 1, 4, 1e9, []start{{0, 0, 100, full}, {0, 0, 100, full}, {0, 0, 100, full}, {0, 0, 10, full}})
	// 0–40: four at 1/4 (10 done each); then three at 1/3 need 90 more: 270 cycles.
	check(t, got, 310, 310, 310, 40)
}

// Totals count what was issued and moved; utilisation divides by capacity.
func TestUtilization(t *testing.T) {
	s := &sim{}
	m := New(2, 4, 100, func(int, int64, uint32) {})
	m.Start(0, 0, 100, Demand{Issue: 2, DRAM: 50}, 0)
	m.Settle(0)
	issue, dram := m.Utilization(100, 100)
	_ = s
	if issue != 200.0/(2*4*100) || dram != 0.5 {
		t.Errorf("utilization %g, %g; want 0.25, 0.5", issue, dram)
	}
}

// Stale wake-ups do nothing; finishes with equal times come out in start
// order.
func TestOrderAndStale(t *testing.T) {
	var wakes []string
	m := New(1, 4, 1e9, func(sm int, at int64, gen uint32) { wakes = append(wakes, fmt.Sprint(at, "/", gen)) })
	m.Start(0, 0, 10, Demand{Issue: 4}, 7)
	m.Start(0, 0, 10, Demand{Issue: 4}, 3)
	m.Settle(0)
	m.Start(5, 0, 1, Demand{Issue: 4}, 9)
	m.Settle(5)
	if got := finished(m.Wake(20, 0, 1)); got != nil {
		t.Errorf("stale wake-up finished %v, want nil", got)
	}
	// 0–5: two at 1/2 (2.5 each); 5–8: three at 1/3 (job 9 done at 8, the others at 3.5); then 6.5 left each at 1/2: 21.
	if got := finished(m.Wake(7, 0, 2)); got == nil || len(got) != 0 {
		t.Errorf("early wake-up: %v, want an empty slice, not nil", got)
	}
	m.Settle(7)
	if got := finished(m.Wake(8, 0, 3)); !slices.Equal(got, []uint64{9}) {
		t.Errorf("at 8: %v", got)
	}
	m.Settle(8)
	if got := finished(m.Wake(21, 0, 4)); !slices.Equal(got, []uint64{7, 3}) {
		t.Errorf("at 21: %v (wake-ups %s)", got, strings.Join(wakes, " "))
	}
}

// A wake-up that supersedes a pending one goes to the Mover, with the
// pending one's cycle; one after the SM's wake-up fired goes to the Waker.
func TestMover(t *testing.T) {
	var calls []string
	m := New(1, 4, 1e9, func(sm int, at int64, gen uint32) { calls = append(calls, fmt.Sprint("wake ", at, "/", gen)) })
	m.MoveWith(func(sm int, at, prev int64, gen uint32) {
		calls = append(calls, fmt.Sprint("move ", prev, "→", at, "/", gen))
	})
	m.Start(0, 0, 10, Demand{Issue: 4}, 7)
	m.Settle(0)
	m.Start(5, 0, 1, Demand{Issue: 4}, 9) // two at 1/2: job 9 done at 7
	m.Settle(5)
	m.Wake(7, 0, 2) // job 7 alone, 4 left
	m.Settle(7)
	want := []string{"wake 10/1", "move 10→7/2", "wake 11/3"}
	if !slices.Equal(calls, want) {
		t.Errorf("got %q, want %q", calls, want)
	}
}

// The water level rises pass by pass: SM 0 (issue share 0.2) is held at
// its share under the first level 100/300; that lifts the level to 80/200
// = 0.4, under which SM 1 (share 0.35) is held too; SM 2 then gets what is
// left: g = 45/100.
func TestWaterLevelPasses(t *testing.T) {
	m := New(3, 4, 100, func(int, int64, uint32) {})
	m.Start(0, 0, 100, Demand{Issue: 20, DRAM: 100}, 0)
	m.Start(0, 1, 100, Demand{Issue: 4 / 0.35, DRAM: 100}, 1)
	m.Start(0, 2, 100, Demand{DRAM: 100}, 2)
	m.Settle(0)
	if d := m.g - 0.45; d > 1e-12 || d < -1e-12 {
		t.Errorf("water level %g, want 0.45", m.g)
	}
	if r := m.sms[1].rate; r < 0.35-1e-12 || r > 0.35+1e-12 {
		t.Errorf("SM 1 rate %g, want its issue share 0.35", r)
	}
}

// randomStarts is n jobs on sms SMs over a few thousand cycles, of random
// work and issue and DRAM demand, some without DRAM demand.
func randomStarts(r *rand.Rand, n, sms int) []start {
	starts := make([]start, n)
	for i := range starts {
		d := Demand{Issue: 4 * r.Float64(), DRAM: 40 * r.Float64()}
		if r.IntN(4) == 0 {
			d.DRAM = 0
		}
		starts[i] = start{at: int64(r.IntN(4000)), sm: r.IntN(sms), work: float64(50 + r.IntN(500)), d: d}
	}
	return starts
}

// BenchmarkSettle runs jobs of random demand through 13 SMs, DRAM
// binding at the end of about 1% of the cycles (116 of 7,795), as under
// BFS scale 20 with CDP (0.5%): mostly Start, Wake and Settle.
func BenchmarkSettle(b *testing.B) {
	starts := randomStarts(rand.New(rand.NewPCG(3, 4)), 4000, 13)
	for range b.N {
		newSim(13, 4, 450).play(starts, nil)
	}
}

// boundStarts is perSM jobs per SM on sms SMs with the demands of
// hardware CTAs (whole warp instructions and DRAM bytes per cycle, as
// float32 records give), some 16 of them at once on each SM, so that DRAM
// binds at the end of almost every cycle, as under synth.
func boundStarts(r *rand.Rand, perSM, sms int) []start {
	starts := make([]start, perSM*sms)
	for i := range starts {
		d := Demand{Issue: float64(1 + r.IntN(3)), DRAM: float64(8 * (1 + r.IntN(4)))}
		starts[i] = start{at: int64(r.IntN(perSM * 47)), sm: r.IntN(sms), work: float64(500 + r.IntN(500)), d: d}
	}
	return starts
}

// BenchmarkSettleBound is BenchmarkSettle with DRAM binding at the end of
// almost every cycle, on a GPU of 13 SMs (k20c) and of 80: the water
// level on every Settle.
func BenchmarkSettleBound(b *testing.B) {
	for _, sms := range []int{13, 80} {
		b.Run(fmt.Sprint("sms=", sms), func(b *testing.B) {
			starts := boundStarts(rand.New(rand.NewPCG(5, 6)), 60, sms)
			for range b.N {
				newSim(sms, 4, 20*float64(sms)).play(starts, nil)
			}
		})
	}
}

// The per-SM queue gives its jobs back in (tag, start order) order, ties
// in tag included, however starts and finishes interleave: the order the
// binary heap it replaced gave (ref stands for the start order here). Its
// slice, reused as jobs finish, stays within 32 times the most jobs
// queued at once (push's doc).
func TestQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		m := New(1, 1, 1, func(int, int64, uint32) {})
		s := &m.sms[0]
		var live []job
		var seq uint64
		spread := 1 + r.IntN(40) // how far a start's tag lands behind the latest
		var now float64
		most := 0 // the most jobs queued at once
		for range 400 {
			if len(live) == 0 || r.IntN(5) < 3 {
				seq++
				now += float64(r.IntN(3))
				j := job{tag: now + float64(r.IntN(spread)), ref: seq}
				m.push(s, j)
				live = append(live, j)
				most = max(most, len(live))
				if c := cap(s.jobs); c > 32*most+4 {
					t.Fatalf("trial %d: the queue's slice holds %d for at most %d jobs", trial, c, most)
				}
				continue
			}
			k := 0
			for i := range live {
				if a, b := &live[i], &live[k]; a.tag < b.tag || a.tag == b.tag && a.ref < b.ref {
					k = i
				}
			}
			// Take the first job as Wake does.
			got := s.jobs[s.lo]
			if s.lo++; s.lo == len(s.jobs) {
				s.jobs, s.lo = s.jobs[:0], 0
			}
			if got != live[k] {
				t.Fatalf("trial %d: took %+v, want %+v", trial, got, live[k])
			}
			live = slices.Delete(live, k, k+1)
		}
		if n := len(s.jobs) - s.lo; n != len(live) {
			t.Fatalf("trial %d: %d jobs queued, want %d", trial, n, len(live))
		}
	}
}

// Start and Wake keep an SM's jobs in (finish, start) order, Start's own
// append at the queue's end included: at rate 1 (no Settle), jobs of
// random work started over random cycles end at each Wake as a reference
// of the live jobs, sorted, says.
func TestStartWakeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 100 {
		m := New(1, 4, 100, func(int, int64, uint32) {})
		s := &m.sms[0]
		var live []job
		var now int64
		for ref := uint64(0); ref < 300; {
			now += int64(r.IntN(4))
			if len(live) == 0 || r.IntN(2) == 0 {
				work := float64(r.IntN(1 + trial%30))
				m.Start(now, 0, work, Demand{}, ref)
				live = append(live, job{tag: s.v + work, ref: ref})
				ref++
				continue
			}
			v := s.v + float64(now-s.at)*s.rate // as Wake advances it
			got := slices.Clone(finished(m.Wake(now, 0, s.gen)))
			slices.SortStableFunc(live, func(a, b job) int {
				if a.tag != b.tag {
					return cmp.Compare(a.tag, b.tag)
				}
				return cmp.Compare(a.ref, b.ref)
			})
			k := 0
			for k < len(live) && live[k].tag <= v+tolerance(v) {
				k++
			}
			var want []uint64
			for _, j := range live[:k] {
				want = append(want, j.ref)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d at %d: ended %v, want %v", trial, now, got, want)
			}
			live = live[k:]
		}
	}
}

// A cycle in which an SM's jobs change but its share and DRAM demand come
// out the same (a CTA ends and one alike starts in its place) leaves the
// water as it was: nothing to catch up, and the level is still the
// passes'.
func TestWaterUnchangedCycle(t *testing.T) {
	m := New(2, 4, 10, func(int, int64, uint32) {})
	d := Demand{Issue: 2, DRAM: 8}
	for sm := range 2 {
		m.Start(0, sm, 100, d, uint64(sm))
		m.Start(0, sm, 300, d, uint64(2+sm))
	}
	m.Settle(0)
	g := m.g
	if g != 10.0/32 {
		t.Fatalf("g %v, want 10/32", g)
	}
	// At 10/32 the first jobs finish at cycle 320.
	if got := finished(m.Wake(320, 0, m.sms[0].gen)); !slices.Equal(got, []uint64{0}) {
		t.Fatalf("at 320: %v", got)
	}
	m.Start(320, 0, 50, d, 4)
	m.Settle(320)
	if m.g != g || m.water.stales != 0 {
		t.Errorf("g %v (was %v), %d SMs pending", m.g, g, m.water.stales)
	}
	if err := checkWater(m); err != nil {
		t.Error(err)
	}
}

// A wake-up comes at the first whole cycle at or after the finish, less
// the tolerance, kept to maxDelay: reschedule's ceiling from the truncated
// integer agrees with math.Ceil and the clamps (farDelay) on the
// boundaries of its range, on whole numbers and on either side of them.
func TestWakeUpDistance(t *testing.T) {
	works := []float64{1e-7, 2e-6, 0.5, 1, 1 - 1e-10, 1 + 1e-10, 1 + 1e-8, 3.000000001, 1e6 + 0.25,
		1 << 52, 1<<52 + 1, 1<<53 + 2, 1e15 + 0.375, maxDelay - 256, maxDelay, maxDelay + 256, maxDelay + 512, 1e19, 1e30}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		works = append(works, r.Float64()*1000, float64(r.IntN(1000))+r.Float64()*1e-8)
	}
	for _, rate := range []float64{1, 1.0 / 3, 0.7} {
		for _, w := range works {
			var got int64 = -1
			m := New(1, 1, 1e9, func(sm int, at int64, gen uint32) { got = at })
			const now = 100
			m.Start(now, 0, w, Demand{Issue: 1 / rate}, 0)
			m.Settle(now)
			want := int64(now)
			if w > tolerance(0) {
				want = now + farDelay(w/m.sms[0].rate-roundings.early)
			}
			if got != want {
				t.Errorf("work %v at rate %v: wake-up at %d, want %d", w, rate, got, want)
			}
		}
	}
}

// pace's one comparison before min gives min's float64s, bit for bit, on
// the shares and levels at its edges: ties, zeros of either sign,
// infinities and NaNs.
func TestPaceIsMin(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(-1), -1, math.Copysign(0, -1), 0, 5e-324, 0.25, 1, math.Inf(1)}
	for _, a := range vals {
		for _, g := range vals {
			if got, want := pace(a, 1, g), min(a, g); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("pace(%v, 1, %v) = %v, want %v", a, g, got, want)
			}
			if got := pace(a, 0, g); math.Float64bits(got) != math.Float64bits(a) {
				t.Errorf("pace(%v, 0, %v) = %v, want %v", a, g, got, a)
			}
		}
	}
}

// A model told where its Waker's wake-ups go (WakeIn) pushes and moves
// them in the queue itself, filling the hole a Pop left where Push would
// (eventq's Fills and FillHole), with no call of its Waker or Mover: the
// queue pops the same events in the same order, under the same tie keys,
// as with every wake-up through them, and the jobs end when they did,
// with the same totals.
func TestWakeInSameEvents(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var calls [2][2]int // without and with WakeIn: the Waker's calls, the Mover's
	for trial := range 60 {
		sms := []int{1, 4, 13}[trial%3]
		var starts []start
		if trial%2 == 0 {
			starts = randomStarts(r, 40*sms, sms)
		} else {
			starts = mixedStarts(r, 30*sms, sms, 0.02)
		}
		bw := float64(sms) * (2 + 60*r.Float64())
		var runs [2]*sim
		for i := range runs {
			s := newSim(sms, 4, bw)
			s.log = true
			if i == 1 {
				s.m.WakeIn(&s.q, evWake)
			}
			wake, move := s.m.wake, s.m.move
			s.m.wake = func(sm int, at int64, gen uint32) {
				wake(sm, at, gen)
				calls[i][0]++
			}
			s.m.move = func(sm int, at, prev int64, gen uint32) {
				move(sm, at, prev, gen)
				calls[i][1]++
			}
			s.play(starts, nil)
			runs[i] = s
		}
		a, b := runs[0], runs[1]
		if !slices.Equal(a.pops, b.pops) {
			k := 0
			for k < min(len(a.pops), len(b.pops)) && a.pops[k] == b.pops[k] {
				k++
			}
			t.Fatalf("trial %d: %d and %d events popped, first apart at %d", trial, len(a.pops), len(b.pops), k)
		}
		for ref, at := range a.ends {
			if b.ends[ref] != at {
				t.Fatalf("trial %d: job %d ends at %d with WakeIn, %d without", trial, ref, b.ends[ref], at)
			}
		}
		end := a.pops[len(a.pops)-1].At
		ai, ad := a.m.Totals(end)
		bi, bd := b.m.Totals(end)
		if ai != bi || ad != bd {
			t.Fatalf("trial %d: totals %v, %v with WakeIn; %v, %v without", trial, bi, bd, ai, ad)
		}
	}
	if calls[0][0] == 0 || calls[0][1] == 0 || calls[1] != [2]int{} {
		t.Fatalf("the Waker's and the Mover's calls %v without WakeIn, %v with it; want some, and none", calls[0], calls[1])
	}
}

// swapResult is what swapSim saw: the queue's pops, the jobs' ends, the
// model's totals, and the cycles that swapped and settled.
type swapResult struct {
	pops           []eventq.Event
	ends           map[uint64]int64
	issued, moved  float64
	swaps, settles int
	marks          int // wake-ups marked by Mark
	disowned       int // Disown's calls
	taken          int // swaps where the marks had been handed back
}

// swapSim runs 260 jobs of boundStarts on 13 SMs whose DRAM binds, its
// Wakes' marks owned (OwnMarks) as the replay's are where it swaps, and
// replaces each job that a wake-up finished alone in its cycle, up to
// 2,000 jobs, with one of its demand or, every seventh, of another: by
// Swap where swap is set, else by Mark, Start and Settle. With in, the
// model fills the queue itself (WakeIn), as under the replay. With
// disown, every other wake-up it marks hands the marks back (Disown), as
// the replay does where an SM is open, and the next Swap takes them
// again.
func swapSim(swap, in, disown bool) swapResult {
	s := newSim(13, 4, 20*13)
	s.m.OwnMarks()
	if in {
		s.m.WakeIn(&s.q, evWake)
	}
	starts := boundStarts(rand.New(rand.NewPCG(9, 10)), 20, 13)
	demand := map[uint64]Demand{}
	for i, st := range starts {
		s.q.Push(eventq.Event{At: st.at, Kind: evStart, Ref: int32(i)})
		demand[uint64(i)] = st.d
	}
	var r swapResult
	next, changed := uint64(len(starts)), false
	for s.q.Len() > 0 {
		ev := s.q.Pop()
		r.pops = append(r.pops, ev)
		last := s.q.Len() == 0 || s.q.Peek() != ev.At
		switch ev.Kind {
		case evStart:
			st := starts[ev.Ref]
			s.m.Start(ev.At, st.sm, st.work, st.d, uint64(ev.Ref))
			changed = true
		case evWake:
			done := finished(s.m.Wake(ev.At, int(ev.Ref), uint32(ev.Aux)))
			if done == nil {
				continue
			}
			for _, ref := range done {
				s.ends[ref] = ev.At
			}
			if changed || len(done) != 1 || !last || next >= 2000 {
				s.m.Mark(int(ev.Ref))
				if r.marks++; disown && s.m.Owned() && r.marks%2 == 0 {
					s.m.Disown()
					r.disowned++
				}
				changed = true
				break
			}
			if !s.m.Owned() {
				r.taken++ // Swap takes the marks again (swapMarked)
			}
			d := demand[done[0]]
			if next%7 == 0 {
				d = Demand{Issue: d.Issue + 1, DRAM: d.DRAM}
			}
			demand[next] = d
			work := float64(500 + next*7919%500)
			if swap {
				s.m.Swap(ev.At, int(ev.Ref), work, d, next)
			} else {
				s.m.Mark(int(ev.Ref))
				s.m.Start(ev.At, int(ev.Ref), work, d, next)
				s.m.Settle(ev.At)
			}
			r.swaps++
			next++
		}
		if changed && last {
			s.m.Settle(ev.At)
			r.settles++
			changed = false
		}
	}
	r.ends, r.issued, r.moved = s.ends, s.m.issued, s.m.moved
	return r
}

// Swap is Mark, Start and Settle, for a cycle whose one change so far is
// a Wake that finished one job: the same wake-ups in the same order (the
// queue's pops), the same ends, and the same totals of what the SMs
// issued and moved, every float64, with each such job replaced by one of
// its demand (Swap's common path, alike's test) or of another (its
// Settle), with the Waker's and Mover's closures and with the queue the
// model fills itself (WakeIn): see swapSim.
//
// With the marks handed back now and then (Disown, as the replay does
// where an SM is open), the swaps after each take the way of Start and
// Settle and take the marks again, and the results are the same again.
func TestSwapIsStartSettle(t *testing.T) {
	for _, in := range []bool{false, true} {
		for _, disown := range []bool{false, true} {
			on, off := swapSim(true, in, disown), swapSim(false, in, disown)
			if on.swaps < 500 {
				t.Fatalf("WakeIn %v, Disown %v: %d swaps: the test proves little", in, disown, on.swaps)
			}
			if disown && (on.disowned < 8 || on.taken < 8) {
				t.Fatalf("WakeIn %v: %d Disowns, %d swaps that took the marks again: the test proves little", in, on.disowned, on.taken)
			}
			if !slices.Equal(on.pops, off.pops) || on.swaps != off.swaps || on.settles != off.settles {
				t.Errorf("WakeIn %v, Disown %v: %d pops, %d swaps, %d settles with Swap; %d, %d, %d with Start and Settle", in, disown, len(on.pops), on.swaps, on.settles, len(off.pops), off.swaps, off.settles)
			}
			if !maps.Equal(on.ends, off.ends) || on.issued != off.issued || on.moved != off.moved {
				t.Errorf("WakeIn %v, Disown %v: ends or totals differ: issued %v, moved %v with Swap; %v, %v without", in, disown, on.issued, on.moved, off.issued, off.moved)
			}
			if plain := swapSim(false, in, false); disown && (!slices.Equal(on.pops, plain.pops) || !maps.Equal(on.ends, plain.ends) || on.issued != plain.issued) {
				t.Errorf("WakeIn %v: Disown's run differs from the run that never hands the marks back", in)
			}
		}
	}
}

// finished is the refs a Wake returned, done[lo:], nil where it was stale.
func finished(done []uint64, lo int) []uint64 {
	if done == nil {
		return nil
	}
	return done[lo:]
}
