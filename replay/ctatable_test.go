package replay

import (
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/gpureplay/gpureplay/trace"
)

// A packed table unpacks to exactly the specs the same records give a flat
// one: out of order, with per-warp cycles and demand, and records filed
// after unpacking. A CTA has one record (the trace's rule), whose
// longest warp, if it has warp_cycles, runs its cycles.
func TestPackedCTATable(t *testing.T) {
	recs := []struct {
		i uint64
		r ctaRecord
	}{
		{3, ctaRecord{cycles: 1 << 40, warps: []int64{5, 0, 1 << 40}}},
		{0, ctaRecord{cycles: 700, demand: true, insts: 1400, bytes: 1 << 50}},
		{5, ctaRecord{cycles: 9, warps: []int64{4, 9}, demand: true, insts: 3, bytes: 0}},
		{2, ctaRecord{cycles: 2, demand: true, insts: 10}},
		{1, ctaRecord{}},
	}
	const n = 6
	for split := 0; split <= len(recs); split++ {
		flat, packed := newCTATable(n), newPackedCTATable(n)
		if !packed.isPacked() {
			t.Fatal("a device kernel's table is not packed")
		}
		for j, rec := range recs {
			if j == split {
				packed.at(0) // unpacks: what follows is filed directly
			}
			flat.record(ctaOf(rec.i, rec.r), unscaled)
			packed.record(ctaOf(rec.i, rec.r), unscaled)
		}
		for i := uint64(0); i < n; i++ {
			if got, want := *packed.at(i), *flat.at(i); !reflect.DeepEqual(got, want) {
				t.Errorf("unpacked after %d records: cta %d = %+v, want %+v", split, i, got, want)
			}
		}
		if packed.isPacked() {
			t.Errorf("unpacked after %d records: still packed", split)
		}
	}
}

// ctaOf is a cta record of CTA i that reads (unscaled) as r, whose warps,
// if any, are not all its cycles, and which records a demand where its
// insts or bytes are not zero.
func ctaOf(i uint64, r ctaRecord) *trace.CTA {
	return &trace.CTA{CTA: i, Cycles: r.cycles, WarpCycles: slices.Clone(r.warps), Insts: r.insts, DRAMBytes: r.bytes}
}

// unscaled is the clock of a trace recorded at the replay's own.
var unscaled = clockOf(1)

// Empty grids and grids too large for one slice are not packed.
func TestPackedCTATableKinds(t *testing.T) {
	if tb := newPackedCTATable(0); tb.isPacked() || tb.specs().chunks != nil {
		t.Error("an empty grid got a packed table")
	}
	if tb := newPackedCTATable(flatCTAs + 1); tb.specs().chunks == nil || tb.isPacked() {
		t.Error("a grid over flatCTAs did not get chunks")
	}
}

// A packed table whose records came one a CTA in CTA order streams: its
// specs come one after another, exactly as a flat table holds them (none
// for the CTAs past the last record); one whose records came in any other
// order, repeated or with a CTA left out, does not. The CTAs' warps may
// share storage, one CTA after another.
func TestPackedCTATableStreams(t *testing.T) {
	inOrder := []ctaRecord{
		{cycles: 1 << 40, warps: []int64{5, 0, 1 << 40}},
		{cycles: 700, demand: true, insts: 1400, bytes: 1 << 50},
		{cycles: 9, warps: []int64{4, 9}, demand: true, insts: 3, bytes: 0},
		{},
	}
	const n = 6 // CTAs 4 and 5 have no record
	flat, packed := newCTATable(n), newPackedCTATable(n)
	for i, r := range inOrder {
		flat.record(ctaOf(uint64(i), r), unscaled)
		packed.record(ctaOf(uint64(i), r), unscaled)
	}
	if !packed.streams() {
		t.Fatal("records one a CTA in order do not stream")
	}
	words := slices.Clone(packed.words())
	// Two readers of the words, each at its own place, interleaved: the
	// second starts once the first has given two specs.
	var other ctaTable
	other.setWords(packed.words())
	for i := uint64(0); i < n+2; i++ {
		for r, tb := range []*ctaTable{&packed, &other} {
			j := i - uint64(2*r)
			if i < uint64(2*r) || j >= n {
				continue
			}
			s := ctaSpec{cycles: -1, warps: []int64{1}, x: &ctaExtra{}} // overwritten: a spec is set whole
			tb.nextSpec(&s)
			if want := *flat.at(j); !reflect.DeepEqual(s, want) {
				t.Errorf("reader %d: cta %d streamed %+v, want %+v", r, j, s, want)
			}
		}
	}
	if !slices.Equal(words, packed.words()) {
		t.Error("streaming wrote to the table's words")
	}
	for name, order := range map[string][]uint64{
		"out of order": {1, 0, 2},
		"repeated":     {0, 1, 1, 2},
		"a gap":        {0, 2, 3},
		"not from 0":   {1, 2},
	} {
		tb := newPackedCTATable(n)
		for _, i := range order {
			tb.record(&trace.CTA{CTA: i, Cycles: int64(i) + 1}, unscaled)
		}
		if tb.streams() {
			t.Errorf("%s: the table streams", name)
		}
		if got := tb.at(order[len(order)-1]).cycles; got != int64(order[len(order)-1])+1 {
			t.Errorf("%s: unpacked cycles %d", name, got)
		}
	}
}

