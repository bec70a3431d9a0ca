package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gpureplay/gpureplay/internal/idtab"

	"github.com/gpureplay/gpureplay/trace"
)

// Opener opens a fresh Source over the same trace on every call. The engine
// opens the trace twice, to read host launches and launch-tree bodies at
// their own paces. Sources that are io.Closers are closed when Run returns.
type Opener func() (trace.Source, error)

// clock rescales trace cycles to replay-GPU cycles.
type clock struct {
	ratio float64
}

// MaxClockRatio bounds how much longer the replay clock makes a trace's
// times: with the trace's own bound (trace.MaxCycles) every rescaled time
// stays below 2^50 cycles, and the engine's sums of them inside int64.
const MaxClockRatio = 1024

// newClock rescales from a trace recorded at traceMHz to a GPU at gpuMHz.
func newClock(traceMHz, gpuMHz float64) (clock, error) {
	r := gpuMHz / traceMHz
	if !(r <= MaxClockRatio) {
		return clock{}, &ModelError{Msg: fmt.Sprintf("the trace's clock is %g MHz and the GPU's %g MHz: replayed, its times would grow %.3g-fold, more than %d (set gpu.clock_mhz, or fix the trace's clock_mhz)", traceMHz, gpuMHz, r, MaxClockRatio)}
	}
	return clock{ratio: r}, nil
}

func (c clock) scale(v int64) int64 {
	if c.ratio == 1 {
		return v
	}
	return int64(math.Round(float64(v) * c.ratio))
}

// hostCursor yields host launch records in trace order, one ahead of the
// simulated host, so the host never reads further than it has issued
// (under Options.Prefetch its source decodes a bounded window further on
// another goroutine; the records still come one at a time).
type hostCursor struct {
	src trace.Source
	eof bool
}

// next returns the next host operation — a host launch or an explicit
// copy — or nil at the end of the trace.
func (h *hostCursor) next() (trace.Record, error) {
	for !h.eof {
		r, err := h.src.Next()
		if errors.Is(err, io.EOF) {
			h.eof = true
			break
		}
		if err != nil {
			return nil, err
		}
		switch r := r.(type) {
		case *trace.Launch:
			if r.Host() {
				return r, nil
			}
		case *trace.Memcpy:
			return r, nil
		}
	}
	return nil, nil
}

// bodyCursor reads launch-tree bodies segment by segment: everything from
// one host launch record to the next belongs to that launch's tree (the
// trace's streaming rule). It loads a segment only when its host kernel is
// about to be dispatched.
type bodyCursor struct {
	src      trace.Source
	clk      clock
	decls    idtab.Table[*trace.Kernel] // declared, not yet launched
	declared declCache                  // the launched kernels' declarations, shared
	tree     idtab.Table[*Kernel]       // kernels of the segments loaded so far
	held     *trace.Launch              // the host launch that ended the last segment
	header   *trace.Header
	eof      bool
	loaded   int     // host launches whose segments are loaded
	last     *Kernel // the kernel the last cta record named (they come in runs)

	// With ordered_trees the open segment is read host CTA by host CTA
	// (reach); open is its host kernel, nil when no segment is half read.
	// hostPast and rootPast are one past the host CTA the host kernel's
	// own records and the device records have reached (0: none yet).
	ordered            bool
	open               *Kernel
	hostPast, rootPast uint64

	pageBytes int64      // io.page_bytes, for headers that give none
	stages    bool       // host I/O is modelled: buffers must come first
	space     *pageSpace // the buffers declared before the first launch
	launched  bool       // a host launch has been read
	refs      *refSource // where CTAs' page references come from (CRCS), or nil
	irregular map[uint64]bool
	touches   touchMode // which CTAs' touches to keep (touch.go)
}

func newBodyCursor(src trace.Source) *bodyCursor {
	return &bodyCursor{src: src}
}

// readHeader consumes the preamble up to the first host launch (header,
// buffers, declarations) and returns the header.
func (b *bodyCursor) readHeader() (*trace.Header, error) {
	if err := b.readSegment(); err != nil {
		return nil, err
	}
	if b.header == nil {
		return nil, errors.New("trace has no header record")
	}
	return b.header, nil
}

