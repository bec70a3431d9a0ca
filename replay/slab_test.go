package replay

import "testing"

// Every value a slab hands out is its own: later ones, past a block's
// end included, leave it as it was set.
func TestSlab(t *testing.T) {
	var s slab[uint64]
	var got []*uint64
	for i := range uint64(3*slabLen + 5) {
		got = append(got, s.of(i))
	}
	for i, p := range got {
		if *p != uint64(i) {
			t.Fatalf("value %d reads %d", i, *p)
		}
	}
	if a := testing.AllocsPerRun(slabLen, func() { s.of(7) }); a > 0.01 {
		t.Errorf("%v allocations a value", a)
	}
}
