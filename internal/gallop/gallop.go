// Package gallop finds where a run ends in a sequence whose elements
// from some index on are in the run and from a later one are not: a
// CTA's launch sites, grouped by warp (replay; trace's tape keeps its
// runs' ends, endRun). It steps from the run's known member by doubling
// strides, then halves back between the last member found and the first
// non-member, some 2·log2(run) tests where a scan tested every element:
// a run of some 100 is 14 tests, not 100.
package gallop

// End is the index after the run that element i is in, of n elements:
// in(j) reports whether element j is in it, true for i and false from the
// run's end on (monotone over j ≥ i). in is asked of indexes in (i, n)
// only.
func End(i, n int, in func(j int) bool) int {
	lo, hi := i, n // lo in the run; hi not, or the end
	for step := 1; lo+step < hi; step *= 2 {
		if !in(lo + step) {
			hi = lo + step
			break
		}
		lo += step
	}
	for hi-lo > 1 {
		if m := int(uint(lo+hi) >> 1); in(m) {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
