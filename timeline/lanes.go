package timeline

// lanes assigns slices that may overlap to threads on which they do not:
// rows arrive in order of their end, and a slice takes the first lane
// whose last slice ended by its start. Times are the file's nanoseconds,
// so that lanes that do not overlap in cycles do not in the file either.
type lanes struct {
	last []int64
}

// take returns the lane for a slice from start to end, and whether the
// lane is new.
func (l *lanes) take(start, end int64) (int, bool) {
	for i, e := range l.last {
		if e <= start {
			l.last[i] = end
			return i, false
		}
	}
	l.last = append(l.last, end)
	return len(l.last) - 1, true
}
