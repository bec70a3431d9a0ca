// Package contention is the shared-throughput model every execution path
// of the replay uses: hardware CTAs, the work of launch sites, and the
// narrow-task runtimes' warps. Work that records a demand (warp
// instructions and DRAM bytes per cycle of its own progress, as it runs
// alone on an idle GPU) shares its SM's issue width with the other work on
// that SM, and the GPU's DRAM bandwidth with the work on every SM.
//
// # The sharing rule
//
// Processor sharing with equal slowdown per SM. Let R_j be the summed issue
// demand of the jobs on SM j and D_j their summed DRAM demand. The SM's
// issue share is a_j = min(1, W/R_j) for an issue width W. When the SMs
// would move more than the bandwidth B, Σ_j a_j·D_j > B, the DRAM factor g
// is the water level with Σ_j min(a_j, g)·D_j = B (max-min fair between
// SMs: an SM already slowed by its own issue width below g keeps its
// share, the others divide what is left); otherwise g = ∞. Every job on SM
// j progresses at the SM's rate f_j = min(a_j, g) (just a_j when D_j = 0),
// and ends when its progress reaches its work.
//
// This is the first-order picture of the analytical GPU models: an SM whose
// warps ask for more issue slots than its schedulers have runs them at the
// schedulers' rate (Hong & Kim's MWP-CWP model, ISCA 2009, bounds an SM by
// its compute and memory warp parallelism in the same way), and when the
// SMs' memory requests exceed DRAM bandwidth every SM's memory warps wait on
// the same queue (GPUMech, MICRO 2014, adds the bandwidth queue to the
// per-SM interval model). Equal slowdown on one SM is what a loosely
// round-robin warp scheduler gives warps of like demand, and is what simtbs
// applies: one occupancy-dependent overhead for every thread block on an SM.
//
// # Cost
//
// Each SM keeps a virtual clock v_j that advances at f_j; a job's finish is
// a fixed virtual time (its start's v_j plus its work), kept in a per-SM
// queue in (finish, start) order. A rate change therefore moves one wake-up
// per SM, not one per job. Finishing a job takes it from the queue's front;
// starting one puts it after the jobs that finish before it, moving the
// later ones up a place, and they are few: a job starts at its SM's latest
// virtual time, and a kernel's CTAs are alike (synth's jittered CTAs, 16 on
// an SM, move about one a start; the jobs an SM holds are bounded by its
// occupancy, a few dozen at most). Beyond that, a start or a finish costs
// the SMs whose rate changed (every SM moving DRAM bytes when the water
// level moves). A cycle whose SMs come out with the issue shares and DRAM
// demands they had (a CTA ending and a like one starting in its place: most
// cycles with changes under synth) leaves the level and those SMs' rates
// where they were: Settle does not look at them, and only finds the next
// finish of the SMs whose jobs changed. Under synth (k20c, cdp: each CTA one
// job, 16 on an SM, DRAM bound) a CTA's start, end and settles cost the
// model some 360 instructions (callgrind, --quick: Wake 118, Start 90,
// Settle 60 and reschedule 68 of their own, the level and repace 21; 420
// before settleOne, Start's inline insert and the marks as records; 475
// before the rates kept, water's records and push's room off its path; 660
// with a binary heap per SM, whose pop alone took ~160), its wake-up's
// events besides (some 140: each put into the owner's event queue, mostly
// into the hole its last left there, 108, see WakeIn, and the moves a moved
// level asks for, 32). A wake-up moved while still pending goes to the
// owner's Mover, where one is given, so that the owner can move its event
// rather than leave it to fire stale (the replay's does: eventq.Queue.Move).
//
// The water level itself comes from state kept as the SMs' jobs change
// (water): each SM's share, demand and load are stored as they change; the
// SMs moving DRAM bytes are kept in issue-share order and their demands
// summed as exact integers, both brought up to date only at the end of a
// cycle where DRAM may bind, which a sum of the SMs' loads (four running
// sums) tells, or, while they fit, the loads' rises since that sum. There
// the level costs the SMs changed since (each moved to its place), the SMs
// the passes hold (sorted into SM order), and a sum of the demands in SM
// order only when some demand is off the integers' grid (a CTA's demand
// split over its warps); the passes' results over every SM, the same
// float64s (water's doc gives the argument, and water_test.go keeps those
// passes and compares). While the level is +Inf and the SMs clearly fit in
// the bandwidth, a cycle's changes need not reach the water at all: a bound
// on how far the loads can have risen since it last recorded them tells, and
// the marked SMs' rates are their shares (Model.owe).
//
// The model does no I/O and owns no clock: its owner schedules
// the wake-ups it asks for (Model.wake) in its own event queue, or, where
// that is an eventq.Queue it names (WakeIn), has the model put them there
// as its events, and calls Wake when one fires, and calls Settle once at
// the end of every cycle in which it started or finished work.
package contention

import (
	"math"
	"slices"

	"github.com/gpureplay/gpureplay/internal/eventq"
)

// Demand is what a job asks of the shared hardware per cycle of its own
// progress when it runs alone.
type Demand struct {
	Issue float64 // warp instructions per cycle
	DRAM  float64 // bytes per cycle
}

// None reports whether the demand is empty: such work neither slows nor is
// slowed, and its owner runs it outside the model.
func (d Demand) None() bool { return !(d.Issue > 0) && !(d.DRAM > 0) }

// Scale is the demand of a part of a job that does f of its work at once
// (one warp of a CTA's n: f = 1/n).
func (d Demand) Scale(f float64) Demand { return Demand{d.Issue * f, d.DRAM * f} }

// Waker schedules Wake(sm, gen) at cycle at in the owner's event queue.
// Wake-ups with an older gen than the SM's latest are stale and do nothing.
type Waker func(sm int, at int64, gen uint32)

