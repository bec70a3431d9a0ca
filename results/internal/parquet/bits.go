package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Bit packing as Parquet lays it out: values of w bits each, the first
// in the lowest bits of the first byte.

//go:generate go test -run TestPack32Current -update .

// packBits appends vs less less (wrapping at 64 bits), w bits each
// (every such value below 2^w), as ceil(len(vs)*w/8) bytes. Each 32
// values take 4*w bytes, so it packs them 32 at a time with its width's
// kernel (pack32), the rest a word at a time: no call per value.
func packBits(dst []byte, vs []uint64, w uint, less uint64) []byte {
	if w == 0 {
		return dst
	}
	if k := len(vs) / 32; k > 0 {
		n, pack := len(dst), pack32[w]
		dst = slices.Grow(dst, k*4*int(w))[:n+k*4*int(w)]
		for ; len(vs) >= 32; vs = vs[32:] {
			pack(dst[n:], (*[32]uint64)(vs), less)
			n += 4 * int(w)
		}
	}
	var acc uint64
	var n uint // bits held in acc
	for _, v := range vs {
		v -= less
		acc |= v << (n & 63) // n < 64 here: the mask spares the shift's check
		n += w
		if n >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			n -= 64
			acc = 0
			if n > 0 {
				acc = v >> (w - n)
			}
		}
	}
	for ; n > 0; n -= min(n, 8) {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// packedBytes is how many bytes n values of w bits take.
func packedBytes(n int, w uint) int { return (n*int(w) + 7) / 8 }

// unpackBits reads len(out) values of w bits from src, which holds at
// least packedBytes(len(out), w) bytes.
func unpackBits(src []byte, out []uint64, w uint) {
	if w == 0 {
		clear(out)
		return
	}
	mask := ^uint64(0) >> (64 - w)
	bit := uint(0)
	for i := range out {
		at, shift := bit>>3, bit&7
		var word uint64
		if int(at)+8 <= len(src) {
			word = binary.LittleEndian.Uint64(src[at:])
		} else {
			var tmp [8]byte
			copy(tmp[:], src[at:])
			word = binary.LittleEndian.Uint64(tmp[:])
		}
		v := word >> shift
		if shift+w > 64 {
			v |= uint64(src[at+8]) << (64 - shift)
		}
		out[i] = v & mask
		bit += w
	}
}

// rleEncoder writes the RLE / bit-packed hybrid encoding of values of w
// bits (definition levels, dictionary indices): a stretch of 8 or more
// equal values, aligned to a group of 8, is a run (a count and the
// value); the rest are bit-packed in groups of 8.
//
// Invariant: a pending run and pending literals never coexist; the
// group being filled (grp[:ng]) comes after whichever is pending.
type rleEncoder struct {
	w      uint
	buf    []byte
	lit    []uint64 // pending literals, a multiple of 8
	grp    [8]uint64
	ng     int
	runVal uint64
	runLen int
}

func (r *rleEncoder) reset(w uint) {
	r.w, r.buf, r.lit, r.ng, r.runLen = w, r.buf[:0], r.lit[:0], 0, 0
}

func (r *rleEncoder) put(v uint64) {
	r.grp[r.ng] = v
	r.ng++
	if r.ng == 8 {
		r.group()
	}
}

// repeat appends n copies of v: a long stretch costs a few operations,
// not one a value.
func (r *rleEncoder) repeat(v uint64, n int) {
	for n > 0 && r.ng != 0 {
		r.put(v)
		n--
	}
	if k := n / 8 * 8; k > 0 {
		if r.runLen > 0 && r.runVal == v {
			r.runLen += k
		} else {
			r.flushRun()
			r.flushLiterals()
			r.runVal, r.runLen = v, k
		}
		n -= k
	}
	for ; n > 0; n-- {
		r.put(v)
	}
}

// group takes the full group grp into the run or the literals.
func (r *rleEncoder) group() {
	r.ng = 0
	v := r.grp[0]
	for _, x := range r.grp[1:] {
		if x != v {
			r.flushRun()
			r.lit = append(r.lit, r.grp[:]...)
			return
		}
	}
	if r.runLen > 0 && r.runVal == v {
		r.runLen += 8
		return
	}
	r.flushRun()
	r.flushLiterals()
	r.runVal, r.runLen = v, 8
}

func (r *rleEncoder) flushRun() {
	if r.runLen == 0 {
		return
	}
	r.buf = binary.AppendUvarint(r.buf, uint64(r.runLen)<<1)
	for i := uint(0); i < (r.w+7)/8; i++ {
		r.buf = append(r.buf, byte(r.runVal>>(8*i)))
	}
	r.runLen = 0
}

func (r *rleEncoder) flushLiterals() {
	if len(r.lit) == 0 {
		return
	}
	r.buf = binary.AppendUvarint(r.buf, uint64(len(r.lit)/8)<<1|1)
	r.buf = packBits(r.buf, r.lit, r.w, 0)
	r.lit = r.lit[:0]
}

// finish ends the encoding and returns its bytes, valid until the next
// reset. A last group short of 8 values joins the run of its value, or
// is padded with zeros: the reader knows how many values there are.
func (r *rleEncoder) finish() []byte {
	if r.ng > 0 {
		v, same := r.grp[0], true
		for _, x := range r.grp[1:r.ng] {
			same = same && x == v
		}
		switch {
		case same && r.runLen > 0 && r.runVal == v:
			r.runLen += r.ng
		case same && len(r.lit) == 0:
			r.flushRun()
			r.runVal, r.runLen = v, r.ng
		default:
			r.flushRun()
			clear(r.grp[r.ng:])
			r.lit = append(r.lit, r.grp[:]...)
		}
		r.ng = 0
	}
	r.flushRun()
	r.flushLiterals()
	return r.buf
}

var errRLE = errors.New("malformed RLE / bit-packed data")

// decodeRLE reads len(out) values of w bits (w at most 32) in the hybrid
// encoding from src, and returns the bytes it read.
func decodeRLE(src []byte, w uint, out []uint32) (int, error) {
	if w > 32 {
		return 0, fmt.Errorf("%w: bit width %d", errRLE, w)
	}
	pos, i := 0, 0
	var tmp [8]uint64
	for i < len(out) {
		h, n := binary.Uvarint(src[pos:])
		if n <= 0 {
			return 0, fmt.Errorf("%w: bad run header at byte %d (%d of %d values read)", errRLE, pos, i, len(out))
		}
		pos += n
		if h&1 == 0 { // a run
			count := h >> 1
			vb := int(w+7) / 8
			if count == 0 || len(src)-pos < vb {
				return 0, fmt.Errorf("%w: bad run at byte %d", errRLE, pos)
			}
			var v uint32
			for b := range vb {
				v |= uint32(src[pos+b]) << (8 * b)
			}
			pos += vb
			if w < 32 && v>>w != 0 {
				return 0, fmt.Errorf("%w: run value %d wider than %d bits", errRLE, v, w)
			}
			k := int(min(count, uint64(len(out)-i)))
			for j := range k {
				out[i+j] = v
			}
			i += k
			continue
		}
		groups := h >> 1
		if groups == 0 || groups > uint64(len(src)) {
			return 0, fmt.Errorf("%w: bad literal run at byte %d", errRLE, pos)
		}
		vals := int(groups) * 8
		used := min(vals, len(out)-i)
		if len(src)-pos < packedBytes(used, w) {
			return 0, fmt.Errorf("%w: literal run of %d values past the end", errRLE, vals)
		}
		for j := 0; j < used; j += 8 {
			k := min(8, used-j)
			unpackBits(src[pos+packedBytes(j, w):], tmp[:k], w)
			for m := range k {
				out[i+j+m] = uint32(tmp[m])
			}
		}
		i += used
		pos += min(packedBytes(vals, w), len(src)-pos)
	}
	return pos, nil
}
