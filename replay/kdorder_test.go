package replay

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKDOrder checks kdOrder against a plain slice over random entries
// and removals (most of the oldest, as under CDP, some from anywhere): the
// kernels in entry order after every change, no kernel kept outside the
// window (it would stay alive), and an array that stays within four times
// the most entries held (plus its least size).
func TestKDOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var o kdOrder
	var want []*Kernel
	most := 0
	for step := range 100000 {
		limit := []int{32, 5, 1, 60}[step/25000]
		if len(want) < limit && (len(want) == 0 || r.IntN(2) == 0) {
			k := &Kernel{id: uint64(step)}
			o.add(k)
			want = append(want, k)
		} else {
			i := 0
			if r.IntN(5) == 0 {
				i = r.IntN(len(want))
			}
			o.remove(want[i])
			want = slices.Delete(want, i, i+1)
		}
		most = max(most, len(want))
		if !slices.Equal(o.kernels(), want) || o.len() != len(want) {
			t.Fatalf("step %d: kernels %v, want %v", step, ids(o.kernels()), ids(want))
		}
		for i, k := range o.buf {
			if k != nil && (i < o.lo || i >= o.hi) {
				t.Fatalf("step %d: kernel %d kept at %d, outside [%d, %d)", step, k.id, i, o.lo, o.hi)
			}
		}
		if len(o.buf) > max(4*most, 16) {
			t.Fatalf("step %d: array of %d for at most %d entries", step, len(o.buf), most)
		}
	}
	o.remove(&Kernel{}) // one it does not hold: nothing changes
	if !slices.Equal(o.kernels(), want) {
		t.Fatalf("removing a kernel not held: kernels %v, want %v", ids(o.kernels()), ids(want))
	}
}

func ids(ks []*Kernel) []uint64 {
	out := make([]uint64, len(ks))
	for i, k := range ks {
		out[i] = k.id
	}
	return out
}

// A Kernel Distributor that keeps no order of its holders (LaunchAll's)
// reports them as one that keeps it does: in entry order, those that
// left gone, their numbers' slots reused.
func TestHoldersUnordered(t *testing.T) {
	ordered, unordered := newKernelDistributor(8, InlineAll{}), newKernelDistributor(8, nil)
	if ordered.unordered || !unordered.unordered {
		t.Fatalf("unordered %v and %v, want false and true", ordered.unordered, unordered.unordered)
	}
	for _, d := range []*kernelDistributor{&ordered, &unordered} {
		ks := make([]*Kernel, 6)
		enter := func(i int) {
			ks[i] = &Kernel{id: uint64(i)}
			d.enter(ks[i]).start(ks[i])
			d.number(ks[i])
			ks[i].inKD = true // as enterKD sets it
		}
		for i := range 4 {
			enter(i)
		}
		leave := func(i int) { ks[i].inKD = false; d.leave(ks[i]) } // as drained does
		leave(1)
		leave(0)
		enter(4)
		enter(5)
		leave(4)
		var ids []uint64
		for _, k := range d.holders() {
			ids = append(ids, k.id)
		}
		if want := []uint64{2, 3, 5}; !slices.Equal(ids, want) || d.heldLen() != 3 {
			t.Errorf("unordered %v: holders %v (%d held), want %v", d.unordered, ids, d.heldLen(), want)
		}
	}
}