// Mover schedules Wake(sm, gen) at cycle at as a Waker does, where the
// SM's wake-up of generation gen−1, at cycle prev, is still pending and
// superseded by it: the owner may take that one out of its queue.
type Mover func(sm int, at, prev int64, gen uint32)

// Model is the shared-throughput state of one GPU.
type Model struct {
	width float64 // warp instructions per SM per cycle
	bw    float64 // DRAM bytes per cycle
	wake  Waker
	move  Mover         // nil: moves are wake-ups too
	q     *eventq.Queue // nil, or where the Waker's wake-ups go: see WakeIn
	kind  uint8         // their kind there

	sms           []smState
	water         water      // the SMs' shares and demands the DRAM factor comes from
	dirty         []*smState // the records of the SMs whose jobs changed this cycle, in marking order
	g             float64    // the DRAM factor (+Inf: DRAM does not bind)
	open          bool       // g is +Inf: the water may wait (owe)
	owner, owned  bool       // the owner takes the marks where it can (OwnMarks); Wake leaves the SMs unmarked, for the owner (OwnMarks, Disown)
	nan, finite   bool       // finite: g is neither +Inf nor a NaN, one test (alike, Swap); nan: g is a NaN, which never equals itself: every Settle that marks an SM finds the level again (tested as g != g, 2 instructions more)
	done          []uint64   // scratch: refs finished by the last Wake; room for any queue (makeRoom)
	issued, moved float64    // warp instructions issued so far, and DRAM bytes moved
	woken         *smState   // the SM the last Wake woke, for the owner's mark (MarkWoken)
}

// New makes the model of a GPU of sms SMs, each issuing width warp
// instructions per cycle, sharing bw DRAM bytes per cycle.
func New(sms int, width, bw float64, wake Waker) *Model {
	m := &Model{width: width, bw: bw, wake: wake, sms: make([]smState, sms), water: newWater(sms), dirty: make([]*smState, 0, sms), g: math.Inf(1), open: true, done: []uint64{}}
	for i := range m.sms {
		m.sms[i] = smState{rate: 1, next: -1, id: int32(i), water: &m.water.sms[i]}
	}
	return m
}

// MoveWith has the model ask mv, not its Waker, for the wake-ups that
// supersede a pending one.
func (m *Model) MoveWith(mv Mover) { m.move = mv }

// WakeIn tells the model that its Waker pushes each wake-up into q as the
// event {At: at, Kind: kind, Ref: sm, Aux: gen}, and its Mover, if any,
// moves the pending one there (eventq.Queue.Move), and that they do
// nothing else: the model then pushes and moves its wake-ups itself,
// with no call of either, and where the Push would fill the hole a Pop
// left at the root (eventq's Fills), it fills it (FillHole). An SM's wake-up that fired is mostly followed by its next in
// the same cycle's Settle, into that hole (457K of synth --quick's 500K
// wake-ups): a fill is one call of some 105 instructions (the sift of
// three or four levels), where the Waker's call (a closure) and then
// Push's and push's were some 125 (synth --quick: 1,257 → 1,249
// instructions a CTA; TestWakeInSameEvents checks that the queue pops
// the same events). Moved with no call of the Mover's closure, synth's
// 86K moves cost 1,249 → 1,246.
func (m *Model) WakeIn(q *eventq.Queue, kind uint8) { m.q, m.kind = q, kind }

// job is a job in its SM's queue: when it finishes, and what it stands
// for and demands.
type job struct {
	tag    float64 // virtual time at which it finishes
	ref    uint64
	demand Demand
}

type smState struct {
	jobs   []job   // jobs[lo:] by (tag, start order): the queue
	lo     int     // the queue's first job
	v      float64 // virtual time: progress of a job running since v = 0
	at     int64   // cycle v was last advanced to
	rate   float64 // progress per cycle now
	demand Demand  // summed over jobs
	gen    uint32
	next   int64 // the wake-up asked for, -1 for none
	dirty  bool
	id     int32    // its index in m.sms
	water  *waterSM // its record in m.water
	acct   float64  // its load in the water, or the highest load it has had since, where higher (owe)
}

// advance brings SM s's virtual clock to now at its current rate and
// accounts what it issued and moved meanwhile. It returns s, so that
// Start and Wake can work on s on advance's line (see markDirty). A clock
// stands while its SM has no jobs; busy says it has, untested: Wake's SM,
// whose wake-up, not stale, was asked for where it had jobs, and only Wake
// takes jobs out (--quick: bfs 2,496 → 2,487 instructions a CTA, sweep8's
// E 1,506 → 1,503; the replay's and model's own, 405.38M → 404.02M).
func (m *Model) advance(s *smState, now int64, busy bool) *smState {
	if dt := now - s.at; dt > 0 && (busy || s.lo < len(s.jobs)) {
		dv := float64(dt) * s.rate
		s.v += dv
		m.issued += dv * s.demand.Issue
		m.moved += dv * s.demand.DRAM
	}
	s.at = now
	return s
}

// Start begins a job of work cycles of progress on SM sm at cycle now.
// When it finishes, a Wake returns ref: the owner's name for the job, 64
// bits so that it can hold what the owner needs (the replay's CTA slot
// and warp) without a table of the owner's own to look it up in.
func (m *Model) Start(now int64, sm int, work float64, d Demand, ref uint64) {
	// (the record's address taken on advance's line: see markDirty)
	s := m.advance(&m.sms[sm], now, false)
	if work < 0 { // max(work, 0), as v is never -0
		work = 0
	}
	// The demand and the mark first: push's call then keeps nothing live
	// across it, where the compiler stored what it kept before the
	// branch on every Start (six values with the demand after: synth
	// --quick 2,226 → 2,220 instructions a CTA, with the append to
	// s.jobs itself, which writes only its length; three with the mark
	// after: 1,865 → 1,858).
	s.demand.Issue += d.Issue
	s.demand.DRAM += d.DRAM
	if !s.dirty { // markDirty's test, here: see markAt for its call's mark
		m.markAt(s, len(m.dirty))
	}
	j := job{tag: s.v + work, ref: ref, demand: d}
	if len(s.jobs) < cap(s.jobs) {
		s.insert(j, len(s.jobs)+1)
	} else {
		m.push(s, j)
	}
}

