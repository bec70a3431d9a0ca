package parquet

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzRawFrame holds appendRawFrame to the zstd decoder: any bytes, in a
// frame of raw blocks, read back as they are.
func FuzzRawFrame(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add([]byte("a page"), uint16(3))
	f.Fuzz(func(t *testing.T, b []byte, grow uint16) {
		b = append(b, make([]byte, int(grow)*4)...) // past a block's 128 KiB where grow is large
		frame := appendRawFrame(nil, b)
		got, err := decoderOnce().DecodeAll(frame, make([]byte, 0, len(b)))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d bytes: read back %d, %v", len(b), len(got), err)
		}
	})
}

// FuzzDeltaBlock holds deltaBlockAVX2, where the processor has it, to
// deltaBlockGo on any block's 129 values, INT64 and INT32.
func FuzzDeltaBlock(f *testing.F) {
	f.Add([]byte{1, 2, 3}, false, int64(0), int64(0))
	f.Add(bytes.Repeat([]byte{0xff, 0x7f, 0, 0x80}, 300), true, int64(-1), int64(1))
	f.Fuzz(func(t *testing.T, raw []byte, narrow bool, lo, hi int64) {
		if !deltaVector {
			t.Skip("no AVX2")
		}
		var w [deltaBlock + 1]int64
		for i := range w {
			var b [8]byte
			copy(b[:], raw[min(len(raw), 8*i):])
			w[i] = int64(binary.LittleEndian.Uint64(b[:]))
			if narrow {
				w[i] = int64(int32(w[i]))
			}
		}
		lo, hi = min(lo, hi, w[0]), max(lo, hi, w[0]) // w[0] taken, as appendDelta has it
		var d1, d2 [deltaBlock]uint64
		var t1, t2 [deltaMinis]int64
		var w1, w2 [deltaMinis]byte
		l1, lo1, hi1, s1 := deltaBlockGo(&d1, &w, &t1, &w1, narrow, lo, hi)
		l2, lo2, hi2, s2 := deltaBlockAVX2(&d2, &w, &t2, &w2, narrow, lo, hi)
		if d1 != d2 || t1 != t2 || w1 != w2 || l1 != l2 || lo1 != lo2 || hi1 != hi2 || s1 != s2 {
			t.Fatalf("AVX2 least %d bounds %d %d tops %v widths %v (%d), Go %d %d %d %v %v (%d)", l2, lo2, hi2, t2, w2, s2, l1, lo1, hi1, t1, w1, s1)
		}
	})
}
