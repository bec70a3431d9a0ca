package idtab

import (
	"math/rand/v2"
	"testing"
)

// A Pending gives what a map gives, for ids set once and taken once in
// any order: each right after it is set (the held one), later, or never.
func TestPending(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var p Pending[int]
	ref := map[uint64]int{}
	var waiting []uint64
	next := uint64(1)
	for op := 0; op < 20000; op++ {
		if len(waiting) == 0 || r.IntN(3) > 0 {
			id := next
			next += 1 + r.Uint64N(3)
			p.Set(id, op)
			ref[id] = op
			waiting = append(waiting, id)
			continue
		}
		i := len(waiting) - 1 // most often the one set last
		if r.IntN(2) == 0 {
			i = r.IntN(len(waiting))
		}
		id := waiting[i]
		waiting = append(waiting[:i], waiting[i+1:]...)
		if v, ok := p.Get(id); !ok || v != ref[id] {
			t.Fatalf("op %d: Get(%d) = %d, %v; want %d", op, id, v, ok, ref[id])
		}
		if r.IntN(2) == 0 {
			p.Delete(id)
		} else if v, ok := p.Take(id); !ok || v != ref[id] {
			t.Fatalf("op %d: Take(%d) = %d, %v; want %d", op, id, v, ok, ref[id])
		}
		delete(ref, id)
		if p.Len() != len(ref) {
			t.Fatalf("op %d: Len %d, want %d", op, p.Len(), len(ref))
		}
		if _, ok := p.Get(id); ok {
			t.Fatalf("op %d: id %d still set after Take", op, id)
		}
		if _, ok := p.Take(id); ok {
			t.Fatalf("op %d: id %d taken twice", op, id)
		}
	}
	for _, id := range []uint64{0, next} {
		if _, ok := p.Get(id); ok {
			t.Fatalf("id %d, never set, is set", id)
		}
	}
}
