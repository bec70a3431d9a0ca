package trace

// idSet is a set of uint64 ids kept as a sparse bitset: 512-id chunks,
// allocated as ids arrive, with the last chunk cached. Dense ids (CTA
// indices, kernel ids counted up by a producer) cost about a bit each and
// sequential ids rarely touch the map, while a stray huge id costs one chunk,
// not a bitset up to it. The zero value is an empty set; it must not be
// copied once used.
type idSet struct {
	first   idChunk // ids 0..511, inline: most sets (a small kernel's CTAs) need no allocation
	chunks  map[uint64]*idChunk
	lastKey uint64
	last    *idChunk
	n       uint64 // members
}

type idChunk [8]uint64

// chunk returns the chunk holding id, creating it if create is set; nil if
// it does not exist.
func (s *idSet) chunk(id uint64, create bool) *idChunk {
	key := id >> 9
	if key == 0 {
		return &s.first
	}
	if s.last != nil && s.lastKey == key {
		return s.last
	}
	c := s.chunks[key]
	if c == nil {
		if !create {
			return nil
		}
		if s.chunks == nil {
			s.chunks = make(map[uint64]*idChunk)
		}
		c = new(idChunk)
		s.chunks[key] = c
	}
	s.lastKey, s.last = key, c
	return c
}

func (s *idSet) has(id uint64) bool {
	c := s.chunk(id, false)
	return c != nil && c[id>>6&7]&(1<<(id&63)) != 0
}

// add inserts id and reports whether it was new.
func (s *idSet) add(id uint64) bool {
	w := &s.chunk(id, true)[id>>6&7]
	bit := uint64(1) << (id & 63)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	s.n++
	return true
}

// len is the number of ids in the set.
func (s *idSet) len() uint64 { return s.n }