// Wake is the owner's wake-up for SM sm firing at now (see OwnMarks). Refs
// of the jobs that have finished, in (finish, start) order, are done[lo:],
// valid until the next call; a stale wake-up (superseded by a later one)
// returns a nil done and does nothing, any other a done not nil, done[lo:]
// empty where no job has finished: one test tells the owner both. A ref
// goes in at its job's own index, done[n], in done sliced to len(q) (the
// loop's test proves done[n]): inlined in the replay's loop, n-lo kept n on
// the stack (--quick: bfs 2,408 → 2,405 a CTA, sweep8 E 1,390 → 1,385).
//
// Its loop tests the queue's end unsigned, uint(n) < uint(len(q)), as
// reschedule tests for a first job: n is s.lo or more, never negative,
// which the compiler cannot tell of an int field, and the signed test
// left a bounds check on q[n] at every job looked at, and on s.jobs[s.lo]
// at every wake-up asked for (--quick: bfs 3,379 → 3,366; synth 1,397 → 1,394).
func (m *Model) Wake(now int64, sm int, gen uint32) (done []uint64, lo int) {
	s := &m.sms[sm]
	if gen != s.gen {
		return nil, 0
	}
	// (s.next stored on advance's line: see markDirty)
	m.advance(s, now, true).next = -1
	due := s.v + tolerance(s.v)
	// The refs go into m.done by index, where makeRoom keeps room for
	// every job a queue holds (appended, the loop reloaded and wrote back
	// m.done at every job: --quick synth 1,859 → 1,857 instructions a CTA,
	// BFS 4,820 → 4,815). The queue is read from s.lo by index, not
	// resliced (s.jobs[s.lo:]: --quick synth 1,592 → 1,588, bfs 3,744 →
	// 3,740). The demand is taken down in dm, stored once: the loop loaded
	// and stored s.demand at every job (own instructions, --quick: bfs
	// 55.554M → 55.517M, sweep8 408.59M → 408.24M, synth 339.50M → 339.01M).
	q, dm, done, lo := s.jobs, s.demand, m.done[:len(s.jobs)], s.lo
	n := lo
	for ; uint(n) < uint(len(q)); n++ { // unsigned: see above
		if !(q[n].tag <= due) { // jobs left: n < len(q) proves done[:n], past a test of n == len(q) after the loop (own, bfs --quick 1,400.5 -> 1,394.0 a CTA)
			s.lo, s.demand = n, dm
			m.markWoken(s) // where the owner does not (OwnMarks)
			return done[:n], lo
		}
		dm.Issue -= q[n].demand.Issue
		dm.DRAM -= q[n].demand.DRAM
		done[n] = q[n].ref
	}
	// Sums drift: an empty SM starts again from exact zeros, its clock too.
	s.demand, s.v = Demand{}, 0
	s.jobs, s.lo = s.jobs[:0], 0 // its length alone written
	m.markWoken(s)
	return done, lo
}

// tolerance absorbs the rounding of virtual times: a wake-up is scheduled
// at the first whole cycle at or after a job's exact finish. An SM's
// clock v is never negative, so rel·v is rel·|v|: it starts at 0 and
// moves by dt·rate, dt > 0, at a share in [0, 1] (a width > 0, as model
// validates it), a NaN, or a level ≥ 0 (left/rest: below 0 by roundings
// only where the SMs a pass leaves out demand under some n·2⁻⁵² of all n
// SMs' DRAM). math.Abs's cost, --quick: bfs 2,501 → 2,497, E 1,515 → 1,506.
func tolerance(v float64) float64 { return roundings.abs + roundings.rel*v }

// markDirty marks the SM whose record is s for the next Settle. Start and
// Wake hand it the record they hold: looked up again from the SM's index,
// it cost a bounds check and the record's address after their stores,
// which the compiler cannot tell from m.sms (synth --quick: 1,872 →
// 1,864 instructions a CTA; BFS 4,830 → 4,821). The marks are the
// records themselves, not their indexes, for the same reason: each of
// Settle's loops looked a marked SM's record up again, and the index,
// where it is needed, is a load from the record (s.id) (--quick: synth
// 1,549 → 1,547 instructions a CTA; bfs 3,716 → 3,703, medians of 3).
//
// An SM is marked at most once a cycle, so New gives m.dirty room for
// every SM and a mark is written in place: append's growth, a call
// however rare, had Wake keep a frame and spills for it (synth --quick:
// 1,439 → 1,435 instructions a CTA; water.set's marks, written in place
// likewise, took Settle's spills of its arguments at every call: 1,432).
//
// The compiler marks each inlined call with an instruction of the call's
// own line, and where the line has none (no argument to compute), with a
// NOP executed at every call. Start tests s.dirty at its call, which that
// test then marks (the compiler drops markDirty's own test there): a
// started CTA's SM is mostly marked already under synth (a CTA ended on it
// in the cycle). Wake's SM mostly is not (Settle clears the marks): its
// call keeps its NOP. Settle's calls of reschedule and settleOne compute
// an argument on their own lines for the same reason (s.id's load, i's
// widening to int). Together (scripts/instructions.sh): synth --quick
// 1,324 → 1,322 instructions a CTA, BFS (scale 20) 2,329 → 2,325.
// advance returns its SM for the same reason: Start takes the SM's
// record's address, and Wake stores s.next, on advance's line (synth
// --quick 1,316 → 1,314, BFS scale 20 2,322 → 2,320).
func (m *Model) markDirty(s *smState) {
	if !s.dirty {
		s.dirty = true
		m.dirty = m.dirty[:len(m.dirty)+1] // room for every SM: see New
		m.dirty[len(m.dirty)-1] = s
	}
}

