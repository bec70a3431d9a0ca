//go:build !amd64

package parquet

// deltaVector is false: deltaBlockAVX2 is amd64's.
var deltaVector = false

func deltaBlockAVX2(d *[deltaBlock]uint64, w *[deltaBlock + 1]int64, tops *[deltaMinis]int64, widths *[deltaMinis]byte, narrow bool, lo, hi int64) (least, blo, bhi int64, size int) {
	panic("parquet: no AVX2 here")
}
