package trace

import "io"

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
// the same error after the last of them. The source must return fresh
// records (not ReuseRecords): they cross goroutines.
//
// Close stops the goroutine and waits for it; it must be called before the
// source is closed, and is safe to call more than once.
type Prefetcher struct {
	full   chan prefetched
	free   chan []Record // emptied batches, for reuse
	stop   chan struct{}
	exited chan struct{}
	cur    []Record
	batch  []Record // backing array of cur, returned to free when used up
	err    error
	closed bool
}

type prefetched struct {
	recs []Record
	err  error // after recs; nil while more follow
}

// NewPrefetcher starts reading src.
func NewPrefetcher(src Source) *Prefetcher {
	p := &Prefetcher{
		full:   make(chan prefetched, prefetchDepth),
		free:   make(chan []Record, prefetchDepth+2),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go p.run(src)
	return p
}

func (p *Prefetcher) run(src Source) {
	defer close(p.exited)
	for {
		var recs []Record
		select {
		case recs = <-p.free:
		default:
			recs = make([]Record, 0, prefetchBatch)
		}
		var err error
		for len(recs) < prefetchBatch {
			var r Record
			if r, err = src.Next(); err != nil {
				break
			}
			recs = append(recs, r)
		}
		select {
		case p.full <- prefetched{recs, err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Next returns the next record, or the source's error (io.EOF at the end)
// once every record before it has been returned.
func (p *Prefetcher) Next() (Record, error) {
	if p.closed {
		return nil, io.ErrClosedPipe
	}
	for len(p.cur) == 0 {
		if p.err != nil {
			return nil, p.err
		}
		if p.batch != nil {
			select {
			case p.free <- p.batch[:0]:
			default:
			}
		}
		b := <-p.full
		p.batch, p.cur, p.err = b.recs, b.recs, b.err
	}
	r := p.cur[0]
	p.cur[0] = nil // the caller owns it now
	p.cur = p.cur[1:]
	return r, nil
}

// Close stops reading ahead and waits until the goroutine has left the
// source.
func (p *Prefetcher) Close() error {
	if !p.closed {
		p.closed = true
		close(p.stop)
		<-p.exited
	}
	return nil
}
