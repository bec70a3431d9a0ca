package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
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

// appendDelta appends the encoding of vs, and returns their least and
// greatest (0 and 0 for none). With narrow, vs are INT32 values, and the
// deltas wrap at 32 bits as the readers of an INT32 column compute them.
//
// A whole block's deltas and bounds are one call: deltaBlockAVX2 where
// the processor has AVX2 (deltaVector), four values a vector, the
// deltas' least and greatest and the values' a compare and a blend each;
// else deltaBlockGo, below. In Go, a value took some 12 instructions
// (the delta pass's 9 and a miniblock's bounds' 3), in AVX2 under 4:
// --out parquet adds 101 instructions a CTA fewer on BFS
// (scripts/instructions.sh bfs-parquet: 750 → 649; --quick
// bfs-parquet 956 → 835, synth-parquet 368 → 314). The call gives the
// miniblocks' widths too, where a loop of appendDelta's took some 25
// instructions a miniblock: 3.6 a CTA more on BFS
// (scripts/instructions.sh bfs-parquet, 1,225.1M → 1,223.2M in all).
//
// In Go, the bounds come from the delta pass's miniblocks: one whose
// deltas show it climbs (climbWidth) has its last value for its greatest
// and the one before it, already taken, for its least; another's values
// are taken in a pass of their own (boundsMini). A page's bounds were found
// from its ends where all of its values climbed, else in a pass over
// them all: --out parquet adds 10 instructions a CTA fewer on BFS
// (scripts/instructions.sh bfs-parquet: 820 → 810, 19% of the
// miniblocks of BFS's columns that do not climb climb) and 3 on synth
// (--quick synth-parquet 392 → 389).
//
// Each block takes two passes over its 128 deltas, none of them a call
// a value: the deltas, their least and each miniblock's greatest, then
// the packing, which takes the least off each delta as it packs it. A
// miniblock's bit width is that of its greatest delta less the least:
// every other is no greater, so no bit of theirs lies above its top bit,
// and the width of their OR, which a pass of its own took, is the same.
// That pass cost some 6 instructions a value (scripts/instructions.sh
// bfs-parquet: --out adds 1,750 instructions a CTA where it added 1,850;
// synth-parquet --quick 947 → 883). The subtraction had a pass of its
// own once too, and a partial block's rest was cleared: some 15
// instructions a CTA more on synth (--quick synth-parquet). A whole
// block's values are an array, from which each miniblock's is cut with
// no check: cut from vs, each was checked against its length, some 7
// instructions a CTA more on BFS (scripts/instructions.sh bfs-parquet).
func appendDelta(dst []byte, vs []int64, narrow bool) (out []byte, lo, hi int64) {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMinis)
	dst = binary.AppendUvarint(dst, uint64(len(vs)))
	if len(vs) == 0 {
		return binary.AppendVarint(dst, 0), 0, 0
	}
	dst = binary.AppendVarint(dst, vs[0])
	var adj [deltaBlock]uint64
	lo, hi = vs[0], vs[0] // each value is taken after the one before it
	for at := 1; at < len(vs); at += deltaBlock {
		all := min(deltaBlock, len(vs)-at)
		n := all
		prev, cur := vs[at-1:at-1+n], vs[at:at+n]
		d := adj[:n]
		least := cur[0] - prev[0]
		if narrow {
			least = int64(int32(least))
		}
		if n == deltaBlock && constant((*[deltaBlock + 1]int64)(vs[at-1:])) {
			// Every delta 0 (a block of one value, as a kernel's CTAs'
			// kernel ids): least 0 and each miniblock of width 0,
			// nothing packed; lo and hi hold the value already.
			dst = append(dst, 0, 0, 0, 0, 0)
			continue
		}
		var tops [deltaMinis]int64 // each miniblock's greatest delta
		var widths [deltaMinis]byte
		size := 0            // the miniblocks' bytes
		if n == deltaBlock { // a whole block
			blk := (*[deltaBlock + 1]int64)(vs[at-1:])
			if deltaVector {
				least, lo, hi, size = deltaBlockAVX2(&adj, blk, &tops, &widths, narrow, lo, hi)
			} else {
				least, lo, hi, size = deltaBlockGo(&adj, blk, &tops, &widths, narrow, lo, hi)
			}
			n = 0 // done: the loops below are for a last block's part
		}
		for m := 0; m*deltaMiniblock < n; m++ {
			lo, hi := m*deltaMiniblock, min(n, (m+1)*deltaMiniblock)
			if narrow {
				top := int64(int32(cur[lo] - prev[lo]))
				for i := lo; i < hi; i++ {
					x := int64(int32(cur[i] - prev[i]))
					d[i] = uint64(x)
					least, top = min(least, x), max(top, x)
				}
				tops[m] = top
			} else {
				top := cur[lo] - prev[lo]
				for i := lo; i < hi; i++ {
					x := cur[i] - prev[i]
					d[i] = uint64(x)
					least, top = min(least, x), max(top, x)
				}
				tops[m] = top
			}
		}
		if n > 0 { // a last block's part: its values' bounds
			l, h := bounds(cur[:n])
			lo, hi = min(lo, l), max(hi, h)
		}
		dst = binary.AppendVarint(dst, least)
		for i := all; i < deltaBlock; i++ { // a last block's rest: 0 once less the least
			adj[i] = uint64(least)
		}
		for m := 0; m*deltaMiniblock < n; m++ {
			widths[m] = blockWidth(tops[m], least)
			size += packedBytes(deltaMiniblock, uint(widths[m]))
		}
		dst = append(dst, widths[:]...)
		// The block's miniblocks take its width's kernel each, into dst
		// grown once: through packBits, a call and a growth a miniblock
		// cost 27 instructions a CTA more on BFS and 15 on synth
		// (scripts/instructions.sh --quick bfs-parquet synth-parquet).
		pos := len(dst)
		dst = slices.Grow(dst, size)[:pos+size]
		for m, w := range widths {
			if w > 0 {
				pack32[w](dst[pos:], (*[deltaMiniblock]uint64)(adj[m*deltaMiniblock:]), uint64(least))
				pos += packedBytes(deltaMiniblock, uint(w))
			}
		}
	}
	return dst, lo, hi
}

