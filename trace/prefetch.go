package trace

import (
	"io"

	"github.com/gpureplay/gpureplay/internal/ahead"
)

// prefetchBatch is how many records the Prefetcher hands over at a time,
// and prefetchDepth how many full batches may wait: the read-ahead window
// is at most (prefetchDepth+2)·prefetchBatch records.
const (
	prefetchBatch = 1024
	prefetchDepth = 4
)

// Prefetcher is a Source that reads another Source on its own goroutine,
// a bounded window ahead of its caller, so that decompressing, decoding and
// validating a trace overlap with whatever the caller does with the
// records (the replay's engine). Records come out in the same order, with
// the same error after the last of them.
//
// The source may reuse its launch, cta and kernel records (a Reader under
// ReuseRecords and ReuseWarpCycles): the goroutine copies each into storage
// its batch owns (the record, its parent, its warp_cycles into one slab), so
// the records cross goroutines without an allocation each. Records of the
// other kinds must be fresh, as a Reader returns them; they are handed on
// as they are. A batch is recycled once its caller has asked for a record
// past it, so a launch, cta or kernel record Next returns, and its
// warp_cycles, are the caller's until the next call to Next (as under ReuseRecords): it
// copies what it keeps, and may change them meanwhile. At most
// prefetchDepth+2 batches exist, so the memory held stays bounded
// whatever the trace's length.
//
// A batch goes out when it is full, or, from a source that pauses between
// the records it skips (a Reader under Skip: Reader.pauseWhen), as soon as
// it holds a record while the caller waits for one (hungry). The replay's
// host pass decodes the whole trace to yield a handful of host launches:
// without the pause its first batch, and the engine with it, would wait
// for the end of the trace.
//
// Close stops the goroutine and waits for it; it must be called before the
// source is closed, and is safe to call more than once.
type Prefetcher struct {
	w       *ahead.Window[batch]
	cur     *batch // the batch Next reads from
	filling *batch // the batch the goroutine fills (the goroutine's alone)
	next    int    // index of its next record
	closed  bool
}

// batch is up to prefetchBatch records in order and the storage its launch
// and cta records live in, then err once the source has ended (io.EOF) or
// failed.
type batch struct {
	recs     []Record
	kernels  []Kernel
	ctas     []CTA
	launches []Launch
	parents  []Parent
	warps    []int64 // the cta records' warp_cycles, one after another
	err      error
}

// NewPrefetcher starts reading src.
func NewPrefetcher(src Source) *Prefetcher {
	p := &Prefetcher{w: ahead.New[batch](prefetchDepth)}
	if s, ok := src.(interface{ pauseWhen(func() bool) }); ok {
		// Called on the goroutine, inside src.Next.
		s.pauseWhen(func() bool { return len(p.filling.recs) > 0 && p.w.Hungry() })
	}
	p.w.Go(func(b *batch) bool {
		p.filling = b
		b.fill(src, p.w)
		return b.err != nil
	})
	return p
}

// fill reads records from src into b until it holds prefetchBatch of them
// or src returns an error; a pause of the source (a hungry caller) ends
// the batch early, and the caller is no longer hungry.
func (b *batch) fill(src Source, w *ahead.Window[batch]) {
	if b.recs == nil {
		b.recs = make([]Record, 0, prefetchBatch)
	}
	for len(b.recs) < prefetchBatch {
		r, err := src.Next()
		if err == errPaused {
			w.NotHungry()
			return
		}
		if err != nil {
			b.err = err
			return
		}
		b.recs = append(b.recs, b.own(r))
	}
}

// own returns r in storage b owns when it is a launch or cta record (which
// the source may overwrite), else r itself.
func (b *batch) own(r Record) Record {
	switch r := r.(type) {
	case *Kernel:
		if b.kernels == nil {
			b.kernels = make([]Kernel, 0, prefetchBatch) // never grows: pointers stay put
		}
		b.kernels = append(b.kernels, *r)
		return &b.kernels[len(b.kernels)-1]
	case *CTA:
		if b.ctas == nil {
			b.ctas = make([]CTA, 0, prefetchBatch) // never grows: pointers stay put
		}
		b.ctas = append(b.ctas, *r)
		c := &b.ctas[len(b.ctas)-1]
		if len(r.WarpCycles) > 0 {
			// A grown slab leaves the earlier records' slices in the old
			// one, still theirs; the larger one is kept for the next fill.
			at := len(b.warps)
			b.warps = append(b.warps, r.WarpCycles...)
			c.WarpCycles = b.warps[at:len(b.warps):len(b.warps)]
		}
		return c
	case *Launch:
		if b.launches == nil {
			b.launches = make([]Launch, 0, prefetchBatch)
		}
		b.launches = append(b.launches, *r)
		l := &b.launches[len(b.launches)-1]
		if r.Parent != nil {
			if b.parents == nil {
				b.parents = make([]Parent, 0, prefetchBatch)
			}
			b.parents = append(b.parents, *r.Parent)
			l.Parent = &b.parents[len(b.parents)-1]
		}
		return l
	}
	return r
}

// reset empties b for another fill, dropping its references to the records
// it handed on.
func (b *batch) reset() {
	clear(b.recs)
	b.recs = b.recs[:0]
	clear(b.launches) // their after lists
	b.kernels, b.ctas, b.launches, b.parents = b.kernels[:0], b.ctas[:0], b.launches[:0], b.parents[:0]
	b.warps = b.warps[:0]
	b.err = nil
}

// Next returns the next record, or the source's error (io.EOF at the end)
// once every record before it has been returned.
func (p *Prefetcher) Next() (Record, error) {
	if p.closed {
		return nil, io.ErrClosedPipe
	}
	for p.cur == nil || p.next == len(p.cur.recs) {
		if p.cur != nil {
			if p.cur.err != nil {
				return nil, p.cur.err
			}
			p.cur.reset()
			p.w.Recycle(p.cur)
		}
		p.cur, p.next = p.w.Receive(), 0
	}
	r := p.cur.recs[p.next]
	p.next++
	return r, nil
}

// Close stops reading ahead and waits until the goroutine has left the
// source.
func (p *Prefetcher) Close() error {
	if !p.closed {
		p.closed = true
		p.w.Close()
	}
	return nil
}
