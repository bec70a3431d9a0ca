package samples

import "github.com/gpureplay/gpureplay/trace"

// heapBase is where a generated trace's first buffer starts: a plausible
// device address under unified virtual addressing. The model only uses
// offsets within a buffer, so the value matters only for looking real.
const heapBase = 0x7_0000_0000

// allocAlign is the alignment the CUDA runtime guarantees for every
// allocation (256 bytes), which is how far apart consecutive buffers start.
const allocAlign = 256

// deviceHeap lays out a generated trace's buffers as consecutive cudaMalloc
// calls would: in order, aligned, never overlapping, with ids from 1.
type deviceHeap struct {
	next uint64
	ids  uint64
}

// alloc returns the buffer record of the next allocation.
func (h *deviceHeap) alloc(name string, bytes int64, role trace.Role) *trace.Buffer {
	if h.next == 0 {
		h.next = heapBase
	}
	h.ids++
	b := &trace.Buffer{ID: h.ids, Name: name, Base: h.next, Bytes: bytes, Role: role}
	span := max(uint64(bytes), 1) // even an empty buffer gets its own address
	h.next += (span + allocAlign - 1) / allocAlign * allocAlign
	return b
}