// load reads segments until host kernel k (the index-th host launch) has its
// body. Segments of host kernels issued before k are loaded on the way. A
// trace with ordered_trees has only k's launch read: its CTAs' trees are
// read as they are placed (reach).
func (b *bodyCursor) load(k *Kernel, byIndex func(int) *Kernel) error {
	for k.decl == nil {
		if err := b.readSegment(); err != nil { // the rest of a half-read one
			return err
		}
		if b.held == nil {
			return fmt.Errorf("kernel %d: its launch tree is missing from the trace", k.id)
		}
		hk := byIndex(b.loaded)
		if hk == nil || hk.id != b.held.Kernel {
			return fmt.Errorf("kernel %d: host launch order differs between reads of the trace", b.held.Kernel)
		}
		b.loaded++
		if err := b.adopt(hk, b.held); err != nil {
			return err
		}
		b.held = nil
		if b.ordered {
			b.open = hk
			b.hostPast, b.rootPast = 0, 0
			continue
		}
		if err := b.readSegment(); err != nil {
			return err
		}
	}
	return nil
}

// reach makes sure CTA i of k is read with everything of its tree: its own
// records and every device launch made from it, with their kernels'
// records, recursively. Only the open segment of an ordered_trees trace
// has anything left to read; rule 4 says where CTA i's tree ends: once the
// host kernel's records and the device records are both past CTA i.
func (b *bodyCursor) reach(k *Kernel, i uint64) error {
	for b.open == k && !(b.hostPast > i+1 && b.rootPast > i+1) {
		if err := b.step(); err != nil {
			return err
		}
	}
	return nil
}

// readSegment files records until the next host launch (held for later) or
// the end of the trace.
func (b *bodyCursor) readSegment() error {
	for {
		if err := b.step(); err != nil {
			return err
		}
		if b.held != nil || b.eof {
			return nil
		}
	}
}

// step files the next record, unless the segment has ended: a host launch
// is held for the next segment.
func (b *bodyCursor) step() error {
	if b.held != nil || b.eof {
		b.open = nil
		return nil
	}
	r, err := b.src.Next()
	if errors.Is(err, io.EOF) {
		b.eof = true
		b.open = nil
		return nil
	}
	if err != nil {
		return err
	}
	switch r := r.(type) {
	case *trace.Header:
		b.header = r
		b.ordered = r.OrderedTrees
		pb := r.PageBytes
		if pb <= 0 {
			pb = b.pageBytes
		}
		b.space = newPageSpace(pb)
	case *trace.Buffer:
		if b.launched && b.stages {
			return lateBuffer(r)
		}
		if !b.launched && b.space != nil {
			b.space.add(r)
		}
	case *trace.Access, *trace.Pages:
		if err := b.ref(r); err != nil {
			return err
		}
	case *trace.Kernel:
		b.decls.Set(r.ID, r)
	case *trace.Launch:
		if r.Host() {
			held := *r // the source may reuse its records
			b.held = &held
			b.launched = true
			b.open = nil
			return nil
		}
		if err := b.device(r); err != nil {
			return err
		}
	case *trace.CTA:
		if err := b.cta(r); err != nil {
			return err
		}
	}
	return nil
}

// adopt gives a launched kernel its declaration and room for its CTAs.
func (b *bodyCursor) adopt(k *Kernel, l *trace.Launch) error {
	d, _ := b.decls.Get(l.Kernel)
	if d == nil {
		return fmt.Errorf("launch of kernel %d: kernel not declared", l.Kernel)
	}
	b.decls.Delete(l.Kernel)
	k.decl = b.declared.of(d)
	k.total = d.CTAs()
	if k.host {
		k.ctas = newCTATable(k.total)
	} else {
		k.ctas = newPackedCTATable(k.total)
	}
	b.tree.Set(k.id, k)
	return nil
}

// device creates a child kernel for a device launch record and attaches the
// site to its parent CTA.
func (b *bodyCursor) device(l *trace.Launch) error {
	p, _ := b.tree.Get(l.Parent.Kernel)
	if p == nil {
		return fmt.Errorf("device launch of kernel %d: parent kernel %d is not in this launch tree", l.Kernel, l.Parent.Kernel)
	}
	if l.Parent.CTA >= p.total {
		return fmt.Errorf("device launch of kernel %d: parent CTA %d outside kernel %d's grid", l.Kernel, l.Parent.CTA, p.id)
	}
	child := &Kernel{id: l.Kernel, parent: p, order: -1, startCycle: -1, root: p.root}
	if p == b.open {
		child.root = l.Parent.CTA
	}
	if err := b.adopt(child, l); err != nil {
		return err
	}
	b.passed(child, 0)
	x := p.extra(l.Parent.CTA)
	x.sites = append(x.sites, siteRec{
		warp:     int32(l.Parent.Warp),
		lane:     int32(l.Parent.Lane),
		at:       b.clk.scale(l.Parent.At),
		child:    child,
		workload: l.Workload,
		inline:   b.clk.scale(l.InlineCycles),
	})
	return nil
}

