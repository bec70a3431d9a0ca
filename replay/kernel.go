package replay

import (
	"unsafe"

	"github.com/gpureplay/gpureplay/trace"
)

// Kernel is the engine's state for one launched grid. Policies see it
// through its methods; the engine alone changes it.
type Kernel struct {
	// What the engine reads at most steps of a kernel's life (placing and
	// ending its CTAs, entering and leaving the Kernel Distributor) comes
	// first: tens of thousands of kernels wait at once under CDP, and each
	// step finds its kernel out of the cache, so the fewer lines a step
	// reads the fewer it waits for.
	decl  *kernelDecl // nil until the body is loaded
	total uint64      // CTAs in the grid

	// The parts a kernel needs from when it takes a Kernel Distributor
	// entry; a device kernel gets them there (enterKD), a host operation
	// when it is made. Its rare parts are there too (kernelRun.rare).
	*kernelRun

	// Small fields together, so a Kernel carries no padding between them.
	// A host operation's own (its order, thread and seq) are with its
	// running parts (kernelRun), which it has from when it is made.
	host bool
	// pendingLaunch: a device launch in the pending pool, made and not
	// yet begun to execute (cdp.pending_limit)
	pendingLaunch bool
	// inDevStream: a device kernel in an ordered device stream
	// (devstreams.go), from its launch until it completes
	inDevStream bool
	state       kernelState
	// ownerGroup: owner is a *group, not a *Kernel (owner)
	ownerGroup bool
	// arriveNext: the device kernel launched next at the same site, which
	// reaches the KMU with this one, at its arrival event
	// (engine.launchChildren), and waits for an entry after it
	// (kernelDistributor.take); nil for the last, and once it takes one.
	// Once it has entered, the device kernel whose readiness fires next,
	// chained (eventClock.dispatched), till this one's fires.
	arriveNext *Kernel

	id       uint64
	stream   uint64
	parentID uint64 // the kernel whose CTA launched it (device kernels)
	// ownerAt is who launched it and waits for it (device kernels): a
	// *Kernel, or a *group where ownerGroup is set (owner, setOwner). As
	// a launcher, two pointers, it took 8 bytes more of each of the
	// device kernels that wait at once under CDP (BFS scale 22: 600K).
	ownerAt unsafe.Pointer
	ctas    ctaTable // per CTA index; released when the kernel completes

	launchCycle int64 // host issue or device launch
}

// deviceKernels makes a reader's device kernels (newDeviceKernel), carved
// from blocks of kernelBlockBytes: under CDP every child is one (BFS scale 16:
// 14,713 for 35,306 CTAs), and one allocation each spent about 280
// instructions a kernel in the allocator, 115 a CTA. No kernel is ever
// reused, so a *Kernel a policy or an analysis keeps (as a key, say)
// never comes to name another; a block is garbage once all its kernels
// are, so memory still follows the kernels in flight.
//
// Under CDP most children are small (BFS scale 20: 63% of its 165K have
// one CTA, 87% up to three, 95% up to seven), and such a table's words
// come with the Kernel: room for its records of two words a CTA and one
// CTA's two per-warp cycles of its own (BFS's children's: their last
// CTA's; longer ones outgrow it into a slice of their own) for one CTA,
// up to three or up to seven, each size from a block of its own; a
// larger child's words come from blocks of words (wordsFor).
type deviceKernels struct {
	one slab[struct {
		Kernel
		records [5]int64
	}]
	three slab[struct {
		Kernel
		records [9]int64
	}]
	seven slab[struct {
		Kernel
		records [17]int64
	}]
	more  slab[Kernel]
	words []int64 // the rest of the block wordsFor carves
}

// moreWords is the words of a block wordsFor carves: 256 KiB, room for
// 250 tables of 64 CTAs (packedRoom: 131 words); one of over 4,094
// CTAs, over a quarter of a block, has a slice of its own, and one of
// over 65,536 starts with packedRoom's, as its records may be few (BFS
// scale 20, scripts/instructions.sh bfs: all those over 4,094 with
// packedRoom's 852.6M-852.9M, with this limit 852.3M, with none 851.7M).
// A block is an allocation of the heap's pages, whose search weighs on
// smaller ones: blocks of 16 KiB saved BFS scale 20 0.3M instructions in
// all, of 256 KiB 1.9M, of 512 KiB 2.0M (scripts/instructions.sh bfs).
const moreWords = 1 << 15

