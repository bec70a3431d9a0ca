package trace

// idSet is a set of uint64 ids: a count of the ids added in order from
// 0, then a sparse bitset of 512-id chunks, allocated as ids arrive, with
// the last chunk cached.
//
// Ids nearly always come in order (a kernel's cta records, kernel ids
// counted up by a producer): while they do, the set is the count alone,
// an add a comparison and no memory, however many there are (a 1M-CTA
// kernel's bitset was 128 KiB that grew with the trace). The first id
// out of that order goes into the chunks, and so does every later one.
// Dense ids out of order cost about a bit each and rarely touch the map,
// while a stray huge id costs one chunk, not a bitset up to it. The zero
// value is an empty set; it must not be copied once used.
type idSet struct {
	dense   uint64  // ids below it are members
	out     uint64  // members at or past dense, in the chunks
	first   idChunk // ids 0..511, inline: most sets (a small kernel's CTAs) need no allocation
	chunks  map[uint64]*idChunk
	lastKey uint64
	last    *idChunk
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
	if id < s.dense {
		return true
	}
	c := s.chunk(id, false)
	return c != nil && c[id>>6&7]&(1<<(id&63)) != 0
}

// add inserts id and reports whether it was new. Small enough to inline
// for the next id in order, with none out of order yet; addOut takes the
// others.
func (s *idSet) add(id uint64) bool {
	if id == s.dense && s.out == 0 {
		s.dense++
		return true
	}
	return s.addOut(id)
}

// addOut is add for an id that is not the next in order, or in a set
// that has one that was not.
func (s *idSet) addOut(id uint64) bool {
	if id < s.dense {
		return false
	}
	w := &s.chunk(id, true)[id>>6&7]
	bit := uint64(1) << (id & 63)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	s.out++
	return true
}

// len is the number of ids in the set.
func (s *idSet) len() uint64 { return s.dense + s.out }