// A device kernel's packed table holds its records wherever its first
// bytes are (with the Kernel or not) and unpacks to what a flat table
// holds, with its neighbours in the block filled too; kernels of up to
// seven CTAs, table included, take one allocation a block.
func TestDeviceKernelTable(t *testing.T) {
	var a deviceKernels
	var ks, flats []*ctaTable
	for n := uint64(0); n <= 20; n++ {
		k, flat := a.newDeviceKernel(n), newCTATable(n)
		if n > 0 && !k.ctas.isPacked() {
			t.Fatalf("%d CTAs: the table is not packed", n)
		}
		ks, flats = append(ks, &k.ctas), append(flats, &flat)
	}
	for n, tb := range ks {
		for i := range uint64(n) {
			r := ctaRecord{cycles: 1000 * int64(i+1), warps: []int64{int64(i), 1000 * int64(i+1), 3}, demand: true, insts: 99, bytes: 1 << 33}
			flats[n].record(ctaOf(i, r), unscaled)
			tb.record(ctaOf(i, r), unscaled)
		}
	}
	for n, tb := range ks {
		for i := range uint64(n) {
			if got, want := *tb.at(i), *flats[n].at(i); !reflect.DeepEqual(got, want) {
				t.Errorf("%d CTAs: cta %d = %+v, want %+v", n, i, got, want)
			}
		}
	}
	for n := uint64(1); n <= 7; n++ {
		per := blockOf(n)
		block := func() {
			var a deviceKernels
			for range per {
				a.newDeviceKernel(n)
			}
		}
		if a := testing.AllocsPerRun(10, block); a != 1 {
			t.Errorf("%d device kernels of %d CTAs: %v allocations, want 1", per, n, a)
		}
	}
}

// blockOf is how many kernels of n CTAs a block holds.
func blockOf(n uint64) int {
	switch room := packedRoom(n); {
	case n == 0 || n > flatCTAs:
		return moreBlock
	case room <= 5:
		return oneBlock
	case room <= 9:
		return threeBlock
	case room <= 17:
		return sevenBlock
	}
	return moreBlock
}

