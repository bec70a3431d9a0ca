package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// DELTA_BINARY_PACKED, the integer columns' encoding: ids and cycles
// mostly climb by small steps, so their deltas pack into a few bits a
// value where plain encoding hands zstd eight bytes.
//
// Layout (parquet-format Encodings.md): a header of the block size (128
// values), the miniblocks a block holds (4, of 32 values), the value
// count and the first value; then, per block of deltas, the least delta
// and each miniblock's bit width, then the miniblocks, each delta less
// the least bit-packed at its miniblock's width.

const (
	deltaBlock     = 128
	deltaMiniblock = 32
	deltaMinis     = deltaBlock / deltaMiniblock
)

// appendDelta appends the encoding of vs. With narrow, vs are INT32
// values, and the deltas wrap at 32 bits as the readers of an INT32
// column compute them.
//
// Each block takes three passes over its 128 deltas, none of them a call
// a value: the deltas and their least, each miniblock's deltas less the
// least OR-ed into its width, then the packing. (The subtraction had a
// pass of its own, and a partial block's rest was cleared: some 15
// instructions a CTA more on synth, scripts/instructions.sh --quick
// synth-parquet.)
func appendDelta(dst []byte, vs []int64, narrow bool) []byte {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMinis)
	dst = binary.AppendUvarint(dst, uint64(len(vs)))
	if len(vs) == 0 {
		return binary.AppendVarint(dst, 0)
	}
	dst = binary.AppendVarint(dst, vs[0])
	var adj [deltaBlock]uint64
	for at := 1; at < len(vs); at += deltaBlock {
		n := min(deltaBlock, len(vs)-at)
		prev, cur := vs[at-1:at-1+n], vs[at:at+n]
		d := adj[:n]
		least := cur[0] - prev[0]
		if narrow {
			least = int64(int32(least))
			for i := range d {
				x := int64(int32(cur[i] - prev[i]))
				d[i] = uint64(x)
				least = min(least, x)
			}
		} else {
			for i := range d {
				x := cur[i] - prev[i]
				d[i] = uint64(x)
				least = min(least, x)
			}
		}
		dst = binary.AppendVarint(dst, least)
		for i := n; i < deltaBlock; i++ { // a last block's rest: 0 once less the least
			adj[i] = uint64(least)
		}
		// Each delta less the least, OR-ed into its miniblock's width. An
		// INT32 column's deltas and least are int32s, so the difference
		// is below 2^32, as the readers' subtraction wrapping at 32 bits
		// gives it.
		var widths [deltaMinis]uint
		for m := range widths {
			mini := (*[deltaMiniblock]uint64)(adj[m*deltaMiniblock:])
			var or uint64
			for i := range mini {
				mini[i] -= uint64(least)
				or |= mini[i]
			}
			widths[m] = uint(bits.Len64(or))
		}
		dst = append(dst, byte(widths[0]), byte(widths[1]), byte(widths[2]), byte(widths[3]))
		for m := 0; m*deltaMiniblock < n; m++ {
			dst = packBits(dst, adj[m*deltaMiniblock:(m+1)*deltaMiniblock], widths[m])
		}
	}
	return dst
}

var errDelta = errors.New("malformed DELTA_BINARY_PACKED data")

// decodeDelta reads len(out) values from src; with narrow they are INT32
// values and wrap at 32 bits. It returns the bytes it read: where
// len(out) is the header's count, the encoding's whole length (the
// lengths of DELTA_LENGTH_BYTE_ARRAY come before their bytes).
func decodeDelta(src []byte, out []int64, narrow bool) (int, error) {
	// The header and each block's least delta are zigzag varints, as the
	// compact protocol's integers are: its decoder reads them.
	d := &decoder{buf: src}
	block, minis, count, first := d.uvarint(), d.uvarint(), d.uvarint(), d.varint()
	if d.err != nil {
		return 0, fmt.Errorf("%w: bad header", errDelta)
	}
	pos := d.pos
	if block == 0 || block%128 != 0 || block > 1<<16 || minis == 0 || block%minis != 0 || (block/minis)%32 != 0 {
		return 0, fmt.Errorf("%w: blocks of %d values in %d miniblocks", errDelta, block, minis)
	}
	if count < uint64(len(out)) {
		return 0, fmt.Errorf("%w: %d values, %d expected", errDelta, count, len(out))
	}
	if len(out) == 0 {
		return pos, nil
	}
	per := int(block / minis)
	adj := make([]uint64, per)
	widths := make([]byte, minis)
	out[0] = first
	for i := 1; i < len(out); {
		d.pos = pos
		least := d.varint()
		pos = d.pos
		if d.err != nil || len(src)-pos < len(widths) {
			return 0, fmt.Errorf("%w: block header past the end (value %d)", errDelta, i)
		}
		copy(widths, src[pos:])
		pos += len(widths)
		for _, w := range widths {
			if i >= len(out) {
				break
			}
			if (narrow && w > 32) || w > 64 {
				return 0, fmt.Errorf("%w: bit width %d", errDelta, w)
			}
			nb := packedBytes(per, uint(w))
			if len(src)-pos < nb {
				return 0, fmt.Errorf("%w: miniblock past the end (value %d)", errDelta, i)
			}
			unpackBits(src[pos:pos+nb], adj, uint(w))
			pos += nb
			for _, u := range adj {
				if i >= len(out) {
					break
				}
				if narrow {
					out[i] = int64(int32(out[i-1]) + int32(least) + int32(uint32(u)))
				} else {
					out[i] = out[i-1] + least + int64(u)
				}
				i++
			}
		}
	}
	return pos, nil
}
