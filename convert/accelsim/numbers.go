package accelsim

import "math"

// The trace's numbers are parsed by hand: strconv wants strings, and a
// conversion per field would dominate the time spent on a trace.

// parseHex parses an unsigned hexadecimal number of at most 64 bits, with or
// without a 0x prefix.
func parseHex(b []byte) (uint64, bool) {
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		b = b[2:]
	}
	if len(b) == 0 {
		return 0, false
	}
	for len(b) > 16 && b[0] == '0' {
		b = b[1:]
	}
	if len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// parseUint parses an unsigned decimal number no larger than max.
func parseUint(b []byte, max uint64) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (max-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// parseInt parses a signed decimal number that fits in an int64.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if neg {
		v, ok := parseUint(b, uint64(math.MaxInt64)+1)
		return int64(-v), ok // -(2^63) wraps to itself, as it should
	}
	v, ok := parseUint(b, math.MaxInt64)
	return int64(v), ok
}