// Settle recomputes the rates the jobs started and finished this cycle
// have changed, and asks for a new wake-up for every SM whose next finish
// moved. Call it once at the end of every cycle with changes.
//
// The level moves only with some SM's share or demand (a NaN level never
// equals itself, and marks every SM again), and an SM whose share and demand
// stayed, under a level that stayed, keeps its rate: a CTA ending and a like
// one starting in its place (most cycles with changes under synth) costs the
// model only that SM's next finish. Its rate set anew at every Settle cost
// synth 9 instructions a CTA (--quick: 1,942 → 1,933). Start and Wake
// brought each marked SM's clock to now, in the order the SMs were marked,
// as the model's totals of what they issued and moved add up in that order.
// Each SM marked then has its rate for the cycle (one whose share, demand
// and level stayed kept its own), and what is left is their next finishes.
// That last loop reads the SMs from m.dirty by index: a range over it kept
// the slice's pointer and length across each wake-up's call, stored and read
// back (--quick: synth 1,806 → 1,797 instructions a CTA, bfs 4,658 → 4,650).
//
// An SM's share comes from its jobs as they are: its clock is at now
// already, as Start, Wake and repace, which mark it, advanced it (again here
// cost --quick synth 8 instructions a CTA, bfs 13). Where it is the only
// SM marked and its share and demand stayed, under a level neither +Inf
// nor a NaN, settleOne ends the cycle at once (alike); under a level of
// +Inf, from the first loop where the water was paid (see there).
//
// While the level is +Inf and the SMs' DRAM demands clearly fit in the
// bandwidth, the water need not record the marked SMs' shares and demands at
// all: owe gives them their rates and Settle goes from there to the last
// loop, past the first loop and the level (see owe). A cycle that marked no
// SM owes nothing and finds nothing in either loop, and asks for no level
// even where it is a NaN: the test of an empty m.dirty that ended Settle at
// once cost every cycle 2 instructions (synth --quick: 1,394 → 1,392).
//
// (payOwed hands back m and now: see there.)
func (m *Model) Settle(now int64) {
	if m.alike(m.finite) { // see alike
		m.settleOne(int(m.dirty[0].id), m.dirty[0])
		return
	}
	moved := false
	if m.open { // the level is +Inf: the water may wait (see owe)
		if b := m.owe(); m.water.fits(b) {
			m.water.skips, m.water.bound, m.water.owing = m.water.skips+1, b, true // see fits
			goto marked
		}
		m, now = m.payOwed(now)
	}
	for _, s := range m.dirty {
		i := s.id
		share, d := m.issueShare(s.demand.Issue), s.demand.DRAM
		if m.water.set(i, s.water, share, d) {
			moved, s.rate, s.acct = true, pace(share, s.water.dram, m.g), s.water.load
		} else if len(m.dirty) == 1 && !m.nan {
			m.settleOne(int(i), s)
			return
		}
	}
	if moved || m.nan && len(m.dirty) > 0 {
		if g := m.water.level(m.bw); g != m.g {
			m.repace(g, now)
		}
	}
marked: // what is left: the marked SMs' next finishes (see above)
	if len(m.dirty) == 1 { // see settleOne
		m.settleOne(int(m.dirty[0].id), m.dirty[0])
	} else {
		for k := 0; k < len(m.dirty); k++ {
			s := m.dirty[k]
			s.dirty = false
			m.reschedule(int(s.id), s, s.at) // s.id loaded on the call's line, its mark: see markDirty
		}
		m.dirty = m.dirty[:0]
	}
}

// issueShare is an SM's issue share a_j under its summed issue demand.
func (m *Model) issueShare(issue float64) float64 {
	if issue > m.width {
		return m.width / issue
	}
	return 1
}

// pace is the rate of an SM of issue share a and summed DRAM demand d
// under the DRAM factor g.
//
// A share below the level is the rate min(a, g) gives, exactly, and is
// returned with one comparison: Settle's first loop, where it is inlined,
// mostly meets a level of +Inf (BFS --quick: DRAM never binds), and min's
// float sequence, which must give NaN and -0 where either is one, took
// five instructions there (--quick, instructions a CTA: bfs 3,366 →
// 3,359; synth 1,394 → 1,394). The other cases, ties and NaNs among
// them, go to min as before, so results are the same float64s. Settle
// hands it the demand set stored (s.water.dram: below 0 made 0, which
// passes d > 0 alike), not the one it read, which it kept in a register
// across set (--quick: bfs 3,359 → 3,357, synth 1,394 → 1,391).
func pace(a, d, g float64) float64 {
	if d > 0 && !(a < g) {
		return min(a, g)
	}
	return a
}

// reschedule asks for a wake-up at the first whole cycle at which SM s's
// earliest job finishes at its current rate, from now (Settle's: s.at).
func (m *Model) reschedule(i int, s *smState, now int64) {
	at := int64(-1)
	if uint(s.lo) < uint(len(s.jobs)) { // unsigned: see Wake
		at = now
		if left := s.jobs[s.lo].tag - s.v; left > tolerance(s.v) {
			t := left/s.rate - roundings.early
			dt := int64(t) // ⌈t⌉ is dt or dt+1 where t is in (−1, maxDelay]
			if float64(dt) < t {
				dt++
			}
			if at = now + dt; uint64(dt) > far { // see farDelay
				at = now + farDelay(t)
			}
		}
	}
	if at == s.next {
		return
	}
	prev := s.next
	s.gen++
	s.next = at
	switch {
	case at < 0:
	case m.q != nil: // see WakeIn
		e := eventq.Event{At: at, Kind: m.kind, Ref: int32(i), Aux: int32(s.gen)}
		switch {
		case prev >= 0 && m.move != nil:
			m.q.Move(eventq.Event{At: prev, Kind: e.Kind, Ref: e.Ref, Aux: int32(s.gen - 1)}, e)
		case m.q.Fills(at):
			m.q.FillHole(e)
		default:
			m.q.Push(e)
		}
	case prev >= 0 && m.move != nil:
		m.move(i, at, prev, s.gen)
	default:
		m.wake(i, at, s.gen)
	}
}

