package replay

import (
	"github.com/gpureplay/gpureplay/internal/eventq"
	"github.com/gpureplay/gpureplay/internal/slots"
	"github.com/gpureplay/gpureplay/tables"
)

// group is an aggregated group (DTBL §4): a child grid whose CTAs run as
// part of an eligible kernel instead of as a kernel of their own. Its CTAs
// join the target's pool after the target's native CTAs and earlier groups.
type group struct {
	id       uint64   // the child kernel's id in the trace: the group's id in the tables
	src      *Kernel  // the child as the trace describes it: its CTA costs
	target   *Kernel  // the kernel the group coalesced into
	owner    launcher // who launched it, and waits for it
	next     uint64   // next CTA index to place
	done     uint64   // CTAs finished
	kids     int      // work its CTAs launched, not complete
	hwTID    uint64   // the launching thread's hardware index: its AGT hash
	agtSlot  int      // Aggregated Group Table entry held, -1 when spilled to memory
	launched bool     // sent by command with a launch verdict at its site
	spilled  bool     // its first CTA pays dtbl.agt_spill to load the group's metadata
	// row is a group sent by command's launches row, written when the
	// command arrives with what the lane did; nil when rows are not kept.
	row *tables.Launch
	// joinNext is the group that joins right after this one, at the same
	// cycle, carried by this one's evJoin event (groupTable.schedule).
	joinNext *group
	// plain is its number while its CTAs placed with no record
	// (placeGroup) run: 1 + its slot in groupTable.plain; 0 for none.
	plain int32
}

// agt is the Aggregated Group Table: a fixed number of on-chip entries
// indexed by a hash of the launching hardware thread (DTBL §4.2). A group
// whose entry is taken spills its metadata to global memory instead.
type agt struct {
	used []bool
}

// newAGT makes a table of entries entries (a power of two) for SMs of
// maxCTAs CTA slots. A hardware thread index is below maxCTAs × 1024 (a
// slot times a CTA's warp-rounded threads, plus the thread), so past the
// power of two that covers it further entries are never indexed: the
// table holds only those it can use and indexes exactly as the full one
// would. Memory follows the GPU, not the setting (2^62 entries once
// asked for 2^62 bytes).
func newAGT(entries int64, maxCTAs int) agt {
	usable := int64(1)
	for usable < int64(max(maxCTAs, 1))*1024 {
		usable <<= 1
	}
	return agt{used: make([]bool, max(min(entries, usable), 1))}
}

// take claims the entry for hardware thread hwTID, or returns -1 when it is
// taken (the group spills).
func (a *agt) take(hwTID uint64) int {
	i := int(hwTID & uint64(len(a.used)-1))
	if a.used[i] {
		return -1
	}
	a.used[i] = true
	return i
}

func (a *agt) free(i int) {
	if i >= 0 {
		a.used[i] = false
	}
}

// groupTable is DTBL's aggregation (§4): it makes a launching lane's
// child an aggregated group, holds the Aggregated Group Table and the
// groups on their way to their target's pool (each an evJoin event),
// attaches a group to its target, and joins it to the target's pool.
//
// It owns the AGT, the groups in flight and their launches rows; it never
// asks the policy for a match (the site engine does, siteEngine.match),
// launches a kernel, or completes one: the engine's arriveGroup and
// groupCTAsDone (devlaunch.go) do those around its calls.
type groupTable struct {
	agt       agt
	inFlight  slots.Table[*group] // groups on their way to a pool (events name them by slot)
	q         *eventq.Queue
	coalesced int64       // groups coalesced into a running kernel (Stats.Coalesced)
	rows      tables.Sink // the launches rows of groups sent by command; nil when none is kept
	groups    slab[group] // where newGroup carves groups from
	chain     joinChain   // the last group scheduled, which the next may follow
	// plain names the groups with CTAs in flight that have no record
	// (placeGroup): their jobs hold no pointer. plainGroups counts the
	// groups ever named (a test's count).
	plain       slots.Table[*group]
	plainGroups int64
	// held is what the plain group CTAs that wait for their group's
	// metadata, or whose rows are kept, need of their own (placeGroup), by
	// SM and slot; nil until one needs it.
	held []groupCTA
}

