package cacheline

import "unsafe"

// Prefetch starts loading the cache line holding p into every cache level
// (PREFETCHT0). It never faults, so p may be any address, even nil.
//
//go:noescape
func Prefetch(p unsafe.Pointer)
