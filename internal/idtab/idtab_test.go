package idtab

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAgainstMap drives a Table and a map with the same random operations
// (Set, Delete, Take, Get) over dense, clustered and huge ids and
// requires the same answers.
func TestAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tab Table[int]
	ref := map[uint64]int{}
	ids := func() uint64 {
		switch r.IntN(3) {
		case 0:
			return r.Uint64N(300)
		case 1:
			return math.MaxUint64 - r.Uint64N(100)
		}
		return r.Uint64()
	}
	var seen []uint64
	for i := 0; i < 100000; i++ {
		var id uint64
		if len(seen) > 0 && r.IntN(2) == 0 {
			id = seen[r.IntN(len(seen))]
		} else {
			id = ids()
			seen = append(seen, id)
		}
		switch r.IntN(4) {
		case 0:
			tab.Set(id, i)
			ref[id] = i
		case 1:
			tab.Delete(id)
			delete(ref, id)
		case 2:
			got, ok := tab.Take(id)
			want, wok := ref[id]
			if got != want || ok != wok {
				t.Fatalf("op %d: Take(%d) = %d, %v; want %d, %v", i, id, got, ok, want, wok)
			}
			delete(ref, id)
		}
		got, ok := tab.Get(id)
		want, wok := ref[id]
		if got != want || ok != wok {
			t.Fatalf("op %d: Get(%d) = %d, %v; want %d, %v", i, id, got, ok, want, wok)
		}
		if tab.Len() != len(ref) {
			t.Fatalf("op %d: Len %d, want %d", i, tab.Len(), len(ref))
		}
	}
	tab.Clear()
	if _, ok := tab.Get(seen[0]); ok || tab.Len() != 0 {
		t.Fatal("Clear left ids behind")
	}
}

// TestPagesFollowLiveIDs checks a table's pages are dropped as their ids are
// deleted: a sliding window of ids never holds more pages than it spans.
func TestPagesFollowLiveIDs(t *testing.T) {
	var tab Table[*int]
	const window = 1000
	x := new(int)
	for id := uint64(0); id < 100000; id++ {
		tab.Set(id, x)
		if id >= window {
			tab.Delete(id - window)
		}
		if n := len(tab.pages); n > window/pageLen+2 {
			t.Fatalf("at id %d: %d pages for %d live ids", id, n, tab.Len())
		}
	}
}

func BenchmarkSequential(b *testing.B) {
	var tab Table[*int]
	x := new(int)
	for i := 0; i < b.N; i++ {
		id := uint64(i)
		tab.Set(id, x)
		if v, _ := tab.Get(id); v != x {
			b.Fatal("lost")
		}
		if id >= 50000 {
			tab.Delete(id - 50000)
		}
	}
}

func BenchmarkSequentialMap(b *testing.B) {
	tab := map[uint64]*int{}
	x := new(int)
	for i := 0; i < b.N; i++ {
		id := uint64(i)
		tab[id] = x
		if tab[id] != x {
			b.Fatal("lost")
		}
		if id >= 50000 {
			delete(tab, id-50000)
		}
	}
}

// TestComeAndGo checks that ids set and deleted one at a time, as kernel
// declarations are, reuse one page instead of allocating one each.
func TestComeAndGo(t *testing.T) {
	var tab Table[*int]
	x := new(int)
	allocs := testing.AllocsPerRun(100, func() {
		for id := uint64(0); id < 64*100; id += 64 {
			tab.Set(id, x)
			tab.Delete(id)
		}
	})
	if allocs > 1 {
		t.Errorf("%.0f allocations for 100 ids set and deleted on 100 pages", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		for id := uint64(0); id < 64*100; id += 64 {
			tab.Set(id, x)
			tab.Clear()
		}
	})
	if allocs > 1 {
		t.Errorf("%.0f allocations for 100 ids each set and cleared", allocs)
	}
}

// TestBurstsReusePages checks that ids set and deleted many pages at a
// time, as a launch tree's kernels are once it is handed over, reuse the
// pages dropped rather than allocate new ones, and that the pages kept
// for reuse stay bounded however many such bursts come.
func TestBurstsReusePages(t *testing.T) {
	var tab Table[*int]
	x := new(int)
	next := uint64(0)
	burst := func() {
		from := next
		for ; next < from+8*pageLen; next++ {
			tab.Set(next, x)
		}
		for id := from; id < next; id++ {
			tab.Delete(id)
		}
	}
	burst()
	if allocs := testing.AllocsPerRun(100, burst); allocs > 0 {
		t.Errorf("%.0f allocations for ids over 8 pages set and deleted", allocs)
	}
	for i := 0; i < 100; i++ {
		for id := next; id < next+100*pageLen; id++ {
			tab.Set(id, x)
		}
		next += 100 * pageLen
		tab.Clear()
	}
	if len(tab.spares) > maxSpares || len(tab.pages) > 0 {
		t.Errorf("%d pages kept for reuse, %d in use after Clear", len(tab.spares), len(tab.pages))
	}
}

// Every page the table keeps holds an id, but for the two cached ones: a
// cached page that empties stays (an id that comes and goes on it costs
// no map operation), and goes once it leaves the cache.
func TestOnlyCachedPagesStayEmpty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var tab Table[int]
	live := map[uint64]bool{}
	var next uint64
	for i := 0; i < 20000; i++ {
		if r.IntN(2) == 0 || len(live) == 0 {
			id := next + uint64(r.IntN(3))*pageLen // mostly in order, now and then a page on
			next++
			tab.Set(id, i)
			live[id] = true
		} else {
			for id := range live {
				tab.Delete(id)
				delete(live, id)
				break
			}
		}
		for key, p := range tab.pages {
			cached := p == tab.hot[0] || p == tab.hot[1]
			if p.used == 0 && !cached {
				t.Fatalf("op %d: page %d is empty and not cached", i, key)
			}
		}
	}
	// One id at a time, declared then launched: one page, never dropped.
	var one Table[int]
	for id := uint64(0); id < 60; id++ {
		one.Set(id, 1)
		one.Delete(id)
		if len(one.pages) != 1 || one.Len() != 0 {
			t.Fatalf("id %d: %d pages, %d ids", id, len(one.pages), one.Len())
		}
	}
}

// The page used last is found by its tag (page): a zero table and a
// cleared one have none, so their first Set makes a page, whatever the id
// (ids 0..63 included, whose page's tag is 63, and those of the pages used
// last before Clear), and Get finds nothing.
func TestClearForgetsCachedPages(t *testing.T) {
	var tab Table[int]
	for _, id := range []uint64{0, 63} {
		if _, ok := tab.Get(id); ok {
			t.Fatalf("zero table: Get(%d) found a value", id)
		}
	}
	last := uint64(3*pageLen - 1)
	for id := uint64(0); id <= last; id += 7 {
		tab.Set(id, int(id)+1)
	}
	tab.Clear()
	if _, ok := tab.Get(last); ok {
		t.Fatalf("cleared table: Get(%d) found a value", last)
	}
	tab.Set(last, 70)
	tab.Set(7, 80)
	if v, ok := tab.Get(last); !ok || v != 70 || tab.Len() != 2 {
		t.Fatalf("after Clear: Get(%d) = %d, %v, Len %d; want 70, true, 2", last, v, ok, tab.Len())
	}
}
