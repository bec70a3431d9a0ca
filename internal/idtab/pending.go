package idtab

// Pending maps ids to values for ids set once and deleted once, most of
// them right after they are set (a trace's kernels, declared and then
// launched: BFS scale 20 launches each of its 165K kernels right after
// declaring it). The value set last is held apart from the Table, so
// setting and taking it costs no table operation, where a set, a get and
// a delete each found their page.
//
// An id must not be set again while it is set: the held value and the
// table's would then both hold it. The replay's readers set each kernel
// once (the Validator rejects a kernel declared twice).
type Pending[V any] struct {
	table  Table[V]
	lastID uint64
	last   V
	held   bool // last is id lastID's value
}

// Set sets id's value; id must not be set.
func (p *Pending[V]) Set(id uint64, v V) {
	if p.held {
		p.table.Set(p.lastID, p.last)
	}
	p.lastID, p.last, p.held = id, v, true
}

// Get returns id's value and whether it is set.
func (p *Pending[V]) Get(id uint64) (V, bool) {
	if p.held && p.lastID == id {
		return p.last, true
	}
	return p.table.Get(id)
}

// Len is the number of ids set.
func (p *Pending[V]) Len() int {
	if p.held {
		return p.table.Len() + 1
	}
	return p.table.Len()
}

// Delete removes id, if set. The held value's case inlines, with no call
// of Take, and leaves last as it is (at most one value kept past its
// delete, until the next Set): each of the Validator's launches deletes
// its kernel so (BFS --quick: 17 instructions a launch fewer, callgrind).
func (p *Pending[V]) Delete(id uint64) {
	if p.held && p.lastID == id {
		p.held = false
	} else {
		p.table.Delete(id)
	}
}

// Take returns id's value and whether it was set, and deletes it. The
// held value's case is its own, not a Get and a Delete, which made three
// calls of every launch (BFS scale 16, whose launches all take the held
// value: 38 instructions a launch fewer, callgrind).
func (p *Pending[V]) Take(id uint64) (V, bool) {
	if p.held && p.lastID == id {
		v := p.last
		var zero V
		p.last, p.held = zero, false
		return v, true
	}
	return p.table.Take(id)
}
