package replay

import (
	"encoding/binary"
	"math"
)

// spillAt is the most specs a specQueue holds unpacked (1.5 MB of
// slims); the rest wait packed in its spill until the unpacked ones are
// placed.
const spillAt = 1 << 16

// specSpill is a queue of slims packed as bytes, a few a CTA where a
// grid's CTAs share their demand: the cycles and the rare flag in a
// varint, then the issue and DRAM rates each as 4 bytes where they differ
// from the previous spec's. Specs go in and come out in order, so the
// packing needs no index.
type specSpill struct {
	buf             []byte
	head            int
	lastIn, lastOut [2]uint32 // the previous spec's issue and dram bits, each way
}

// The flags in a packed spec's varint, below its cycles.
const (
	spillRare  = 1 << iota // its rare is set
	spillIssue             // its issue rate follows
	spillDRAM              // its DRAM rate follows
	spillFlags = 3
)

// held reports whether the spill holds a spec.
func (s *specSpill) held() bool { return s.head < len(s.buf) }

// put appends gap empty specs, then specs.
func (s *specSpill) put(gap int, specs []slimSpec) {
	if s.head == len(s.buf) {
		s.buf, s.head = s.buf[:0], 0
	}
	for range gap {
		s.append(&slimSpec{})
	}
	for i := range specs {
		s.append(&specs[i])
	}
}

func (s *specSpill) append(e *slimSpec) {
	bits := [2]uint32{math.Float32bits(e.issue), math.Float32bits(e.dram)}
	head := uint64(e.cycles) << spillFlags
	if e.rare != 0 {
		head |= spillRare
	}
	if bits[0] != s.lastIn[0] {
		head |= spillIssue
	}
	if bits[1] != s.lastIn[1] {
		head |= spillDRAM
	}
	s.buf = binary.AppendUvarint(s.buf, head)
	if head&spillIssue != 0 {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, bits[0])
	}
	if head&spillDRAM != 0 {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, bits[1])
	}
	s.lastIn = bits
}

// take appends up to n specs to dst, in the order they were put.
func (s *specSpill) take(dst []slimSpec, n int) []slimSpec {
	for ; n > 0 && s.head < len(s.buf); n-- {
		head, k := binary.Uvarint(s.buf[s.head:])
		s.head += k
		if head&spillIssue != 0 {
			s.lastOut[0] = binary.LittleEndian.Uint32(s.buf[s.head:])
			s.head += 4
		}
		if head&spillDRAM != 0 {
			s.lastOut[1] = binary.LittleEndian.Uint32(s.buf[s.head:])
			s.head += 4
		}
		e := slimSpec{cycles: int64(head >> spillFlags), issue: math.Float32frombits(s.lastOut[0]), dram: math.Float32frombits(s.lastOut[1])}
		if head&spillRare != 0 {
			e.rare = 1
		}
		dst = append(dst, e)
	}
	return dst
}