// deltaBlockGo sets d to the deltas of a whole block's values (w: the
// block's 128 and the one before them) and tops to each miniblock's
// greatest delta, and returns the least delta and lo and hi widened to
// the block's values' bounds; they hold w[0] already. Each miniblock's
// 33 values and 32 deltas are arrays of fixed size (deltaMini).
func deltaBlockGo(d *[deltaBlock]uint64, w *[deltaBlock + 1]int64, tops *[deltaMinis]int64, widths *[deltaMinis]byte, narrow bool, lo, hi int64) (least, blo, bhi int64, size int) {
	least = math.MaxInt64
	width := climbWidth[b2i(narrow)]
	for m := range deltaMinis {
		w := (*[deltaMiniblock + 1]int64)(w[m*deltaMiniblock:])
		dm := (*[deltaMiniblock]uint64)(d[m*deltaMiniblock:])
		var ml int64 // the miniblock's least delta
		if narrow {
			ml, tops[m] = deltaMini32(dm, w, math.MaxInt64)
		} else {
			ml, tops[m] = deltaMini(dm, w, math.MaxInt64)
		}
		least = min(least, ml)
		if ml >= 0 && uint64(tops[m]) < width && w[deltaMiniblock] >= w[0] {
			hi = max(hi, w[deltaMiniblock]) // it climbs: w[0] is its least
		} else {
			lo, hi = boundsMini(w, lo, hi)
		}
	}
	for m, t := range tops {
		widths[m] = blockWidth(t, least)
		size += packedBytes(deltaMiniblock, uint(widths[m]))
	}
	return least, lo, hi, size
}

// blockWidth is the bit width of a miniblock whose greatest delta is top,
// in a block whose least is least. An INT32 column's deltas and least
// are int32s, so a difference is below 2^32, as the readers' subtraction
// wrapping at 32 bits gives it.
func blockWidth(top, least int64) byte { return byte(bits.Len64(uint64(top - least))) }