// maxDelay caps a wake-up's distance so absurd demands cannot overflow the
// owner's clock; a job still unfinished then is simply woken again.
const maxDelay = 1 << 60

// SM reports SM sm's jobs, their summed demand and the rate they
// progress at, as of the last Settle: the model's state for a reader
// that shows it mid-run (the engine's golden cases).
func (m *Model) SM(sm int) (jobs int, demand Demand, rate float64) {
	s := &m.sms[sm]
	return len(s.jobs) - s.lo, s.demand, s.rate
}

// DRAMFactor is the water level g of the last Settle: +Inf where DRAM
// does not bind.
func (m *Model) DRAMFactor() float64 { return m.g }

// Busy reports whether SM sm has jobs in the model.
func (m *Model) Busy(sm int) bool { s := &m.sms[sm]; return s.lo < len(s.jobs) }

// Totals are the warp instructions issued and DRAM bytes moved by every job
// up to cycle now, for utilisation figures.
func (m *Model) Totals(now int64) (insts, bytes float64) {
	for i := range m.sms {
		m.advance(&m.sms[i], now, false)
	}
	return m.issued, m.moved
}

// Utilization is the fraction of the issue slots (SMs × width × cycles)
// and of the DRAM bandwidth (bw × cycles) that jobs used over span cycles
// ending at now.
func (m *Model) Utilization(now, span int64) (issue, dram float64) {
	if span <= 0 {
		return 0, 0
	}
	insts, bytes := m.Totals(now)
	return insts / (float64(len(m.sms)) * m.width * float64(span)), bytes / (m.bw * float64(span))
}

// push puts j in the queue after the jobs that finish before it or with
// it (those started earlier: start order breaks ties), moving the later
// ones up a place, from the end: a job mostly finishes after most of
// those already there (it starts at the SM's latest virtual time, and a
// kernel's CTAs are alike: synth with jittered CTAs, 16 on an SM, moves
// about one job a start, half of the starts none). The space before the
// queue, where finished jobs were, is taken back when the slice is full
// and that space is at least 15/16 of it, so the jobs move down at most
// once for every 15 jobs started since they last did, and a slice holds
// at most 32 times the most jobs its SM has had at once. Taken back at
// half, as it was, synth's queues (16 jobs on an SM) moved down every 16
// starts or so, a call of memmove each (28,650 of synth --quick's
// 500,000 starts): 9 instructions a CTA more (1,266 → 1,257; at 7/8,
// 1,258).
//
// Room is made first, when the slice is full, and the job then put in place in the slice made one
// longer: with the move down and append's growth on its way, push saved
// its arguments to the stack on every call, wrote the job at the end
// before moving it, and wrote back the whole slice (synth --quick: 1,932
// → 1,923 instructions a CTA).
func (m *Model) push(s *smState, j job) {
	if len(s.jobs) == cap(s.jobs) {
		m.makeRoom(s)
	}
	s.insert(j, len(s.jobs)+1)
}

// insert puts j in place in s's queue, made n = len(s.jobs)+1 long, as
// push does: from the end, after the jobs that finish before it or with
// it (inlined in Start where there is room: push's call cost more, synth
// --quick 1,563 → 1,549). n, computed on the call's line, marks it, where
// Start's call left a NOP (markDirty; own, bfs --quick 1,402.6 → 1,400.5).
func (s *smState) insert(j job, n int) {
	s.jobs = s.jobs[:n] // its length alone written
	h := s.jobs
	i := len(h) - 1
	for lo := int(uint32(s.lo)); i > lo; i-- { // s.lo as a uint32's, never negative (2³² jobs would take 128 GiB), proves h[i-1]: --quick bfs 2,408 → 2,405, E 1,383 → 1,379
		if !(j.tag < h[i-1].tag) { // its place: i < len(h) proven here, where the store after the loop had a bounds check (own, bfs --quick 1,394.0 → 1,390.1 a CTA)
			h[i] = j
			return
		}
		h[i] = h[i-1]
	}
	h[i] = j
}

// makeRoom makes room in SM s's full queue for one job more: the space
// before it, or a larger slice (as append would grow it), and then room
// in m.done for every job the slice can hold, which Wake counts on.
func (m *Model) makeRoom(s *smState) {
	h := s.jobs
	if 16*s.lo >= 15*len(h) && s.lo > 0 {
		s.jobs, s.lo = h[:copy(h, h[s.lo:])], 0
		return
	}
	s.jobs = slices.Grow(h, 1)
	if c := cap(s.jobs); cap(m.done) < c {
		m.done = make([]uint64, c)
	}
}

// settleOne ends Settle for a cycle that changed one SM, i: its next
// finish is all there is to find. Settle calls it at its top where alike
// finds its share and demand as they were under a level that stands (a
// CTA's end and a like one's start in its place: most of synth's
// cycles), from its first loop where the water was paid (payOwed), and
// in its last loop's place: the loop's tests and the values it reloads
// after the wake-up is asked for, and at each level of the wake-up's sift
// (the loop's index and m), cost more than a call of reschedule, which is
// inlined only at Settle's own line (the PGO profile's): synth --quick
// 1,583 → 1,568 instructions a CTA; in the last loop's place (BFS: two
// of three Settles), --quick bfs 2,398 → 2,396, sweep8's E 1,376 → 1,372,
// synth 890 → 890. Found at Settle's top, the cycle costs less again.
func (m *Model) settleOne(i int, s *smState) {
	m.dirty = m.dirty[:0]
	s.dirty = false
	m.reschedule(i, s, s.at)
}

