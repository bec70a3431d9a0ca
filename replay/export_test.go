package replay

import (
	"unsafe"

	"github.com/gpureplay/gpureplay/tables"
)

// SetKernelRunReuse turns the reuse of completed device kernels' running
// parts (kernelRuns) on or off, for a test that compares the two.
func SetKernelRunReuse(on bool) { reuseKernelRuns = on }

// SetGroupsPlain turns plain group CTAs (groupplain.go) on or off, for a
// test that compares the two.
func SetGroupsPlain(on bool) { groupsPlain = on }

// SetSwap turns swapPlain on or off, for a test that compares the two.
func SetSwap(on bool) { swapCycles = on }

// SetPlainRows turns the plain paths' rows on or off (plainrows.go), for
// a test that compares the two.
func SetPlainRows(on bool) { plainRowsOn = on }

// RunPlainRows is RunSwaps, reporting too whether the replay kept its
// rows on the plain paths, for a test that must know it compares them.
func RunPlainRows(open Opener, opt Options, sink tables.Sink) (st *Stats, plainRows bool, swaps int64, err error) {
	st, err = runThen(open, opt, sink, func(e *engine) { plainRows, swaps = e.sms.rowsKept(), e.dispatch.swaps })
	return st, plainRows, swaps, err
}

// RunGroupsPlain is Run, and how many aggregated groups had CTAs placed
// with no record (placeGroup).
func RunGroupsPlain(open Opener, opt Options, sink tables.Sink) (st *Stats, groups int64, err error) {
	st, err = runThen(open, opt, sink, func(e *engine) { groups = e.groups.plainGroups })
	return st, groups, err
}

// RunSwaps is Run, and the cycles swapPlain took whole.
func RunSwaps(open Opener, opt Options, sink tables.Sink) (st *Stats, swaps int64, err error) {
	st, err = runThen(open, opt, sink, func(e *engine) { swaps = e.dispatch.swaps })
	return st, swaps, err
}

// runThen is Run, then read given the engine, for the Run functions
// above that report what the engine did.
func runThen(open Opener, opt Options, sink tables.Sink, read func(*engine)) (*Stats, error) {
	e, closeAll, err := prepare(open, opt, sink)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	st, err := e.run()
	read(e)
	return st, err
}

// TreeAheadBound is what the tree filer may hold for a trace whose largest
// host kernel has grid CTAs without per-warp cycles (docs/scale-out.md):
// the messages waiting, up to their byte limit, the one that crossed it,
// the one being filled and the one being read (treeMsgBytes filed and
// msgSpecs specs each, at most), and the window of its host CTAs read
// whose trees are not (a quarter more for its storage's growth).
func TreeAheadBound(grid int) int64 {
	msg := int64(treeMsgBytes) + int64(msgSpecs)*specBytes + 4*treeBatch*eventBytes
	return treeLimit + 3*msg + int64(grid)*int64(unsafe.Sizeof(slimSpec{}))*5/4
}

// QueuedBound is what the engine's spec queues may hold for kernels host
// kernels of grid CTAs each whose bodies were read before their CTAs were
// placed: each queue spillAt specs as slims (twice that for the storage's
// growth) and the rest packed, at most 13 bytes a CTA (a varint of cycles
// and flags, both rates changed) and at most 3 where the rates repeat, as
// in a generator's grid, in chunks of which the last may be all but empty.
func QueuedBound(kernels, grid int, ratesRepeat bool) int64 {
	per := int64(13)
	if ratesRepeat {
		per = 3
	}
	return int64(kernels)*(2*spillAt*specBytes+spillChunk) + int64(kernels)*int64(grid)*per
}