// climbWidth is what a miniblock's greatest delta is below (INT64,
// INT32) where, with none of its deltas below 0 and its last value no
// less than its first, its values climb: a step that wrapped past the
// greatest value (a fall of more than 2^63, or 2^31) is a delta of at
// least 0 too, but then the 32 deltas' sum, below 2^63 (2^32), would be
// 2^64 (2^32) more than the last value less the first, below 0.
var climbWidth = [2]uint64{1 << 58, 1 << 27}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// boundsMini takes a miniblock's values after its first into the least
// and greatest, lo and hi, eight a round. Unrolled, the compiler loaded
// all 32 values first and spilled most of them to the stack.
func boundsMini(w *[deltaMiniblock + 1]int64, lo, hi int64) (int64, int64) {
	for i := 1; i < deltaMiniblock; i += 8 {
		g := (*[8]int64)(w[i:])
		lo = min(lo, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7])
		hi = max(hi, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7])
	}
	return lo, hi
}

// constant reports whether w's values are all one: a block's values
// and the one before them. Most blocks that are not differ at the first
// or the last, which it tests first; then each value must be the one
// after it, the block's bytes compared with themselves one value on
// (sameInts: the runtime's memequal, a wide word at a time), where a
// test of eight values a round took synth --out parquet 7 instructions
// a CTA more (scripts/instructions.sh --quick synth-parquet). The block is then a zero least and four zero widths, where the
// delta pass and the widths' and the packing's calls took synth's
// blocks of one value (in the ctas table nearly all of the kernel ids'
// and all of the stall cycles', none under CDP; in the occupancy
// table most of the windows' widths) 25 instructions a CTA more
// (scripts/instructions.sh --quick synth-parquet).
func constant(w *[deltaBlock + 1]int64) bool {
	v := w[0]
	if w[1] != v || w[deltaBlock] != v {
		return false
	}
	return sameInts(w[:deltaBlock], w[1:]) // each value the one after it: all one
}

// deltaMini sets d to the 32 deltas of w's 33 values and returns the
// least of them and least, and the greatest of them. Four deltas a
// round, the values loaded once each, and no index checked: some 9.3
// instructions a value, where the loop over a miniblock's slices took
// 11 (--quick synth-parquet, callgrind; --out adds 5 instructions a CTA
// fewer).
//
// It is called, not inlined: inlined in appendDelta (as the profile had
// it, cmd/replay/default.pgo, until the test for a block of one value
// moved its lines), its loop and appendDelta's share the registers, and
// --quick synth-parquet took 7 instructions a CTA more (896,762,315
// where 893,311,027).
//
//go:noinline
func deltaMini(d *[deltaMiniblock]uint64, w *[deltaMiniblock + 1]int64, least int64) (int64, int64) {
	top := w[1] - w[0]
	for i := 0; i < deltaMiniblock; i += 4 {
		g := (*[5]int64)(w[i:])
		x0, x1, x2, x3 := g[1]-g[0], g[2]-g[1], g[3]-g[2], g[4]-g[3]
		o := (*[4]uint64)(d[i:])
		o[0], o[1], o[2], o[3] = uint64(x0), uint64(x1), uint64(x2), uint64(x3)
		least = min(least, x0, x1, x2, x3)
		top = max(top, x0, x1, x2, x3)
	}
	return least, top
}

// deltaMini32 is deltaMini for INT32 values, whose deltas wrap at 32
// bits. It is called, not inlined, as deltaMini is.
//
//go:noinline
func deltaMini32(d *[deltaMiniblock]uint64, w *[deltaMiniblock + 1]int64, least int64) (int64, int64) {
	top := int64(int32(w[1] - w[0]))
	for i := 0; i < deltaMiniblock; i += 4 {
		g := (*[5]int64)(w[i:])
		x0, x1 := int64(int32(g[1]-g[0])), int64(int32(g[2]-g[1]))
		x2, x3 := int64(int32(g[3]-g[2])), int64(int32(g[4]-g[3]))
		o := (*[4]uint64)(d[i:])
		o[0], o[1], o[2], o[3] = uint64(x0), uint64(x1), uint64(x2), uint64(x3)
		least = min(least, x0, x1, x2, x3)
		top = max(top, x0, x1, x2, x3)
	}
	return least, top
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