// kernelBlockBytes is the most a block of device kernels takes: enough
// that a block's allocation costs each kernel a few instructions, little
// enough that one kernel long in flight keeps little else. A block holds
// as many kernels of its size as fit (oneBlock, ...): 18 KiB is one of
// the allocator's size classes, and the 8 bytes are the header it puts in
// front of an object of over 512 bytes that holds pointers (Go 1.22's
// malloc headers), inside the object's slot. Its spans hold four such
// slots, where those of 16 KiB hold one: a span's taking, some 2,500
// instructions, came with every block of 16 KiB (BFS scale 20: 857.2M
// -> 854.6M instructions in all, scripts/instructions.sh bfs: 1,599 ->
// 1,593 a CTA; 14 KiB, four a span too, 854.9M). Blocks of 64 kernels had
// left that out: once the Kernel grew from 144 bytes to 152, 64 of them
// with room for one CTA (192 bytes each) and their header came to 12,296
// bytes and took the next class, 13,568, and those with room for three
// (224) 16,384 where 14,336: some 13 MB of BFS scale 22's 157 MB live, its
// 600K children pending at once (TestDeviceKernelBlocksFill).
const kernelBlockBytes = 18<<10 - 8

// How many kernels a block of each size holds: 127, 104, 76 and 177 with
// a 104-byte Kernel.
const (
	oneBlock   = kernelBlockBytes / int(unsafe.Sizeof(deviceKernels{}.one.blk[0]))
	threeBlock = kernelBlockBytes / int(unsafe.Sizeof(deviceKernels{}.three.blk[0]))
	sevenBlock = kernelBlockBytes / int(unsafe.Sizeof(deviceKernels{}.seven.blk[0]))
	moreBlock  = kernelBlockBytes / int(unsafe.Sizeof(Kernel{}))
)

// newDeviceKernel is a device kernel of total CTAs with its empty packed
// CTA table (ctaTable.words), in its block's words where they fit.
func (a *deviceKernels) newDeviceKernel(total uint64) *Kernel {
	switch room := packedRoom(total); {
	case total > flatCTAs || total == 0:
	case room <= 5:
		d := a.one.next(oneBlock)
		return d.packIn(total, d.records[:])
	case room <= 9:
		d := a.three.next(threeBlock)
		return d.packIn(total, d.records[:])
	case room <= 17:
		d := a.seven.next(sevenBlock)
		return d.packIn(total, d.records[:])
	default:
		return a.more.next(moreBlock).packIn(total, a.wordsFor(total))
	}
	k := a.more.next(moreBlock)
	k.ctas = newPackedCTATable(total)
	return k
}

// wordsFor is fresh words for the packed table of a device kernel of
// total CTAs, over seven, carved from blocks of moreWords, where a slice of
// their own each (newPackedCTATable's) was an allocation each: BFS scale
// 20's 8,254 such children, 858.96M -> 857.0M-857.5M instructions in
// all in five runs (scripts/instructions.sh bfs: 1,601 -> 1,598-1,599 a
// CTA; the heap's page search moves a little from run to run). Their
// room is packedRoom's and two words a CTA past the 64th, a record for
// each CTA: a child of more CTAs outgrew packedRoom's, its words grown
// by doubling (BFS scale 20: 445 growths; 853.0M-853.2M -> 852.3M). A
// table that outgrows its room moves out of the block (its capacity is
// its room), and a block is garbage once all its tables are.
func (a *deviceKernels) wordsFor(total uint64) []int64 {
	room := packedRoom(total) + 2*int(max(total, 64)-64) // a record each past the 64th too
	if room > moreWords/4 {
		if total > 1<<16 {
			room = packedRoom(total) // grown as its records come: a big grid's may be few
		}
		return make([]int64, room)
	}
	if len(a.words) < room {
		a.words = make([]int64, moreWords)
	}
	w := a.words[:room:room]
	a.words = a.words[room:]
	return w
}