// alike reports whether Settle's cycle marked one SM, whose issue share
// and DRAM demand are those the water holds, under a level neither +Inf
// (owe's) nor a NaN (finite, m.finite). Settle then ends the cycle in
// settleOne, as its first loop would (water.set finds nothing changed:
// water.same is its test), with no loop nor the values that loop keeps:
// a CTA's end and a like one's start on its SM, 97% of synth's Settles
// (--quick: synth 1,203 → 1,192 instructions a CTA, bfs 2,806 → 2,807;
// every cycle's test cost BFS 37: settleOne). Under a level of +Inf, most
// of BFS's cycles, it tests the level alone, one flag (open and nan were
// two: BFS 2,721 → 2,715, synth 925 → 923, Swap's test the same). A bool,
// not the SM: a pointer, nil at BFS's test, was set and tested again at
// every Settle (own instructions, below: bfs --quick 1,586.3 → 1,584.4 a
// CTA, sweep8 11,678.9 → 11,662.8). The flag is its argument, loaded on
// its call's line, which then marks the inlined call, where the line had
// a NOP at every Settle (see markDirty; the replay's and model's own
// instructions, exact from run to run: bfs --quick 55,588,318 →
// 55,554,410, sweep8 408.88M → 408.59M, synth 339.50M as it was). Its
// call took four comment lines' place in Settle (PGO: docs/performance.md).
func (m *Model) alike(finite bool) bool {
	if !finite || len(m.dirty) != 1 { // neither +Inf nor a NaN: one test
		return false
	}
	s := m.dirty[0]
	if !m.water.same(s.water, m.issueShare(s.demand.Issue), s.demand.DRAM) {
		return false
	}
	return true
}

// farDelay is a wake-up's distance, in whole cycles, for a finish t
// cycles away: ⌈t⌉ kept to [0, maxDelay], a NaN converted as it is.
// reschedule has it only where t is outside (−1, maxDelay] or NaN, and
// elsewhere takes ⌈t⌉ as the truncated integer or the next, which is
// exact there. math.Ceil and the clamps on every wake-up cost a test of
// the CPU's rounding instruction, reloaded with the clamps' constants
// after each Waker's call, and two float comparisons; farDelay is not
// inlined, so that its constants are not kept in Settle's loop (synth
// --quick: 1,568 → 1,563 instructions a CTA, bfs 3,722 → 3,716, medians
// of 3). The whole distance as a function of its own was not inlined
// (its call of farDelay puts it past the budget), and its call in
// Settle's loop cost synth 24 instructions a CTA.
//
//go:noinline
func farDelay(t float64) int64 {
	dt := math.Ceil(t)
	if dt > maxDelay {
		dt = maxDelay
	}
	if dt < 0 { // max(dt, 0) but for -0 and NaN, which convert alike
		dt = 0
	}
	return int64(dt)
}

// roundings are the wake-ups' rounding allowances (tolerance's, and
// reschedule's step back from an exact finish), constants kept in a
// variable that nothing writes. As constants, Settle's loop over the
// marked SMs, with reschedule inlined, set them in registers again after
// every Waker's call, and they went to registers where an instruction
// could read them from memory; as loads, each use reads them where it is
// (--quick, instructions a CTA: synth 1,432 → 1,428, bfs 3,480 → 3,474).
var roundings = struct{ abs, rel, early float64 }{1e-6, 1e-12, 1e-9}

// owe gives the marked SMs their rates under a level of +Inf, their issue
// shares, and returns how far the loads can have risen since the water
// recorded them (bound); where the water's test of the rises finds that
// the loads still clearly fit in the bandwidth (fits), the level stays
// +Inf whatever their shares and demands, the water need not record them
// yet (they are owed), and Settle goes from here to its last loop, past
// its first loop and the level. Under BFS, whose SMs mostly fit the
// bandwidth, the first loop's water.set and pace and the level's test of
// the rises cost more than this loop (scale 20, instructions a CTA:
// 2,719 → 2,685; 16 a marked SM here, some 45 there). owe and fits are
// small enough to be inlined in Settle (its call, once with a stack check
// and a frame for a list of the SMs owed, cost 6 instructions a CTA more:
// 2,684 → 2,678 in two steps; see payOwed for the list).
//
// An SM's load is a_j·D_j, its share and DRAM demand, as the water would
// record it (the same product), so the loads have risen since the water
// recorded them by at most Σ (L_j − l_j) over the SMs, l_j the load
// recorded, L_j the highest load the SM has had since where higher
// (acct, which starts again from l_j wherever the water records the SM;
// a NaN load, of 0·Inf, makes the bound a NaN, which fits nothing). The
// load, not the demand D_j, which bounds it too (a_j ≤ 1): an SM whose
// share is below 1 owed D_j(1−a_j) at each Settle that marked it, and
// near the bandwidth a synth on h100 (ipc 0.5, dram_bpc 1.8) paid the
// water at 770K of its 881K Settles (3,380 instructions a CTA, against
// 1,734 so and 1,774 with no owe). While the bound, with the water's own
// rises, fits in the room the last sum of the loads left, the loads fit
// in the bandwidth as level's test of the rises finds them (see there;
// owed Settles count among its skips), and the level, a function of the
// shares and demands alone, is +Inf, as it was: each SM's rate is its share, as pace gives it
// under +Inf. Otherwise the water records every SM (Settle calls payOwed)
// and Settle goes on as before, the water then as it would be had it
// recorded each SM at its own Settle.
func (m *Model) owe() float64 {
	b := m.water.bound
	for _, s := range m.dirty {
		a := m.issueShare(s.demand.Issue)
		if d := s.demand.DRAM; d > 0 {
			if l := a * d; !(l <= s.acct) { // a NaN (0·Inf) fails the water
				b += l - s.acct
				s.acct = l
			}
		}
		s.rate = a // pace under a level of +Inf
	}
	return b
}

