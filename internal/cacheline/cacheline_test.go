package cacheline

import (
	"testing"
	"unsafe"
)

// Prefetch is a hint: it reads nothing back and never faults, on any address
// (a prefetch of an unmapped one is dropped), and changes no memory.
func TestPrefetchChangesNothing(t *testing.T) {
	buf := []uint64{1, 2, 3}
	for i := range buf {
		Prefetch(unsafe.Pointer(&buf[i]))
	}
	Prefetch(nil)
	if buf[0] != 1 || buf[1] != 2 || buf[2] != 3 {
		t.Fatalf("buffer changed: %v", buf)
	}
}