// cta records one CTA's cost in its kernel.
func (b *bodyCursor) cta(c *trace.CTA) error {
	k := b.last
	if k == nil || k.id != c.Kernel {
		k, _ = b.tree.Get(c.Kernel)
		b.last = k
	}
	if k == nil {
		return fmt.Errorf("cta %d of kernel %d: kernel not launched in this launch tree", c.CTA, c.Kernel)
	}
	if c.CTA >= k.total {
		return fmt.Errorf("cta %d of kernel %d: outside the grid of %d CTAs", c.CTA, c.Kernel, k.total)
	}
	b.passed(k, c.CTA)
	r := ctaRecord{cycles: b.clk.scale(c.Cycles), demand: c.HasDemand(), insts: c.Insts, bytes: c.DRAMBytes}
	if len(c.WarpCycles) > 0 && !uniform(c.WarpCycles, c.Cycles) {
		// The slice is ours until the next record (the reader may reuse
		// it): scale it in place; the table copies what it keeps.
		r.warps = c.WarpCycles
		for i, w := range r.warps {
			r.warps[i] = b.clk.scale(w)
		}
	}
	k.ctas.record(c.CTA, r)
	return nil
}

// passed notes, in the open segment of an ordered_trees trace, that a
// record of CTA cta of k has been read: how far the host kernel's records
// or the device records have got (reach).
func (b *bodyCursor) passed(k *Kernel, cta uint64) {
	switch {
	case b.open == nil || k == nil:
	case k == b.open:
		b.hostPast = cta + 1
	case k.order < 0:
		b.rootPast = k.root + 1
	}
}

// uniform reports whether every warp runs the CTA's cycles, which is what
// a spec without warps says: such CTAs (most of a child kernel's, full
// ones) keep no slice.
func uniform(warps []int64, cycles int64) bool {
	for _, w := range warps {
		if w != cycles {
			return false
		}
	}
	return true
}

// ref files an access or pages record as the CTA's page references when the
// scoreboard needs them.
func (b *bodyCursor) ref(r trace.Record) error {
	kid, cta := recordCTA(r)
	if b.open != nil {
		k, _ := b.tree.Get(kid)
		b.passed(k, cta)
	}
	if b.refs == nil {
		return nil
	}
	isRef := b.refs.counts(r) && !b.irregular[kid]
	isTouch := b.touches == touchAll || b.touches == touchIrregular && b.irregular[kid] && r.Kind() == trace.KindPages
	if !isRef && !isTouch {
		return nil
	}
	k := b.last
	if k == nil || k.id != kid {
		k, _ = b.tree.Get(kid)
	}
	if k == nil || k.order < 0 {
		return nil // device kernels are not scoreboarded
	}
	if cta >= k.total {
		return fmt.Errorf("%s record of kernel %d: cta %d outside the grid of %d CTAs", r.Kind(), kid, cta, k.total)
	}
	x := k.extra(cta)
	if isRef {
		x.refs = b.refs.appendRanges(r, x.refs)
	}
	if isTouch {
		x.touches = b.refs.appendTouches(r, x.touches)
	}
	return nil
}

// extra returns CTA i's rare parts, creating them on first use.
func (k *Kernel) extra(i uint64) *ctaExtra {
	s := k.ctas.at(i)
	if s.x == nil {
		s.x = &ctaExtra{}
	}
	return s.x
}

// sortSites orders a CTA's launching lanes by (warp, at, lane). Producers
// usually write them in that order already.
func sortSites(s []siteRec) {
	if !slices.IsSortedFunc(s, cmpSite) {
		slices.SortStableFunc(s, cmpSite)
	}
}

func cmpSite(a, b siteRec) int {
	if c := cmp.Compare(a.warp, b.warp); c != 0 {
		return c
	}
	if c := cmp.Compare(a.at, b.at); c != 0 {
		return c
	}
	return cmp.Compare(a.lane, b.lane)
}

// forget drops a finished kernel from the loaded trees.
func (b *bodyCursor) forget(k *Kernel) {
	b.tree.Delete(k.id)
	if b.last == k {
		b.last = nil
	}
}