// payOwed has the water record every SM's share and demand, where some
// wait (owing), and each SM's acct start again from its load: owe's loop
// raised those of the SMs marked, and the first loop may record none of
// them. Where one changed, the first SM marked is made to look changed
// to Settle's first loop (its recorded share a NaN, which equals
// nothing), which then finds the level: it would have found it when the
// water recorded that change. Where none changed, the water is as the
// last level found it, and the first loop finds what it would have: the
// marked SMs' changes since, each against its share and demand then,
// with their rates (owe) where they are alike. Every SM, not a list of
// those owed: a list, its appends and their marks in owe's loop cost BFS
// scale 20 4 instructions a CTA (2,682 → 2,678), where this loop runs at
// 0.2% of its Settles. Where nothing is owed, only this Settle's owe
// raised accts, those of the SMs marked: the water's room is unknown
// until a level is asked for (no SM has a DRAM demand), or the cycle's
// rises do not fit, and every SM's, at each Settle, took a synth with no
// DRAM demand on h100 from 1,720 instructions a CTA to 3,367.
//
// It hands back m and now as they came: Settle then keeps neither live
// across the call, where it saved both on the stack at every Settle,
// those of the cycles that owe nothing included (synth --quick, whose
// DRAM binds: 2 instructions a CTA).
func (m *Model) payOwed(now int64) (*Model, int64) {
	if !m.water.owing { // only this owe raised accts, the marked SMs'
		for _, s := range m.dirty {
			s.acct = s.water.load
		}
		m.water.bound = 0
		return m, now
	}
	changed := false
	for i := range m.sms {
		s := &m.sms[i]
		if m.water.set(s.id, s.water, m.issueShare(s.demand.Issue), s.demand.DRAM) {
			changed = true
		}
		s.acct = s.water.load
	}
	m.water.owing, m.water.bound = false, 0
	// With no SM marked, the change recorded is one the last fits covered
	// (the level stays +Inf): the next level asked for finds it.
	if changed && len(m.dirty) > 0 {
		m.dirty[0].water.share = math.NaN()
	}
	return m, now
}

// repace makes g the level (and tells open and nan from it), and has
// every SM moving DRAM bytes go at its pace under it, marked for Settle's
// last loop. It is Settle's code as it was, out of line: the level moves
// at 2% of synth's Settles, and seldom under BFS.
func (m *Model) repace(g float64, now int64) {
	m.g, m.open, m.nan, m.finite = g, g > math.MaxFloat64, g != g, g <= math.MaxFloat64
	for i := range m.sms {
		if s := &m.sms[i]; s.demand.DRAM > 0 {
			m.markDirty(s)
			m.advance(s, now, false)
			s.rate = min(s.water.share, g)
		}
	}
}

// Swap is Mark(sm), Start(now, sm, work, d, ref) and then Settle(now),
// for an owner of its marks (OwnMarks) whose cycle so far is one Wake of
// SM sm, at now: the job that takes the place of the one that wake-up
// finished (the replay's swap of a CTA's end for its kernel's next on
// its SM: replay.swapPlain). Where the cycle marked no SM and the SM's
// share and demand come out as the water holds them under a level that
// stands (alike's test), Settle would do no more than settleOne: the
// SM's next finish. Swap does that with no mark and no call of Start,
// Settle, alike or settleOne; elsewhere it marks the SM and calls Start
// and Settle. Start's advance is none: the Wake that the owner's cycle
// is brought the SM's clock to now, and Swap does not test it again (3
// instructions a swap: --quick synth 932 → 929); called where the cycle
// is not so, it would leave out what the SM ran since. The cycle marked
// no SM where m.dirty is empty: an SM's flag is set exactly while it is
// listed there (markDirty, Settle), so the SM's own flag needs no test
// of its own (--quick synth 940 → 936 instructions a CTA).
//
// Swap and its caller (replay.swapPlain) are nosplit: each has a small
// frame, and what they call checks its own stack, so the linker proves
// the chain fits the stack's guard, and the prologue's check of the
// stack bound, at every swap, is left out (--quick synth 937 → 934
// instructions a CTA). reschedule is not: nosplit, it was no longer
// inlined where the profile inlines it (BFS --quick 2,722 → 2,736).
//
//go:nosplit
func (m *Model) Swap(now int64, sm int, work float64, d Demand, ref uint64) {
	s := &m.sms[sm]
	if len(m.dirty) != 0 {
		m.swapMarked(now, s, work, d, ref)
		return
	}
	if work < 0 { // as Start
		work = 0
	}
	s.demand.Issue += d.Issue
	s.demand.DRAM += d.DRAM
	j := job{tag: s.v + work, ref: ref, demand: d}
	if len(s.jobs) == cap(s.jobs) || !m.finite || !m.water.same(s.water, m.issueShare(s.demand.Issue), s.demand.DRAM) {
		m.swapSettle(now, s, j)
		return
	}
	s.insert(j, len(s.jobs)+1)
	// no mark to clear: Wake left the SM unmarked (OwnMarks)
	m.reschedule(sm, s, now)
}

// swapSettle is the rest of Swap where its SM's queue is full or the
// cycle is not alike's: the job queued as Start queues it, then Settle.
// Out of Swap's line, so that Swap keeps its values in registers.
func (m *Model) swapSettle(now int64, s *smState, j job) {
	m.markDirty(s) // Wake's, left to the owner (OwnMarks)
	m.push(s, j)
	m.Settle(now)
}