// A block of device kernels fills the allocator's slot it takes: the
// heap grows by no more than its kernels' own bytes and a few percent
// (kernelBlockBytes), where blocks of 64 had taken 212 bytes a kernel
// with room for one CTA, 192 bytes each, and 256 with room for three,
// 224 each. n 0 stands for the kernels of no room of their own
// (sharedKernel, and those of over seven CTAs, whose tables come apart).
func TestDeviceKernelBlocksFill(t *testing.T) {
	words := []int64{1 << headerGrid}
	for _, c := range []struct {
		n, size uintptr
		per     int
	}{
		{1, unsafe.Sizeof(deviceKernels{}.one.blk[0]), oneBlock},
		{3, unsafe.Sizeof(deviceKernels{}.three.blk[0]), threeBlock},
		{7, unsafe.Sizeof(deviceKernels{}.seven.blk[0]), sevenBlock},
		{0, unsafe.Sizeof(Kernel{}), moreBlock},
	} {
		const blocks = 200
		keep := make([]*Kernel, 0, blocks)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range blocks {
			var a deviceKernels
			for i := range c.per {
				var k *Kernel
				if c.n == 0 {
					k = a.sharedKernel(words)
				} else {
					k = a.newDeviceKernel(uint64(c.n))
				}
				if i == 0 {
					keep = append(keep, k)
				}
			}
		}
		runtime.ReadMemStats(&after)
		if got := after.Mallocs - before.Mallocs; got < blocks || got > blocks+blocks/10 {
			t.Errorf("kernels of %d CTAs: %d allocations for %d blocks", c.n, got, blocks)
		}
		per := float64(after.TotalAlloc-before.TotalAlloc) / float64(blocks*c.per)
		if per > float64(c.size)*1.02 {
			t.Errorf("kernels of %d CTAs: %.1f bytes a kernel of %d bytes (%d a block)", c.n, per, c.size, c.per)
		}
		runtime.KeepAlive(keep)
	}
}

// BenchmarkNextSpec streams the specs of a table of BFS-like records (no
// per-warp cycles, a demand), as placing each CTA of a child does.
func BenchmarkNextSpec(b *testing.B) {
	const n = 64
	tb := newPackedCTATable(n)
	for i := range uint64(n) {
		tb.record(&trace.CTA{CTA: i, Cycles: 3000 + int64(i), Insts: 900 + i, DRAMBytes: 40000 + 64*i}, unscaled)
	}
	var s ctaSpec
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			tb.next = 0 // stream the table again from its start
		}
		tb.nextSpec(&s)
	}
}

// A spec queue hands out, CTA after CTA, the specs put in: empty ones for
// the CTAs between two puts and past the last, each rare part with the
// slim it belongs to, across puts that compact what is left.
func TestSpecQueue(t *testing.T) {
	x := &ctaExtra{checked: 7}
	var want []ctaSpec
	var q specQueue
	var popped []ctaSpec
	next := uint64(0)
	for round := range 40 {
		// CTAs next, next+1, … with a gap of round%3 empty ones first.
		at := next + uint64(round%3)
		for ; next < at; next++ {
			want = append(want, ctaSpec{})
		}
		var slims []slimSpec
		var rare []rareSpec
		for j := range 5 + round%4 {
			s := ctaSpec{cycles: int64(100*round + j), issue: float32(j), dram: float32(round)}
			if j%3 == 1 {
				s.warps = []int64{int64(round), int64(j)}
			}
			if j%4 == 2 {
				s.x = x
			}
			slims, rare = appendQueued(slims, rare, &s)
			want = append(want, s)
		}
		q.put(at, slims, rare)
		next = at + uint64(len(slims))
		// Pop about half of what is queued, so puts compact a queue
		// that still holds specs.
		for len(want) > 4 {
			i := uint64(len(popped))
			var got ctaSpec
			q.pop(i, &got)
			if !reflect.DeepEqual(got, want[0]) {
				t.Fatalf("round %d, CTA %d: popped %+v, want %+v", round, i, got, want[0])
			}
			popped, want = append(popped, got), want[1:]
		}
	}
	for len(want) > 0 {
		var got ctaSpec
		q.pop(uint64(len(popped)), &got)
		if !reflect.DeepEqual(got, want[0]) {
			t.Fatalf("CTA %d: popped %+v, want %+v", len(popped), got, want[0])
		}
		popped, want = append(popped, got), want[1:]
	}
	var past ctaSpec
	if q.pop(uint64(len(popped)), &past); !reflect.DeepEqual(past, ctaSpec{}) {
		t.Fatalf("past the specs queued: %+v, want an empty spec", past)
	}
	if len(q.rare) > 8 || cap(q.specs) > 64 {
		t.Fatalf("queue storage %d rare parts, room for %d slims: not compacted", len(q.rare), cap(q.specs))
	}
}

