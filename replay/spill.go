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
//
// The bytes are kept in chunks of spillChunk, not one slice: a slice
// grown by append had copied what it held at each doubling, and left the
// storage it outgrew to the collector, some 147 MB over the 10 x 1M-CTA
// synth trace (replay gen synth --param kernels=10 --param ctas=1000000
// --param streams=10), whose nine waiting grids spill some 23 MB; and a
// chunk read out is dropped, so the storage follows the specs the spill
// still holds.
type specSpill struct {
	chunks          [][]byte // the packed specs, read from chunks[0][head:]
	head            int
	lastIn, lastOut [2]uint32 // the previous spec's issue and dram bits, each way
}

// spillChunk is the bytes a spill's chunk holds.
const spillChunk = 64 << 10

// The flags in a packed spec's varint, below its cycles.
const (
	spillRare  = 1 << iota // its rare is set
	spillIssue             // its issue rate follows
	spillDRAM              // its DRAM rate follows
	spillFlags = 3
)

// held reports whether the spill holds a spec. Only the last chunk is
// ever read to its end (take drops the others as it does).
func (s *specSpill) held() bool { return len(s.chunks) > 0 && s.head < len(s.chunks[0]) }

// put appends gap empty specs, then specs.
func (s *specSpill) put(gap int, specs []slimSpec) {
	if len(s.chunks) > 0 && !s.held() {
		s.chunks[0], s.head = s.chunks[0][:0], 0
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
	var b [binary.MaxVarintLen64 + 8]byte
	n := binary.PutUvarint(b[:], head)
	if head&spillIssue != 0 {
		binary.LittleEndian.PutUint32(b[n:], bits[0])
		n += 4
	}
	if head&spillDRAM != 0 {
		binary.LittleEndian.PutUint32(b[n:], bits[1])
		n += 4
	}
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last])+n > cap(s.chunks[last]) {
		s.chunks = append(s.chunks, make([]byte, 0, spillChunk))
		last++
	}
	s.chunks[last] = append(s.chunks[last], b[:n]...)
	s.lastIn = bits
}

// take appends up to n specs to dst, in the order they were put.
func (s *specSpill) take(dst []slimSpec, n int) []slimSpec {
	for ; n > 0 && s.held(); n-- {
		buf := s.chunks[0]
		head, k := binary.Uvarint(buf[s.head:])
		s.head += k
		if head&spillIssue != 0 {
			s.lastOut[0] = binary.LittleEndian.Uint32(buf[s.head:])
			s.head += 4
		}
		if head&spillDRAM != 0 {
			s.lastOut[1] = binary.LittleEndian.Uint32(buf[s.head:])
			s.head += 4
		}
		if s.head == len(buf) && len(s.chunks) > 1 {
			s.chunks[0], s.chunks, s.head = nil, s.chunks[1:], 0
		}
		e := slimSpec{cycles: int64(head >> spillFlags), issue: math.Float32frombits(s.lastOut[0]), dram: math.Float32frombits(s.lastOut[1])}
		if head&spillRare != 0 {
			e.rare = 1
		}
		dst = append(dst, e)
	}
	return dst
}
