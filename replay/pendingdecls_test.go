package replay

import (
	"math/rand/v2"
	"testing"
)

// pendingDecls gives what a map of the declarations gives, for kernels
// declared once and launched once in any order: each launched right after
// its declaration (the held one), later, or never.
func TestPendingDecls(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var p pendingDecls
	ref := map[uint64]declaration{}
	var waiting []uint64
	next := uint64(1)
	for op := 0; op < 20000; op++ {
		if len(waiting) == 0 || r.IntN(3) > 0 {
			id := next
			next += 1 + r.Uint64N(3)
			d := declaration{ctas: id * 7}
			p.declare(id, d)
			ref[id] = d
			waiting = append(waiting, id)
			continue
		}
		i := len(waiting) - 1 // most often the one declared last
		if r.IntN(2) == 0 {
			i = r.IntN(len(waiting))
		}
		id := waiting[i]
		waiting = append(waiting[:i], waiting[i+1:]...)
		if d, ok := p.take(id); !ok || d != ref[id] {
			t.Fatalf("op %d: take(%d) = %v, %v; want %v", op, id, d, ok, ref[id])
		}
		delete(ref, id)
		if _, ok := p.take(id); ok {
			t.Fatalf("op %d: kernel %d taken twice", op, id)
		}
	}
	if _, ok := p.take(next); ok {
		t.Fatal("took a kernel never declared")
	}
}