// joinChain is the group groupTable.schedule scheduled last: its evJoin
// event's cycle and the queue's count of events scheduled (eventq.Queue.
// Scheduled) just after it.
type joinChain struct {
	last *group
	at   int64
	seq  uint64
}

// count adds the table's count to s.
func (t *groupTable) count(s *Stats) { s.Coalesced += t.coalesced }

func newGroupTable(entries int64, maxCTAs int, q *eventq.Queue, rows tables.Sink) groupTable {
	return groupTable{agt: newAGT(entries, maxCTAs), q: q, rows: rows}
}

// coalesce makes a launching lane's child an aggregated group of target.
// The target cannot complete from now on until the group has; the group's
// CTAs become schedulable delay cycles after now, when the launch command
// reaches the SMX scheduler.
func (t *groupTable) coalesce(c *ctaRun, l *siteRec, target *Kernel, now, delay int64) {
	g := t.newGroup(c, l)
	t.attach(g, target)
	t.schedule(now, delay, g)
}

// command sends a launching lane's aggregated group to the SMX scheduler,
// which matches it against the Kernel Distributor when it arrives, delay
// cycles after now (dtbl.fallback=dispatch): DTBL §4.2, "the SMX scheduler receives
// the aggregation operation command and attempts to match the newly
// launched aggregated groups with the existing kernels" — after the
// parameters are loaded to the parameter buffer. Nothing is pinned
// meanwhile; the launching kernel waits for the group from now on.
// launched says whether the site's verdict was a launch (no eligible
// kernel then), so the summary's counts can follow what happens instead;
// row is the lane's launches row, written at the arrival likewise.
func (t *groupTable) command(c *ctaRun, l *siteRec, now, delay int64, launched bool, row *tables.Launch) {
	g := t.newGroup(c, l)
	g.launched = launched
	g.row = row
	l.child.launchCycle = now
	t.schedule(now, delay, g)
}

// schedule sends g to arrive in its target's pool, or to be matched,
// delay cycles after now, the current cycle: in the event queue's run of
// that delay (eventq.PushDelayed), not its heap, where some 15K groups
// under DTBL (BFS --quick) deepened every sift.
//
// A site's groups are scheduled one after another for one cycle, with no
// event between them: under tie seed 0 their events would fire one after
// another, so the first one's carries them all, chained (group.joinNext),
// as a site's device kernels arrive (engine.launchChildren), where an
// event each cost its push, its pop and its handler (BFS scale 16 under
// DTBL: 14.7K groups, 986 events). A group scheduled after some other
// event, for another cycle, or under a seed, which places each event
// among its cycle's others, has its own.
func (t *groupTable) schedule(now, delay int64, g *group) {
	at := now + delay
	if c := &t.chain; c.last != nil && c.at == at && c.seq == t.q.Scheduled() && !t.q.Seeded() {
		c.last.joinNext, c.last = g, g
		return
	}
	t.q.PushDelayed(delay, eventq.Event{At: at, Kind: uint8(evJoin), Ref: t.inFlight.Put(g)})
	t.chain = joinChain{last: g, at: at, seq: t.q.Scheduled()}
}

// arrived takes the group of an evJoin event, the first of its chain.
// No group scheduled from now on follows any in flight: this event may be
// the chain's.
func (t *groupTable) arrived(ref int32) *group {
	t.chain.last = nil
	return t.inFlight.Take(ref)
}

// newGroup is the aggregated group a launching lane's child becomes; its
// launcher waits for it from now on. Groups are carved from blocks of
// 64, as device kernels are (deviceKernels), not allocated one by one
// (BFS --quick under DTBL: 14.7K groups, some 250 instructions each in
// the allocator), and never reused: a block, and the kernels its groups
// name, is garbage once all its groups are.
func (t *groupTable) newGroup(c *ctaRun, l *siteRec) *group {
	g := t.groups.next(64) // zero: only the fields set are written (a whole group's write cost 20 instructions more)
	g.id, g.src, g.owner, g.hwTID, g.agtSlot = l.child.id, l.child, launcherOf(c), c.hwThread(int(l.warp), int(l.lane)), -1
	g.owner.adopt(1)
	return g
}