// A spec queue past spillAt keeps the rest packed and hands them out in
// order all the same: gaps, rare parts, rates that change and repeat,
// across the spill's chunks.
func TestSpecQueueSpill(t *testing.T) {
	x := &ctaExtra{checked: 3}
	var q specQueue
	var want []ctaSpec
	next, popped, spilled, chunked := uint64(0), 0, false, false
	check := func(n int) {
		for ; n > 0 && popped < len(want); n-- {
			var got ctaSpec
			q.pop(uint64(popped), &got)
			if w := want[popped]; got.cycles != w.cycles || got.issue != w.issue || got.dram != w.dram || got.x != w.x || len(got.warps) != len(w.warps) {
				t.Fatalf("CTA %d: %+v, want %+v", popped, got, w)
			}
			popped++
		}
	}
	for round := range 12 {
		at := next + uint64(round%2)*3
		for ; next < at; next++ {
			want = append(want, ctaSpec{})
		}
		var slims []slimSpec
		var rare []rareSpec
		for j := range spillAt / 3 {
			s := ctaSpec{cycles: int64(round*spillAt + j), issue: float32(round % 3), dram: float32(j / 1000)}
			if j%5000 == 7 {
				s.x = x
			}
			slims, rare = appendQueued(slims, rare, &s)
			want = append(want, s)
		}
		q.put(at, slims, rare)
		next = at + uint64(len(slims))
		spilled = spilled || q.spill.held()
		chunked = chunked || len(q.spill.chunks) > 1
		check(spillAt / 5)
	}
	if !spilled || !chunked {
		t.Fatalf("spilled %v, past a chunk %v: want both", spilled, chunked)
	}
	check(len(want))
	var past ctaSpec
	q.pop(uint64(len(want)), &past)
	if past.cycles != 0 {
		t.Fatalf("past the last put: %+v", past)
	}
}

// appendQueued appends s as a queue holds it: its slim, and its rare
// parts, if any, to rare (the slim's rare set).
func appendQueued(slims []slimSpec, rare []rareSpec, s *ctaSpec) ([]slimSpec, []rareSpec) {
	var e slimSpec
	e.slim(s)
	if s.hasRare() {
		e.rare = 1
		var r rareSpec
		r.setRare(s)
		rare = append(rare, r)
	}
	return append(slims, e), rare
}

// A packed table filed a run at a time (recordRun: CTAs c, c+1, … in
// order, the header counting a run in order once, appendNamed naming the
// CTAs of one that is not) unpacks to the specs the same records give a
// flat table filed one at a time, and streams where the runs came in CTA
// order.
func TestPackedCTATableRuns(t *testing.T) {
	const n = 12
	rec := func(i uint64) trace.CTA {
		c := *ctaOf(i, ctaRecord{cycles: 10 + int64(i), demand: i%3 == 0, insts: i})
		if i%4 == 1 {
			c.WarpCycles = []int64{10 + int64(i), 3}
		}
		return c
	}
	for name, runs := range map[string][][2]uint64{ // each run's first CTA and count
		"in order":       {{0, 3}, {3, 1}, {4, 8}},
		"later first":    {{4, 3}, {0, 4}, {7, 5}},
		"named then not": {{1, 3}, {0, 1}, {4, 2}},
		"repeated":       {{0, 2}, {1, 3}}, // its second CTA 1 named, then its 2 and 3 counted
	} {
		flat, packed := newCTATable(n), newPackedCTATable(n)
		inOrder := true
		for i, r := range runs {
			cs := make([]trace.CTA, r[1])
			for j := range cs {
				cs[j] = rec(r[0] + uint64(j))
				flat.record(&cs[j], unscaled)
			}
			packed.recordRun(cs, unscaled)
			inOrder = inOrder && (i == 0 && r[0] == 0 || i > 0 && r[0] == runs[i-1][0]+runs[i-1][1])
		}
		if packed.streams() != inOrder {
			t.Errorf("%s: streams %v", name, packed.streams())
		}
		for i := uint64(0); i < n; i++ {
			if got, want := *packed.at(i), *flat.at(i); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: cta %d = %+v, want %+v", name, i, got, want)
			}
		}
	}
}
