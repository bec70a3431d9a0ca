package parquet

import "golang.org/x/sys/cpu"

// deltaVector is whether appendDelta takes a whole block's deltas and
// bounds with deltaBlockAVX2: where the processor has AVX2 (and not in a
// test of the Go path, deltaBlockGo).
var deltaVector = cpu.X86.HasAVX2

// deltaBlockAVX2 is deltaBlockGo in AVX2 instructions, four values a
// vector (delta_amd64.s); the widths, not a call of blockWidth each.
//
//go:noescape
func deltaBlockAVX2(d *[deltaBlock]uint64, w *[deltaBlock + 1]int64, tops *[deltaMinis]int64, widths *[deltaMinis]byte, narrow bool, lo, hi int64) (least, blo, bhi int64, size int)
