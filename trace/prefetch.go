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
// ReadOptions' ReuseRecords and ReuseWarpCycles): they live in storage their batch owns
// (the records, their parents, their warp_cycles into one slab), so they
// cross goroutines without an allocation each. A Reader, and a Validator
// or host index check over one, decodes them there itself; from any other
// source the goroutine copies each in. Records of the
// other kinds must be fresh, as a Reader returns them; they are handed on
// as they are. A batch is recycled once its caller has asked for a record
// past it, so a launch, cta or kernel record Next returns, and its
// warp_cycles, are the caller's until the next call to Next (as under ReadOptions.ReuseRecords): it
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

// batch is up to prefetchBatch records in order and the storage its launch,
// cta and kernel records live in, then err once the source has ended
// (io.EOF) or failed.
type batch struct {
	recs []Record
	slab
	direct bool // the source decodes into slab itself (decodeInto)
	err    error
}

// NewPrefetcher starts reading src.
func NewPrefetcher(src Source) *Prefetcher {
	p := &Prefetcher{w: ahead.New[batch](prefetchDepth)}
	if s, ok := src.(interface{ pauseWhen(func() bool) }); ok {
		// Called on the goroutine, inside src.Next.
		s.pauseWhen(func() bool { return len(p.filling.recs) > 0 && p.w.Hungry() })
	}
	go p.w.Run(func(b *batch) bool {
		p.filling = b
		b.direct = decodeInto(src, &b.slab)
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
		if !b.direct {
			r = b.own(r)
		}
		b.recs = append(b.recs, r)
		if c, ok := r.(*CTA); ok {
			if b.err = b.run(src, c.Kernel); b.err != nil {
				return
			}
		}
	}
}

// run takes the run of cta records after one of kernel, where src is a
// Validator with a fast way to them (Validator.CTAs), into b's storage,
// as many as the batch has room for. Its error is the source's at the
// record that ends the run.
func (b *batch) run(src Source, kernel uint64) error {
	v, ok := src.(*Validator)
	if !ok {
		return nil
	}
	dst, warps := b.runRoom(prefetchBatch - len(b.recs))
	n, err := v.CTAs(kernel, dst, warps)
	for i := range dst[:n] {
		b.recs = append(b.recs, &dst[i])
	}
	b.took(n, usedWarps(dst[:n]))
	return err
}

// own returns r in storage b owns when it is a launch, cta or kernel
// record (which the source may overwrite), else r itself.
func (b *batch) own(r Record) Record {
	switch r := r.(type) {
	case *Kernel:
		k := b.kernel()
		*k = *r
		return k
	case *CTA:
		c := b.cta()
		*c = *r
		if len(r.WarpCycles) > 0 {
			c.WarpCycles = append(b.warpBuf(len(r.WarpCycles)), r.WarpCycles...)
		}
		return c
	case *Launch:
		l, p := b.launch()
		*l = *r
		if r.Parent != nil {
			*p = *r.Parent
			l.Parent = p
		}
		return l
	}
	return r
}

// reset empties b for another fill. It does not clear its records, which
// the fill overwrites from the first: clearing them, on the caller's
// goroutine, cost write barriers for every one while the GC marks. Those
// past a shorter batch's end (a paused or the last one) stay referenced
// until a later fill overwrites them, at most prefetchBatch records a
// batch; most are in the batch's own slab.
func (b *batch) reset() {
	b.recs = b.recs[:0]
	b.slab.reset()
	b.err = nil
}

// Next returns the next record, or the source's error (io.EOF at the end)
// once every record before it has been returned.
func (p *Prefetcher) Next() (Record, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	r := p.cur.recs[p.next]
	p.next++
	return r, nil
}

// Batch returns the records Next would return next, as many as the batch
// it reads from holds (at least one), or the source's error (io.EOF at the
// end) once every record before it has been returned. They are the
// caller's, as Next's are, until its next call to Batch or Next, which
// may recycle their batch. A caller that takes every record (the replay's
// tree filer) makes one call a batch, where Next is a call a record, most
// often through the Source interface.
func (p *Prefetcher) Batch() ([]Record, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	recs := p.cur.recs[p.next:]
	p.next = len(p.cur.recs)
	return recs, nil
}

// advance makes cur a batch with a record left, recycling the batch
// read out, or returns the source's error once every record before it
// has been returned.
func (p *Prefetcher) advance() error {
	if p.closed {
		return io.ErrClosedPipe
	}
	for p.cur == nil || p.next == len(p.cur.recs) {
		if p.cur != nil {
			if p.cur.err != nil {
				return p.cur.err
			}
			p.cur.reset()
			p.w.Recycle(p.cur)
		}
		p.cur, p.next = p.w.Receive(), 0
	}
	return nil
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
