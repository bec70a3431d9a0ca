package results

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// buffers is the allocator of every table's Arrow builders and encoders:
// it keeps the memory of released batches for the next ones.
//
// A replay with --out fills a batch of 65,536 rows for each table, hands
// it to the table's encoder and starts the next: with the Go allocator
// every batch's columns were new memory and the last batch's garbage, two
// thirds of what such a run allocated (BFS scale 20: 236 of 343 MB), and
// the collector ran once for every few batches, marking the replay's
// whole live heap each time.
var buffers memory.Allocator = pool

var pool = &bufferPool{}

// spooledBuffers is the allocator of a Recorder's builders: the same pool, its
// memory handed out as the last buffer there left it, not cleared. A
// Recorder's builders write every byte of their buffers that a batch
// holds: each column takes a run of rows in one AppendValues, a null's
// value as the spool's zero (bulk.go), and Arrow clears what it keeps
// of the validity bitmaps itself; only a Writer's own rows
// (AppendNull, which leaves a null's value as the allocator gave it)
// need cleared memory. Cleared, a batch's buffers cost --out some 10
// instructions a CTA (scripts/instructions.sh synth-parquet: 1,600
// buffers, 50M instructions of clearing, half a megabyte each).
var spooledBuffers memory.Allocator = unclearedPool{pool}

// Sizes are rounded up to a power of two from 64 bytes (Go allocates
// those aligned to 64 bytes, as Arrow wants) to 64 MiB; larger ones are
// not kept.
const (
	minPoolClass = 6
	maxPoolClass = 26
)

// bufferPool is a memory.Allocator that keeps freed buffers by size
// class. A sync.Pool lets the collector take back what has not been
// reused for two collections, so the pool holds no more than a replay's
// batches in flight for long.
type bufferPool struct {
	classes [maxPoolClass + 1]sync.Pool
}

// poolClass returns the class of buffers that hold size bytes.
func poolClass(size int) int {
	if size <= 1<<minPoolClass {
		return minPoolClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate returns zeroed memory, as the Go allocator does.
func (p *bufferPool) Allocate(size int) []byte { return p.take(size, true) }

func (p *bufferPool) Reallocate(size int, b []byte) []byte { return p.grow(size, b, true) }

// take returns size bytes from the pool, cleared where zero is set.
func (p *bufferPool) take(size int, zero bool) []byte {
	c := poolClass(size)
	if c > maxPoolClass {
		return make([]byte, size)
	}
	if v := p.classes[c].Get(); v != nil {
		b := *v.(*[]byte)
		if zero {
			clear(b)
		}
		return b[:size]
	}
	return make([]byte, size, 1<<c)
}

// grow returns b with room for size bytes, moved to a buffer of take's
// where it has not the room.
func (p *bufferPool) grow(size int, b []byte, zero bool) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	n := p.take(size, zero)
	copy(n, b)
	p.Free(b)
	return n
}

// Free keeps b for reuse if it is the whole of a buffer Allocate made.
func (p *bufferPool) Free(b []byte) {
	c := cap(b)
	if c < 1<<minPoolClass || c > 1<<maxPoolClass || c&(c-1) != 0 {
		return
	}
	b = b[:c]
	p.classes[bits.Len(uint(c))-1].Put(&b)
}

// unclearedPool hands out a bufferPool's memory as it was left
// (spooledBuffers).
type unclearedPool struct{ *bufferPool }

// Allocate returns size bytes, what they hold left as it was.
func (p unclearedPool) Allocate(size int) []byte { return p.take(size, false) }

func (p unclearedPool) Reallocate(size int, b []byte) []byte { return p.grow(size, b, false) }
