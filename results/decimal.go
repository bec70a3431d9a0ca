package results

import "math/bits"

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

// digitPairs is "00" to "99", two bytes a pair.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendUint appends u in decimal: its digits counted first, then
// written from the last, two at a time.
func appendUint(dst []byte, u uint64) []byte {
	n := decimalLen(u)
	at := len(dst)
	if cap(dst)-at < n {
		dst = append(dst, make([]byte, n)...)
	} else {
		dst = dst[:at+n]
	}
	d := dst[at:]
	i := n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		d[i], d[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		d[i-2], d[i-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		d[i-1] = byte('0' + u)
	}
	return dst
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
