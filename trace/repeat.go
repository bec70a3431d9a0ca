package trace

import "encoding/binary"

// A child kernel's cta records mostly repeat the one before them: BFS
// scale 20's 370,760 records after a child's first are 83% byte for
// byte the record before (a full CTA's cycles, the same warp_cycles and
// demand), but for the CTA, which a record in CTA order names by a
// delta of zero. Such a record decodes to the one before it with the
// next CTA, and keeps every rule of its own fields that one kept: ctaRun
// tells it by its bytes (repeat) and copies the record before, with no
// varint decoded and none of its fields checked again.

// repeatMax is the most bytes a record repeat remembers: two words.
const repeatMax = 16

// repeat is the cta record read last as the next would repeat it: its
// bytes, with a head of a kernel and CTA delta of zero, as two masked
// words, and the record they decoded to (prev). A record of repeatMax
// bytes or more, or none, sets masks that no record matches (lo 1,
// mlo 0).
type repeat struct {
	lo, hi   uint64 // the record's bytes, little-endian, masked
	mlo, mhi uint64 // the masks: the bytes it takes
	size     int    // its bytes
	prev     *CTA   // what it decoded to
}

// noRepeat is a repeat no record matches.
var noRepeat = repeat{lo: 1}

// set makes p's first size bytes (p holds repeatMax), the record c was
// decoded from, the repeat: where they are fewer than repeatMax.
func (m *repeat) set(p []byte, size int, c *CTA) {
	if size >= repeatMax {
		*m = noRepeat
		return
	}
	m.mlo, m.mhi = repeatMasks(size)
	m.lo, m.hi = binary.LittleEndian.Uint64(p)&m.mlo, binary.LittleEndian.Uint64(p[8:16])&m.mhi
	m.size, m.prev = size, c
}

// setBody is set for a record whose head is not a repeat's (a child's
// first record, whose kernel delta is not zero): tag, then its body's
// size bytes from p (which holds repeatMax-3).
func (m *repeat) setBody(tag byte, p []byte, size int, c *CTA) {
	if size+3 >= repeatMax {
		*m = noRepeat
		return
	}
	// Its bytes as a repeat's: tag, two zero deltas, then p's, read in
	// two loads (an array built and copied into cost a call).
	m.mlo, m.mhi = repeatMasks(size + 3)
	m.lo = (uint64(tag) | binary.LittleEndian.Uint64(p[:8])<<24) & m.mlo
	m.hi = binary.LittleEndian.Uint64(p[5:repeatMax-3]) & m.mhi
	m.size, m.prev = size+3, c
}

// repeatMasks are the masks of a record of size bytes (below repeatMax)
// over its two words.
func repeatMasks(size int) (lo, hi uint64) {
	if size >= 8 {
		return ^uint64(0), 1<<(8*(size-8)) - 1
	}
	return 1<<(8*size) - 1, 0
}

// matches reports whether p, which holds repeatMax bytes, starts with
// m's record.
func (m *repeat) matches(p []byte) bool {
	return binary.LittleEndian.Uint64(p)&m.mlo == m.lo && binary.LittleEndian.Uint64(p[8:16])&m.mhi == m.hi
}

// at reports whether b holds more than repeatMax bytes from at and they
// start with m's record.
func (m *repeat) at(b []byte, at int) bool {
	if len(b)-at <= repeatMax {
		return false
	}
	q := (*[repeatMax]byte)(b[at:])
	return binary.LittleEndian.Uint64(q[:8])&m.mlo == m.lo && binary.LittleEndian.Uint64(q[8:])&m.mhi == m.hi
}