// sharedKernel is a device kernel whose packed CTA table is words,
// filed by another replay (sharedTable): a kernel with no table of its
// own, so not one of a block with room for its records.
func (a *deviceKernels) sharedKernel(words []int64) *Kernel {
	k := a.more.next(moreBlock)
	// siblings takes its kernels from the block itself
	k.shareWords(words)
	return k
}

// packIn gives k, fresh from its block, an empty packed table of total
// CTAs, 1 to 7, in buf: the table newPackedCTATable makes, its header
// the grid. Made so with no call, where newPackedCTATable's way, its
// tests and a header cleared and a varint appended, cost BFS --quick 18
// instructions a CTA.
func (k *Kernel) packIn(total uint64, buf []int64) *Kernel {
	buf[0] = int64(total) << headerGrid
	k.ctas.setWords(buf[:1])
	return k
}

// owner is who launched k and waits for it (device kernels).
func (k *Kernel) owner() launcher {
	if k.ownerGroup {
		return launcher{g: (*group)(k.ownerAt)}
	}
	return launcher{k: (*Kernel)(k.ownerAt)}
}

// setOwner makes l k's owner.
func (k *Kernel) setOwner(l launcher) {
	if l.g != nil {
		k.ownerAt, k.ownerGroup = unsafe.Pointer(l.g), true
		return
	}
	k.ownerAt, k.ownerGroup = unsafe.Pointer(l.k), false
}

// kernelRare is what few kernels carry, behind a pointer so that the
// device kernels (tens of thousands pending at once in a launch-heavy
// trace) carry none of it: a host operation's own parts. Nil where a
// kernel has none of it.
type kernelRare struct {
	after    []uint64 // kernels a host launch waits for (its record's after)
	copy     *copyOp  // set for an explicit host copy, which streams order like a kernel
	profiled int64    // when its CRCS pre-profiler ends (costs.go); 0 without one
	grid     uint64   // an aggregated kernel's CTAs, its members' included (klap.go); 0 otherwise
	// latches are the event records a host operation waits for at its
	// stream's head (a stream wait read before it: hostsync.go)
	latches []*eventLatch
}

// latches is what a host operation waits for beside its stream.
func (k *Kernel) latches() []*eventLatch {
	if k.kernelRun == nil || k.rare == nil {
		return nil
	}
	return k.rare.latches
}

// rareParts is k's rare parts, created on first use; k has its running
// parts.
func (k *Kernel) rareParts() *kernelRare {
	if k.rare == nil {
		k.rare = &kernelRare{}
	}
	return k.rare
}

// after is what a host launch waits for.
func (k *Kernel) after() []uint64 {
	if k.kernelRun == nil || k.rare == nil {
		return nil
	}
	return k.rare.after
}

// copyOp is what a copy moves; nil for a kernel.
func (k *Kernel) copyOp() *copyOp {
	if k.kernelRun == nil || k.rare == nil {
		return nil
	}
	return k.rare.copy
}

// profiled is when k's CRCS pre-profiler ends; 0 without one.
func (k *Kernel) profiled() int64 {
	if k.kernelRun == nil || k.rare == nil {
		return 0
	}
	return k.rare.profiled
}

type kernelState uint8

const (
	kIssued     kernelState = iota // launched, not yet at the head of its stream
	kWaiting                       // at the head, waiting for `after` kernels or a KD entry
	kDispatched                    // holding a KD entry, dispatch latency running
	kReady                         // in the Kernel Distributor
	kComplete
)

type ctaExtra struct {
	sites        []siteRec   // launching lanes, sorted by (warp, at, lane) before they run (sortSites)
	sitesChecked int         // how many of sites are known in that order as filed (siteGather.checked)
	refs         []pageRange // pages it references (CRCS), merged once checked
	refsSorted   bool
	checked      int // refs pages known ready and owned, counted from the start (scoreboard)
	// touches: the pages it touches, where in its run (touch.go)
	touches      []touch
	touchNext    int32 // how far the checks have got, with touchWithin
	touchWithin  int
	touchesReady bool
}

// siteRec is one device launch record: a lane of a warp that reaches a
// child launch.
type siteRec struct {
	warp int32
	lane int16
	// where its child goes (devstreams.go): the record's stream kind
	// under cdp.streams, whether the lane creates the stream first, and
	// a created stream's id
	kind     trace.DeviceStream
	creates  bool
	stream   uint64
	at       int64
	child    *Kernel
	workload int64
	inline   int64
}

