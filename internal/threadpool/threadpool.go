// Package threadpool is when each host thread is free: the replay's host
// threads and the greedy schedule of the narrow-task critical-path floors
// (bounds) pick a thread by the same rule, First. It owns nothing else.
package threadpool

// Pool is each thread's free cycle.
type Pool []int64

// New is n threads (at least one), each free from cycle from.
func New(n, from int64) Pool {
	p := make(Pool, max(n, 1))
	for i := range p {
		p[i] = from
	}
	return p
}

// First is the thread free first, the lowest-numbered on a tie.
func (p Pool) First() int {
	j := 0
	for i, t := range p {
		if t < p[j] {
			j = i
		}
	}
	return j
}

// Take gives a piece of cost cycles the thread free first, as soon as it
// is free, and returns when it starts.
func (p Pool) Take(cost int64) int64 {
	j := p.First()
	start := p[j]
	p[j] = start + cost
	return start
}
