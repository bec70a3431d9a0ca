// Package idtab maps uint64 ids to values for ids that mostly come dense
// and in order, as the kernel ids of a trace do: a kernel is declared,
// launched, run and forgotten roughly in id order, and tens of thousands may
// be in flight at once.
//
// A Go map of that size spends its time hashing, growing and probing; a
// Table keeps pages of 64 consecutive ids instead, finds the page a
// sequential id is on without hashing (the last page used is cached), and
// drops a page when its last id is deleted (keeping a few dropped pages
// for reuse), so memory follows the ids present, not the largest id seen.
// A cached page that empties stays until it leaves the cache: a table
// whose one id at a time comes and goes (a kernel declared, then
// launched) would otherwise drop and remake its page, two map operations,
// for every id.
// Sparse ids still work, at up to a page (64 values) per id.
package idtab

const (
	pageBits = 6
	pageLen  = 1 << pageBits
)

type page[V any] struct {
	vals [pageLen]V
	used uint64 // bit i: vals[i] is set
}

// Table maps ids to values of type V. The zero value is an empty table.
type Table[V any] struct {
	pages map[uint64]*page[V]
	// The two pages used last, most recent first: the replay's tables are
	// written at one end of the ids in flight and read or deleted at the
	// other. They may be empty; every other page in pages holds an id.
	// tags are the last ids of their pages (key<<pageBits | pageLen-1),
	// 0 where there is none: page's test of the page used last is then
	// one comparison, small enough to inline.
	tags [2]uint64
	hot  [2]*page[V]
	// spares are pages dropped lately, kept (all zero) for the next ones
	// needed, at most maxSpares: a table whose few ids come and go, as
	// declarations do, would otherwise allocate a page per id, and one
	// whose ids go many pages at a time, as a launch tree's kernels do
	// once it is checked or handed over (BFS scale 20: several pages of
	// children a host CTA), a page per page.
	spares []*page[V]
	n      int
}

// maxSpares bounds the pages a Table keeps for reuse: a few tens of KB,
// however many ids it has held.
const maxSpares = 32

// page returns the page holding id, creating it if create is set; nil if
// it does not exist. The page used last, where nearly all lookups end
// (ids come in runs), is tested here, inlined into Get, Set and Delete;
// the rest is a call (pageAway). The replay's readers look up some 2.3 M
// ids of BFS scale 20, where a call of page for each was a third of the
// tables' instructions. Its inline cost is at the compiler's budget (80):
// keep it this small.
func (t *Table[V]) page(id uint64, create bool) *page[V] {
	if t.tags[0] == id|(pageLen-1) {
		return t.hot[0]
	}
	return t.pageAway(id, create)
}

// pageAway is page past the page used last.
func (t *Table[V]) pageAway(id uint64, create bool) *page[V] {
	key := id >> pageBits
	if t.tags[1] == id|(pageLen-1) {
		t.tags[0], t.tags[1] = t.tags[1], t.tags[0]
		t.hot[0], t.hot[1] = t.hot[1], t.hot[0]
		return t.hot[0]
	}
	p := t.pages[key]
	if p == nil {
		if !create {
			return nil
		}
		if t.pages == nil {
			t.pages = make(map[uint64]*page[V])
		}
		if n := len(t.spares); n > 0 {
			p = t.spares[n-1]
			t.spares[n-1] = nil
			t.spares = t.spares[:n-1]
		} else {
			p = new(page[V])
		}
		t.pages[key] = p
	}
	if old := t.hot[1]; old != nil && old.used == 0 {
		delete(t.pages, t.tags[1]>>pageBits) // an emptied page leaves the cache
		t.spare(old)
	}
	t.tags[1], t.hot[1] = t.tags[0], t.hot[0]
	t.tags[0], t.hot[0] = id|(pageLen-1), p
	return p
}

// Get returns id's value and whether it is set.
func (t *Table[V]) Get(id uint64) (V, bool) {
	if p := t.page(id, false); p != nil && p.used&(1<<(id%pageLen)) != 0 {
		return p.vals[id%pageLen], true
	}
	var zero V
	return zero, false
}

// Set sets id's value.
func (t *Table[V]) Set(id uint64, v V) {
	p := t.page(id, true)
	bit := uint64(1) << (id % pageLen)
	if p.used&bit == 0 {
		p.used |= bit
		t.n++
	}
	p.vals[id%pageLen] = v
}

// Delete removes id, if set.
func (t *Table[V]) Delete(id uint64) {
	p := t.page(id, false)
	if p != nil && p.used&(1<<(id%pageLen)) != 0 {
		t.remove(p, id)
	}
}

// Take returns id's value and whether it was set, and deletes it: one
// call and one page lookup, where a Get and a Delete took two.
func (t *Table[V]) Take(id uint64) (v V, ok bool) {
	p := t.page(id, false)
	if p != nil && p.used&(1<<(id%pageLen)) != 0 {
		v, ok = p.vals[id%pageLen], true
		t.remove(p, id)
	}
	return v, ok
}

// remove deletes id, which is set, from p, its page. p is the cached
// page now (page): if this empties it, it goes when it leaves the cache.
func (t *Table[V]) remove(p *page[V], id uint64) {
	var zero V
	p.vals[id%pageLen] = zero
	p.used &^= 1 << (id % pageLen)
	t.n--
}

// spare keeps emptied page p for reuse, if there is room.
func (t *Table[V]) spare(p *page[V]) {
	if len(t.spares) < maxSpares {
		t.spares = append(t.spares, p)
	}
}

// Len is the number of ids set.
func (t *Table[V]) Len() int { return t.n }

// Clear removes every id. Its pages are kept for reuse as far as there
// is room: a table cleared often stays the pages it needs.
func (t *Table[V]) Clear() {
	for _, p := range t.pages {
		if len(t.spares) == maxSpares {
			break
		}
		*p = page[V]{}
		t.spare(p)
	}
	clear(t.pages)
	t.tags, t.hot, t.n = [2]uint64{}, [2]*page[V]{}, 0
}
