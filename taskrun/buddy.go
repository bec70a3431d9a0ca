package taskrun

import (
	"math/bits"

	"github.com/gpureplay/gpureplay/model"
)

// minBlock is the buddy allocator's leaf: the smallest shared-memory block
// Pagoda hands out (§5.1).
const minBlock = model.PagodaMinBlock

// buddy is Pagoda's shared-memory allocator (§5.1, Figs. 3–4): a complete
// binary tree over an MTB's heap kept as an array, node 1 the whole heap,
// node n's children 2n and 2n+1, each leaf one 512-byte block. A node is
// marked while any part of its block is allocated, so a marked node's
// parent is marked too and an unmarked node's whole block is free.
//
// Allocating finds the level whose blocks are the smallest that hold the
// request, takes the first unmarked node there (the scheduler warp's
// threads search in parallel; the lowest one wins, which keeps runs
// deterministic), and marks it, its ancestors and its descendants.
// Freeing unmarks the node and its descendants, then walks up unmarking
// each parent whose other child is unmarked: buddies merge.
type buddy struct {
	marked []bool // indexed by node; [0] unused
	depth  int    // level of the leaves; level d holds nodes [1<<d, 2<<d)
	heap   int64  // bytes under the root
}

// newBuddy manages heap bytes, which must be minBlock times a power of two
// (model.Config.Validate checks pagoda.smem_per_mtb so) or zero, which
// allocates nothing.
func newBuddy(heap int64) buddy {
	if heap < minBlock {
		return buddy{}
	}
	leaves := heap / minBlock
	depth := bits.Len64(uint64(leaves)) - 1
	return buddy{marked: make([]bool, 2<<depth), depth: depth, heap: heap}
}

// level is the tree level whose blocks are the smallest holding size
// bytes, or -1 if size exceeds the heap.
func (b *buddy) level(size int64) int {
	if size > b.heap || b.marked == nil {
		return -1
	}
	d, block := 0, b.heap
	for d < b.depth && block/2 >= size {
		d++
		block /= 2
	}
	return d
}

// blockSize is the bytes a node's block spans.
func (b *buddy) blockSize(node int32) int64 {
	return b.heap >> (bits.Len32(uint32(node)) - 1)
}

// offset is where a node's block starts in the heap.
func (b *buddy) offset(node int32) int64 {
	d := bits.Len32(uint32(node)) - 1
	return int64(node-1<<d) * (b.heap >> d)
}

// alloc takes a block of at least size bytes (size > 0) and returns its
// node, or ok false when no block of that size is free.
func (b *buddy) alloc(size int64) (node int32, ok bool) {
	d := b.level(size)
	if d < 0 {
		return 0, false
	}
	for n := 1 << d; n < 2<<d; n++ {
		if !b.marked[n] {
			b.mark(int32(n), true)
			for p := n / 2; p >= 1 && !b.marked[p]; p /= 2 {
				b.marked[p] = true
			}
			return int32(n), true
		}
	}
	return 0, false
}

// free returns the block alloc gave as node.
func (b *buddy) free(node int32) {
	b.mark(node, false)
	for n := node; n > 1 && !b.marked[n^1]; n /= 2 {
		b.marked[n/2] = false
	}
}

// mark sets node and every descendant to v: the descendants of node n at
// each deeper level are a contiguous run of the array.
func (b *buddy) mark(node int32, v bool) {
	lo, hi := int(node), int(node)+1
	for lo < len(b.marked) {
		for i := lo; i < hi; i++ {
			b.marked[i] = v
		}
		lo, hi = 2*lo, 2*hi
	}
}

// largestFree is the biggest block alloc could hand out now, 0 if none:
// what a deadlock report says a waiting request is up against.
func (b *buddy) largestFree() int64 {
	for d := 0; d <= b.depth && b.marked != nil; d++ {
		for n := 1 << d; n < 2<<d; n++ {
			if !b.marked[n] {
				return b.heap >> d
			}
		}
	}
	return 0
}