// ID is the kernel id from the trace.
func (k *Kernel) ID() uint64 { return k.id }

// Name is the kernel's name from its declaration.
func (k *Kernel) Name() string { return k.decl.Name }

// Block is the kernel's CTA shape.
func (k *Kernel) Block() [3]uint32 { return k.decl.Block }

// Host reports whether the host launched the kernel.
func (k *Kernel) Host() bool { return k.host }

// CTAs is the grid size.
func (k *Kernel) CTAs() uint64 { return k.total }

// Remaining is the number of CTAs ready to be placed on an SM: native CTAs
// not yet placed, then those of coalesced groups. A device kernel has no
// running parts before its Kernel Distributor entry (none placed yet) nor
// once they have gone to another kernel after its completion (kernelRuns).
func (k *Kernel) Remaining() uint64 {
	switch {
	case k.kernelRun == nil && k.state == kComplete:
		return 0
	case k.kernelRun == nil:
		return k.total
	case k.pool == nil:
		return k.total - k.next
	}
	return k.total - k.next + k.pool.pooled
}

// pool is the aggregated groups coalesced into a kernel, in FIFO order.
// Few kernels ever receive a group, so it lives behind a pointer.
type pool struct {
	groups    []*group
	pooled    uint64 // CTAs of the groups not yet placed
	next      int    // the group whose CTAs are placed next
	open      int    // groups coalesced here and not complete
	coalesced int64  // groups coalesced here, ever
}

// openGroups is the number of groups coalesced into k and not complete.
func (k *Kernel) openGroups() int {
	if k.pool == nil {
		return 0
	}
	return k.pool.open
}

// Complete reports whether the kernel has finished, children included.
func (k *Kernel) Complete() bool { return k.state == kComplete }

// ParentID is the id of the kernel whose CTA launched this one; ok is
// false for host kernels and copies.
func (k *Kernel) ParentID() (id uint64, ok bool) { return k.parentID, k.device() }

// device reports whether a CTA on the GPU launched k.
func (k *Kernel) device() bool { return !k.host }

// warpsPerCTA is the CTA's thread count rounded up to whole warps.
func warpsPerCTA(threads int) int {
	return (threads + 31) / 32
}

// groupsOpen reports whether groups coalesced into k are not complete
// (openGroups > 0): a kernel's drain asks it, and the count's nil pool,
// a zero stored and tested again, cost it 3 instructions a kernel.
func (k *Kernel) groupsOpen() bool { return k.pool != nil && k.pool.open > 0 }

// isCopy reports whether k is a copy (copyOp not nil), as a test. A
// kernel event asked it too, but a copy is a host operation (newCopy):
// k.host alone tells (--quick, replay's own: BFS, sweep8 E 2.3 a CTA).
func (k *Kernel) isCopy() bool { return k.kernelRun != nil && k.rare != nil && k.rare.copy != nil }

// childDone counts one piece of k's launched work completing, and
// reports whether k may move on (engine.maybeComplete): its last piece,
// or k still in the Kernel Distributor; its callers ask then whether a
// device stream is open (whose tail might open). Under CDP most are none, a
// parent whose other children still run, and complete asks this itself
// rather than calling release, which PGO inlined nowhere there
// (scripts/instructions.sh --quick: BFS 5 instructions a CTA fewer).
func (k *Kernel) childDone() bool {
	k.kids--
	return k.kids == 0 || k.inKD
}

// shareWords gives k, fresh, words another replay filed as its packed
// CTA table (sharedKernel, siblings).
func (k *Kernel) shareWords(words []int64) {
	k.ctas.setWords(words) // the rest of a fresh kernel's table is zero
	k.ctas.shared = true
}

// ownerKernel is owner's kernel, for a k that a kernel launched
// (!ownerGroup): complete's, where owner's launcher, its group a nil
// set and tested again, cost every device kernel's completion 3
// instructions (callgrind, --quick BFS: plainKernelDone 1.2 a CTA).
func (k *Kernel) ownerKernel() *Kernel { return (*Kernel)(k.ownerAt) }
