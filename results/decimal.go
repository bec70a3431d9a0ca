package results

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

// appendInt appends v in decimal, as strconv.AppendInt(dst, v, 10) does,
// straight into dst: a CSV row of the ctas table is seven integers, and
// strconv formats each into a buffer of its own, then copies it. Written
// in place they cost about 140 instructions a CTA less on synth
// (scripts/instructions.sh --quick synth-csv).
func appendInt(dst []byte, v int64) []byte {
	if uint64(v) < 10 {
		return append(dst, byte('0'+v))
	}
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	return appendUint(dst, u)
}

// appendUint appends u in decimal, eight digits at a time: each eight
// made at once in the bytes of a word (digits8) and stored together, the
// leading zeros of the first shifted out. Like append, it writes only
// within dst's capacity, but it may write there up to seven bytes past
// the digits it appends.
//
// Dividing by 100 for each pair of digits, as before, cost the ctas
// table's seven integers about 750 instructions a row (callgrind,
// synth); a word of eight digits takes one division by 10^4 and two
// multiplications on both halves at once.
func appendUint(dst []byte, u uint64) []byte {
	if u < 1e8 {
		return appendDigits(dst, digits8(uint32(u)), decimalLen(u))
	}
	hi, lo := u/1e8, u%1e8
	if hi < 1e8 {
		dst = appendDigits(dst, digits8(uint32(hi)), decimalLen(hi))
	} else { // at most 20 digits: hi/1e8 < 1e4
		dst = appendDigits(dst, digits8(uint32(hi/1e8)), decimalLen(hi/1e8))
		dst = appendDigits(dst, digits8(uint32(hi%1e8)), 8)
	}
	return appendDigits(dst, digits8(uint32(lo)), 8)
}

// appendFixed appends d/10^p, for p > 0 and d/10^p < 10^8, with p
// places (at most 24): its whole part, a point and p digits, the
// leading zeros included. Like appendUint, it writes only within dst's
// capacity, but it may write there past the text it appends.
func appendFixed(dst []byte, d uint64, p int) []byte {
	w, f := uint64(0), d // d < 10^19 (less than 2^64) when p ≥ 20
	if p < len(powersOf10) {
		w, f = d/powersOf10[p], d%powersOf10[p]
	}
	at, nw := len(dst), decimalLen(w)
	n := nw + 1 + p
	if cap(dst)-at < n+8 {
		dst = slices.Grow(dst, n+8)
	}
	b := dst[at : at+n+8]
	putDigits(b, digits8(uint32(w)), nw)
	b[nw] = '.'
	b = b[nw+1:]
	if p > 16 {
		putDigits(b, digits8(uint32(f/1e16)), p-16)
		b, f, p = b[p-16:], f%1e16, 16
	}
	if p > 8 {
		putDigits(b, digits8(uint32(f/1e8)), p-8)
		b, f, p = b[p-8:], f%1e8, 8
	}
	putDigits(b, digits8(uint32(f)), p)
	return dst[:at+n]
}

// digits8 is v < 10^8 as eight ASCII digits, leading zeros included, the
// first in the lowest byte (the order a little-endian store writes).
// v's halves of four digits go in the word's 32-bit lanes, each lane is
// split into two 16-bit lanes of two digits and each of those into two
// bytes, every lane at once: y/100 is y·10486>>20 for y < 10^4 and y/10
// is y·103>>10 for y < 100 (TestDigits8 checks both over their ranges),
// and no lane's product reaches the next lane.
func digits8(v uint32) uint64 {
	hi := v / 10000
	x := uint64(hi) | uint64(v-hi*10000)<<32
	q := (x * 10486 >> 20) & 0x0000007f0000007f
	x = q | (x-q*100)<<16
	q = (x * 103 >> 10) & 0x000f000f000f000f
	x = q | (x-q*10)<<8
	return x | 0x3030303030303030
}

// appendDigits appends the last n (1 to 8) of the eight digits in x.
func appendDigits(dst []byte, x uint64, n int) []byte {
	at := len(dst)
	if cap(dst)-at < 8 {
		dst = slices.Grow(dst, 8)
	}
	binary.LittleEndian.PutUint64(dst[at:at+8], x>>(8*(8-n)))
	return dst[:at+n]
}

// putDigits writes the last n (1 to 8) of the eight digits in x at b's
// start, and after them up to 8-n bytes of no meaning: appendDigits
// without its check of the capacity (appendFixed checks once), which
// would take it past the size the compiler inlines.
func putDigits(b []byte, x uint64, n int) {
	binary.LittleEndian.PutUint64(b, x>>(8*(8-n)&63))
}

// powersOf10 are 10^0 to 10^19, for decimalLen.
var powersOf10 = [20]uint64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// decimalLen is the number of decimal digits of u: its bit length times
// log10(2) (1233/4096), one more where u reaches the next power of ten.
func decimalLen(u uint64) int {
	n := (bits.Len64(u) * 1233) >> 12
	if u >= powersOf10[n] {
		n++
	}
	return max(n, 1)
}

// smallInts is how many of the least integers the CSV writer keeps the
// text of (smallText).
const smallInts = 10000

// smallText is, for each v below smallInts, v's digits and the comma
// after them in the word's lowest bytes (the order a little-endian store
// writes) and, in its top byte, their length with the comma (at most 5,
// so that the top byte is none of the text's): what the CSV row loop
// makes of an integer field's new value (decimalLen, digits8), looked up.
// A CTA's index and SM and an occupancy window's SM change from one row
// to the next, and each was a value's digits made again: looked up,
// scripts/instructions.sh --quick synth-csv takes 1,963 → 1,842
// instructions a CTA. Made at the first CSV writer's start (80 KiB).
var smallText = sync.OnceValue(func() *[smallInts]uint64 {
	t := new([smallInts]uint64)
	for v := range t {
		n := decimalLen(uint64(v))
		t[v] = commaDigits(digits8(uint32(v)), n) | uint64(n+1)<<56
	}
	return t
})

// commaDigits is a number's n digits, of its eight (digits8), and the
// comma after them in the word's lowest bytes, the order a little-endian
// store writes: no comma where n is 8, the byte after them. Apart from
// digits8, so that both inline into the CSV row loop.
func commaDigits(d uint64, n int) uint64 {
	return d>>(8*(8-n)&63) | uint64(',')<<(8*n)
}
