package trace

// idSet is a set of uint64 ids: a run of the ids added in order from
// the first, then a sparse bitset of 512-id chunks, allocated as ids
// arrive, with the last chunk cached.
//
// Ids nearly always come in order (a kernel's cta records from 0, kernel
// ids counted up by a producer from 1): while they do, the set is the run alone,
// an add a comparison and no memory, however many there are (a 1M-CTA
// kernel's bitset was 128 KiB that grew with the trace). The first id
// out of that order goes into the chunks, and so does every later one.
// Dense ids out of order cost about a bit each and rarely touch the map,
// while a stray huge id costs one chunk, not a bitset up to it. The zero
// value is an empty set; it must not be copied once used.
type idSet struct {
	lo      uint64  // the first id added: ids from lo up to dense are members
	dense   uint64  // (modulo 2^64, so that a run may end at the largest id)
	out     uint64  // members outside lo..dense-1, in the chunks
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

// has reports whether id is in the set. Small enough to inline: the
// kernel ids a trace declares come in order from 1, so the Validator's
// test of each declaration (BFS: one a child kernel) is the run's two
// comparisons, with no call to find a chunk (hasOut).
func (s *idSet) has(id uint64) bool {
	if id-s.lo < s.dense-s.lo {
		return true
	}
	return s.out != 0 && s.hasOut(id)
}

// hasOut is has for an id outside the run.
func (s *idSet) hasOut(id uint64) bool {
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
// that has one that was not. The first id of an empty set starts the run.
func (s *idSet) addOut(id uint64) bool {
	if s.lo == s.dense && s.out == 0 {
		s.lo, s.dense = id, id+1
		return true
	}
	if id-s.lo < s.dense-s.lo {
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
func (s *idSet) len() uint64 { return s.dense - s.lo + s.out }

// clear empties s for reuse. A set with no ids out of its run is its run
// alone: its chunks, made only for those ids, are all still zero.
func (s *idSet) clear() {
	if s.out != 0 {
		*s = idSet{}
		return
	}
	s.lo, s.dense = 0, 0
}