// attach coalesces g into target: it takes its Aggregated Group Table
// entry (or spills), and the target cannot complete until it has.
func (t *groupTable) attach(g *group, target *Kernel) {
	g.target = target
	g.agtSlot = t.agt.take(g.hwTID)
	g.spilled = g.agtSlot < 0
	if target.pool == nil {
		target.pool = &pool{}
	}
	target.pool.open++
	target.pool.coalesced++
	t.coalesced++
}

// writeCommand writes the launches row of a group sent by command, now
// that its arrival decided what the lane did: coalesced into target, or
// launched when target is nil. The site's verdict stays in the row's
// decision; its outcome and target are the arrival's, as the summary's
// counts are. Small enough to inline: where no rows are kept, a test
// (a call that found none cost BFS scale 16 under DTBL 12 instructions a
// group).
func (t *groupTable) writeCommand(g *group, target *Kernel) {
	if g.row != nil {
		t.writeRow(g, target)
	}
}

// writeRow is writeCommand's work for a group with a row.
func (t *groupTable) writeRow(g *group, target *Kernel) {
	r := g.row
	g.row = nil
	r.Outcome, r.TargetKernelID = Launch.outcome(), nil
	if target != nil {
		r.Outcome, r.TargetKernelID = Coalesce.outcome(), &target.id
	}
	t.rows.Launch(*r)
}

// join adds a group's CTAs to its target's pool and returns the target.
func (t *groupTable) join(g *group) *Kernel {
	k := g.target
	k.pool.groups = append(k.pool.groups, g)
	k.pool.pooled += g.src.total
	return k
}

// plainOf is g's number for the jobs of its CTAs placed with no record
// (placeGroup), given at the first; plainGroup is the group numbered n.
// ctasDone lets the number go.
func (t *groupTable) plainOf(g *group) int32 {
	if g.plain == 0 {
		g.plain = 1 + t.plain.Put(g)
		t.plainGroups++
	}
	return g.plain
}

func (t *groupTable) plainGroup(n int32) *group { return t.plain.At(n - 1) }

// hold keeps c, the plain group CTA in slot on SM sm of a GPU of sms
// SMs, till its start or its end; heldAt is what hold kept for slot on
// SM sm.
func (t *groupTable) hold(sm, slot int, c groupCTA, sms int) {
	if t.held == nil {
		t.held = make([]groupCTA, sms<<6)
	}
	t.held[sm<<6|slot] = c
}

func (t *groupTable) heldAt(sm, slot int) *groupCTA { return &t.held[sm<<6|slot] }

// ctasDone is a group's last CTA ending: its table entry frees, its
// number for plain CTAs goes, and its target no longer waits for it. It
// returns the target.
func (t *groupTable) ctasDone(g *group) *Kernel {
	if g.plain != 0 {
		t.plain.Take(g.plain - 1)
		g.plain = 0
	}
	t.agt.free(g.agtSlot)
	g.src.ctas = ctaTable{}
	g.target.pool.open--
	return g.target
}

// hwThread is the launching thread's hardware thread index on its SM: the
// CTA's slot on the SM times its warp-rounded size, plus the thread's place
// in the CTA. It is what the AGT hashes.
func (c *ctaRun) hwThread(warp, lane int) uint64 {
	return uint64(c.smSlot)*uint64(c.k.decl.need.warps)*32 + uint64(warp*32+lane)
}

// launcher is what waits for the work a CTA launches: the CTA's kernel, or
// the aggregated group the CTA belongs to.
type launcher struct {
	k *Kernel
	g *group
}

func launcherOf(c *ctaRun) launcher {
	if c.g != nil {
		return launcher{g: c.g}
	}
	return launcher{k: c.k}
}

// id is the launching grid's id: its kernel's, or the group's.
func (l launcher) id() uint64 {
	if l.g != nil {
		return l.g.id
	}
	return l.k.id
}

// adopt counts n more pieces of launched work the launcher waits for.
func (l launcher) adopt(n int) {
	if l.g != nil {
		l.g.kids += n
		return
	}
	l.k.kids += n
}
