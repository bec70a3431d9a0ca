// Package slots names values by small integers, reusing the numbers of
// values taken out, so that an event or a heap entry can refer to a value
// by a 32-bit slot instead of holding it: the replay engine's events name
// kernels and groups this way.
package slots

// Table holds values by slot. The slots in use stay as few as the values
// held at once, whatever the number put over time.
type Table[T any] struct {
	items []T
	free  []int32 // slots of items that hold nothing
}

// Put holds x in a free slot and returns the slot.
func (t *Table[T]) Put(x T) int32 {
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.items[i] = x
		return i
	}
	t.items = append(t.items, x)
	return int32(len(t.items) - 1)
}

// Take returns the value in slot i and frees the slot, which then holds
// the zero value (so a pointer it held is not kept alive).
func (t *Table[T]) Take(i int32) T {
	x := t.items[i]
	var zero T
	t.items[i] = zero
	t.free = append(t.free, i)
	return x
}

// At returns the value in slot i, which keeps it.
func (t *Table[T]) At(i int32) T { return t.items[i] }

// Len is the number of values held.
func (t *Table[T]) Len() int { return len(t.items) - len(t.free) }
