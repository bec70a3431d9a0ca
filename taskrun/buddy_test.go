package taskrun

import (
	"math/rand"
	"testing"
)

// The paper's Fig. 3 and 4 on a 32 KiB heap: allocate 8K, then 4K, free
// them, and watch the marks split and merge.
func TestBuddySplitMerge(t *testing.T) {
	b := newBuddy(32 << 10)
	if len(b.marked) != 128 || b.depth != 6 {
		t.Fatalf("32 KiB heap: %d nodes, depth %d; want 128 (§5.1), 6", len(b.marked), b.depth)
	}
	n8, ok := b.alloc(8 << 10)
	if !ok || n8 != 4 || b.offset(n8) != 0 || b.blockSize(n8) != 8<<10 {
		t.Fatalf("8K: node %d at %d; want node 4 at 0", n8, b.offset(n8))
	}
	// Ancestors 1, 2 and every descendant of 4 are marked; 4's buddy 5 is not.
	for _, n := range []int{1, 2, 4, 8, 9, 16, 19, 32, 39, 64, 79} {
		if !b.marked[n] {
			t.Errorf("after 8K: node %d unmarked", n)
		}
	}
	for _, n := range []int{3, 5, 10, 11, 20, 80} {
		if b.marked[n] {
			t.Errorf("after 8K: node %d marked", n)
		}
	}
	n4, ok := b.alloc(4 << 10) // splits 5: the first free 4K block is 10
	if !ok || n4 != 10 || b.offset(n4) != 8<<10 {
		t.Fatalf("4K: node %d at %d; want node 10 at 8192", n4, b.offset(n4))
	}
	n600, ok := b.alloc(600) // rounds up to 1K: the first free one is 44, at 12K
	if !ok || n600 != 44 || b.blockSize(n600) != 1024 || b.offset(n600) != 12<<10 {
		t.Fatalf("600 B: node %d (%d B at %d); want node 44 (1024 B at 12288)", n600, b.blockSize(n600), b.offset(n600))
	}
	if _, ok := b.alloc(32 << 10); ok {
		t.Fatal("32K allocated from a heap in use")
	}
	b.free(n8) // sibling 5 is marked: 2 stays marked
	if b.marked[4] || !b.marked[2] || !b.marked[1] {
		t.Fatalf("after freeing 8K: 4 %v, 2 %v, 1 %v; want false, true, true", b.marked[4], b.marked[2], b.marked[1])
	}
	b.free(n600)
	b.free(n4) // 11 free → 5 unmarked; 4 free → 2; 3 free → 1
	for n, m := range b.marked {
		if m {
			t.Fatalf("after freeing everything node %d is marked", n)
		}
	}
	if n, ok := b.alloc(32 << 10); !ok || n != 1 {
		t.Fatalf("32K on an empty heap: node %d ok %v; want the root", n, ok)
	}
}

func TestBuddyLimits(t *testing.T) {
	b := newBuddy(32 << 10)
	if _, ok := b.alloc(32<<10 + 1); ok {
		t.Error("allocated more than the heap")
	}
	if n, ok := b.alloc(1); !ok || b.blockSize(n) != minBlock {
		t.Errorf("1 byte: %d-byte block; want %d", b.blockSize(n), minBlock)
	}
	if got := b.largestFree(); got != 16<<10 {
		t.Errorf("largest free after one 512-byte block: %d; want 16384", got)
	}
	var none buddy = newBuddy(0)
	if _, ok := none.alloc(1); ok || none.largestFree() != 0 {
		t.Error("an MTB without shared memory allocated")
	}
}

// TestBuddyMatchesReference runs random allocations and frees against a
// plain leaf map: a request succeeds exactly when some aligned run of free
// leaves of its block size exists, and gets the lowest such run.
func TestBuddyMatchesReference(t *testing.T) {
	const heap = 16 << 10
	leaves := heap / minBlock
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		b := newBuddy(heap)
		used := make([]bool, leaves)
		var live []int32
		for op := 0; op < 60; op++ {
			if len(live) > 0 && rng.Intn(3) == 0 {
				k := rng.Intn(len(live))
				n := live[k]
				live = append(live[:k], live[k+1:]...)
				lo := int(b.offset(n) / minBlock)
				for i := lo; i < lo+int(b.blockSize(n)/minBlock); i++ {
					used[i] = false
				}
				b.free(n)
				continue
			}
			size := int64(1 + rng.Intn(heap/2))
			span := 1
			for int64(span*minBlock) < size {
				span *= 2
			}
			want := -1
			for lo := 0; lo < leaves && want < 0; lo += span {
				free := true
				for i := lo; i < lo+span; i++ {
					free = free && !used[i]
				}
				if free {
					want = lo
				}
			}
			n, ok := b.alloc(size)
			if ok != (want >= 0) || (ok && int(b.offset(n)/minBlock) != want) {
				t.Fatalf("round %d op %d: alloc(%d) = node %d ok %v; want leaf %d", round, op, size, n, ok, want)
			}
			if ok {
				for i := want; i < want+span; i++ {
					used[i] = true
				}
				live = append(live, n)
			}
			for n := 2; n < len(b.marked); n++ {
				if b.marked[n] && !b.marked[n/2] {
					t.Fatalf("node %d marked but its parent is not", n)
				}
			}
		}
	}
}
