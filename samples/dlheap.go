package samples

// timed is what dlLoops's clock keeps in a heap: a time and the order it
// was made in, which breaks ties (akita's (time, seq) order).
type timed interface{ key() (t, seq int64) }

// timedBefore orders a before b by (time, seq).
func timedBefore[T timed](a, b T) bool {
	at, as := a.key()
	bt, bs := b.key()
	return at < bt || at == bt && as < bs
}

// timedPush adds x to the binary min-heap h.
func timedPush[T timed](h []T, x T) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !timedBefore(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// timedPop removes the first of the binary min-heap h and returns it.
func timedPop[T timed](h []T) ([]T, T) {
	x := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && timedBefore(h[l], h[m]) {
			m = l
		}
		if l+1 < n && timedBefore(h[l+1], h[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return h, x
}