// swapMarked is Swap where the cycle marked an SM already (or Wake
// brought the SM's clock to another cycle): Mark, Start and Settle, the
// marks taken again where the owner had handed them back (Disown). Out
// of Swap's line, so that Swap's common path keeps no frame for Start's
// and Settle's arguments.
func (m *Model) swapMarked(now int64, s *smState, work float64, d Demand, ref uint64) {
	m.markDirty(s) // Wake's, left to the owner (OwnMarks)
	m.owned = m.owner
	m.Start(now, int(s.id), work, d, ref)
	m.Settle(now)
}

// OwnMarks has Wake leave the SM it wakes unmarked for the next Settle,
// which then sets the SM's rate and next finish only where the owner
// calls Mark(sm) (or MarkWoken), or Swap on the same SM, next, before
// any other call of the model: the SM is then marked where Wake would
// have marked it (nothing came between). The replay's engine owns its
// marks where it may swap a CTA's end for a like one's start (synth's
// common cycle), which then marks and clears nothing: Wake's mark, the
// SM's flag and
// the list of those marked, and Swap's test of both and their clearing
// (scripts/instructions.sh, on the committed profile: synth 929 → 916
// instructions a CTA; --quick 948 → 934..938). Elsewhere it marks each
// SM whose Wake returned a slice that was not nil (Mark), which costs a
// run that seldom swaps (BFS: 581 swaps tried at 32.6K wake-ups, --quick)
// the SM's record looked up again and the flags' tests: BFS 2,098 →
// 2,112 at scale 20, --quick 2,716 → 2,728..2,731 (before Disown).
//
// An owner may hand the marks back (Disown) where its next wake-ups are
// unlikely to swap (the replay's, where an SM is open): Wake then marks
// as it does for an owner of none, and the owner needs no Mark of its
// own. Swap takes them again: the swap's SM is then marked, and Swap
// goes the way of Start and Settle, once; the next swaps find the cycle
// unmarked. (BFS, which tries a swap at 581 of its 32.6K wake-ups,
// --quick: 2,725 → 2,720 instructions a CTA, synth as it was.)
func (m *Model) OwnMarks() { m.owner, m.owned = true, true }

// Disown hands the marks back to the model: Wake marks the SMs it
// wakes, as without OwnMarks, until the next Swap. Call it after the
// Mark of the SM the last Wake woke, or where the model owns them.
func (m *Model) Disown() { m.owned = false }

// Owned reports whether Wake leaves the SMs it wakes unmarked, for the
// owner's Mark or Swap (OwnMarks, Disown).
func (m *Model) Owned() bool { return m.owned }

// markWoken is Wake's mark of the SM it woke, s, but where its owner
// marks it (OwnMarks), and its note of s for the owner's mark
// (MarkWoken). A function of its own, so that Wake keeps its lines (the
// PGO profile keys calls by them: docs/performance.md).
//
// Its mark is markDirty's, with the new last place indexed in the slice
// made one longer (d): markDirty's index of m.dirty after its store kept
// a bounds check the compiler cannot drop (len+1 may wrap), on every
// wake-up (--quick, the replay's and model's own instructions, which
// callgrind counts the same at every run: bfs 1,589.1 → 1,586.3 a CTA,
// sweep8 11,700.1 → 11,678.9). markDirty itself so, Start's mark in
// placePlain cost more than this saved (bfs 1,589.1 → 1,589.6).
func (m *Model) markWoken(s *smState) {
	if !m.owned {
		if !s.dirty { // markDirty's mark: see above
			s.dirty = true
			d := m.dirty[:len(m.dirty)+1] // room for every SM: see New
			d[len(d)-1], m.dirty = s, d
		}
		return
	}
	m.woken = s // only where the owner marks: MarkWoken follows no other Wake
}

// Mark marks SM sm for the next Settle where Wake left it unmarked for
// the owner (OwnMarks), and elsewhere does nothing: Wake marked it, and
// markDirty finds it marked. The engine calls it only where it owns the
// marks, at every wake-up it does not swap: a test of OwnMarks here cost
// BFS, which seldom swaps, 2 instructions a CTA (--quick, 2,724 → 2,722).
func (m *Model) Mark(sm int) {
	m.markDirty(&m.sms[sm])
}

// MarkWoken is Mark of the SM the last Wake woke, where that Wake left it
// to the owner (OwnMarks, not Disown), from its record, which Wake noted
// (there alone: BFS, whose wake-ups mostly come with the marks handed
// back, --quick 2,718 → 2,716): the engine's loop then keeps neither
// the SM's index nor its record live across swapPlain's call for the
// mark after it, where Mark, inlined, shared the record's address with
// Wake's, and the loop spilled and reloaded it at every swap (--quick
// synth 918 → 913 instructions a CTA; BFS 2,716 → 2,719, the loop's
// layout).
func (m *Model) MarkWoken() { m.markDirty(m.woken) }

// far is maxDelay, reschedule's bound, kept in a variable that nothing
// writes, as roundings are, and for the same reason: a constant, it took
// a register across Settle's last loop, which each level of the sifts of
// FillHole inlined there set again (the replay's and model's own
// instructions, --quick: bfs 53.45M → 53.36M, sweep8 386.39M → 385.95M).
// Here, at the file's end, so that every function keeps the lines it had
// (PGO: docs/performance.md).
var far uint64 = maxDelay

// markAt is markDirty of an unmarked SM s, where n is len(m.dirty): Start
// loads it on its call's line, which it then marks, where markDirty's
// call, with no instruction of its own line, left a NOP at every Start
// that marked; its slot is indexed in the slice made one longer, as
// markWoken's (with Settle's record of what it owes on its own line, see
// water.fits, --quick: bfs 2,405 → 2,398 instructions a CTA, sweep8's E
// 1,379 → 1,376; the replay's and model's own, by file: bfs 1,423.4 →
// 1,419.4, E 1,247.7 → 1,243.8).
func (m *Model) markAt(s *smState, n int) {
	s.dirty = true
	d := m.dirty[:n+1] // room for every SM: see New
	d[len(d)-1], m.dirty = s, d
}
