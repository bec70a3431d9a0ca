package replay

import (
	"unsafe"

	"github.com/gpureplay/gpureplay/internal/ahead"
	"github.com/gpureplay/gpureplay/trace"
)

// The reader runs ahead of the engine by a bounded window of messages,
// bounded in bytes: the messages waiting may hold treeLimit bytes (by
// treeMsg.size's count: what the reader filed while filling each, and its
// own storage), after which the reader starts no message until the engine
// takes one; treeDepth of them at most. A message goes out when it has
// read treeBatch records, filed about treeMsgBytes of kernels, sites, CTA
// records and page references (treeMsg.held), or carries msgSpecs host
// CTA specs (a record that completes more CTAs than that, such as a host
// kernel's whole grid where its trees come after all its CTAs' records,
// hands them over in as many messages as it takes), whichever comes first.
// So a message holds at most about treeMsgBytes filed (plus the record
// that crossed the line), as much again of specs and a few events a
// record, and the messages waiting at most treeLimit, about 33 MB, plus
// three messages (the one that crossed the limit, the one being filled
// and the one being read), whatever the records.
//
// Besides its messages the reader holds its window of the open host
// kernel's CTAs whose records it has read and whose trees it has not
// (specWindow): one or two CTAs where a trace is written tree after tree,
// its grid where all the host kernel's records come first (what every
// generator writes), at 24 bytes a CTA (slimSpec): 2.4 MB for 100K CTAs,
// 96 MB for 4M (TestReplayLiveHeapBound). The engine keeps of a host
// kernel only the specs handed over and not yet placed (specQueue).
//
// Why so far: the engine takes a launch-heavy trace in bursts. As a level
// of BFS starts it places a hundred host CTAs at once, each needing its
// whole launch tree, and waits for the readers; then, while the level's
// last children run, it takes no records at all, for a third of the run
// at BFS scale 20. A reader a few thousand records ahead stops in the
// second and makes the engine wait in the first; a reader that may run on
// through the second, on the core the engine leaves idle, has the next
// levels' trees filed when the engine gets there. A window of 66 messages
// (the depth until now, 67,584 records) was full within the first tenth
// of that pause; 512 holds all of BFS scale 20 but its last levels, whose
// trees the reader files meanwhile (about 55 filed bytes a record there).
//
// Measured: BFS scale 20 under cdp, rounds alternating the two builds,
// median of the per-round ratios: see docs/scale-out.md.
const (
	treeBatch    = 1024
	treeMsgBytes = 64 << 10
	treeDepth    = 510
	treeLimit    = treeDepth * treeMsgBytes
)

// The sizes treeMsg.size counts a message's storage by, and the most
// specs a message carries (handOverTo): at most treeMsgBytes of them with
// their rare parts, were every one to have some.
const (
	specBytes  = int64(unsafe.Sizeof(slimSpec{}))
	rareBytes  = int64(unsafe.Sizeof(rareSpec{}))
	eventBytes = int64(unsafe.Sizeof(treeEvent{}))
	msgSpecs   = treeMsgBytes / int(specBytes+rareBytes)
)

// What the reader files for a record, for treeMsg.held: an estimate from
// above of what it allocates, not a count (the allocator's size classes
// and the id tables' growth are not followed).
const (
	// deviceHeld is a device launch: the child Kernel with the start of
	// its packed table (newDeviceKernel), its site, its entry in the tree.
	deviceHeld = int(unsafe.Sizeof(Kernel{})) + 8 + int(unsafe.Sizeof(siteRec{})) + int(unsafe.Sizeof(filed{}))
)

// ctaHeld is a cta record with warps per-warp cycles: at most a host
// CTA's spec and its warps (a device CTA's packed record is smaller).
func ctaHeld(warps int) int { return ctasHeld(1, warps) }

// ctasHeld is n cta records with warps per-warp cycles in all.
func ctasHeld(n, warps int) int { return n*int(unsafe.Sizeof(ctaSpec{})) + 8*warps }

// refHeld is an access or pages record kept as page references and
// touches: a range and a touch for each range it names.
func refHeld(r trace.Record) int {
	n := 1
	if p, ok := r.(*trace.Pages); ok {
		n = len(p.R) + len(p.W)
	}
	return n * int(unsafe.Sizeof(pageRange{})+unsafe.Sizeof(touch{}))
}

// treeAhead runs a treeReader on a goroutine of its own, a bounded window
// of records ahead of the engine: it files them (device kernels with
// their packed CTA tables, launch sites, host CTA specs) while the engine
// simulates, and hands them over in messages the engine takes in order
// (bodyCursor). Its source is a Prefetcher, which decodes and validates on
// a goroutine of its own: filing on the engine's goroutine made it wait,
// where a level of a launch-heavy trace places its host CTAs, for both.
//
// A message goes out when it holds enough (above), or as soon as it holds
// an event while the engine waits for one (hungry), so the engine never
// waits for a batch to fill. What the reader builds is its own until the
// message carrying it goes out, and the engine's after; a message comes
// back empty (reset by the engine) for reuse.
type treeAhead struct {
	w *ahead.Window[treeMsg]
}

// startTreeAhead runs r on a goroutine of ra's.
func startTreeAhead(r *treeReader, ra ReadAhead) *treeAhead {
	a := &treeAhead{w: ahead.New[treeMsg](treeDepth)}
	a.w.Limit(treeLimit, (*treeMsg).size)
	enough := func(m *treeMsg) bool {
		return m.records >= treeBatch || m.held >= treeMsgBytes || len(m.events) > 0 && a.w.Hungry()
	}
	ra.Go(func() {
		a.w.Run(func(m *treeMsg) bool {
			r.fill(m, enough)
			return m.err != nil
		})
	})
	return a
}

// receive gives used back for reuse and returns the next message.
func (a *treeAhead) receive(used *treeMsg) *treeMsg {
	used.reset()
	a.w.Recycle(used)
	return a.w.Receive()
}

// close stops the reader and waits until it has left the source.
func (a *treeAhead) close() { a.w.Close() }
