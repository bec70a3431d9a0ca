package slots

import "testing"

// Values come back from the slots they were put in (At keeps them there),
// a freed slot is reused before the table grows, and a taken slot no
// longer holds its value.
func TestTable(t *testing.T) {
	var tb Table[*int]
	a, b, c := new(int), new(int), new(int)
	sa, sb := tb.Put(a), tb.Put(b)
	if sa == sb {
		t.Fatalf("two values in slot %d", sa)
	}
	if got := tb.At(sa); got != a || tb.Len() != 2 {
		t.Fatalf("At(%d) gave %p with %d held, want %p with 2", sa, got, tb.Len(), a)
	}
	if got := tb.Take(sa); got != a {
		t.Fatalf("slot %d gave %p, want %p", sa, got, a)
	}
	if tb.items[sa] != nil {
		t.Fatalf("slot %d still holds its value after Take", sa)
	}
	if sc := tb.Put(c); sc != sa {
		t.Fatalf("Put used slot %d, want the freed %d", sc, sa)
	}
	if len(tb.items) != 2 {
		t.Fatalf("table grew to %d slots for 2 values", len(tb.items))
	}
	if tb.Take(sb) != b || tb.Take(sa) != c {
		t.Fatal("values did not come back from their slots")
	}
}
