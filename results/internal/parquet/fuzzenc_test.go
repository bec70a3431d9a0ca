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
		if err := sameDeltaBlock(&w, narrow, lo, hi); err != nil {
			t.Fatal(err)
		}
	})
}
