package taskrun

// slots holds the state of tasks in flight and names each by a small
// integer, so events and queues refer to tasks without pointers. A slot is
// released when its task finishes and reused by the next one, which keeps
// memory proportional to the tasks in flight and lets a reused slot keep
// its slice capacity.
type slots[T any] struct {
	items []T
	free  []int32
}

// alloc returns a free slot; its item holds whatever the last user left,
// so the caller resets it.
func (s *slots[T]) alloc() int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	var zero T
	s.items = append(s.items, zero)
	return int32(len(s.items) - 1)
}

// at returns the item in slot i. The pointer is valid until the next alloc.
func (s *slots[T]) at(i int32) *T { return &s.items[i] }

func (s *slots[T]) release(i int32) { s.free = append(s.free, i) }

// live is the number of slots in use.
func (s *slots[T]) live() int { return len(s.items) - len(s.free) }

// fifo is a growable ring buffer of slot numbers: the host's and the
// schedulers' queues.
type fifo struct {
	buf  []int32
	head int
	n    int
}

func (f *fifo) len() int { return f.n }

func (f *fifo) push(x int32) {
	if f.n == len(f.buf) {
		f.grow()
	}
	f.buf[(f.head+f.n)%len(f.buf)] = x
	f.n++
}

// peek returns the oldest element; the fifo must not be empty.
func (f *fifo) peek() int32 { return f.buf[f.head] }

// pop removes and returns the oldest element; the fifo must not be empty.
func (f *fifo) pop() int32 {
	x := f.buf[f.head]
	f.head = (f.head + 1) % len(f.buf)
	f.n--
	return x
}

func (f *fifo) grow() {
	buf := make([]int32, max(8, 2*len(f.buf)))
	for i := 0; i < f.n; i++ {
		buf[i] = f.buf[(f.head+i)%len(f.buf)]
	}
	f.buf, f.head = buf, 0
}
